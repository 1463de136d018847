#!/usr/bin/env bash
# The RMSNorm ablation table of docs/benchmarks.md: search time for
# max-block-ops 5..11, with and without abstract-expression pruning, with 1
# and 2 threads, each run under a time budget (default 30 s; a combination
# that timed out is not re-run with more block ops and says so).
# Not a test: it asserts nothing.
# Usage: bench/ablation.sh [--budget S]
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
bench_build search_bench
budget=30
if [[ "${1:-}" == "--budget" && -n "${2:-}" ]]; then budget="$2"; fi
"$bench_bin" --ablation --budget "$budget"
