#!/usr/bin/env bash
# Builds bench/absexpr_bench.c with gcc -O2 and prints its table: e-graph
# saturation time and size for the six benchmark programs at the paper's
# shapes, and the cost of mg_absexpr_of_op per op of their fused forms.
# Not a test: it asserts nothing.
# Usage: bench/absexpr.sh [row-filter]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
gcc -std=c11 -O2 -Wall -Wextra -Iinclude \
  lib/support/*.c lib/graph/*.c lib/absexpr/*.c \
  bench/absexpr_bench.c -lm -o "$out/absexpr_bench"
echo "# $(gcc --version | head -1); $(uname -m); $(nproc) cores"
"$out/absexpr_bench" "$@"
