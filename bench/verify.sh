#!/usr/bin/env bash
# Builds bench/verify_bench.c with gcc -O2 and prints its table: finite-field
# tests per second and float-interpreter times on the six benchmark programs
# at the paper's shapes. Not a test: it asserts nothing.
# Usage: bench/verify.sh [row-filter]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cd "$root"
gcc -std=c11 -O2 -Wall -Wextra -Iinclude \
  lib/support/*.c lib/graph/*.c lib/interp/*.c lib/verify/*.c \
  bench/verify_bench.c -lm -o "$out/verify_bench"
echo "# $(gcc --version | head -1); $(uname -m); $(nproc) cores"
"$out/verify_bench" "$@"
