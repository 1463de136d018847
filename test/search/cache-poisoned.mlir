// A cache entry is never trusted (cache-parts.mlir: entries of cut parts). Entries with a valid header and checksum
// but another program (silu reading the other multiplicand), another
// signature (a program of other shapes) are rejected with a warning, removed and searched again;
// the output is then the same as without the cache, and the rewritten
// entries are used by the next compile.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" %s > %t.nocache
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" %s > %t.filled
// RUN: cmp %t.nocache %t.filled
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.hit | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.nocache %t.hit
//
// Another program behind a valid checksum.
// RUN: %python %S/Inputs/cache_entry.py swap-silu %t.cache "tensor<8x64xf32>"
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out1 | FileCheck %s --check-prefix=SWAP
// RUN: cmp %t.nocache %t.out1
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=HIT
//
// The same edit keeping the entry's MAC: it no longer matches the body, so
// the entry is verified like an unsigned one, and rejected.
// RUN: KEEP_MAC=1 %python %S/Inputs/cache_entry.py swap-silu %t.cache "tensor<8x64xf32>"
// RUN: grep -l ' mac=' %t.cache/*.mlir | count 2
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out3 | FileCheck %s --check-prefix=SWAP
// RUN: cmp %t.nocache %t.out3
//
// A program of other shapes under the key of @mlp.
// RUN: %python %S/Inputs/cache_entry.py graft %t.cache "tensor<4x32xf32>" "tensor<8x64xf32>"
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out2 | FileCheck %s --check-prefix=SHAPES
// RUN: cmp %t.nocache %t.out2


// HIT-NOT: warning
// HIT-DAG: '@mlp' replaced by a verified μGraph: {{.*}}(from the cache)
// HIT-DAG: '@mlp_other' replaced by a verified μGraph: {{.*}}(from the cache)

// SWAP: warning: mirage-search: the cache entry for '@mlp' is removed and searched again: it is not equivalent to the kernel graph (output 0 differs at element {{[0-9]+}})
// SWAP: '@mlp' replaced by a verified μGraph: 4 kernel(s) -> 1, estimated {{[^(]*}}{{$}}

// SHAPES: warning: mirage-search: the cache entry for '@mlp' is removed and searched again: its inputs or outputs differ from the kernel graph's (shapes or element types)

func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x96xf32>, %w2: tensor<64x96xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %s = "ug.silu"(%g) : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
  func.return %o : tensor<8x96xf32>
}

func.func @mlp_other(%x: tensor<4x32xf32>, %w1: tensor<32x48xf32>, %w2: tensor<32x48xf32>) -> tensor<4x48xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<4x32xf32>, tensor<32x48xf32>) -> tensor<4x48xf32>
  %s = "ug.silu"(%g) : (tensor<4x48xf32>) -> tensor<4x48xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<4x32xf32>, tensor<32x48xf32>) -> tensor<4x48xf32>
  %o = "ug.mul"(%s, %u) : (tensor<4x48xf32>, tensor<4x48xf32>) -> tensor<4x48xf32>
  func.return %o : tensor<4x48xf32>
}
