// The search on programs with dynamic dims (issue 29): each is searched
// once, as its one-row program (every `?` at 1); the answer is generalized
// to one block per row, field-tested at sizes 1, 2 and 7, and ranked
// by its estimates summed over 1, 16, 256 and 4096 rows, each size shown
// beside the original's estimate and the program's bound. Bounded by
// work (max-states), one thread.
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000" --mirage-remarks %s 2>&1 -o %t.opt | FileCheck %s
// RUN: mirage-opt --mirage-verify-ugraph %t.opt > /dev/null
// RUN: mirage-run --dynamic-sizes=1,7,129,2048 %t.opt | FileCheck %s --check-prefix=NUM
// The lowering takes the generalized μGraphs (one lowering, run at each
// size). A reduction over `?` (decode attention) is searched another way:
// dynamic-reduce.mlir.
// RUN: mirage-run --lower --dynamic-sizes=1,7,129,2048 %t.opt 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: FileCheck %s --check-prefix=IR < %t.opt

// Softmax over `?` rows: one kernel, a block per row.
// CHECK: remark: mirage-search: '@softmax_rows_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1
// CHECK: remark: mirage-search: '@softmax_rows_lax0' at ?=1: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
// CHECK: remark: mirage-search: '@softmax_rows_lax0' at ?=4096: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
// IR: func.func private @softmax_rows_lax0_k{{[0-9]+}}(%arg0: tensor<?x128xf32> {ug.sym = array<i64: 1, 0>}) -> tensor<?x128xf32> attributes {{{.*}}ug.grid = array<i64: 1009, 1, 1>, ug.grid_sym = array<i64: 1, 0, 0>, ug.level = "block"}
// IR: "ug.iterator"(%arg0) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<?x128xf32>) -> tensor<1x128xf32>
// IR: "ug.saver"({{.*}}) {omap = array<i64: 0, -1, -1>} : (tensor<1x128xf32>) -> tensor<?x128xf32>
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

// RMSNorm + projection over `?` tokens: the one-row kernel (a GEMV per
// token) re-reads the weight per token and loses at 4096 tokens, so a
// second search at 64 tokens runs; its kernel takes 8 tokens a block
// (ug.grid_rows), ceil(n / 8) blocks, the last one's tile running past n.
// CHECK: remark: mirage-search: '@rmsnorm_tokens_lax0' replaced by a verified μGraph: 6 kernel(s) -> 1, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us (summed over the sizes below)
// CHECK: remark: mirage-search: '@rmsnorm_tokens_lax0' at ?=1: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us
// CHECK: remark: mirage-search: '@rmsnorm_tokens_lax0' at ?=4096: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us
// IR: func.func private @rmsnorm_tokens_lax0_k{{[0-9]+}}({{.*}}ug.grid = array<i64: 127, {{[0-9]+}}, 1>, ug.grid_rows = array<i64: 8, 1, 1>, ug.grid_sym = array<i64: 1, 0, 0>, ug.level = "block"}
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

// NUM-DAG: @softmax_rows_lax0[?=1]: 1 output, 128 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=7]: 1 output, 896 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=129]: 1 output, 16512 elements, {{.*}}: ok
// NUM-DAG: @softmax_rows_lax0[?=2048]: 1 output, 262144 elements, {{.*}}: ok
// NUM-DAG: @rmsnorm_tokens_lax0[?=2048]: 1 output, 196608 elements, {{.*}}: ok
// LOWER-DAG: @softmax_rows_lax0[?=1]: 1 output, 128 elements, {{.*}}: ok
// LOWER-DAG: @softmax_rows_lax0[?=7]: 1 output, 896 elements, {{.*}}: ok
// LOWER-DAG: @softmax_rows_lax0[?=129]: 1 output, 16512 elements, {{.*}}: ok
// LOWER-DAG: @softmax_rows_lax0[?=2048]: 1 output, 262144 elements, {{.*}}: ok
// LOWER-DAG: @rmsnorm_tokens_lax0[?=7]: 1 output, 672 elements, {{.*}}: ok
// LOWER-DAG: @rmsnorm_tokens_lax0[?=129]: 1 output, 12384 elements, {{.*}}: ok
