#!/usr/bin/env bash
# Builds bench/verify_bench.c with gcc -O2 and prints its table: finite-field
# tests per second and float-interpreter times on the six benchmark programs
# at the paper's shapes. Not a test: it asserts nothing.
# Usage: bench/verify.sh [row-filter]
source "$(dirname "${BASH_SOURCE[0]}")/build.sh"
bench_build verify_bench
"$bench_bin" "$@"
