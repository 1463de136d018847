// Grouped-query decode attention over a `?`-long KV cache (issue 29), as
// torch-mlir's TOSA backend emits it with a dynamic cache length: one new
// token, 8 query heads sharing 2 KV heads (Q [1,8,1,64] reshaped to the
// matmul rows [2,4,64]), K and V [1,2,?,64] (K transposed, both reshaped
// with a -1 dim), the scaled stable softmax at rank 5, f16 data with
// tosa.matmul's f32 results cast back.
//
// It lifts as ONE subprogram (the caller's unit head-group dims go through
// boundary reshapes whose `?` sizes come from tensor.dim; unlift drops
// them again). The softmax and P·V reduce over the symbol, so it is
// searched once at 16384 KV rows (MG_SEARCH_SYMBOLIC_LOOP_AT) part by part
// between its reshapes, testing only candidates that generalize to every
// length (rule `generalize` drops split-KV kernels, whose grid splits the
// rows the loop reduces). The answer is two kernels between the reshapes
// of Q and of the result (the scale and casts folded into them). Bounded by work
// (max-states), one thread. Under the sanitizer the 16384-row field tests
// take too long; dynamic-reduce.mlir sanitizes the same path.
// UNSUPPORTED: asan
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift --mirage-remarks %s -o %t.lifted 2>&1 | FileCheck %s --check-prefix=LIFT
// RUN: mirage-opt --mirage-verify-ugraph %t.lifted > /dev/null
// RUN: mirage-run --range=1 --dynamic-sizes=1,7,129,1000 %t.lifted | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=100000 cache=false" --mirage-remarks --mirage-stats %s -o %t.opt 2>&1 | FileCheck %s
// RUN: mirage-opt --mirage-verify-ugraph %t.opt > /dev/null
// RUN: FileCheck %s --check-prefix=IR < %t.opt
// The μGraph in the interpreter against the JIT-compiled TOSA at cache
// lengths below, at and past the loop's 256 rows an iteration.
// RUN: mirage-run --range=1 --dynamic-sizes=1,7,129,255,257,1000 %t.opt | FileCheck %s --check-prefix=NUM
// The CPU form of its kernels (padded buffers whose head stride is the
// padded length; test/lower/dynamic-gqa.mlir checks the GPU form) agrees
// at the same lengths.
// RUN: mirage-run --lower --range=1 --dynamic-sizes=1,7,129,255,257,1000 %t.opt | FileCheck %s --check-prefix=NUM
//
// LIFT: remark: mirage-lift: '@gqa_decode_groups': lifted 1 subprogram (@gqa_decode_groups_lax0); 0 tensor ops left in place
// LIFT: remark: mirage-lift: module: 18 of 18 tensor ops lifted (100.0 %) into 1 subprogram
//
// NUM: @gqa_decode_groups_lax0[?=1]: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=7]: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=129]: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=1000]: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NOT: {{MISMATCH|OVERFLOW}}
//
// CHECK: mirage-search @gqa_decode_groups_lax0: pruned by rule: {{.*}} generalize {{[1-9][0-9]*}};
// CHECK: remark: mirage-search: '@gqa_decode_groups_lax0' replaced by a verified μGraph: 8 kernel(s) -> 2, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us (summed over the sizes below)
// CHECK: remark: mirage-search: '@gqa_decode_groups_lax0' at ?=128: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
// CHECK: remark: mirage-search: '@gqa_decode_groups_lax0' at ?=32768: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
//
// The scores: a block per KV head and 128 KV rows (a grid over the
// symbol with a tail); the softmax·V: a block per head group and output
// column, looping over the KV rows 256 an iteration with online
// accumulators.
// IR: func.func private @gqa_decode_groups_lax0_k{{[0-9]}}({{.*}}) -> tensor<2x4x64xf16> attributes {{{.*}}ug.forloop_rows = 256 : i64, ug.forloop_sym = 1 : i64
// IR: "ug.accum"({{.*}}) {kind = "online"}
// IR: func.func private @gqa_decode_groups_lax0_k{{[0-9]}}({{.*}}) -> tensor<2x4x?xf16> attributes {{{.*}}ug.grid_rows = array<i64: 1, 128, 1>, ug.grid_sym = array<i64: 0, 1, 0>
// IR: "ug.reshape"(%arg0) : (tensor<1x8x1x64xf16>) -> tensor<2x4x64xf16>
// IR: "ug.custom"
// IR: "ug.custom"
// IR: "ug.reshape"({{.*}}) : (tensor<2x4x64xf16>) -> tensor<1x8x1x64xf16>
//

func.func @gqa_decode_groups(%q: tensor<1x8x1x64xf16>, %k: tensor<1x2x?x64xf16>, %v: tensor<1x2x?x64xf16>) -> tensor<1x8x1x64xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3q = tosa.const_shape {values = dense<[2, 4, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %q, %s3q : (tensor<1x8x1x64xf16>, !tosa.shape<3>) -> tensor<2x4x64xf16>
  %kt = tosa.transpose %k {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x?x64xf16>) -> tensor<1x2x64x?xf16>
  %s3k = tosa.const_shape {values = dense<[2, 64, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x64x?xf16>, !tosa.shape<3>) -> tensor<2x64x?xf16>
  %qk = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x4x64xf16>, tensor<2x64x?xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x?xf32>
  %s5 = tosa.const_shape {values = dense<[1, 2, 4, 1, -1]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %sc = tosa.reshape %qk, %s5 : (tensor<2x4x?xf32>, !tosa.shape<5>) -> tensor<1x2x4x1x?xf32>
  %scale = "tosa.const"() <{values = dense<1.250000e-01> : tensor<1x1x1x1x1xf32>}> : () -> tensor<1x1x1x1x1xf32>
  %ss = tosa.mul %sc, %scale, %shift : (tensor<1x2x4x1x?xf32>, tensor<1x1x1x1x1xf32>, tensor<1xi8>) -> tensor<1x2x4x1x?xf32>
  %mx = tosa.reduce_max %ss {axis = 4 : i32} : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x1xf32>
  %d = tosa.sub %ss, %mx : (tensor<1x2x4x1x?xf32>, tensor<1x2x4x1x1xf32>) -> tensor<1x2x4x1x?xf32>
  %e = tosa.exp %d : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x?xf32>
  %sum = tosa.reduce_sum %e {axis = 4 : i32} : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x1xf32>
  %inv = tosa.reciprocal %sum : (tensor<1x2x4x1x1xf32>) -> tensor<1x2x4x1x1xf32>
  %p = tosa.mul %e, %inv, %shift : (tensor<1x2x4x1x?xf32>, tensor<1x2x4x1x1xf32>, tensor<1xi8>) -> tensor<1x2x4x1x?xf32>
  %ph = tosa.cast %p : (tensor<1x2x4x1x?xf32>) -> tensor<1x2x4x1x?xf16>
  %s3p = tosa.const_shape {values = dense<[2, 4, -1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %ph, %s3p : (tensor<1x2x4x1x?xf16>, !tosa.shape<3>) -> tensor<2x4x?xf16>
  %s3v = tosa.const_shape {values = dense<[2, -1, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %v3 = tosa.reshape %v, %s3v : (tensor<1x2x?x64xf16>, !tosa.shape<3>) -> tensor<2x?x64xf16>
  %o = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x4x?xf16>, tensor<2x?x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x4x64xf32>
  %oh = tosa.cast %o : (tensor<2x4x64xf32>) -> tensor<2x4x64xf16>
  %so4 = tosa.const_shape {values = dense<[1, 8, 1, 64]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %oh, %so4 : (tensor<2x4x64xf16>, !tosa.shape<4>) -> tensor<1x8x1x64xf16>
  return %o4 : tensor<1x8x1x64xf16>
}
