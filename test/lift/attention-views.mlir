// An attention block as torch-mlir's TOSA backend writes it (our own text):
// nn.Linear projections through transposed weights and rank-3 wrappers,
// heads split by reshape + transpose, rotate-half RoPE by slice + negate +
// concat, Kᵀ by a transpose of the computed K, softmax, P·V, heads merged by
// transpose + reshape, the output projection. The views become ug view ops
// (reshape, transpose, slice, concat), so the block lifts as one
// subprogram, f16 and bf16. The stable softmax's reduce_max lifts as
// ug.reduce_max: the stable variant is one subprogram too.
// RUN: mirage-opt --mirage-lift="max-ops=40" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift="max-ops=40" %s | FileCheck %s
// RUN: mirage-opt --mirage-lift="max-ops=40" %s > %t.mlir
// RUN: mirage-opt --mirage-verify-ugraph %t.mlir > /dev/null
// Every lifted subprogram agrees with its original ops (interpreter and the
// JIT of the reference; then the JIT of our own lowering).
// RUN: mirage-run --range=0.25 %t.mlir | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --range=0.25 --lower %t.mlir | FileCheck %s --check-prefix=VAL
//
// REM: '@attention_f16': lifted 1 subprogram (@attention_f16_lax0); 0 tensor ops left in place
// REM: '@attention_bf16': lifted 1 subprogram (@attention_bf16_lax0); 0 tensor ops left in place
// REM: '@attention_stable': lifted 1 subprogram (@attention_stable_lax0); 0 tensor ops left in place
// REM: module: 167 of 167 tensor ops lifted (100.0 %) into 3 subprograms
//
// CHECK-LABEL: func.func private @attention_f16_lax0(
// Head split of the Q projection, rotate-half, Kᵀ, head merge.
// CHECK: "ug.reshape"({{.*}}) : (tensor<1x8x32xf16>) -> tensor<1x8x2x16xf16>
// CHECK: "ug.slice"({{.*}}) {dim = 3 : i64, offset = 8 : i64} : (tensor<1x8x2x16xf16>) -> tensor<1x8x2x8xf16>
// CHECK: "ug.concat"({{.*}}) {dim = 3 : i64} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x16xf16>
// CHECK: "ug.transpose"({{.*}}) {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x8x16xf16>) -> tensor<1x2x16x8xf16>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<1x2x8x16xf16>, tensor<1x2x16x8xf16>) -> tensor<1x2x8x8xf16>
// CHECK: "ug.transpose"({{.*}}) {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x8x16xf16>) -> tensor<1x8x2x16xf16>
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<1x8x2x16xf16>) -> tensor<1x8x32xf16>
// The stable softmax, with its max, inside the one subprogram.
// CHECK-LABEL: func.func private @attention_stable_lax0(
// CHECK: %[[S:[0-9]+]] = "ug.add"({{.*}}) : (tensor<1x2x8x8xf16>, tensor<1x1x8x8xf16>) -> tensor<1x2x8x8xf16>
// CHECK-NEXT: %[[M:[0-9]+]] = "ug.reduce_max"(%[[S]]) {dim = 3 : i64} : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x1xf16>
// CHECK-NEXT: %[[D:[0-9]+]] = "ug.sub"(%[[S]], %[[M]]) : (tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) -> tensor<1x2x8x8xf16>
// CHECK-NEXT: "ug.exp"(%[[D]])
// CHECK-NOT: func.func private @attention_stable_lax1(
//
// VAL: @attention_f16_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @attention_bf16_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NEXT: @attention_stable_lax0: 1 output, 256 elements, max abs error {{.*}}: ok
// VAL-NOT: MISMATCH
// VAL-NOT: ill-conditioned

func.func @attention_f16(%x: tensor<1x8x32xf16>, %cos: tensor<1x1x8x16xf16>, %sin: tensor<1x1x8x16xf16>, %mask: tensor<1x1x8x8xf16>, %wq: tensor<32x32xf16>, %wk: tensor<32x32xf16>, %wv: tensor<32x32xf16>, %wo: tensor<32x32xf16>) -> tensor<1x8x32xf16> {
  %1 = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %2 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.reshape %1, %2 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %4 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %5 = tosa.matmul %x, %3, %4, %4 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %6 = tosa.cast %5 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %7 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %8 = tosa.reshape %6, %7 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %9 = tosa.transpose %8 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %10 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %11 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %12 = tosa.slice %9, %10, %11 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %13 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %14 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %15 = tosa.slice %9, %13, %14 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %16 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %17 = tosa.negate %15, %16, %16 : (tensor<1x2x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x8x8xf16>
  %18 = tosa.concat %17, %12 {axis = 3 : i32} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x16xf16>
  %19 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %20 = tosa.mul %9, %cos, %19 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %21 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %18, %sin, %21 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %23 = tosa.add %20, %22 : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %24 = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %25 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %26 = tosa.reshape %24, %25 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %27 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %28 = tosa.matmul %x, %26, %27, %27 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %29 = tosa.cast %28 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %30 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %31 = tosa.reshape %29, %30 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %32 = tosa.transpose %31 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %33 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %34 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %35 = tosa.slice %32, %33, %34 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %36 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %37 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %38 = tosa.slice %32, %36, %37 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %39 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %40 = tosa.negate %38, %39, %39 : (tensor<1x2x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x8x8xf16>
  %41 = tosa.concat %40, %35 {axis = 3 : i32} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x16xf16>
  %42 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %43 = tosa.mul %32, %cos, %42 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %44 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %45 = tosa.mul %41, %sin, %44 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %46 = tosa.add %43, %45 : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %47 = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %48 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %49 = tosa.reshape %47, %48 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %50 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %51 = tosa.matmul %x, %49, %50, %50 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %52 = tosa.cast %51 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %53 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %54 = tosa.reshape %52, %53 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %55 = tosa.transpose %54 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %56 = tosa.transpose %46 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x8x16xf16>) -> tensor<1x2x16x8xf16>
  %57 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %58 = tosa.reshape %23, %57 : (tensor<1x2x8x16xf16>, !tosa.shape<3>) -> tensor<2x8x16xf16>
  %59 = tosa.const_shape {values = dense<[2, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %60 = tosa.reshape %56, %59 : (tensor<1x2x16x8xf16>, !tosa.shape<3>) -> tensor<2x16x8xf16>
  %61 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %62 = tosa.matmul %58, %60, %61, %61 : (tensor<2x8x16xf16>, tensor<2x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x8xf32>
  %63 = tosa.cast %62 : (tensor<2x8x8xf32>) -> tensor<2x8x8xf16>
  %64 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %65 = tosa.reshape %63, %64 : (tensor<2x8x8xf16>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %66 = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
  %67 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %68 = tosa.mul %65, %66, %67 : (tensor<1x2x8x8xf16>, tensor<1x1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x8x8xf16>
  %69 = tosa.add %68, %mask : (tensor<1x2x8x8xf16>, tensor<1x1x8x8xf16>) -> tensor<1x2x8x8xf16>
  %70 = tosa.exp %69 : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %71 = tosa.reduce_sum %70 {axis = 3 : i32} : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x1xf16>
  %72 = tosa.reciprocal %71 : (tensor<1x2x8x1xf16>) -> tensor<1x2x8x1xf16>
  %73 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %74 = tosa.mul %70, %72, %73 : (tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>, tensor<1xi8>) -> tensor<1x2x8x8xf16>
  %75 = tosa.const_shape {values = dense<[2, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %76 = tosa.reshape %74, %75 : (tensor<1x2x8x8xf16>, !tosa.shape<3>) -> tensor<2x8x8xf16>
  %77 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %78 = tosa.reshape %55, %77 : (tensor<1x2x8x16xf16>, !tosa.shape<3>) -> tensor<2x8x16xf16>
  %79 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %80 = tosa.matmul %76, %78, %79, %79 : (tensor<2x8x8xf16>, tensor<2x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x16xf32>
  %81 = tosa.cast %80 : (tensor<2x8x16xf32>) -> tensor<2x8x16xf16>
  %82 = tosa.const_shape {values = dense<[1, 2, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %83 = tosa.reshape %81, %82 : (tensor<2x8x16xf16>, !tosa.shape<4>) -> tensor<1x2x8x16xf16>
  %84 = tosa.transpose %83 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x8x16xf16>) -> tensor<1x8x2x16xf16>
  %85 = tosa.const_shape {values = dense<[1, 8, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %86 = tosa.reshape %84, %85 : (tensor<1x8x2x16xf16>, !tosa.shape<3>) -> tensor<1x8x32xf16>
  %87 = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %88 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %89 = tosa.reshape %87, %88 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %90 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %91 = tosa.matmul %86, %89, %90, %90 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %92 = tosa.cast %91 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  return %92 : tensor<1x8x32xf16>
}
func.func @attention_bf16(%x: tensor<1x8x32xbf16>, %cos: tensor<1x1x8x16xbf16>, %sin: tensor<1x1x8x16xbf16>, %mask: tensor<1x1x8x8xbf16>, %wq: tensor<32x32xbf16>, %wk: tensor<32x32xbf16>, %wv: tensor<32x32xbf16>, %wo: tensor<32x32xbf16>) -> tensor<1x8x32xbf16> {
  %1 = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %2 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.reshape %1, %2 : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %4 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %5 = tosa.matmul %x, %3, %4, %4 : (tensor<1x8x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x32xf32>
  %6 = tosa.cast %5 : (tensor<1x8x32xf32>) -> tensor<1x8x32xbf16>
  %7 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %8 = tosa.reshape %6, %7 : (tensor<1x8x32xbf16>, !tosa.shape<4>) -> tensor<1x8x2x16xbf16>
  %9 = tosa.transpose %8 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xbf16>) -> tensor<1x2x8x16xbf16>
  %10 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %11 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %12 = tosa.slice %9, %10, %11 : (tensor<1x2x8x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xbf16>
  %13 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %14 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %15 = tosa.slice %9, %13, %14 : (tensor<1x2x8x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xbf16>
  %16 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %17 = tosa.negate %15, %16, %16 : (tensor<1x2x8x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2x8x8xbf16>
  %18 = tosa.concat %17, %12 {axis = 3 : i32} : (tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>) -> tensor<1x2x8x16xbf16>
  %19 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %20 = tosa.mul %9, %cos, %19 : (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1xi8>) -> tensor<1x2x8x16xbf16>
  %21 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %18, %sin, %21 : (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1xi8>) -> tensor<1x2x8x16xbf16>
  %23 = tosa.add %20, %22 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xbf16>
  %24 = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %25 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %26 = tosa.reshape %24, %25 : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %27 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %28 = tosa.matmul %x, %26, %27, %27 : (tensor<1x8x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x32xf32>
  %29 = tosa.cast %28 : (tensor<1x8x32xf32>) -> tensor<1x8x32xbf16>
  %30 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %31 = tosa.reshape %29, %30 : (tensor<1x8x32xbf16>, !tosa.shape<4>) -> tensor<1x8x2x16xbf16>
  %32 = tosa.transpose %31 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xbf16>) -> tensor<1x2x8x16xbf16>
  %33 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %34 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %35 = tosa.slice %32, %33, %34 : (tensor<1x2x8x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xbf16>
  %36 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %37 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %38 = tosa.slice %32, %36, %37 : (tensor<1x2x8x16xbf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xbf16>
  %39 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %40 = tosa.negate %38, %39, %39 : (tensor<1x2x8x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x2x8x8xbf16>
  %41 = tosa.concat %40, %35 {axis = 3 : i32} : (tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>) -> tensor<1x2x8x16xbf16>
  %42 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %43 = tosa.mul %32, %cos, %42 : (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1xi8>) -> tensor<1x2x8x16xbf16>
  %44 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %45 = tosa.mul %41, %sin, %44 : (tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1xi8>) -> tensor<1x2x8x16xbf16>
  %46 = tosa.add %43, %45 : (tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>) -> tensor<1x2x8x16xbf16>
  %47 = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %48 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %49 = tosa.reshape %47, %48 : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %50 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %51 = tosa.matmul %x, %49, %50, %50 : (tensor<1x8x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x32xf32>
  %52 = tosa.cast %51 : (tensor<1x8x32xf32>) -> tensor<1x8x32xbf16>
  %53 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %54 = tosa.reshape %52, %53 : (tensor<1x8x32xbf16>, !tosa.shape<4>) -> tensor<1x8x2x16xbf16>
  %55 = tosa.transpose %54 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xbf16>) -> tensor<1x2x8x16xbf16>
  %56 = tosa.transpose %46 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x8x16xbf16>) -> tensor<1x2x16x8xbf16>
  %57 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %58 = tosa.reshape %23, %57 : (tensor<1x2x8x16xbf16>, !tosa.shape<3>) -> tensor<2x8x16xbf16>
  %59 = tosa.const_shape {values = dense<[2, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %60 = tosa.reshape %56, %59 : (tensor<1x2x16x8xbf16>, !tosa.shape<3>) -> tensor<2x16x8xbf16>
  %61 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %62 = tosa.matmul %58, %60, %61, %61 : (tensor<2x8x16xbf16>, tensor<2x16x8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x8x8xf32>
  %63 = tosa.cast %62 : (tensor<2x8x8xf32>) -> tensor<2x8x8xbf16>
  %64 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %65 = tosa.reshape %63, %64 : (tensor<2x8x8xbf16>, !tosa.shape<4>) -> tensor<1x2x8x8xbf16>
  %66 = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xbf16>}> : () -> tensor<1x1x1x1xbf16>
  %67 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %68 = tosa.mul %65, %66, %67 : (tensor<1x2x8x8xbf16>, tensor<1x1x1x1xbf16>, tensor<1xi8>) -> tensor<1x2x8x8xbf16>
  %69 = tosa.add %68, %mask : (tensor<1x2x8x8xbf16>, tensor<1x1x8x8xbf16>) -> tensor<1x2x8x8xbf16>
  %70 = tosa.exp %69 : (tensor<1x2x8x8xbf16>) -> tensor<1x2x8x8xbf16>
  %71 = tosa.reduce_sum %70 {axis = 3 : i32} : (tensor<1x2x8x8xbf16>) -> tensor<1x2x8x1xbf16>
  %72 = tosa.reciprocal %71 : (tensor<1x2x8x1xbf16>) -> tensor<1x2x8x1xbf16>
  %73 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %74 = tosa.mul %70, %72, %73 : (tensor<1x2x8x8xbf16>, tensor<1x2x8x1xbf16>, tensor<1xi8>) -> tensor<1x2x8x8xbf16>
  %75 = tosa.const_shape {values = dense<[2, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %76 = tosa.reshape %74, %75 : (tensor<1x2x8x8xbf16>, !tosa.shape<3>) -> tensor<2x8x8xbf16>
  %77 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %78 = tosa.reshape %55, %77 : (tensor<1x2x8x16xbf16>, !tosa.shape<3>) -> tensor<2x8x16xbf16>
  %79 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %80 = tosa.matmul %76, %78, %79, %79 : (tensor<2x8x8xbf16>, tensor<2x8x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x8x16xf32>
  %81 = tosa.cast %80 : (tensor<2x8x16xf32>) -> tensor<2x8x16xbf16>
  %82 = tosa.const_shape {values = dense<[1, 2, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %83 = tosa.reshape %81, %82 : (tensor<2x8x16xbf16>, !tosa.shape<4>) -> tensor<1x2x8x16xbf16>
  %84 = tosa.transpose %83 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x8x16xbf16>) -> tensor<1x8x2x16xbf16>
  %85 = tosa.const_shape {values = dense<[1, 8, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %86 = tosa.reshape %84, %85 : (tensor<1x8x2x16xbf16>, !tosa.shape<3>) -> tensor<1x8x32xbf16>
  %87 = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %88 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %89 = tosa.reshape %87, %88 : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %90 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %91 = tosa.matmul %86, %89, %90, %90 : (tensor<1x8x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x8x32xf32>
  %92 = tosa.cast %91 : (tensor<1x8x32xf32>) -> tensor<1x8x32xbf16>
  return %92 : tensor<1x8x32xbf16>
}
func.func @attention_stable(%x: tensor<1x8x32xf16>, %cos: tensor<1x1x8x16xf16>, %sin: tensor<1x1x8x16xf16>, %mask: tensor<1x1x8x8xf16>, %wq: tensor<32x32xf16>, %wk: tensor<32x32xf16>, %wv: tensor<32x32xf16>, %wo: tensor<32x32xf16>) -> tensor<1x8x32xf16> {
  %1 = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %2 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %3 = tosa.reshape %1, %2 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %4 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %5 = tosa.matmul %x, %3, %4, %4 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %6 = tosa.cast %5 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %7 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %8 = tosa.reshape %6, %7 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %9 = tosa.transpose %8 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %10 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %11 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %12 = tosa.slice %9, %10, %11 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %13 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %14 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %15 = tosa.slice %9, %13, %14 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %16 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %17 = tosa.negate %15, %16, %16 : (tensor<1x2x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x8x8xf16>
  %18 = tosa.concat %17, %12 {axis = 3 : i32} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x16xf16>
  %19 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %20 = tosa.mul %9, %cos, %19 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %21 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %18, %sin, %21 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %23 = tosa.add %20, %22 : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %24 = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %25 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %26 = tosa.reshape %24, %25 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %27 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %28 = tosa.matmul %x, %26, %27, %27 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %29 = tosa.cast %28 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %30 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %31 = tosa.reshape %29, %30 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %32 = tosa.transpose %31 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %33 = tosa.const_shape {values = dense<[0, 0, 0, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %34 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %35 = tosa.slice %32, %33, %34 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %36 = tosa.const_shape {values = dense<[0, 0, 0, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %37 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %38 = tosa.slice %32, %36, %37 : (tensor<1x2x8x16xf16>, !tosa.shape<4>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %39 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %40 = tosa.negate %38, %39, %39 : (tensor<1x2x8x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x8x8xf16>
  %41 = tosa.concat %40, %35 {axis = 3 : i32} : (tensor<1x2x8x8xf16>, tensor<1x2x8x8xf16>) -> tensor<1x2x8x16xf16>
  %42 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %43 = tosa.mul %32, %cos, %42 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %44 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %45 = tosa.mul %41, %sin, %44 : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %46 = tosa.add %43, %45 : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %47 = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %48 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %49 = tosa.reshape %47, %48 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %50 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %51 = tosa.matmul %x, %49, %50, %50 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %52 = tosa.cast %51 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  %53 = tosa.const_shape {values = dense<[1, 8, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %54 = tosa.reshape %52, %53 : (tensor<1x8x32xf16>, !tosa.shape<4>) -> tensor<1x8x2x16xf16>
  %55 = tosa.transpose %54 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x8x2x16xf16>) -> tensor<1x2x8x16xf16>
  %56 = tosa.transpose %46 {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x8x16xf16>) -> tensor<1x2x16x8xf16>
  %57 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %58 = tosa.reshape %23, %57 : (tensor<1x2x8x16xf16>, !tosa.shape<3>) -> tensor<2x8x16xf16>
  %59 = tosa.const_shape {values = dense<[2, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %60 = tosa.reshape %56, %59 : (tensor<1x2x16x8xf16>, !tosa.shape<3>) -> tensor<2x16x8xf16>
  %61 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %62 = tosa.matmul %58, %60, %61, %61 : (tensor<2x8x16xf16>, tensor<2x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x8xf32>
  %63 = tosa.cast %62 : (tensor<2x8x8xf32>) -> tensor<2x8x8xf16>
  %64 = tosa.const_shape {values = dense<[1, 2, 8, 8]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %65 = tosa.reshape %63, %64 : (tensor<2x8x8xf16>, !tosa.shape<4>) -> tensor<1x2x8x8xf16>
  %66 = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
  %67 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %68 = tosa.mul %65, %66, %67 : (tensor<1x2x8x8xf16>, tensor<1x1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x8x8xf16>
  %69 = tosa.add %68, %mask : (tensor<1x2x8x8xf16>, tensor<1x1x8x8xf16>) -> tensor<1x2x8x8xf16>
  %70 = tosa.reduce_max %69 {axis = 3 : i32} : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x1xf16>
  %71 = tosa.sub %69, %70 : (tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>) -> tensor<1x2x8x8xf16>
  %72 = tosa.exp %71 : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x8xf16>
  %73 = tosa.reduce_sum %72 {axis = 3 : i32} : (tensor<1x2x8x8xf16>) -> tensor<1x2x8x1xf16>
  %74 = tosa.reciprocal %73 : (tensor<1x2x8x1xf16>) -> tensor<1x2x8x1xf16>
  %75 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %76 = tosa.mul %72, %74, %75 : (tensor<1x2x8x8xf16>, tensor<1x2x8x1xf16>, tensor<1xi8>) -> tensor<1x2x8x8xf16>
  %77 = tosa.const_shape {values = dense<[2, 8, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %78 = tosa.reshape %76, %77 : (tensor<1x2x8x8xf16>, !tosa.shape<3>) -> tensor<2x8x8xf16>
  %79 = tosa.const_shape {values = dense<[2, 8, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %80 = tosa.reshape %55, %79 : (tensor<1x2x8x16xf16>, !tosa.shape<3>) -> tensor<2x8x16xf16>
  %81 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %82 = tosa.matmul %78, %80, %81, %81 : (tensor<2x8x8xf16>, tensor<2x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x8x16xf32>
  %83 = tosa.cast %82 : (tensor<2x8x16xf32>) -> tensor<2x8x16xf16>
  %84 = tosa.const_shape {values = dense<[1, 2, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %85 = tosa.reshape %83, %84 : (tensor<2x8x16xf16>, !tosa.shape<4>) -> tensor<1x2x8x16xf16>
  %86 = tosa.transpose %85 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x8x16xf16>) -> tensor<1x8x2x16xf16>
  %87 = tosa.const_shape {values = dense<[1, 8, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %88 = tosa.reshape %86, %87 : (tensor<1x8x2x16xf16>, !tosa.shape<3>) -> tensor<1x8x32xf16>
  %89 = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %90 = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %91 = tosa.reshape %89, %90 : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %92 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %93 = tosa.matmul %88, %91, %92, %92 : (tensor<1x8x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x8x32xf32>
  %94 = tosa.cast %93 : (tensor<1x8x32xf32>) -> tensor<1x8x32xf16>
  return %94 : tensor<1x8x32xf16>
}
