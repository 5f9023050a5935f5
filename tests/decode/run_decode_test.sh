#!/usr/bin/env bash
# run_decode_test.sh BUILD_DIR [COMPILER...]
#
# End-to-end test of dacce-decode: builds decode_prog.c with BUILD_DIR/bin/dacce-cc
# -g -O1 under each COMPILER (default: gcc clang), runs it with
# DACCE_OPTIONS=dump=...:log_contexts=..., with the static and with the shared
# runtime (DACCE_RUNTIME), decodes the log and checks, frame by
# frame, the function names, the thread-creation lines and the source lines:
# call-site lines and definition lines come from the @call:/@fn: markers in
# decode_prog.c (grep -n), never from hard-coded numbers.  Then checks that
# bad input gets the documented errors and exit statuses.
#
# Exit status: 0 pass, 1 failure, 77 a requested compiler is missing (skip).
set -u

if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD_DIR [gcc|clang ...]" >&2
  exit 2
fi
build=$(cd "$1" && pwd) || exit 1
shift
compilers=("$@")
[ ${#compilers[@]} -eq 0 ] && compilers=(gcc clang)

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$here/decode_prog.c
dacce_cc=$build/bin/dacce-cc
decode=$build/bin/dacce-decode
for f in "$dacce_cc" "$decode"; do
  [ -x "$f" ] || { echo "FAIL: $f not built"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dacce-decode-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# line of a marker comment in decode_prog.c
mark() {
  local n
  n=$(grep -n -F "/* @$1 */" "$src" | cut -d: -f1)
  if [ -z "$n" ] || [ "$(printf '%s\n' "$n" | wc -l)" -ne 1 ]; then
    echo "test bug: marker @$1 missing or repeated in $src" >&2
    exit 1
  fi
  echo "$n"
}

# The frames of context TAG in decoder output $1, one per line:
#   header "context T<n>", frames "function@line" (+ ":c" when a column is
#   shown, as for call sites but not for a definition line; + " inlined" when
#   marked), creation lines "created T<child> by T<parent>".
# A frame whose file is not decode_prog.c gets line "?".
frames_of() {
  awk -v tag="$2" '
    $1 == "context" && $2 == tag { on = 1; t = $4; sub(/\):$/, "", t); print "context " t; next }
    on && /^$/ { exit }
    on && $1 ~ /^#[0-9]+$/ {
      line = "?"
      if ($3 !~ /^\(/) {
        n = split($3, a, ":")
        if (a[1] ~ /\/decode_prog\.c$/ && n >= 2) line = a[2] (n >= 3 ? ":c" : "")
      }
      print $2 "@" line ($NF == "[inlined]" ? " inlined" : "")
      next
    }
    on && $1 == "thread" && $4 == "created" { print "created " $2 " by " $6; next }
    on { print "unexpected: " $0 }
  ' "$1"
}

expect() { # output-file tag expected-lines...
  local out=$1 tag=$2
  shift 2
  local want got
  want=$(printf '%s\n' "$@")
  got=$(frames_of "$out" "$tag")
  if [ "$want" != "$got" ]; then
    fail "$run: context '$tag' decoded differently"
    diff <(echo "$want") <(echo "$got") | sed 's/^/    /'
  fi
}

# Check the six contexts in decoder output $1 (uses $run, and $at_a / $at_s:
# the expected positions of the creators' frames in a_helper and spawn).
check_contexts() {
  for re in "" "-re"; do
    if [ -z "$re" ]; then
      main_call=$(mark "call:main->run_all"); ta=T1; tb=T2
    else
      main_call=$(mark "call:main->run_all-re"); ta=T3; tb=T4
    fi
    expect "$1" "nested$re" \
      "context T0" \
      "log_here@$(mark fn:log_here)" \
      "leaf@$(mark call:leaf-\>log_here):c" \
      "inl_helper@$(mark call:inl_helper-\>leaf):c inlined" \
      "middle@$(mark call:middle-\>inl_helper):c" \
      "outer@$(mark call:outer-\>middle):c" \
      "run_all@$(mark call:run_all-\>outer):c" \
      "main@$main_call:c"
    rr=$(mark call:rec-\>rec)
    expect "$1" "recursion$re" \
      "context T0" \
      "log_here@$(mark fn:log_here)" \
      "rec@$(mark call:rec-\>log_here):c" \
      "rec@$rr:c" "rec@$rr:c" "rec@$rr:c" \
      "rec_start@$(mark call:rec_start-\>rec):c" \
      "run_all@$(mark call:run_all-\>rec_start):c" \
      "main@$main_call:c"
    expect "$1" "thread$re" \
      "context $tb" \
      "log_here@$(mark fn:log_here)" \
      "b_work@$(mark call:b_work-\>log_here):c" \
      "thread_b@$(mark call:thread_b-\>b_work):c" \
      "created $tb by $ta" \
      "a_helper@$at_a" \
      "thread_a@$(mark call:thread_a-\>a_helper):c" \
      "created $ta by T0" \
      "spawn@$at_s" \
      "run_all@$(mark call:run_all-\>spawn):c" \
      "main@$main_call:c"
  done
  n_ctx=$(grep -c '^context ' "$1")
  [ "$n_ctx" -eq 6 ] || fail "$run: $n_ctx contexts printed, expected 6"
}

for cc in "${compilers[@]}"; do
  if ! command -v "$cc" >/dev/null 2>&1; then
    echo "SKIP: compiler $cc not found"
    exit 77
  fi
  for rt in static shared; do
    run="$cc/$rt runtime"
    d=$tmp/$cc-$rt
    mkdir -p "$d"
    if ! DACCE_CC=$cc DACCE_RUNTIME=$rt "$dacce_cc" -g -O1 -I "$root/encoder/include" "$src" \
        -o "$d/prog" -pthread >"$d/build.log" 2>&1; then
      fail "$run: cannot build decode_prog.c"
      sed 's/^/    /' "$d/build.log"
      continue
    fi
    if ! DACCE_OPTIONS="dump=$d/x.dump:log_contexts=$d/x.log" "$d/prog" >"$d/run.log" 2>&1; then
      fail "$run: decode_prog failed"
      sed 's/^/    /' "$d/run.log"
      continue
    fi
    "$decode" "$d/x.dump" "$d/x.log" >"$d/out" 2>"$d/err"
    rc=$?
    if [ $rc -ne 0 ] || [ -s "$d/err" ]; then
      fail "$run: dacce-decode exited $rc"
      sed 's/^/    /' "$d/err"
    fi

    # The dump's thread records may carry where pthread_create was called (a
    # 7th field); the creator's frame then shows that line, else its definition.
    if awk '$1 == "thread" && NF == 8 { found = 1 } END { exit !found }' "$d/x.dump"; then
      at_a="$(mark create:a_helper):c"; at_s="$(mark create:spawn):c"
    else
      at_a=$(mark fn:a_helper); at_s=$(mark fn:spawn)
    fi
    check_contexts "$d/out"

    # The same with creation pcs added to a dump that lacks them: the call
    # instructions to pthread_create in spawn (threads created by T0) and
    # a_helper (the others), found with objdump.
    if command -v objdump >/dev/null 2>&1 &&
       ! awk '$1 == "thread" && NF == 8 { found = 1 } END { exit !found }' "$d/x.dump"; then
      bias=$(awk '$1 == "module" { print $2; exit }' "$d/x.dump")
      calls=$(objdump -d --no-show-raw-insn "$d/prog" | awk '
        /^[0-9a-f]+ <[^>]*>:$/ { f = $2; gsub(/[<>:]/, "", f); sub(/\..*/, "", f) }
        /call.*<pthread_create(@plt)?>/ && (f == "a_helper" || f == "spawn") {
          a = $1; sub(/:$/, "", a); print f, a }')
      pc_s=$(awk '$1 == "spawn" { print $2; exit }' <<<"$calls")
      pc_a=$(awk '$1 == "a_helper" { print $2; exit }' <<<"$calls")
      if [ -z "$pc_s" ] || [ -z "$pc_a" ]; then
        fail "$run: no pthread_create calls found in spawn/a_helper with objdump"
      else
        at_s_pc=$(printf '%#x' $((bias + 0x$pc_s + 1)))
        at_a_pc=$(printf '%#x' $((bias + 0x$pc_a + 1)))
        awk -v s="$at_s_pc" -v a="$at_a_pc" \
          '$1 == "thread" && NF == 7 { $0 = $0 " " ($7 == 0 ? s : a) } { print }' \
          "$d/x.dump" >"$d/pc.dump"
        "$decode" "$d/pc.dump" "$d/x.log" >"$d/pc.out" 2>"$d/pc.err" ||
          fail "$run: dacce-decode with creation pcs failed: $(cat "$d/pc.err")"
        at_a="$(mark create:a_helper):c"; at_s="$(mark create:spawn):c"
        check_contexts "$d/pc.out"
      fi
    fi
    if [ $failures -ne 0 ]; then
      echo "---- dacce-decode output ($run):"
      cat "$d/out"
      exit 1
    fi
  done
done

# ---- bad input: documented messages and exit statuses (first compiler's run)
d=$tmp/${compilers[0]}-static
if [ -s "$d/x.dump" ]; then
  check_rc() { # expected-rc description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$tmp/neg.out" 2>"$tmp/neg.err"
    local rc=$?
    if [ $rc -ne "$want" ]; then
      fail "$what: exit $rc, expected $want"
      sed 's/^/    /' "$tmp/neg.err"
    elif [ "$want" -ne 0 ] && [ "$(wc -l <"$tmp/neg.err")" -ne 1 ] &&
         ! grep -q "cannot decode" "$tmp/neg.out"; then
      fail "$what: expected a one-line error"
      sed 's/^/    /' "$tmp/neg.err"
    fi
  }
  check_rc 2 "no arguments" "$decode"
  check_rc 2 "missing dump" "$decode" "$tmp/no-such.dump" "$d/x.log"
  check_rc 2 "missing log" "$decode" "$d/x.dump" "$tmp/no-such.log"
  check_rc 0 "log on stdin" sh -c '"$1" "$2" <"$3"' sh "$decode" "$d/x.dump" "$d/x.log"
  cmp -s "$tmp/neg.out" "$d/out" || fail "log on stdin: output differs from the log file's"

  grep -v '^end$' "$d/x.dump" >"$tmp/trunc.dump"
  check_rc 1 "truncated dump" "$decode" "$tmp/trunc.dump" "$d/x.log"
  grep -q 'no .end. record' "$tmp/neg.err" || fail "truncated dump: message: $(cat "$tmp/neg.err")"

  # an edge naming a node that does not exist: the error names its line
  awk '$1 == "edge" && !done { $5 = 999999; done = 1 } { print }' "$d/x.dump" >"$tmp/bad.dump"
  bad_line=$(grep -n ' 999999$' "$tmp/bad.dump" | head -1 | cut -d: -f1)
  check_rc 1 "edge to an unknown node" "$decode" "$tmp/bad.dump" "$d/x.log"
  grep -q "bad.dump:$bad_line:" "$tmp/neg.err" ||
    fail "edge to an unknown node: message lacks line $bad_line: $(cat "$tmp/neg.err")"

  # overlapping codes in a dictionary
  awk '$1 == "code" { $3 = 0 } { print }' "$d/x.dump" >"$tmp/overlap.dump"
  check_rc 1 "overlapping codes" "$decode" "$tmp/overlap.dump" "$d/x.log"

  printf 'ctx good %s\nctx bad 999 1 0 0 0\n' "$(head -1 "$d/x.log" | cut -d' ' -f3-)" >"$tmp/bad.log"
  check_rc 1 "undecodable context" "$decode" "$d/x.dump" "$tmp/bad.log"
  grep -q '<cannot decode: error -1>' "$tmp/neg.out" || fail "undecodable context: no <cannot decode> line"
  grep -q '^context good ' "$tmp/neg.out" || fail "undecodable context: the good one was not printed"

  printf 'ctx fine 0 0 0 0 0\nhello world\n' >"$tmp/junk.log"
  check_rc 1 "malformed log line" "$decode" "$d/x.dump" "$tmp/junk.log"
  grep -q 'junk.log:2:' "$tmp/neg.err" || fail "malformed log line: message: $(cat "$tmp/neg.err")"
fi

if [ $failures -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS (${compilers[*]})"
exit 0
