// The whole pipeline inside stock mlir-opt: the plugin lifts, searches and
// verifies; the μGraph dialect is loaded by the pass itself.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false remarks=true lower=false})' %s 2>&1 | FileCheck %s
// Lowered (the default), with the upstream PTX passes the pipeline appends
// when libdevice is there.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false ptx=false})' %s 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: gpu.module @rmsnorm_small_lax0_gpu
// LOWERED: gpu.launch_func async

// CHECK: remark: mirage-search: '@rmsnorm_small_lax0' replaced by a verified μGraph: 6 kernel(s) -> 1
// CHECK: func.func @rmsnorm_small
// CHECK: call @rmsnorm_small_lax0
// CHECK: ug.level = "block"
// CHECK: func.func private @rmsnorm_small_lax0(
// CHECK-NEXT: "ug.custom"
func.func @rmsnorm_small(%x: tensor<2x64xf16>, %w: tensor<64x96xf16>) -> tensor<2x96xf16> {
  %zero = arith.constant 0.0 : f16
  %x_sq_e = tensor.empty() : tensor<2x64xf16>
  %x_sq = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x64xf16>) outs(%x_sq_e : tensor<2x64xf16>) {
    ^bb0(%a: f16, %o: f16):
      %m = arith.mulf %a, %a : f16
      linalg.yield %m : f16
  } -> tensor<2x64xf16>
  %x_sum_acc_e = tensor.empty() : tensor<2xf16>
  %x_sum_acc = linalg.fill ins(%zero : f16) outs(%x_sum_acc_e : tensor<2xf16>) -> tensor<2xf16>
  %x_sum = linalg.reduce ins(%x_sq : tensor<2x64xf16>) outs(%x_sum_acc : tensor<2xf16>) dimensions = [1]
    (%in: f16, %init: f16) {
      %s = arith.addf %in, %init : f16
      linalg.yield %s : f16
    }
  %x_rms_e = tensor.empty() : tensor<2xf16>
  %x_rms = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x_sum : tensor<2xf16>) outs(%x_rms_e : tensor<2xf16>) {
    ^bb0(%a: f16, %o: f16):
      %len = arith.constant 64.0 : f16
      %mean = arith.divf %a, %len : f16
      %r = math.sqrt %mean : f16
      linalg.yield %r : f16
  } -> tensor<2xf16>
  %x_n_e = tensor.empty() : tensor<2x64xf16>
  %x_n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x_rms : tensor<2x64xf16>, tensor<2xf16>) outs(%x_n_e : tensor<2x64xf16>) {
    ^bb0(%a: f16, %r: f16, %o: f16):
      %d = arith.divf %a, %r : f16
      linalg.yield %d : f16
  } -> tensor<2x64xf16>
  %y_acc_e = tensor.empty() : tensor<2x96xf16>
  %y_acc = linalg.fill ins(%zero : f16) outs(%y_acc_e : tensor<2x96xf16>) -> tensor<2x96xf16>
  %y = linalg.matmul ins(%x_n, %w : tensor<2x64xf16>, tensor<64x96xf16>) outs(%y_acc : tensor<2x96xf16>) -> tensor<2x96xf16>
  return %y : tensor<2x96xf16>
}
