# Sourced by the bench scripts: builds bench/<name>.c with gcc -O2 against the
# pure-C libraries (no MLIR needed) into a temporary folder, prints the
# machine line every table starts with, and leaves the binary in $bench_bin.
# Usage (after sourcing): bench_build NAME
set -euo pipefail
bench_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_out="$(mktemp -d)"
trap 'rm -rf "$bench_out"' EXIT

bench_build() {
  local name="$1"
  (cd "$bench_root" && gcc -std=c11 -O2 -Wall -Wextra -Iinclude \
    lib/support/*.c lib/graph/*.c lib/interp/*.c lib/verify/*.c \
    lib/absexpr/*.c lib/cost/*.c lib/lower/*.c lib/lower/*/*.c lib/search/*.c \
    lib/target/*.c -Ilib/lower \
    "bench/$name.c" -lm -lpthread \
    -o "$bench_out/$name")
  bench_bin="$bench_out/$name"
  echo "# $(gcc --version | head -1); $(uname -m); $(nproc) cores"
}
