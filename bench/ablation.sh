#!/usr/bin/env bash
# The RMSNorm ablation table of docs/benchmarks.md: search time for
# max-block-ops 5..11, with and without abstract-expression pruning, with 1
# and 2 threads, each run under a time budget (default 30 s; a combination
# that timed out is not re-run with more block ops and says so).
# Not a test: it asserts nothing.
# Usage: bench/ablation.sh [--budget S]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
gcc -std=c11 -O2 -Wall -Wextra -Iinclude \
  lib/support/*.c lib/graph/*.c lib/interp/*.c lib/verify/*.c \
  lib/absexpr/*.c lib/search/*.c bench/search_bench.c -lm -lpthread \
  -o "$out/search_bench"
echo "# $(gcc --version | head -1); $(uname -m); $(nproc) cores"
budget=30
if [[ "${1:-}" == "--budget" && -n "${2:-}" ]]; then budget="$2"; fi
"$out/search_bench" --ablation --budget "$budget"
