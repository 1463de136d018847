// REQUIRES: ptxas, libdevice
// With the CUDA toolkit's libdevice (ptx=auto finds it), the lowering
// continues with upstream passes to PTX: one gpu.binary per kernel graph,
// whose PTX ptxas accepts for the target's architecture.
// RUN: mirage-opt --mirage-lower %s -o %t.sm90.mlir
// RUN: FileCheck %s < %t.sm90.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90.mlir %t.sm90 | FileCheck %s --check-prefix=FILES
// RUN: %ptxas -arch=sm_90 %t.sm90/rms_gpu.ptx -o %t.sm90/rms.cubin
// RUN: %ptxas -arch=sm_90 %t.sm90/big_gpu.ptx -o %t.sm90/big.cubin
// RUN: FileCheck %s --check-prefix=ASM < %t.sm90/rms_gpu.ptx
// The same for an A100.
// RUN: mirage-opt --mirage-lower="target=sm_80" %s -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir %t.sm80
// RUN: %ptxas -arch=sm_80 %t.sm80/rms_gpu.ptx -o %t.sm80/rms.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.sm80/rms_gpu.ptx
// With ptxas=true the pipeline runs ptxas itself (mirage-ptxas).
// RUN: mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PTXAS

// The compile times upstream records are stripped (reproducible output);
// the other properties stay.
// CHECK-NOT: TimeInMs
// CHECK: gpu.binary @rms_gpu [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {O = 3 : i32}
// CHECK-NOT: TimeInMs
// CHECK: func.func @rms(
// CHECK: gpu.launch_func async [%{{.*}}] @rms_gpu::@rms_gpu_k2
// CHECK: gpu.binary @big_gpu
// CHECK: func.func @big(
// FILES: rms_gpu.ptx
// FILES: big_gpu.ptx
// ASM: .target sm_90
// ASM: .entry rms_gpu_k2(
// @rms is a GEMV with a row statistic (lib/lower/decide/fused_plan.c): 256 threads,
// B through the cp.async ring.
// ASM: .maxntid 256, 1, 1
// ASM: cp.async.cg.shared.global
// ASM: cp.async.wait_group 3;
// ASM: bar.sync
// ASM: sqrt
// SM80: .target sm_80
// PTXAS: remark: mirage-ptxas: '@rms_gpu': ptxas accepts 1 kernel(s) for sm_90
// PTXAS: remark: mirage-ptxas: '@big_gpu': ptxas accepts 2 kernel(s) for sm_90

func.func @rms_block(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf32>) -> tensor<2x16xf32>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf32>) -> tensor<16x24xf32>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf32>, tensor<16x24xf32>) -> tensor<2x24xf32>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf32>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf32>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf32>) -> tensor<2x96xf32>
  func.return %o : tensor<2x96xf32>
}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}

// Tiles above the static limit: dynamic shared memory, predefined exp too.
func.func @big_block(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.block_threads = 256 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %t = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<256x128xf32>) -> tensor<128x128xf32>
  %e = "ug.exp"(%t) : (tensor<128x128xf32>) -> tensor<128x128xf32>
  %o = "ug.saver"(%e) {omap = array<i64: 0, -1, -1>} : (tensor<128x128xf32>) -> tensor<256x128xf32>
  func.return %o : tensor<256x128xf32>
}
func.func @big(%x: tensor<256x128xf32>) -> tensor<256x128xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @big_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<256x128xf32>) -> tensor<256x128xf32>
  %z = "ug.exp"(%y) : (tensor<256x128xf32>) -> tensor<256x128xf32>
  func.return %z : tensor<256x128xf32>
}
