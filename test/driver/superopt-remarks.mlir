// --mirage-superopt lifts, searches, verifies and lowers: the kernel graph
// becomes host code launching a GPU kernel, compiled to PTX when the CUDA
// toolkit's libdevice is there (ptx=auto); lower=false keeps the verified
// μGraph (the reference keeps the original ops).
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache ptx=false" --mirage-remarks %s 2>&1 >%t | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=LOWERED < %t
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache lower=false" --mirage-remarks %s 2>&1 >%t.ug | FileCheck %s --check-prefix=KEPT-REMARK
// RUN: FileCheck %s < %t.ug
// Nothing liftable: the module is unchanged and the remark says why.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %S/Inputs/nothing-to-lift.mlir 2>&1 >%t.nothing | FileCheck %S/Inputs/nothing-to-lift.mlir --check-prefix=NOTHING
// RUN: mirage-opt %S/Inputs/nothing-to-lift.mlir > %t.ref && diff %t.ref %t.nothing
// host=device goes through to the lowering: the lifted subprogram takes
// and fills device buffers, and @rms calls it through the tensor adapter.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache ptx=false host=device" %s | FileCheck %s --check-prefix=DEVICE
// Without --mirage-remarks the pass is silent.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=%t.cache" %s 2>&1 >/dev/null | count 0

// DEVICE-LABEL: func.func @rms
// DEVICE: call @rms_lax0_tensor(%arg0, %arg1) : (tensor<2x64xf16>, tensor<64x96xf16>) -> tensor<2x96xf16>
// DEVICE: func.func private @rms_lax0(%arg0: memref<2x64xf16, strided<[?, ?], offset: ?>>, %arg1: memref<64x96xf16, strided<[?, ?], offset: ?>>, %arg2: memref<2x96xf16, strided<[?, ?], offset: ?>>) attributes {llvm.emit_c_interface}
// DEVICE: %[[X:.*]] = memref.reinterpret_cast %arg0
// DEVICE: %[[W:.*]] = memref.reinterpret_cast %arg1
// DEVICE: %[[Y:.*]] = memref.reinterpret_cast %arg2
// DEVICE-NOT: gpu.memcpy
// DEVICE: gpu.launch_func async [{{.*}}] @rms_lax0_gpu::@rms_lax0_gpu_k2 {{.*}} args(%[[X]] : memref<2x64xf16>, %[[W]] : memref<64x96xf16>, %[[Y]] : memref<2x96xf16>)
// DEVICE-NOT: gpu.memcpy
// DEVICE: func.func private @rms_lax0_tensor(

// REMARK: superopt-remarks.mlir:[[@LINE+21]]:1: remark: mirage-lift: '@rms': lifted 1 subprogram
// REMARK: remark: mirage-search: '@rms_lax0' replaced by a verified μGraph: 6 kernel(s) -> 1
// REMARK: remark: mirage-lower: '@rms_lax0': 1 kernel(s) in gpu.module @rms_lax0_gpu
// REMARK: remark: mirage-superopt: 1 LAX subprogram(s) lifted and searched; 1 lowered to GPU kernels, 0 left as the original ops
// KEPT-REMARK: remark: mirage-superopt: 1 LAX subprogram(s) lifted and searched; lower=false keeps the μGraphs

// LOWERED: module attributes {gpu.container_module}
// LOWERED-LABEL: func.func @rms
// LOWERED: call @rms_lax0
// LOWERED: gpu.module @rms_lax0_gpu
// LOWERED: gpu.func @rms_lax0_gpu_k2({{.*}}) workgroup({{.*}}) kernel
// LOWERED: func.func private @rms_lax0(%arg0: tensor<2x64xf16>, %arg1: tensor<64x96xf16>) -> tensor<2x96xf16>
// LOWERED: gpu.launch_func async [{{.*}}] @rms_lax0_gpu::@rms_lax0_gpu_k2
// LOWERED-NOT: ug.level = "block"
// LOWERED-NOT: @rms_lax0_ref

// CHECK-LABEL: func.func @rms
// CHECK: call @rms_lax0
// CHECK: attributes {{{.*}}ug.level = "block"}
// CHECK: func.func private @rms_lax0({{.*}}ug.level = "kernel", ug.reference = @rms_lax0_ref}
// CHECK-NEXT: "ug.custom"
func.func @rms(%x: tensor<2x64xf16>, %w: tensor<64x96xf16>) -> tensor<2x96xf16> {
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
