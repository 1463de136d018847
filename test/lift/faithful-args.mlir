// A kernel graph is a function of distinct arguments, the same function as
// its reference (issue 32). Rotary embeddings as frontends write them (our
// own text): the cos/sin tables [S, D] are read plain (scaled, returned as
// the position embeddings) and, unsqueezed to 1x1xSxD, in the broadcast
// multiply with Q. The table enters the kernel graph once, at its own type;
// the 1x1xSxD read is a ug.reshape inside (before, it entered twice: the
// kernel graph read the reshaped copy, the reference the plain one, and
// mirage-run reported a mismatch on a correct program).
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s > %t.mlir
// RUN: mirage-opt --mirage-verify-ugraph %t.mlir > /dev/null
// No call passes one value twice, boundary reshapes seen through (the
// checker fails on the lift before the fix: `@rope_tosa_lax0 takes %arg1
// twice (as %arg1 and %expanded)`).
// RUN: python3 %S/Inputs/distinct_args.py %t.mlir | FileCheck %s --check-prefix=ARGS
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower %t.mlir | FileCheck %s --check-prefix=NUM
//
// REM: '@rope_tosa': lifted 1 subprogram (@rope_tosa_lax0); 1 tensor op left in place
// REM: 'tosa.cos' is not lifted: the μGraph has no counterpart of 'tosa.cos'
// REM: @rope_tosa_lax0: 6 ops -> kernel graph of 4 μGraph ops, 3 inputs, 2 outputs
// REM: '@rope_linalg': lifted 1 subprogram (@rope_linalg_lax0); 0 tensor ops left in place
// REM: @rope_linalg_lax0: 2 ops -> kernel graph of 2 μGraph ops, 3 inputs, 2 outputs
// REM: '@rope_f16': lifted 1 subprogram (@rope_f16_lax0); 0 tensor ops left in place
// REM: @rope_f16_lax0: 9 ops -> kernel graph of 7 μGraph ops, 4 inputs, 3 outputs
//
// The table (the tosa.cos result) enters once, plain; sin, read only
// unsqueezed, still enters through a boundary reshape (a view, no copy).
// CHECK-LABEL: func.func @rope_tosa(
// CHECK: %[[COS:[0-9]+]] = tosa.cos
// CHECK: %[[SIN:[a-z_0-9]+]] = tensor.expand_shape %arg2 {{.*}} {ug.boundary}
// CHECK-NOT: ug.boundary
// CHECK: call @rope_tosa_lax0(%arg0, %[[SIN]], %[[COS]])
// CHECK-LABEL: func.func private @rope_tosa_lax0(
// CHECK-SAME: %arg0: tensor<1x2x8x16xf32>, %arg1: tensor<1x1x8x16xf32>, %arg2: tensor<8x16xf32>)
// CHECK-NEXT: %[[C:[0-9]+]] = "ug.reshape"(%arg2) : (tensor<8x16xf32>) -> tensor<1x1x8x16xf32>
// CHECK-NEXT: "ug.mul"(%arg0, %[[C]])
// CHECK-NEXT: "ug.mul"(%arg0, %arg1)
// CHECK-NEXT: "ug.add"
// CHECK-NEXT: "ug.mul_scalar"(%arg2)
// CHECK-LABEL: func.func private @rope_tosa_lax0_ref(
// CHECK: tosa.reshape %arg2
// CHECK: tosa.mul %arg2
//
// CHECK-LABEL: func.func @rope_linalg(
// CHECK: call @rope_linalg_lax0(%arg0, %arg1, %arg2)
// CHECK-LABEL: func.func private @rope_linalg_lax0(
// CHECK-SAME: %arg0: tensor<1x2x8x16xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<8x16xf32>)
// CHECK-NEXT: %[[C:[0-9]+]] = "ug.reshape"(%arg1) : (tensor<8x16xf32>) -> tensor<1x1x8x16xf32>
// CHECK-NEXT: "ug.mul"(%arg0, %[[C]])
// CHECK-NEXT: "ug.add"(%arg1, %arg2)
//
// CHECK-LABEL: func.func @rope_f16(
// CHECK: call @rope_f16_lax0(%arg0, %arg1, %arg2, %arg3)
// CHECK-LABEL: func.func private @rope_f16_lax0(
// CHECK-COUNT-2: "ug.reshape"
// CHECK-NOT: "ug.reshape"
// CHECK: "ug.mul"(%arg2, %arg3)
//
// ARGS: distinct-args: {{.*}}: 3 kernel calls, 0 with a repeated value
// NUM: @rope_tosa_lax0: 2 outputs, 384 elements, max abs error {{.*}}: ok
// NUM: @rope_linalg_lax0: 2 outputs, 384 elements, max abs error {{.*}}: ok
// NUM: @rope_f16_lax0: 3 outputs, {{.*}}: ok
// NUM-NOT: MISMATCH

// torch-mlir's TOSA: the table comes from tosa.cos (cut); scaled by the
// attention factor it is returned, unsqueezed it multiplies Q.
func.func @rope_tosa(%q: tensor<1x2x8x16xf32>, %freqs: tensor<8x16xf32>, %sin: tensor<8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<8x16xf32>) {
  %cos = tosa.cos %freqs : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s4 = tosa.const_shape {values = dense<[1, 1, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c4 = tosa.reshape %cos, %s4 : (tensor<8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %n4 = tosa.reshape %sin, %s4 : (tensor<8x16xf32>, !tosa.shape<4>) -> tensor<1x1x8x16xf32>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %a = tosa.mul %q, %c4, %z : (tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x2x8x16xf32>
  %b = tosa.mul %q, %n4, %z : (tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1xi8>) -> tensor<1x2x8x16xf32>
  %r = tosa.add %a, %b : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  %k = "tosa.const"() <{values = dense<1.5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %p = tosa.mul %cos, %k, %z : (tensor<8x16xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<8x16xf32>
  return %r, %p : tensor<1x2x8x16xf32>, tensor<8x16xf32>
}

// linalg: the table broadcast by an indexing map inside the multiply with
// Q, and read plain by an element-wise generic whose result is returned.
#q4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#t4 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @rope_linalg(%q: tensor<1x2x8x16xf32>, %cos: tensor<8x16xf32>, %w: tensor<8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<8x16xf32>) {
  %e4 = tensor.empty() : tensor<1x2x8x16xf32>
  %a = linalg.generic {indexing_maps = [#q4, #t4, #q4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%q, %cos : tensor<1x2x8x16xf32>, tensor<8x16xf32>) outs(%e4 : tensor<1x2x8x16xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %m = arith.mulf %x, %c : f32
    linalg.yield %m : f32
  } -> tensor<1x2x8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%cos, %w : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%c: f32, %v: f32, %o: f32):
    %m = arith.addf %c, %v : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %a, %p : tensor<1x2x8x16xf32>, tensor<8x16xf32>
}

// f16, both tables read both ways (HF's apply_rotary_pos_emb on Q and K,
// the tables also returned through a copy-free multiply by the scaling).
func.func @rope_f16(%q: tensor<1x2x8x16xf16>, %k: tensor<1x1x8x16xf16>, %cos: tensor<8x16xf16>, %sin: tensor<8x16xf16>) -> (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<8x16xf16>) {
  %s4 = tosa.const_shape {values = dense<[1, 1, 8, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %c4 = tosa.reshape %cos, %s4 : (tensor<8x16xf16>, !tosa.shape<4>) -> tensor<1x1x8x16xf16>
  %n4 = tosa.reshape %sin, %s4 : (tensor<8x16xf16>, !tosa.shape<4>) -> tensor<1x1x8x16xf16>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %qa = tosa.mul %q, %c4, %z : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %qb = tosa.mul %q, %n4, %z : (tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x2x8x16xf16>
  %qr = tosa.add %qa, %qb : (tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16>) -> tensor<1x2x8x16xf16>
  %ka = tosa.mul %k, %c4, %z : (tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x1x8x16xf16>
  %kb = tosa.mul %k, %n4, %z : (tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>, tensor<1xi8>) -> tensor<1x1x8x16xf16>
  %kr = tosa.add %ka, %kb : (tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>) -> tensor<1x1x8x16xf16>
  %cs = tosa.mul %cos, %sin, %z : (tensor<8x16xf16>, tensor<8x16xf16>, tensor<1xi8>) -> tensor<8x16xf16>
  return %qr, %kr, %cs : tensor<1x2x8x16xf16>, tensor<1x1x8x16xf16>, tensor<8x16xf16>
}
