#!/bin/sh
# dacce-race-ctest.sh DACCE_RACE [dacce-race options] -- PROGRAM [ARGS...]
#
# The command of every dacce_race_add_test() test (DacceRaceConfig.cmake):
# runs the program under dacce-race, exit status unchanged (66 when races
# were reported).
#
# Under `ctest -T memcheck` with MemoryCheckType ThreadSanitizer, ctest runs
# each test with
#   TSAN_OPTIONS=log_path='<build>/Testing/Temporary/MemoryChecker.<n>.log'
#                [:suppressions=FILE][:<MemoryCheckSanitizerOptions>]
# and then counts the lines 'WARNING: ThreadSanitizer: <kind> (pid=N)' of the
# files <log_path>.<pid>.  dacce-race reads no TSAN_OPTIONS, so this turns
#   log_path=P        into --log-path=P --tsan-header (stderr/stdout: only
#                     --tsan-header)
#   suppressions=F    into --suppressions=F (the same TSan syntax)
#   halt_on_error=1   into --halt-on-error
#   exitcode=N        into --exitcode=N
# and ignores any other entry with a note on stderr.  Options given to
# dacce_race_add_test(OPTIONS ...) come later and win.
set -u

if [ $# -lt 1 ]; then
  echo "usage: $0 DACCE_RACE [options] -- PROGRAM [ARGS...]" >&2
  exit 2
fi
launcher=$1
shift

note() { echo "dacce-race-ctest: $*" >&2; }

opts=${TSAN_OPTIONS-}
while [ -n "$opts" ]; do
  case $opts in
    [:\ ,]*) opts=${opts#?}; continue ;;
  esac
  word=${opts%%[:\ ,]*}
  case $word in
    *=*) ;;
    *) note "ignoring TSAN_OPTIONS entry '$word'"; opts=${opts#"$word"}; continue ;;
  esac
  key=${opts%%=*}
  rest=${opts#*=}
  case $rest in
    \'*) rest=${rest#\'}; val=${rest%%\'*}; rest=${rest#"$val"}; rest=${rest#\'} ;;
    \"*) rest=${rest#\"}; val=${rest%%\"*}; rest=${rest#"$val"}; rest=${rest#\"} ;;
    *) val=${rest%%[:\ ,]*}; rest=${rest#"$val"} ;;
  esac
  opts=$rest
  case $key in
    log_path)
      case $val in
        stderr | stdout | "") set -- --tsan-header "$@" ;;
        *) set -- "--log-path=$val" --tsan-header "$@" ;;
      esac ;;
    suppressions) [ -n "$val" ] && set -- "--suppressions=$val" "$@" ;;
    halt_on_error) [ "$val" != 0 ] && set -- --halt-on-error "$@" ;;
    exitcode) set -- "--exitcode=$val" "$@" ;;
    *) note "ignoring TSAN_OPTIONS entry '$key=$val' (dacce-race --help lists its options)" ;;
  esac
done

exec "$launcher" "$@"
