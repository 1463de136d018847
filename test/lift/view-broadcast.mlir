// Views compose with broadcasts (issue 32): a transposed computed value,
// reshaped with unit dims, meeting a larger operand in a broadcasting add
// is realised as a valid ug.transpose (plus a ug.reshape for the unit dims)
// and stays broadcast; before, the lift built a transpose whose perm held
// the broadcast dim ("the μGraph rejected the op: transpose perm is not a
// permutation of 0..2") and cut the add. Our own text, in the forms
// torch-mlir's TOSA backend / ONNX importers (relative position bias added
// to per-head scores) and torch-mlir's linalg write.
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift %s > %t.mlir
// RUN: mirage-opt --mirage-verify-ugraph %t.mlir > /dev/null
// RUN: python3 %S/Inputs/distinct_args.py %t.mlir > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower %t.mlir | FileCheck %s --check-prefix=NUM
//
// REM: '@bias_rank2': lifted 1 subprogram (@bias_rank2_lax0); 0 tensor ops left in place
// REM: '@bias_rank3': lifted 1 subprogram (@bias_rank3_lax0); 0 tensor ops left in place
// REM: '@bias_two_adds': lifted 1 subprogram (@bias_two_adds_lax0); 0 tensor ops left in place
// REM: '@bias_linalg': lifted 1 subprogram (@bias_linalg_lax0); 0 tensor ops left in place
// REM: module: {{[0-9]+}} of {{[0-9]+}} tensor ops lifted (100.0 %)
// REM-NOT: not a permutation
//
// CHECK-LABEL: func.func private @bias_rank2_lax0(
// CHECK: %[[E:[0-9]+]] = "ug.exp"(%arg0) : (tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[T:[0-9]+]] = "ug.transpose"(%[[E]]) {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: %[[R:[0-9]+]] = "ug.reshape"(%[[T]]) : (tensor<16x8xf32>) -> tensor<1x16x8xf32>
// CHECK-NEXT: "ug.add"(%[[R]], %arg1) : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
// CHECK-LABEL: func.func private @bias_rank3_lax0(
// CHECK: %[[E:[0-9]+]] = "ug.exp"(%arg0) : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
// CHECK-NEXT: %[[T:[0-9]+]] = "ug.transpose"(%[[E]]) {perm = array<i64: 0, 2, 1>} : (tensor<1x8x16xf32>) -> tensor<1x16x8xf32>
// CHECK-NEXT: "ug.add"(%[[T]], %arg1) : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
// CHECK-LABEL: func.func private @bias_two_adds_lax0(
// CHECK-COUNT-1: "ug.transpose"
// CHECK-NOT: "ug.transpose"
// CHECK-COUNT-2: "ug.add"
// CHECK-LABEL: func.func private @bias_linalg_lax0(
// CHECK: "ug.exp"
// CHECK-NEXT: "ug.transpose"({{.*}}) {perm = array<i64: 1, 0>}
// CHECK-NEXT: "ug.reshape"
// CHECK-NEXT: "ug.add"({{.*}}) : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
//
// NUM: @bias_rank2_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @bias_rank3_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @bias_two_adds_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @bias_linalg_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH

func.func @bias_rank2(%x: tensor<8x16xf32>, %s: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %e = tosa.exp %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %t = tosa.transpose %e {perms = array<i32: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %sh = tosa.const_shape {values = dense<[1, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %r = tosa.reshape %t, %sh : (tensor<16x8xf32>, !tosa.shape<3>) -> tensor<1x16x8xf32>
  %a = tosa.add %r, %s : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %a : tensor<4x16x8xf32>
}

func.func @bias_rank3(%x: tensor<1x8x16xf32>, %s: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %e = tosa.exp %x : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %t = tosa.transpose %e {perms = array<i32: 0, 2, 1>} : (tensor<1x8x16xf32>) -> tensor<1x16x8xf32>
  %a = tosa.add %t, %s : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %a : tensor<4x16x8xf32>
}

// The view meets a constant first, then an input reshaped to rank 3.
func.func @bias_two_adds(%x: tensor<1x8x16xf32>, %y: tensor<16x8xf32>) -> tensor<4x16x8xf32> {
  %e = tosa.exp %x : (tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %t = tosa.transpose %e {perms = array<i32: 0, 2, 1>} : (tensor<1x8x16xf32>) -> tensor<1x16x8xf32>
  %sh = tosa.const_shape {values = dense<[1, 16, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %yr = tosa.reshape %y, %sh : (tensor<16x8xf32>, !tosa.shape<3>) -> tensor<1x16x8xf32>
  %c = "tosa.const"() <{values = dense<1.0> : tensor<4x16x8xf32>}> : () -> tensor<4x16x8xf32>
  %a = tosa.add %t, %c : (tensor<1x16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %b = tosa.add %a, %yr : (tensor<4x16x8xf32>, tensor<1x16x8xf32>) -> tensor<4x16x8xf32>
  return %b : tensor<4x16x8xf32>
}

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#b3 = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bias_linalg(%x: tensor<8x16xf32>, %s: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %e0 = tensor.empty() : tensor<8x16xf32>
  %e = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.exp %a : f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<16x8xf32>
  %t = linalg.transpose ins(%e : tensor<8x16xf32>) outs(%e1 : tensor<16x8xf32>) permutation = [1, 0]
  %r = tensor.expand_shape %t [[0, 1], [2]] output_shape [1, 16, 8] : tensor<16x8xf32> into tensor<1x16x8xf32>
  %e3 = tensor.empty() : tensor<4x16x8xf32>
  %a = linalg.generic {indexing_maps = [#b3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%r, %s : tensor<1x16x8xf32>, tensor<4x16x8xf32>) outs(%e3 : tensor<4x16x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %v = arith.addf %p, %q : f32
    linalg.yield %v : f32
  } -> tensor<4x16x8xf32>
  return %a : tensor<4x16x8xf32>
}
