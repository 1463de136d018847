#!/usr/bin/env bash
# mirage-run at LLM shapes (issue 14): writes reference/kernel-graph pairs
# at real model sizes and times one mirage-run check of each: an LM head
# (40 x 1536 times 1536 x 151,936, f16), a gated MLP (32 x 4096 through
# 4096 x 11008 and back, f16; lifted first) at --range=0.25 and at the
# default range, where it overflows f16, and an RMSNorm over 4,096 values
# scaled by 64 (f16) whose sum of squares saturates. Not a test: it prints
# mirage-run's lines, the wall and CPU time and the peak memory of each.
# Usage: bench/run-llm.sh [build-dir]   (default: build)
# MIRAGE_RUN_LIMIT_S: time limit per check (default 600).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
limit="${MIRAGE_RUN_LIMIT_S:-600}"
run="$build/bin/mirage-run"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import sys
out = sys.argv[1]
def t(*dims, dt="f16"):
    return "tensor<" + "x".join(map(str, dims)) + "x" + dt + ">"
zp = '%zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>'
shift = '%shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>'
M, K, V = 40, 1536, 151936
x, w, y = t(1, M, K), t(1, K, V), t(1, M, V)
open(out + "/lm-head.mlir", "w").write(f"""
func.func @lm_head(%x: {x}, %w: {w}) -> {y} {{
  {zp}
  %y = tosa.matmul %x, %w, %zp, %zp : ({x}, {w}, tensor<1xf16>, tensor<1xf16>) -> {y}
  return %y : {y}
}}
func.func @lm_head_ug(%x: {x}, %w: {w}) -> {y} attributes {{ug.level = "kernel"}} {{
  %y = "ug.matmul"(%x, %w) : ({x}, {w}) -> {y}
  func.return %y : {y}
}}
""")
M, H, I = 32, 4096, 11008
x, w1, w2, h = t(1, M, H), t(1, H, I), t(1, I, H), t(1, M, I)
open(out + "/mlp.mlir", "w").write(f"""
func.func @mlp(%x: {x}, %w1: {w1}, %w3: {w1}, %w2: {w2}) -> {x} {{
  {zp}
  {shift}
  %g = tosa.matmul %x, %w1, %zp, %zp : ({x}, {w1}, tensor<1xf16>, tensor<1xf16>) -> {h}
  %s = tosa.sigmoid %g : ({h}) -> {h}
  %a = tosa.mul %g, %s, %shift : ({h}, {h}, tensor<1xi8>) -> {h}
  %u = tosa.matmul %x, %w3, %zp, %zp : ({x}, {w1}, tensor<1xf16>, tensor<1xf16>) -> {h}
  %p = tosa.mul %a, %u, %shift : ({h}, {h}, tensor<1xi8>) -> {h}
  %y = tosa.matmul %p, %w2, %zp, %zp : ({h}, {w2}, tensor<1xf16>, tensor<1xf16>) -> {x}
  return %y : {x}
}}
""")
x, r, c = t(1, 2, 4096), t(1, 2, 1), t(1, 1, 1)
open(out + "/rmsnorm.mlir", "w").write(f"""
func.func @rms_scaled(%x: {x}) -> {x} {{
  {shift}
  %scale = "tosa.const"() <{{values = dense<64.0> : {c}}}> : () -> {c}
  %inv_n = "tosa.const"() <{{values = dense<0.000244140625> : {c}}}> : () -> {c}
  %h = tosa.mul %x, %scale, %shift : ({x}, {c}, tensor<1xi8>) -> {x}
  %sq = tosa.mul %h, %h, %shift : ({x}, {x}, tensor<1xi8>) -> {x}
  %sum = tosa.reduce_sum %sq {{axis = 2 : i32}} : ({x}) -> {r}
  %mean = tosa.mul %sum, %inv_n, %shift : ({r}, {c}, tensor<1xi8>) -> {r}
  %inv = tosa.rsqrt %mean : ({r}) -> {r}
  %y = tosa.mul %h, %inv, %shift : ({x}, {r}, tensor<1xi8>) -> {x}
  return %y : {x}
}}
""")
PY

# check NAME ARGS...: mirage-run's lines, then its time and memory.
check() {
  local name=$1
  shift
  echo "== $name: mirage-run $*"
  /usr/bin/time -f "%e %U %S %M" -o "$work/time" nice timeout "$limit" "$run" "$@" \
    > "$work/out" 2>&1
  local status=$?
  cat "$work/out"
  if [ "$status" -eq 124 ]; then
    echo "-> stopped at the limit of $limit s"
  else
    read -r wall user sys kb < <(tail -1 "$work/time")
    echo "-> exit $status; $wall s wall, $user s user + $sys s system, $((kb / 1024)) MB peak"
  fi
}

echo "# bench/run-llm.sh; $(date -u +%Y-%m-%d); $(nproc) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
check "LM head" --compare=lm_head,lm_head_ug "$work/lm-head.mlir"
check "gated MLP, --range=0.25" --lift --range=0.25 "$work/mlp.mlir"
check "gated MLP, --range=1" --lift "$work/mlp.mlir"
check "RMSNorm x64, --range=1" --lift "$work/rmsnorm.mlir"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
