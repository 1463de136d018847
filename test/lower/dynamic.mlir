// REQUIRES: ptxas
// Kernels for dynamic dims (issue 29): one lowering for every size. The
// host function reads the size from its tensor argument (tensor.dim),
// checks that every other dim of that size agrees (two inputs of one `?`),
// allocates with it and launches one block per row: the grid is the size
// itself, so nothing is recompiled per size and no tail exists. The
// kernels take `?` memrefs and claim no grid size. ptxas accepts the PTX;
// mirage-run --lower runs the CPU form of the same lowering at each size.
// RUN: mirage-opt --mirage-superopt="threads=1 time-budget-s=0 max-states=400000 ptxas=true" --mirage-remarks %s 2>&1 -o %t.ptx.mlir | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.ptx.mlir
// RUN: FileCheck %s --check-prefix=BIN < %t.ptx.mlir
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000" %s -o %t.ug
// RUN: mirage-run --lower --dynamic-sizes=1,7,129,3000 %t.ug | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-lower="ptx=false" %t.ug | FileCheck %s --check-prefix=CHECKS

// REMARK: remark: mirage-ptxas: '@residual_softmax_lax0_gpu': ptxas accepts 1 kernel(s) for sm_90

// CHECK-LABEL: func.func @residual_softmax(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>) -> tensor<?x256xf16>
// CHECK: func.func private @residual_softmax_lax0(%arg0: tensor<?x256xf16>, %arg1: tensor<?x256xf16>) -> tensor<?x256xf16>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0{{.*}} : tensor<?x256xf16>
// CHECK: tensor.dim %arg1, %c0{{.*}} : tensor<?x256xf16>
// CHECK: gpu.alloc async [{{.*}}] (%[[N]]) : memref<?x256xf16>
// CHECK: gpu.launch_func async [{{.*}}] @residual_softmax_lax0_gpu::@residual_softmax_lax0_gpu_k{{[0-9]+}} blocks in (%[[N]], %c1{{.*}}, %c1{{.*}}) threads in
func.func @residual_softmax(%x: tensor<?x256xf16>, %r: tensor<?x256xf16>) -> tensor<?x256xf16> {
  %a = tosa.add %x, %r : (tensor<?x256xf16>, tensor<?x256xf16>) -> tensor<?x256xf16>
  %m = tosa.reduce_max %a {axis = 1 : i32} : (tensor<?x256xf16>) -> tensor<?x1xf16>
  %d = tosa.sub %a, %m : (tensor<?x256xf16>, tensor<?x1xf16>) -> tensor<?x256xf16>
  %e = tosa.exp %d : (tensor<?x256xf16>) -> tensor<?x256xf16>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<?x256xf16>) -> tensor<?x1xf16>
  %i = tosa.reciprocal %s : (tensor<?x1xf16>) -> tensor<?x1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %e, %i, %shift : (tensor<?x256xf16>, tensor<?x1xf16>, tensor<1xi8>) -> tensor<?x256xf16>
  return %y : tensor<?x256xf16>
}

// BIN: gpu.binary @residual_softmax_lax0_gpu

// The kernel itself: `?` memrefs in, block x is the row.
// CHECKS: gpu.func @{{.*}}_k{{[0-9]+}}(%arg0: memref<?x256xf16> {llvm.align = 16 : i64}, %arg1: memref<?x256xf16> {llvm.align = 16 : i64}, %arg2: memref<?x256xf16> {llvm.align = 16 : i64})
// CHECKS-SAME: kernel attributes {known_block_size = array<i32: {{[0-9]+}}, 1, 1>} {
// The host's check of the second input's rows.
// CHECKS: llvm.mlir.global private constant @residual_softmax_lax0.arg_error0("mirage: @residual_softmax_lax0: argument 1 dim 0 differs from argument 0 dim 0; its kernels take both as one dynamic size\0A")

// NUM: @residual_softmax_lax0[?=1]: 1 output, 256 elements, {{.*}}: ok
// NUM-NEXT: @residual_softmax_lax0[?=7]: 1 output, 1792 elements, {{.*}}: ok
// NUM-NEXT: @residual_softmax_lax0[?=129]: 1 output, 33024 elements, {{.*}}: ok
// NUM-NEXT: @residual_softmax_lax0[?=3000]: 1 output, 768000 elements, {{.*}}: ok
