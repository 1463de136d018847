#!/usr/bin/env bash
# Builds bench/search_bench.c with gcc -O2 and prints its table: the search
# (mg_search_run, default options: max-block-ops 9, 2 threads) on the six
# benchmark programs of the Mirage paper at the paper's shapes (b = 1):
# kernels in the best verified graph, search time, states, pruning per
# rule, candidates tested and verified. Not a test: it asserts nothing.
# With --dynamic: the programs with `?` token counts and KV lengths
# instead (bench/dynamic.py: the dynamic program's search time beside its
# static copy's at the smallest and largest size, and the estimates).
# Usage: bench/search.sh [--threads N] [--max-block-ops N] [--budget S] [--launch-variants N]
#                        [--no-absexpr] [--exhaustive] [--only NAME] [--verbose]
#        bench/search.sh --dynamic [--threads N] [--target sm_90] [--only NAME]
if [ "${1:-}" = --dynamic ]; then
  shift
  exec python3 "$(dirname "${BASH_SOURCE[0]}")/dynamic.py" "$@"
fi
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
bench_build search_bench
"$bench_bin" "$@"
