// nn.Linear's weights as torch-mlir writes them (tosa.transpose of the
// (out, in) weight, rank-3 reshapes around tosa.matmul, the f32 matmul
// result cast back) lift as inputs with a layout: the kernel graph reads W
// as stored through ug.transpose, nothing is copied or cut. A gated MLP
// with a rank-3 activation lifts whole (f16 and bf16) and becomes two
// kernels; the lowering reads the transposed tiles in stored order
// (memref.transpose views, 16-byte loads of the stored rows) and agrees
// with the original on the CPU; ptxas accepts the kernels. linalg's forms
// too: linalg.transpose + linalg.matmul, and linalg.matmul with a
// transposed map.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 lower=false cache=false" --mirage-remarks %s 2>%t.err > %t.opt
// RUN: FileCheck %s --check-prefix=SEARCH < %t.err
// RUN: FileCheck %s --check-prefix=OPT < %t.opt
// RUN: mirage-run %t.opt | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-lower="ptx=false" %t.opt | FileCheck %s --check-prefix=GPU
// RUN: %if ptxas %{ mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %t.opt 2>&1 >/dev/null | FileCheck %s --check-prefix=PTXAS %}

// CHECK-LABEL: func.func @mlp_f16(
// The 2-D weights enter through unit-dim views (tensor.expand_shape).
// CHECK: %[[G:.*]] = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2]] output_shape [1, 128, 64] {ug.boundary}
// CHECK: call @mlp_f16_lax0(%arg0, %[[G]], %{{.*}}, %{{.*}}) : (tensor<1x16x64xf16>, tensor<1x128x64xf16>, tensor<1x128x64xf16>, tensor<1x64x128xf16>) -> tensor<1x16x64xf16>
// CHECK-LABEL: func.func private @mlp_f16_lax0(
// CHECK-NEXT: "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<1x128x64xf16>) -> tensor<1x64x128xf16>
// CHECK-NEXT: "ug.transpose"(%arg2) {perm = array<i64: 0, 2, 1>} : (tensor<1x128x64xf16>) -> tensor<1x64x128xf16>
// CHECK-NEXT: "ug.transpose"(%arg3) {perm = array<i64: 0, 2, 1>} : (tensor<1x64x128xf16>) -> tensor<1x128x64xf16>
// The f32 matmul results are cast back to f16 by their only readers.
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<1x16x64xf16>, tensor<1x64x128xf16>) -> tensor<1x16x128xf16>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<1x16x64xf16>, tensor<1x64x128xf16>) -> tensor<1x16x128xf16>
// CHECK-NEXT: "ug.silu"
// CHECK-NEXT: "ug.mul"
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<1x16x128xf16>, tensor<1x128x64xf16>) -> tensor<1x16x64xf16>
// CHECK-NEXT: return
// CHECK-LABEL: func.func @mlp_bf16(
// CHECK-LABEL: func.func @linear_linalg(
// CHECK: call @linear_linalg_lax0(%arg0, %arg1) : (tensor<16x64xf32>, tensor<32x64xf32>)
// CHECK: "ug.transpose"(%arg1) {perm = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>
// CHECK-LABEL: func.func @linear_maps(
// CHECK: call @linear_maps_lax0(%arg0, %arg1) : (tensor<16x64xf32>, tensor<32x64xf32>)
// CHECK: "ug.transpose"(%arg1) {perm = array<i64: 1, 0>} : (tensor<32x64xf32>) -> tensor<64x32xf32>

// REM-NOT: is not lifted
// REM: module: 47 of 47 tensor ops lifted (100.0 %) into 4 subprograms
// NUM-COUNT-4: : ok
// NUM-NOT: MISMATCH

// SEARCH: '@mlp_f16_lax0' replaced by a verified μGraph: 5 kernel(s) -> 2,
// SEARCH: '@mlp_bf16_lax0' replaced by a verified μGraph: 5 kernel(s) -> 2,
// The layouts stay on the kernel graph and reach the block graphs.
// OPT-LABEL: func.func private @mlp_f16_lax0(
// OPT-NEXT: "ug.transpose"(%arg1)
// OPT-COUNT-2: "ug.custom"
// OPT-NOT: "ug.custom"
// OPT: return

// GPU-LABEL: gpu.module @mlp_f16_lax0_gpu
// GPU: memref.transpose %{{.*}} (d0, d1, d2) -> (d0, d2, d1) : memref<1x128x64xf16> to memref<1x64x128xf16, strided<[8192, 1, 64]>>
// PTXAS: mirage-ptxas: '@mlp_f16_lax0_gpu': ptxas accepts 2 kernel(s)
// PTXAS: mirage-ptxas: '@mlp_bf16_lax0_gpu': ptxas accepts 2 kernel(s)

func.func @mlp_f16(%x: tensor<1x16x64xf16>, %wg: tensor<128x64xf16>, %wu: tensor<128x64xf16>, %wd: tensor<64x128xf16>) -> tensor<1x16x64xf16> {
  %1 = tosa.transpose %wg {perms = array<i32: 1, 0>} : (tensor<128x64xf16>) -> tensor<64x128xf16>
  %2 = tosa.const_shape {values = dense<[16, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.reshape %x, %2 : (tensor<1x16x64xf16>, !tosa.shape<2>) -> tensor<16x64xf16>
  %4 = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %5 = tosa.reshape %3, %4 : (tensor<16x64xf16>, !tosa.shape<3>) -> tensor<1x16x64xf16>
  %6 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %7 = tosa.reshape %1, %6 : (tensor<64x128xf16>, !tosa.shape<3>) -> tensor<1x64x128xf16>
  %8 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %9 = tosa.matmul %5, %7, %8, %8 : (tensor<1x16x64xf16>, tensor<1x64x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x128xf32>
  %10 = tosa.cast %9 : (tensor<1x16x128xf32>) -> tensor<1x16x128xf16>
  %11 = tosa.transpose %wu {perms = array<i32: 1, 0>} : (tensor<128x64xf16>) -> tensor<64x128xf16>
  %12 = tosa.const_shape {values = dense<[16, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %13 = tosa.reshape %x, %12 : (tensor<1x16x64xf16>, !tosa.shape<2>) -> tensor<16x64xf16>
  %14 = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %15 = tosa.reshape %13, %14 : (tensor<16x64xf16>, !tosa.shape<3>) -> tensor<1x16x64xf16>
  %16 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %17 = tosa.reshape %11, %16 : (tensor<64x128xf16>, !tosa.shape<3>) -> tensor<1x64x128xf16>
  %18 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %19 = tosa.matmul %15, %17, %18, %18 : (tensor<1x16x64xf16>, tensor<1x64x128xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x128xf32>
  %20 = tosa.cast %19 : (tensor<1x16x128xf32>) -> tensor<1x16x128xf16>
  %21 = tosa.sigmoid %10 : (tensor<1x16x128xf16>) -> tensor<1x16x128xf16>
  %23 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %10, %21, %23 : (tensor<1x16x128xf16>, tensor<1x16x128xf16>, tensor<1xi8>) -> tensor<1x16x128xf16>
  %25 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %24 = tosa.mul %22, %20, %25 : (tensor<1x16x128xf16>, tensor<1x16x128xf16>, tensor<1xi8>) -> tensor<1x16x128xf16>
  %26 = tosa.transpose %wd {perms = array<i32: 1, 0>} : (tensor<64x128xf16>) -> tensor<128x64xf16>
  %27 = tosa.const_shape {values = dense<[16, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %28 = tosa.reshape %24, %27 : (tensor<1x16x128xf16>, !tosa.shape<2>) -> tensor<16x128xf16>
  %29 = tosa.const_shape {values = dense<[1, 16, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %30 = tosa.reshape %28, %29 : (tensor<16x128xf16>, !tosa.shape<3>) -> tensor<1x16x128xf16>
  %31 = tosa.const_shape {values = dense<[1, 128, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %32 = tosa.reshape %26, %31 : (tensor<128x64xf16>, !tosa.shape<3>) -> tensor<1x128x64xf16>
  %33 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %34 = tosa.matmul %30, %32, %33, %33 : (tensor<1x16x128xf16>, tensor<1x128x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x64xf32>
  %35 = tosa.cast %34 : (tensor<1x16x64xf32>) -> tensor<1x16x64xf16>
  return %35 : tensor<1x16x64xf16>
}
func.func @mlp_bf16(%x: tensor<1x16x64xbf16>, %wg: tensor<128x64xbf16>, %wu: tensor<128x64xbf16>, %wd: tensor<64x128xbf16>) -> tensor<1x16x64xbf16> {
  %1 = tosa.transpose %wg {perms = array<i32: 1, 0>} : (tensor<128x64xbf16>) -> tensor<64x128xbf16>
  %2 = tosa.const_shape {values = dense<[16, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %3 = tosa.reshape %x, %2 : (tensor<1x16x64xbf16>, !tosa.shape<2>) -> tensor<16x64xbf16>
  %4 = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %5 = tosa.reshape %3, %4 : (tensor<16x64xbf16>, !tosa.shape<3>) -> tensor<1x16x64xbf16>
  %6 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %7 = tosa.reshape %1, %6 : (tensor<64x128xbf16>, !tosa.shape<3>) -> tensor<1x64x128xbf16>
  %8 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %9 = tosa.matmul %5, %7, %8, %8 : (tensor<1x16x64xbf16>, tensor<1x64x128xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x128xf32>
  %10 = tosa.cast %9 : (tensor<1x16x128xf32>) -> tensor<1x16x128xbf16>
  %11 = tosa.transpose %wu {perms = array<i32: 1, 0>} : (tensor<128x64xbf16>) -> tensor<64x128xbf16>
  %12 = tosa.const_shape {values = dense<[16, 64]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %13 = tosa.reshape %x, %12 : (tensor<1x16x64xbf16>, !tosa.shape<2>) -> tensor<16x64xbf16>
  %14 = tosa.const_shape {values = dense<[1, 16, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %15 = tosa.reshape %13, %14 : (tensor<16x64xbf16>, !tosa.shape<3>) -> tensor<1x16x64xbf16>
  %16 = tosa.const_shape {values = dense<[1, 64, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %17 = tosa.reshape %11, %16 : (tensor<64x128xbf16>, !tosa.shape<3>) -> tensor<1x64x128xbf16>
  %18 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %19 = tosa.matmul %15, %17, %18, %18 : (tensor<1x16x64xbf16>, tensor<1x64x128xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x128xf32>
  %20 = tosa.cast %19 : (tensor<1x16x128xf32>) -> tensor<1x16x128xbf16>
  %21 = tosa.sigmoid %10 : (tensor<1x16x128xbf16>) -> tensor<1x16x128xbf16>
  %23 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %10, %21, %23 : (tensor<1x16x128xbf16>, tensor<1x16x128xbf16>, tensor<1xi8>) -> tensor<1x16x128xbf16>
  %25 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %24 = tosa.mul %22, %20, %25 : (tensor<1x16x128xbf16>, tensor<1x16x128xbf16>, tensor<1xi8>) -> tensor<1x16x128xbf16>
  %26 = tosa.transpose %wd {perms = array<i32: 1, 0>} : (tensor<64x128xbf16>) -> tensor<128x64xbf16>
  %27 = tosa.const_shape {values = dense<[16, 128]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %28 = tosa.reshape %24, %27 : (tensor<1x16x128xbf16>, !tosa.shape<2>) -> tensor<16x128xbf16>
  %29 = tosa.const_shape {values = dense<[1, 16, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %30 = tosa.reshape %28, %29 : (tensor<16x128xbf16>, !tosa.shape<3>) -> tensor<1x16x128xbf16>
  %31 = tosa.const_shape {values = dense<[1, 128, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %32 = tosa.reshape %26, %31 : (tensor<128x64xbf16>, !tosa.shape<3>) -> tensor<1x128x64xbf16>
  %33 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %34 = tosa.matmul %30, %32, %33, %33 : (tensor<1x16x128xbf16>, tensor<1x128x64xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x64xf32>
  %35 = tosa.cast %34 : (tensor<1x16x64xf32>) -> tensor<1x16x64xbf16>
  return %35 : tensor<1x16x64xbf16>
}

func.func @linear_linalg(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e : tensor<64x32xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = tensor.empty() : tensor<16x32xf32>
  %g = linalg.exp ins(%y : tensor<16x32xf32>) outs(%r : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @linear_maps(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %z = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.matmul indexing_maps = [#a, #bt, #c] ins(%x, %w : tensor<16x64xf32>, tensor<32x64xf32>) outs(%f : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = tensor.empty() : tensor<16x32xf32>
  %g = linalg.exp ins(%y : tensor<16x32xf32>) outs(%r : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %g : tensor<16x32xf32>
}
