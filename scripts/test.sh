#!/usr/bin/env bash
# Builds, then runs every test: C unit tests (ctest) and the lit suite, first
# in build/, then again in build-asan/, built with AddressSanitizer and
# UndefinedBehaviorSanitizer, where any report halts the program
# (docs/testing.md). Prints a line per run (counts, seconds of the unit
# tests, of lit, of the build, in all) and ends with one line
# "N passed, N failed" that covers both runs.
#   MIRAGE_BUILD_DIR       the plain build (build/)
#   MIRAGE_ASAN_BUILD_DIR  the sanitized build (build-asan/)
#   MIRAGE_TEST_SANITIZE=0 skips the sanitized build and run (quicker, local)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
asan_build="${MIRAGE_ASAN_BUILD_DIR:-$root/build-asan}"
lit=$(command -v lit-22 || echo /usr/lib/llvm-22/bin/lit)
passed=0
failed=0
summary=()

# run_tests DIR LABEL [ENV...]: ctest (under env ENV...) and lit in build
# folder DIR; adds the counts to passed/failed and a line to the summary.
# ctest runs beside lit, not before it: its few long searches (one thread's
# work each) would otherwise leave a core idle for minutes. Its log is
# printed when both are done.
run_tests() {
  local dir=$1 label=$2 log="$1/test-log"
  shift 2
  mkdir -p "$log"
  local t0=$SECONDS unit_s lit_s
  ( cd "$dir" && env "$@" ctest --output-on-failure -j "$(nproc)" >"$log/ctest.txt" 2>&1
    echo "$(( SECONDS - t0 ))" >"$log/ctest.seconds" ) &
  local ctest_pid=$!

  # --time-tests: the log ends with the slowest tests (docs/testing.md).
  "$lit" -sv --time-tests "$dir/test" 2>&1 | tee "$log/lit.txt"
  lit_s=$(( SECONDS - t0 ))
  wait "$ctest_pid"
  cat "$log/ctest.txt"
  unit_s=$(cat "$log/ctest.seconds" 2>/dev/null || echo "?")
  local re='.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*'
  local unit_total unit_failed
  unit_total=$(sed -n "s/$re/\2/p" "$log/ctest.txt" | tail -1)
  unit_failed=$(sed -n "s/$re/\1/p" "$log/ctest.txt" | tail -1)
  unit_total=${unit_total:-0}; unit_failed=${unit_failed:-1}

  local lit_passed lit_failed lit_unsupported
  lit_passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log/lit.txt" | tail -1)
  lit_failed=$(grep -E '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:' "$log/lit.txt" | awk -F: '{s += $2} END {print s + 0}')
  lit_unsupported=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log/lit.txt" | tail -1)
  lit_passed=${lit_passed:-0}; lit_failed=${lit_failed:-0}
  if [ "$lit_passed" -eq 0 ] && [ "$lit_failed" -eq 0 ]; then lit_failed=1; fi

  passed=$(( passed + unit_total - unit_failed + lit_passed ))
  failed=$(( failed + unit_failed + lit_failed ))
  summary+=("$label: unit $(( unit_total - unit_failed ))/$unit_total (${unit_s} s), lit: $lit_passed passed, $lit_failed failed, ${lit_unsupported:-0} unsupported (${lit_s} s)")
}

start=$SECONDS
if bash "$root/scripts/build.sh"; then
  build_s=$(( SECONDS - start ))
  run_tests "$build" "plain"
  summary[-1]+=", build $build_s s"
else
  failed=$(( failed + 1 )); summary+=("plain: build failed")
fi
summary[-1]+="; in all $(( SECONDS - start )) s"

if [ "${MIRAGE_TEST_SANITIZE:-1}" != 0 ]; then
  start=$SECONDS
  # ORDER SANITIZER OPTIONS: test/lit.cfg.py sets the same for lit.
  if MIRAGE_BUILD_DIR="$asan_build" bash "$root/scripts/build.sh" -DMIRAGE_SANITIZE=address,undefined; then
    build_s=$(( SECONDS - start ))
    run_tests "$asan_build" "asan+ubsan" \
      ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
      UBSAN_OPTIONS="abort_on_error=1:halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
      LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    summary[-1]+=", build $build_s s"
  else
    failed=$(( failed + 1 )); summary+=("asan+ubsan: build failed")
  fi
  summary[-1]+="; in all $(( SECONDS - start )) s"
fi

printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
