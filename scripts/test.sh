#!/usr/bin/env bash
# Builds, then runs every test: C unit tests (ctest) and the lit suite.
# Ends with one line "N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${MIRAGE_BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh" || { echo "0 passed, 1 failed"; exit 1; }

log="$build/test-log"
mkdir -p "$log"
( cd "$build" && ctest --output-on-failure -j "$(nproc)" ) 2>&1 | tee "$log/ctest.txt"
unit_total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2/p' "$log/ctest.txt" | tail -1)
unit_failed=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1/p' "$log/ctest.txt" | tail -1)
unit_total=${unit_total:-0}; unit_failed=${unit_failed:-1}

lit=$(command -v lit-22 || echo /usr/lib/llvm-22/bin/lit)
"$lit" -sv "$build/test" 2>&1 | tee "$log/lit.txt"
lit_passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log/lit.txt" | tail -1)
lit_failed=$(grep -E '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:' "$log/lit.txt" | awk -F: '{s += $2} END {print s + 0}')
lit_passed=${lit_passed:-0}; lit_failed=${lit_failed:-0}
if [ "$lit_passed" -eq 0 ] && [ "$lit_failed" -eq 0 ]; then lit_failed=1; fi

passed=$(( unit_total - unit_failed + lit_passed ))
failed=$(( unit_failed + lit_failed ))
echo "unit: $(( unit_total - unit_failed ))/$unit_total, lit: $lit_passed passed, $lit_failed failed"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
