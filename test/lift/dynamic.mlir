// Dynamic dims (issue 29), in the forms frontends emit them: TOSA with `?`
// types (torch-mlir's TOSA path, ONNX importers), linalg with tensor.dim
// feeding tensor.empty (torch-mlir's linalg path). Each function lifts as
// one subprogram whose `?` dims are one symbol (ug.sym on the arguments,
// its stand-in size in ug.syms); unlift prints the input again; mirage-run
// compares the interpreter with the JIT-compiled original at sizes 1, 7,
// 129 and 1024 (every `?` at that size).
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift %s -o %t.lifted
// RUN: mirage-run %t.lifted | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --dynamic-sizes=3,64 %t.lifted | FileCheck %s --check-prefix=SIZES
// RUN: not mirage-run --dynamic-sizes=0 %t.lifted 2>&1 | FileCheck %s --check-prefix=BAD

// Softmax over `?` rows.
// CHECK-LABEL: func.func private @softmax_rows_lax0(%arg0: tensor<?x128xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<?x128xf32> attributes {ug.level = "kernel", ug.reference = @softmax_rows_lax0_ref, ug.syms = array<i64: 1009, 0, 0>}
// CHECK: "ug.reduce_max"(%arg0) {dim = 1 : i64} : (tensor<?x128xf32>) -> tensor<?x1xf32>
// CHECK: "ug.div"({{.*}}) : (tensor<?x128xf32>, tensor<?x1xf32>) -> tensor<?x128xf32>
func.func @softmax_rows(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %m = tosa.reduce_max %x {axis = 1 : i32} : (tensor<?x128xf32>) -> tensor<?x1xf32>
  %d = tosa.sub %x, %m : (tensor<?x128xf32>, tensor<?x1xf32>) -> tensor<?x128xf32>
  %e = tosa.exp %d : (tensor<?x128xf32>) -> tensor<?x128xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<?x128xf32>) -> tensor<?x1xf32>
  %r = tosa.reciprocal %s : (tensor<?x1xf32>) -> tensor<?x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %e, %r, %shift : (tensor<?x128xf32>, tensor<?x1xf32>, tensor<1xi8>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// RMSNorm + projection over `?` tokens (the paper's benchmark 1, small).
// CHECK-LABEL: func.func private @rmsnorm_tokens_lax0(%arg0: tensor<1x?x64xf16> {ug.sym = array<i64: 0, 1, 0>}, %arg1: tensor<1x64x96xf16>) -> tensor<1x?x96xf16>
// CHECK: "ug.matmul"({{.*}}) : (tensor<1x?x64xf16>, tensor<1x64x96xf16>) -> tensor<1x?x96xf16>
func.func @rmsnorm_tokens(%x: tensor<1x?x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x?x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.pow %x, %two : (tensor<1x?x64xf16>, tensor<1x1x1xf16>) -> tensor<1x?x64xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x?x64xf16>) -> tensor<1x?x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x?x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x?x1xf16>
  %rms = tosa.pow %mean, %half : (tensor<1x?x1xf16>, tensor<1x1x1xf16>) -> tensor<1x?x1xf16>
  %inv = tosa.reciprocal %rms : (tensor<1x?x1xf16>) -> tensor<1x?x1xf16>
  %normed = tosa.mul %x, %inv, %shift : (tensor<1x?x64xf16>, tensor<1x?x1xf16>, tensor<1xi8>) -> tensor<1x?x64xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x?x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x?x96xf16>
  return %y : tensor<1x?x96xf16>
}

// Gated MLP over `?` tokens, torch-mlir style: the tokens reshaped to
// 1x?x64 around the matmuls, weights transposed.
// CHECK-LABEL: func.func private @gated_mlp_lax0(%arg0: tensor<?x64xf32> {ug.sym = array<i64: 1, 0>}, %arg1: tensor<96x64xf32>, %arg2: tensor<96x64xf32>) -> tensor<?x96xf32>
// CHECK: "ug.silu"
func.func @gated_mlp(%x: tensor<?x64xf32>, %wg: tensor<96x64xf32>, %wu: tensor<96x64xf32>) -> tensor<?x96xf32> {
  %0 = tosa.transpose %wg {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %1 = tosa.const_shape {values = dense<[1, -1, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.reshape %x, %1 : (tensor<?x64xf32>, !tosa.shape<3>) -> tensor<1x?x64xf32>
  %3 = tosa.const_shape {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = tosa.reshape %0, %3 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %5 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %6 = tosa.matmul %2, %4, %5, %5 : (tensor<1x?x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x96xf32>
  %7 = tosa.const_shape {values = dense<[-1, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %8 = tosa.reshape %6, %7 : (tensor<1x?x96xf32>, !tosa.shape<2>) -> tensor<?x96xf32>
  %9 = tosa.sigmoid %8 : (tensor<?x96xf32>) -> tensor<?x96xf32>
  %10 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %11 = tosa.mul %8, %9, %10 : (tensor<?x96xf32>, tensor<?x96xf32>, tensor<1xi8>) -> tensor<?x96xf32>
  %12 = tosa.transpose %wu {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %16 = tosa.reshape %12, %3 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %18 = tosa.matmul %2, %16, %5, %5 : (tensor<1x?x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x?x96xf32>
  %20 = tosa.reshape %18, %7 : (tensor<1x?x96xf32>, !tosa.shape<2>) -> tensor<?x96xf32>
  %22 = tosa.mul %11, %20, %10 : (tensor<?x96xf32>, tensor<?x96xf32>, tensor<1xi8>) -> tensor<?x96xf32>
  return %22 : tensor<?x96xf32>
}

// Stable decode attention: one query against a KV cache of `?` rows; the
// softmax reduces over the symbol.
// CHECK-LABEL: func.func private @decode_attention_lax0(%arg0: tensor<1x1x64xf32>, %arg1: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}, %arg2: tensor<1x?x64xf32> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<1x1x64xf32>
// CHECK: "ug.reduce_max"({{.*}}) {dim = 2 : i64} : (tensor<1x1x?xf32>) -> tensor<1x1x1xf32>
func.func @decode_attention(%q: tensor<1x1x64xf32>, %k: tensor<1x?x64xf32>, %v: tensor<1x?x64xf32>) -> tensor<1x1x64xf32> {
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<1x?x64xf32>) -> tensor<1x64x?xf32>
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<1x1x64xf32>, tensor<1x64x?xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x?xf32>
  %m = tosa.reduce_max %s {axis = 2 : i32} : (tensor<1x1x?xf32>) -> tensor<1x1x1xf32>
  %d = tosa.sub %s, %m : (tensor<1x1x?xf32>, tensor<1x1x1xf32>) -> tensor<1x1x?xf32>
  %e = tosa.exp %d : (tensor<1x1x?xf32>) -> tensor<1x1x?xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1x1x?xf32>) -> tensor<1x1x1xf32>
  %o = tosa.matmul %e, %v, %zp, %zp : (tensor<1x1x?xf32>, tensor<1x?x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x64xf32>
  %r = tosa.reciprocal %sum : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %y = tosa.mul %o, %r, %shift : (tensor<1x1x64xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x64xf32>
  return %y : tensor<1x1x64xf32>
}

// GQA over a `?` sequence (prefill, self-attention: the query and KV
// lengths are one size), the paper's form: the scores carry the symbol
// twice.
// CHECK-LABEL: func.func private @gqa_seq_lax0(%arg0: tensor<2x?x8xf16> {ug.sym = array<i64: 0, 1, 0>}, %arg1: tensor<2x8x?xf16> {ug.sym = array<i64: 0, 0, 1>}, %arg2: tensor<2x?x8xf16> {ug.sym = array<i64: 0, 1, 0>}) -> tensor<2x?x8xf16>
// CHECK: "ug.matmul"(%arg0, %arg1) : (tensor<2x?x8xf16>, tensor<2x8x?xf16>) -> tensor<2x?x?xf16>
func.func @gqa_seq(%q: tensor<2x?x8xf16>, %k: tensor<2x8x?xf16>, %v: tensor<2x?x8xf16>) -> tensor<2x?x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %qk = tosa.matmul %q, %k, %zp, %zp : (tensor<2x?x8xf16>, tensor<2x8x?xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x?x?xf16>
  %e = tosa.exp %qk : (tensor<2x?x?xf16>) -> tensor<2x?x?xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x?x?xf16>) -> tensor<2x?x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<2x?x1xf16>) -> tensor<2x?x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<2x?x?xf16>, tensor<2x?x1xf16>, tensor<1xi8>) -> tensor<2x?x?xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x?x?xf16>, tensor<2x?x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x?x8xf16>
  return %o : tensor<2x?x8xf16>
}

// torch-mlir's linalg form: tensor.dim feeds the tensor.empty of each
// init; the dim is copied into the reference, the init stays a constant.
// CHECK-LABEL: func.func private @softmax_linalg_lax0(%arg0: tensor<?x64xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<?x64xf32>
#map = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0, 0)>
func.func @softmax_linalg(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%n) : tensor<?x1xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<?x1xf32>) -> tensor<?x1xf32>
  %m = linalg.generic {indexing_maps = [#map, #red], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x64xf32>) outs(%mi : tensor<?x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %e1 = tensor.empty(%n) : tensor<?x64xf32>
  %ex = linalg.generic {indexing_maps = [#map, #red, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<?x64xf32>, tensor<?x1xf32>) outs(%e1 : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  } -> tensor<?x64xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x1xf32>) -> tensor<?x1xf32>
  %s = linalg.generic {indexing_maps = [#map, #red], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<?x64xf32>) outs(%si : tensor<?x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %y = linalg.generic {indexing_maps = [#map, #red, #map], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<?x64xf32>, tensor<?x1xf32>) outs(%e1 : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.divf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// NUM-DAG: @softmax_rows_lax0[?=1]: 1 output, 128 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=7]: 1 output, 896 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=129]: 1 output, 16512 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=1024]: 1 output, 131072 elements, {{.*}}: ok
// NUM-DAG: @rmsnorm_tokens_lax0[?=1]: 1 output, 96 elements, {{.*}}: ok
// NUM-DAG: @rmsnorm_tokens_lax0[?=129]: 1 output, 12384 elements, {{.*}}: ok
// NUM-DAG: @gated_mlp_lax0[?=7]: 1 output, 672 elements, {{.*}}: ok
// NUM-DAG: @gated_mlp_lax0[?=1024]: 1 output, 98304 elements, {{.*}}: ok
// NUM-DAG: @decode_attention_lax0[?=1]: 1 output, 64 elements, {{.*}}: ok
// NUM-DAG: @decode_attention_lax0[?=1024]: 1 output, 64 elements, {{.*}}: ok
// NUM-DAG: @gqa_seq_lax0[?=7]: 1 output, 112 elements, {{.*}}: ok
// NUM-DAG: @gqa_seq_lax0[?=129]: 1 output, 2064 elements, {{.*}}: ok
// NUM-DAG: @softmax_linalg_lax0[?=129]: 1 output, 8256 elements, {{.*}}: ok
// NUM-NOT: MISMATCH
// SIZES: @softmax_rows_lax0[?=3]: 1 output, 384 elements, {{.*}}: ok
// SIZES-NEXT: @softmax_rows_lax0[?=64]: 1 output, 8192 elements, {{.*}}: ok
// BAD: mirage-run: invalid --dynamic-sizes value '0'
