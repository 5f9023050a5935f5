"""gcc_source.py: parts of gcc 12's source tree, from the Debian package
gcc-12-source (/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz), extracted once into
the build tree: gcc's ThreadSanitizer testsuite (run_gcc_tsan.py) and
libstdc++'s thread tests (run_libstdcxx_threads.py)."""
import os
import shutil
import subprocess
import sys
import tempfile

TARBALL = "/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz"


def extract(cache, members, check=None):
    """extract the tarball's MEMBERS (tar wildcards) once into CACHE,
    atomically (concurrent runs share it); check(tmp) looks at them before
    they are moved into place.  Exit 77 when the package is missing."""
    stamp = os.path.join(cache, ".extracted")
    if os.path.exists(stamp) and open(stamp).read() == "\n".join(members):
        return
    if not os.path.exists(TARBALL) and os.geteuid() == 0:
        # the README's install step and .ci/packages bring it; install it here
        # when missing (as root), so the suite is never skipped silently
        subprocess.run(["apt-get", "install", "-y", "-qq", "gcc-12-source"],
                       env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=900)
    if not os.path.exists(TARBALL):
        print("%s missing: apt-get install -y gcc-12-source" % TARBALL)
        sys.exit(77)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="extract-", dir=os.path.dirname(cache))
    subprocess.run(["tar", "-xJf", TARBALL, "-C", tmp, "--wildcards"] + members, check=True)
    if check:
        check(tmp)
    with open(os.path.join(tmp, ".extracted"), "w") as f:
        f.write("\n".join(members))
    shutil.rmtree(cache, ignore_errors=True)
    try:
        os.rename(tmp, cache)
    except OSError:  # another run got there first
        shutil.rmtree(tmp, ignore_errors=True)
