#!/usr/bin/env bash
# run_package_test.sh SRC_DIR BUILD_DIR [gcc|clang ...]
#
# The CMake package end to end: installs BUILD_DIR (`cmake --install`) into a
# staging prefix, moves the tree elsewhere (the package must be relocatable),
# then, for each compiler (default: gcc clang) as CC/CXX, configures the
# consumer project tests/package/consumer against it with
# find_package(DacceRace), builds it and checks that
#  - ctest fails `racy` (dacce-race reported the race, exit 66) with a full
#    report, and passes racy_suppressed (OPTIONS --suppressions=...),
#    clean_c (an instrumented shared library too), clean_cxx (C++, shared
#    runtime) and launcher_version;
#  - DACCE_RACE_REPORT_DIR got racy.jsonl / racy.sarif (valid SARIF, checked
#    with tests/sarif/validate_sarif.py when python3-jsonschema is there) and
#    empty reports for the clean tests;
#  - `ctest -T memcheck` with MemoryCheckType ThreadSanitizer counts the
#    reports ("data race - N") from the 'WARNING: ThreadSanitizer:' headers.
# Exit status: 0 pass, 1 failure, 77 every requested compiler is missing.
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 SRC_DIR BUILD_DIR [gcc|clang ...]" >&2
  exit 2
fi
src=$(cd "$1" && pwd) || exit 1
build=$(cd "$2" && pwd) || exit 1
shift 2
compilers=("$@")
[ ${#compilers[@]} -eq 0 ] && compilers=(gcc clang)
consumer=$src/tests/package/consumer
python=$(command -v python3 || true)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dacce-package-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

# ---------------------------------------------------------------- install
if ! cmake --install "$build" --prefix "$tmp/stage" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  echo "FAIL: cmake --install $build failed"
  exit 1
fi
mv "$tmp/stage" "$tmp/prefix" # relocated: nothing may point into the staging path
prefix=$tmp/prefix
for f in bin/dacce-cc bin/dacce-c++ bin/dacce-race bin/dacce-decode \
         lib/dacce/dacce_rt.o lib/dacce/libdacce.so lib/dacce/libtsan.so \
         lib/dacce/libtsan_preinit.o lib/dacce/dacce.dynlist include/dacce.h \
         lib/cmake/DacceRace/DacceRaceConfig.cmake \
         lib/cmake/DacceRace/DacceRaceConfigVersion.cmake \
         lib/cmake/DacceRace/dacce-race-ctest.sh \
         share/doc/dacce-race/user-guide.md share/doc/dacce-race/ci/merge_sarif.py; do
  [ -e "$prefix/$f" ] || fail "install: $f missing"
done
for f in bin/dacce-cc bin/dacce-race bin/dacce-decode lib/cmake/DacceRace/dacce-race-ctest.sh; do
  [ -x "$prefix/$f" ] || fail "install: $f not executable"
done
[ "$(readlink "$prefix/bin/dacce-c++")" = dacce-cc ] || fail "install: bin/dacce-c++ is not a symlink to dacce-cc"
if grep -rqs "$tmp/stage" "$prefix/lib/cmake"; then
  fail "install: the package files name the staging prefix (not relocatable)"
fi
"$prefix/bin/dacce-race" --version | grep -q '^dacce-race ' || fail "installed dacce-race --version"

# ---------------------------------------------------------------- consumer
ran=0
for cc in "${compilers[@]}"; do
  case $cc in
    gcc) cxx=g++ ;;
    clang) cxx=clang++ ;;
    *) echo "unknown compiler $cc"; exit 2 ;;
  esac
  if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null; then
    echo "skip: $cc/$cxx not installed"
    continue
  fi
  ran=$((ran + 1))
  b=$tmp/consumer-$cc
  reports=$b/reports
  if ! CC=$cc CXX=$cxx cmake -S "$consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" \
       -DDACCE_RACE_REPORT_DIR="$reports" >"$tmp/configure-$cc.log" 2>&1; then
    cat "$tmp/configure-$cc.log"
    fail "$cc: configuring the consumer project failed"
    continue
  fi
  grep -q "The C compiler identification is $( [ "$cc" = gcc ] && echo GNU || echo Clang)" \
    "$tmp/configure-$cc.log" || fail "$cc: the consumer was not configured with $cc"
  if ! cmake --build "$b" -j2 >"$tmp/build-$cc.log" 2>&1; then
    cat "$tmp/build-$cc.log"
    fail "$cc: building the consumer project failed"
    continue
  fi
  ok "$cc: consumer configured with find_package(DacceRace) and built"

  # the executables link our runtime, not libtsan
  for exe in racy clean_c clean_cxx; do
    if readelf -d "$b/$exe" | grep -q 'libtsan'; then fail "$cc: $exe needs libtsan"; fi
  done
  nm "$b/racy" | grep -q ' T dacce_capture$' || fail "$cc: racy does not contain the static runtime"
  readelf -d "$b/clean_cxx" | grep -q 'NEEDED.*libdacce\.so' ||
    fail "$cc: clean_cxx (RUNTIME shared) does not need libdacce.so"
  nm -D --defined-only "$b/libtally.so" | grep -q '__tsan_' &&
    fail "$cc: libtally.so defines runtime symbols (a library must get no runtime)"

  # ctest: racy fails with a report, the others pass
  (cd "$b" && ctest --output-on-failure) >"$tmp/ctest-$cc.log" 2>&1
  rc=$?
  log=$tmp/ctest-$cc.log
  [ $rc -ne 0 ] || fail "$cc: ctest passed although racy races"
  grep -Eq 'Test +#[0-9]+: racy \.+\*\*\*Failed' "$log" || fail "$cc: ctest did not fail racy"
  for t in racy_suppressed clean_c clean_cxx launcher_version; do
    grep -Eq "Test +#[0-9]+: $t \\.+ +Passed" "$log" || fail "$cc: ctest did not pass $t"
  done
  grep -q '1 tests failed out of 5' "$log" || fail "$cc: ctest summary is not '1 tests failed out of 5'"
  grep -q '^WARNING: dacce-race: data race (pid=' "$log" || fail "$cc: no report in racy's output"
  grep -Eq "#0 record_hit $consumer/racy\\.c:9(:[0-9]+)? \\(racy\\+0x" "$log" ||
    fail "$cc: the report lacks the access stack with the full path of racy.c"
  grep -Eq "Location is global 'hits' of size 8 at 0x[0-9a-f]+ \\(racy\\+0x[0-9a-f]+\\) declared at $consumer/racy\\.c:7" "$log" ||
    fail "$cc: the report lacks the location"
  grep -Eq "#0 main $consumer/racy\\.c:1[89]" "$log" || fail "$cc: the report lacks the creation stack"
  # the launcher's own exit status
  "$prefix/bin/dacce-race" --quiet "$b/racy" >/dev/null 2>&1
  rc=$?
  [ $rc -eq 66 ] && ok "$cc: dacce-race racy exits 66" || fail "$cc: dacce-race racy exited $rc, not 66"
  [ $failures -eq 0 ] && ok "$cc: ctest fails racy (66) and passes racy_suppressed, clean_c, clean_cxx, launcher_version"

  # report files
  [ -s "$reports/racy.jsonl" ] && grep -q '"kind":"data-race"' "$reports/racy.jsonl" ||
    fail "$cc: $reports/racy.jsonl has no data-race report"
  for t in racy_suppressed clean_c clean_cxx; do
    [ -f "$reports/$t.jsonl" ] && [ ! -s "$reports/$t.jsonl" ] || fail "$cc: $t.jsonl missing or not empty"
    [ -s "$reports/$t.sarif" ] || fail "$cc: $t.sarif missing"
  done
  if [ -n "$python" ]; then
    "$python" "$src/tests/sarif/validate_sarif.py" --min-results 1 "$reports/racy.sarif" >"$tmp/sarif-$cc.log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
      echo "skip: python3-jsonschema missing, racy.sarif not validated"
    elif [ $rc -ne 0 ]; then
      cat "$tmp/sarif-$cc.log"
      fail "$cc: racy.sarif is not valid SARIF"
    else
      ok "$cc: DACCE_RACE_REPORT_DIR: racy.jsonl, valid racy.sarif, empty clean reports"
    fi
  fi

  # ctest -T memcheck: ctest counts the 'WARNING: ThreadSanitizer:' headers
  (cd "$b" && ctest -T memcheck --overwrite MemoryCheckType=ThreadSanitizer) >"$tmp/memcheck-$cc.log" 2>&1
  mlog=$tmp/memcheck-$cc.log
  if grep -q '^Memory checking results:' "$mlog" && grep -Eq '^data race - [1-9]' "$mlog" &&
     grep -Eq 'MemCheck: #[0-9]+: racy \.+ +Defects: [1-9]' "$mlog" &&
     grep -q 'WARNING: ThreadSanitizer: data race (pid=' "$b"/Testing/Temporary/MemoryChecker.*.log &&
     ! grep -Eq 'MemCheck: #[0-9]+: (clean|racy_suppressed)' "$mlog"; then
    ok "$cc: ctest -T memcheck counts the races of racy and none elsewhere"
  else
    cat "$mlog"
    fail "$cc: ctest -T memcheck did not count the races as ThreadSanitizer defects"
  fi
done

if [ $ran -eq 0 ]; then
  echo "SKIP: none of the compilers ${compilers[*]} is installed"
  exit 77
fi
if [ $failures -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
