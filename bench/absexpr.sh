#!/usr/bin/env bash
# Builds bench/absexpr_bench.c with gcc -O2 and prints its table: e-graph
# saturation time and size for the six benchmark programs at the paper's
# shapes, and the cost of mg_absexpr_of_op per op of their fused forms.
# Not a test: it asserts nothing.
# Usage: bench/absexpr.sh [row-filter]
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
bench_build absexpr_bench
"$bench_bin" "$@"
