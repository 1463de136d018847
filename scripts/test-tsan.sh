#!/usr/bin/env bash
# Builds the search's unit tests with ThreadSanitizer into build-tsan/ (or
# $MIRAGE_TSAN_BUILD_DIR) and runs them; they search with threads=2. Any
# data race or lock-order report halts the test. Not part of scripts/test.sh
# (docs/testing.md). Ends with one line "N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_TSAN_BUILD_DIR:-$root/build-tsan}"
tests=()
for src in "$root"/test/unit/test_search_*.c; do tests+=("$(basename "$src" .c)"); done
MIRAGE_BUILD_DIR="$build" MIRAGE_BUILD_TARGETS="${tests[*]}" \
  bash "$root/scripts/build.sh" -DMIRAGE_SANITIZE=thread ||
  { echo "0 passed, 1 failed"; exit 1; }

# High-entropy ASLR (vm.mmap_rnd_bits > 28) puts mappings where older TSan
# runtimes do not expect them ("unexpected memory mapping"): run without
# randomization when setarch can.
norandom=()
setarch "$(uname -m)" -R true 2>/dev/null && norandom=(setarch "$(uname -m)" -R)
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
passed=0
failed=0
for t in "${tests[@]}"; do
  if "${norandom[@]}" "$build/test/$t"; then
    echo "$t: ok"; passed=$(( passed + 1 ))
  else
    echo "$t: FAILED"; failed=$(( failed + 1 ))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
