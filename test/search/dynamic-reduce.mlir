// A reduction over a dynamic dim (issue 29): stable decode attention, one
// query against a KV cache of `?` rows, as torch-mlir's TOSA writes it.
// The softmax and P·V reduce over the symbol, so it is searched once at
// MG_SEARCH_SYMBOLIC_LOOP_AT (16384) KV rows, where a block loops over
// them; the answer keeps the rows an iteration took there (ug.forloop_rows)
// and runs ceil(n / rows) iterations, the last holding only the rows left,
// which every reduction over them skips (docs/verification.md §4c). It is
// field-tested at 1, rows - 1, rows + 1, 2 rows and 7 KV rows, and ranked
// by its estimates summed over 128, 1024, 8192 and 32768 KV rows, each
// shown beside the original's and the program's bound. Bounded by work
// (max-states), one thread.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=100000 cache-dir=%t.cache" --mirage-remarks %s 2>&1 -o %t.opt | FileCheck %s
// The cache holds the loop answer for every KV length: a warm compile
// with cache-verify=true tests it again at every size (loop tails
// included) and gives the same output.
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=100000 cache-dir=%t.cache cache-verify=true" --mirage-remarks %s 2>&1 -o %t.warm | FileCheck %s --check-prefix=WARM
// RUN: diff %t.opt %t.warm
// RUN: mirage-opt --mirage-verify-ugraph %t.opt > /dev/null
// RUN: FileCheck %s --check-prefix=IR < %t.opt
// The interpreter against the JIT-compiled TOSA at KV lengths around the
// iteration's 256 rows and far past the searched 16384's tiles.
// RUN: mirage-run --dynamic-sizes=1,7,129,255,256,257,1024,4099 %t.opt | FileCheck %s --check-prefix=NUM
// One lowering for every length (test/lower/dynamic-loop.mlir): its CPU
// form against the interpreter at the same lengths, and superopt with its
// default lower=true keeps the μGraph and emits its two kernels.
// RUN: mirage-run --lower --dynamic-sizes=1,7,129,255,256,257,1024,4099 %t.opt | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="threads=1 time-budget-s=0 max-states=100000 cache=false ptx=false" --mirage-remarks %s 2>&1 -o /dev/null | FileCheck %s --check-prefix=LOWERED

// CHECK: remark: mirage-search: '@decode_attention_lax0' replaced by a verified μGraph: 7 kernel(s) -> 2, estimated {{[0-9.]+}} us -> {{[0-9.]+}} us (summed over the sizes below)
// CHECK: remark: mirage-search: '@decode_attention_lax0' at ?=128: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
// CHECK: remark: mirage-search: '@decode_attention_lax0' at ?=1024: estimated
// CHECK: remark: mirage-search: '@decode_attention_lax0' at ?=8192: estimated
// CHECK: remark: mirage-search: '@decode_attention_lax0' at ?=32768: estimated {{[0-9.]+}} us, the generalized μGraph {{[0-9.]+}} us (program bound {{[0-9.]+}} us)
// The softmax and P·V: a block per output column looping over the KV
// rows, 256 an iteration, with online (running-max) accumulators.
// IR: func.func private @decode_attention_lax0_k{{[0-9]}}({{.*}}) -> tensor<1x1x64xf32> attributes {{{.*}}ug.forloop_rows = 256 : i64, ug.forloop_sym = 1 : i64, ug.grid = array<i64: 64, 1, 1>, ug.level = "block"}
// IR: "ug.iterator"(%arg0) {fmap = 1 : i64, imap = array<i64: 2, -1, -1>} : (tensor<1x?x64xf32>) -> tensor<1x256x1xf32>
// IR: "ug.reduce_max"({{.*}}) {dim = 2 : i64} : (tensor<1x1x256xf32>) -> tensor<1x1x1xf32>
// IR: "ug.accum"({{.*}}) {kind = "online"}
// IR: "ug.accum"({{.*}}) {kind = "online"}
// The scores: a block per 64 KV rows (ug.grid_rows), the last one's tile
// running past n.
// IR: func.func private @decode_attention_lax0_k{{[0-9]}}({{.*}}) -> tensor<1x1x?xf32> attributes {{{.*}}ug.grid_rows = array<i64: 64, 1, 1>, ug.grid_sym = array<i64: 1, 0, 0>, ug.level = "block"}
// NUM: @decode_attention_lax0[?=1]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=7]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=129]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=255]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=256]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=257]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=1024]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=4099]: 1 output, 64 elements, {{.*}}: ok
// WARM: remark: mirage-search: '@decode_attention_lax0' replaced by a verified μGraph: 7 kernel(s) -> 2, {{.*}} (from the cache, verified again, of a search stopped by {{.*}})
// LOWERED: remark: mirage-lower: '@decode_attention_lax0': 2 kernel(s) in gpu.module @decode_attention_lax0_gpu
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
