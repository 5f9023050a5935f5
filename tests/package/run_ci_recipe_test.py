#!/usr/bin/env python3
"""run_ci_recipe_test.py SRC_DIR [gcc|clang ...]

Runs the GitHub Actions recipe docs/ci/github-actions.yml locally, step by
step, as the runner would in its Debian 12 container, on a workspace holding
the test consumer project (tests/package/consumer) with the dacce-race
sources at $DACCE_RACE_SRC:
  - the job env, with ${{ matrix.compiler }} and the CXX expression
    evaluated for each compiler (default: gcc clang);
  - every `run:` step with `bash -eo pipefail` in the workspace, except the
    apt-get step (the dependencies are the ones this build already uses);
    DACCE_RACE_PREFIX points into a temporary directory instead of /opt;
  - `uses:` steps are checked, not run: the checkout is the copied
    workspace, upload-sarif must name the merged log;
  - the recipe's /tmp/dacce-race-build is one temporary directory for both
    compilers: its step builds dacce-race with gcc whatever the matrix says,
    so the second compiler's run of it finds the build done and only
    configures and installs (a full build of dacce-race less in the suite);
    so that CMake takes it, each compiler's job has its workspace at the
    same path, made afresh.
Checks that the test step fails (the consumer's racy test races), that the
merged dacce-race.sarif is one valid run whose alert is on racy.c relative
to %SRCROOT%, and that the last step fails the job.
Exit status: 0 pass, 1 failure, 77 PyYAML or every compiler missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def main():
    if len(sys.argv) < 2:
        sys.exit(f"usage: {sys.argv[0]} SRC_DIR [gcc|clang ...]")
    src = os.path.abspath(sys.argv[1])
    compilers = sys.argv[2:] or ["gcc", "clang"]
    try:
        import yaml
    except ImportError:
        print("SKIP: PyYAML (python3-yaml) is not installed")
        return SKIP
    wf_path = os.path.join(src, "docs", "ci", "github-actions.yml")
    with open(wf_path) as f:
        wf = yaml.safe_load(f)
    failures = []

    def fail(msg):
        print("FAIL:", msg)
        failures.append(msg)
    fail.failures = failures

    # ------------------------------------------------------------ shape
    if wf.get("permissions", {}).get("security-events") != "write":
        fail("permissions.security-events is not 'write' (upload-sarif needs it)")
    job = wf["jobs"]["races"]
    if job.get("container") != "debian:12":
        fail(f"container is {job.get('container')!r}, not debian:12")
    if job.get("strategy", {}).get("matrix", {}).get("compiler") != ["gcc", "clang"]:
        fail("matrix.compiler is not [gcc, clang]")
    steps = job["steps"]
    uploads = [s for s in steps if str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif@")]
    if len(uploads) != 1:
        fail("no single github/codeql-action/upload-sarif step")
    upload_file = uploads[0].get("with", {}).get("sarif_file") if uploads else None
    if not any(str(s.get("uses", "")).startswith("actions/checkout@") for s in steps):
        fail("no actions/checkout step")

    ran = 0
    root = tempfile.mkdtemp(prefix="dacce-ci-recipe-")
    build = os.path.join(root, "dacce-race-build")
    try:
        for cc in compilers:
            cxx = {"gcc": "g++", "clang": "clang++"}[cc]
            if not shutil.which(cc) or not shutil.which(cxx):
                print(f"skip: {cc} not installed")
                continue
            ran += 1
            tmp = os.path.join(root, "job")
            shutil.rmtree(tmp, ignore_errors=True)
            os.makedirs(tmp)
            run_recipe(src, job, steps, cc, tmp, build, upload_file, fail)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if not ran:
        print("SKIP: no compiler")
        return SKIP
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("PASS")
    return 0


def expand(value, cc):
    """the GitHub expressions this recipe uses, for matrix.compiler = cc"""
    def one(m):
        expr = m.group(1).strip()
        if expr == "matrix.compiler":
            return cc
        m2 = re.fullmatch(r"matrix\.compiler == '(\w+)' && '([^']*)' \|\| '([^']*)'", expr)
        if m2:
            return m2.group(2) if cc == m2.group(1) else m2.group(3)
        raise SystemExit(f"test bug: unsupported expression ${{{{ {expr} }}}} in the recipe")
    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_recipe(src, job, steps, cc, tmp, build, upload_file, fail):
    ws = os.path.join(tmp, "workspace")
    shutil.copytree(os.path.join(HERE, "consumer"), ws)
    env = dict(os.environ)
    env.pop("DACCE_OPTIONS", None)
    env.pop("DACCE_RACE_OPTIONS", None)
    for k, v in job.get("env", {}).items():
        env[k] = expand(v, cc)
    # the sources where the recipe expects them; the prefix in our temp dir
    dacce_src = os.path.join(ws, env["DACCE_RACE_SRC"])
    os.makedirs(os.path.dirname(dacce_src), exist_ok=True)
    os.symlink(src, dacce_src)
    env["DACCE_RACE_PREFIX"] = os.path.join(tmp, "opt-dacce-race")
    env["GITHUB_WORKSPACE"] = ws
    if env.get("CC") != cc:
        fail(f"{cc}: job env CC is {env.get('CC')!r}")

    outcomes = {}
    for i, step in enumerate(steps):
        name = step.get("name") or step.get("uses") or f"step {i}"
        if "uses" in step:
            print(f"[{cc}] check only: {name}")
            continue
        script = step["run"]
        if "apt-get" in script:
            print(f"[{cc}] skipped (dependencies): {name}")
            continue
        cond = str(step.get("if", ""))
        if "steps.tests.outcome == 'failure'" in cond and outcomes.get("tests") != "failure":
            fail(f"{cc}: the test step did not fail, so '{name}' would not run")
            continue
        # /tmp/dacce-race-build of the recipe goes into our temp dir
        script = script.replace("/tmp/dacce-race-build", build)
        script = expand(script, cc)
        print(f"[{cc}] run: {name}", flush=True)
        p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                           cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        outcome = "success" if p.returncode == 0 else "failure"
        if step.get("id"):
            outcomes[step["id"]] = outcome
        log = p.stdout
        if step.get("id") == "tests":
            if outcome != "failure":
                fail(f"{cc}: ctest passed although racy races")
            if not re.search(r"racy \.+\*\*\*Failed", log) or "WARNING: dacce-race: data race" not in log:
                print(log)
                fail(f"{cc}: the test step does not show racy failing with a report")
            for t in ("clean_c", "clean_cxx"):
                if not re.search(rf"{t} \.+ +Passed", log):
                    fail(f"{cc}: {t} did not pass")
        elif "Fail on races" in name:
            if outcome != "failure":
                fail(f"{cc}: '{name}' did not fail the job")
        elif outcome != "success" and not step.get("continue-on-error"):
            print(log)
            fail(f"{cc}: step '{name}' failed ({p.returncode})")
            return

    # the merged log upload-sarif gets
    sarif = os.path.join(ws, upload_file or "dacce-race.sarif")
    if not os.path.exists(sarif):
        fail(f"{cc}: {sarif} was not written")
        return
    v = subprocess.run([sys.executable, os.path.join(src, "tests", "sarif", "validate_sarif.py"),
                        "--min-results", "1", sarif], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if v.returncode not in (0, SKIP):
        print(v.stdout)
        fail(f"{cc}: the merged SARIF log is not valid")
    with open(sarif) as f:
        log = json.load(f)
    runs = log.get("runs", [])
    if len(runs) != 1:
        fail(f"{cc}: the merged log has {len(runs)} runs, not 1")
        return
    run = runs[0]
    if run["originalUriBaseIds"]["%SRCROOT%"]["uri"] != "file://" + ws + "/":
        fail(f"{cc}: %SRCROOT% is not the workspace")
    locs = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run["results"]]
    if {"uri": "racy.c", "uriBaseId": "%SRCROOT%"} not in locs:
        fail(f"{cc}: no alert on racy.c relative to %SRCROOT%: {locs}")
    fps = [json.dumps(r.get("partialFingerprints"), sort_keys=True) for r in run["results"]]
    if len(fps) != len(set(fps)):
        fail(f"{cc}: the merged log repeats a fingerprint")
    if not fail.failures:
        print(f"ok: {cc}: the recipe builds dacce-race and the project, fails the tests, "
              f"writes one SARIF run ({len(run['results'])} alert(s)) and fails the job")


if __name__ == "__main__":
    sys.exit(main())
