#!/usr/bin/env bash
# Measured GPU time of the six paper benchmarks (test/lift/*-tosa.mlir, the
# _small and _paper function of each; --paper-only keeps the _paper ones):
# the program mirage-opt --mirage-superopt chooses against the unfused
# baseline, both lowered by lib/lower and run by `mirage-run --time` on the
# first CUDA device. One markdown table. Does not build (the caller does)
# and asserts nothing; without a CUDA driver or device it prints the line
# mirage-run --time printed and exits 0.
# Usage: bench/gpu.sh [--target sm_80|sm_86|sm_89|sm_90] [--runs N] [--paper-only]
#   (default: sm_90, 20 timed runs after 3 warm-up runs)
#
# Where the numbers come from:
#  - optimized: `mirage-opt --mirage-superopt="lower=false target=T"` keeps
#    the chosen μGraphs; `mirage-run --time --target=T` lowers them with the
#    mirage-lower pass (the PTX --mirage-superopt emits with lower=true),
#    runs them and checks their results against the interpreter. A
#    subprogram the search could not improve keeps its predefined ops with
#    lower=false, so its row repeats the baseline (with lower=true
#    mirage-opt would give it back to upstream instead); one missing from
#    the optimized module shows "-".
#  - baseline: `mirage-opt --mirage-lift`, the lifted kernel graph with one
#    kernel per op (predefined ops: grid-stride kernels, GEMVs for matmuls
#    of few rows, copy kernels for view ops), lowered and run the same way.
#  - measured: the median over N runs of the whole launch sequence between
#    two CUDA events, L2 evicted before each run (docs/mirage-run.md).
#  - estimate: the cost model's time for the target (docs/cost.md).
#  - DRAM bound: every argument read once and every result written once at
#    the device's DRAM bandwidth (from its memory clock and bus width);
#    % of DRAM = bound / measured.
#  - speedup = baseline / measured.
#  - check: the comparison with the interpreter (ok, MISMATCH, OVERFLOW);
#    GQA and QKNorm run at --range=0.25 so that f16 exp sums stay finite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${MIRAGE_BUILD_DIR:-$root/build}/bin"
target=sm_90 runs=20 paper_only=0
while (($#)); do
  case "$1" in
    --target) target="${2:?--target needs sm_80, sm_86, sm_89 or sm_90}"; shift 2 ;;
    --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
    --paper-only) paper_only=1; shift ;;
    *) echo "usage: bench/gpu.sh [--target sm_80|sm_86|sm_89|sm_90] [--runs N] [--paper-only]" >&2; exit 2 ;;
  esac
done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# One kernel graph per line: label kernels median estimate bound pct check.
parse='s/^(@[^:]+): ([0-9]+) kernels?: ([-0-9.e+]+) us \(median of [0-9]+, min [-0-9.e+]+\); estimate ([-0-9.e+]+) us; DRAM >= [-0-9.e+]+ MB, bound ([-0-9.e+]+) us: ([^ ]+) of [0-9.]+ TB\/s; (.*)$/\1 \2 \3 \4 \5 \6 \7/p'
# The comparison's verdict (field 7 on) as one word.
check_word='{ c = $7 == "MISMATCH" ? "MISMATCH" : $7 ~ /^OVERFLOW/ ? "OVERFLOW" : $NF == "ok" ? "ok" : "?"
  print $1, $2, $3, $4, $5, $6, c }'

header=""
rows=()
for name in rmsnorm gqa qknorm lora gated-mlp ntrans; do
  src="$root/test/lift/$name-tosa.mlir" dir="$out/$name"
  mkdir -p "$dir"
  range=1
  [[ $name == gqa || $name == qknorm ]] && range=0.25
  if ! "$bin/mirage-opt" --mirage-superopt="lower=false cache=false target=$target" "$src" -o "$dir/opt.mlir" 2>"$dir/err" ||
     ! "$bin/mirage-opt" --mirage-lift "$src" -o "$dir/lift.mlir" 2>>"$dir/err"; then
    rows+=("| $name | mirage-opt failed: $(head -1 "$dir/err") |"); continue
  fi
  for v in opt lift; do
    # Exit 1 on a mismatch or an error: the table says which.
    "$bin/mirage-run" --time="$runs" --target="$target" --range="$range" \
      "$dir/$v.mlir" >"$dir/$v.txt" 2>"$dir/$v.err" || true
    if grep -q 'nothing timed' "$dir/$v.txt"; then
      echo "# bench/gpu.sh: $(head -1 "$dir/$v.txt")"
      exit 0
    fi
    [[ -z $header ]] && header="$(grep -m1 '^mirage-run: --time: ' "$dir/$v.txt" || true)"
    sed -nE "$parse" "$dir/$v.txt" | awk "$check_word" >"$dir/$v.rows"
    # Kernel graphs with an error line and no result line.
    { grep -oE 'error: @[^:]+' "$dir/$v.err" || true; } | sed 's/error: //' | while read -r label; do
      grep -q "^$label " "$dir/$v.rows" || echo "$label - - - - - error"
    done >>"$dir/$v.rows"
  done
  if [[ ! -s $dir/lift.rows ]]; then
    rows+=("| $name | mirage-run --time failed: $(head -1 "$dir/lift.err") |"); continue
  fi
  # Join on the label, baseline first (it has every kernel graph).
  while read -r label bk bmed best bbound bpct bcheck; do
    [[ $paper_only == 1 && $label != *_paper* ]] && continue
    row="$(grep -m1 "^$label " "$dir/opt.rows" || true)"
    if [[ -n $row ]]; then
      read -r _ k med est bound pct check <<<"$row"
      speedup="$(awk -v b="$bmed" -v m="$med" 'BEGIN { if (b + 0 > 0 && m + 0 > 0) printf "%.2fx", b / m; else print "-" }')"
    else
      k=- med=- est=- bound=$bbound pct=- check=- speedup=-
    fi
    rows+=("| $name | $label | $k | $med | $est | $bound | $pct | $bk | $bmed | $speedup | $check / $bcheck |")
  done <"$dir/lift.rows"
done

echo
echo "# ${header:-mirage-run --time}"
echo "# bench/gpu.sh --target $target --runs $runs, $(date '+%F %T %Z')"
echo "| benchmark | kernel graph | kernels | measured us | estimate us | DRAM bound us | % of DRAM BW | baseline kernels | baseline us | speedup | check (optimized / baseline) |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do echo "$r"; done
