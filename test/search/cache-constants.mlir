// A stored entry whose μGraph multiplies by 1 + p for the verifier's old
// fixed prime p = 2^31 - 69 (2147483580 ≡ 1 there) is not equivalent to
// the program: re-verified with a fresh seed, it is rejected, removed and
// searched again, and the output is the same as without the cache. Before
// the per-test fields it was "verified again" and emitted, 10^9 too large.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="cache=false time-budget-s=0" %s > %t.nocache
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache time-budget-s=0" %s > %t.filled
// RUN: cmp %t.nocache %t.filled
// RUN: %python %S/Inputs/cache_entry.py scale %t.cache "tensor<8x64xf32>" 2147483580.0
// RUN: grep -c 'scalar = 2147483580' %t.cache/*.mlir | FileCheck %s --check-prefix=PLANTED
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache time-budget-s=0" --mirage-remarks %s 2>&1 >%t.out | FileCheck %s --check-prefix=FORGED
// RUN: cmp %t.nocache %t.out

// PLANTED: 1
// FORGED: warning: mirage-search: the cache entry for '@mlp' is removed and searched again: it is not equivalent to the kernel graph
// FORGED-NOT: (from the cache)

func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x96xf32>, %w2: tensor<64x96xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %s = "ug.silu"(%g) : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
  func.return %o : tensor<8x96xf32>
}
