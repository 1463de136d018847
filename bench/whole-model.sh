#!/usr/bin/env bash
# A whole decoder through `mirage-opt --mirage-superopt` (lowering and PTX
# included), cold cache then warm cache: the Llama-style model of
# bench/models/llama_tosa.py at 7B shapes (hidden 4096, 32 heads, ffn 11008,
# seq 16, f16) in torch-mlir's TOSA style. Prints one markdown row per
# compile: subprograms, searched / from the cache / deduplicated, kernels
# launched (gpu.launch_func in the output), distinct kernels compiled to PTX
# (`.entry` in the gpu.binary ops), wall seconds, peak RSS, and
# whether the warm output is byte-identical to the cold one. Does not build (the caller does) and asserts nothing.
# Usage: bench/whole-model.sh [--layers N] [--seq S] [--options "k=v ..."]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
layers=32 seq=16 options=""
while (($#)); do
  case "$1" in
    --layers) layers="$2"; shift 2 ;;
    --seq) seq="$2"; shift 2 ;;
    --options) options="$2"; shift 2 ;;
    *) echo "usage: bench/whole-model.sh [--layers N] [--seq S] [--options \"k=v ...\"]" >&2; exit 2 ;;
  esac
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
python3 "$root/bench/models/llama_tosa.py" --layers "$layers" --seq "$seq" > "$out/model.mlir"
ops=$(grep -c ' = tosa\.' "$out/model.mlir")
echo "model: $layers layers, seq $seq, 7B shapes, f16: $ops TOSA ops ($(wc -c < "$out/model.mlir") bytes)"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo
echo "| compile | subprograms | searched | from the cache | deduplicated | kernels | distinct kernels | wall s | peak RSS MiB | output |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for run in cold warm; do
  /usr/bin/time -f "%e %M" -o "$out/time.$run" \
    "$bin/mirage-opt" --mirage-superopt="progress=true cache-dir=$out/cache $options" \
    "$out/model.mlir" -o "$out/$run.mlir" 2> "$out/err.$run"
  line=$(grep '^\[mirage-search\] .* subprograms' "$out/err.$run" | tail -1)
  read -r wall rss < "$out/time.$run"
  total=$(sed -E 's/.* ([0-9]+)\/([0-9]+) subprograms.*/\2/' <<<"$line")
  searched=$(sed -E 's/.*\(([0-9]+) searched.*/\1/' <<<"$line")
  cached=$(sed -E 's/.* ([0-9]+) from the cache.*/\1/' <<<"$line")
  dedup=$(sed -E 's/.* ([0-9]+) deduplicated.*/\1/' <<<"$line")
  kernels=$(grep -c 'gpu.launch_func' "$out/$run.mlir" || true)
  distinct=$(grep -o '\.entry ' "$out/$run.mlir" | wc -l)
  same="-"
  [[ $run == warm ]] && { cmp -s "$out/cold.mlir" "$out/warm.mlir" && same="identical" || same="DIFFERS"; }
  echo "| $run | $total | $searched | $cached | $dedup | $kernels | $distinct | $wall | $((rss / 1024)) | $same |"
done
