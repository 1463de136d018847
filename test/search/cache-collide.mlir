// Entries are keyed by the SHA-256 of the options and the kernel graph's
// text, and a hit compares the whole digest in the entry's header. The
// test hook MIRAGE_CACHE_TEST_NAME_DIGITS=0 zeroes the file name's digits,
// so both functions below (same signature, silu vs gelu) share one file:
// neither ever gets the other's μGraph, even signed with this user's MAC;
// each lookup of the other's entry is a miss, searched again, and the
// output is the uncached one.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="cache=false" %s > %t.nocache
// RUN: env MIRAGE_CACHE_TEST_NAME_DIGITS=0 mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out1 | FileCheck %s --implicit-check-not=warning: --check-prefix=MISS
// RUN: cmp %t.nocache %t.out1
// RUN: ls %t.cache/*.mlir | count 1
// RUN: grep -c ' mac=[0-9a-f]\{64\}$' %t.cache/*.mlir | FileCheck %s --check-prefix=ONE
// RUN: env MIRAGE_CACHE_TEST_NAME_DIGITS=0 mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out2 | FileCheck %s --implicit-check-not=warning: --check-prefix=MISS
// RUN: cmp %t.nocache %t.out2
// Without the hook each has its own entry, and both hit.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" %s >/dev/null
// RUN: ls %t.cache/*.mlir | count 2
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out3 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.nocache %t.out3

// MISS: '@mlp_silu' replaced by a verified μGraph: 4 kernel(s) -> 1, estimated {{[^(]*}}{{$}}
// MISS: '@mlp_gelu' replaced by a verified μGraph: 4 kernel(s) -> 1, estimated {{[^(]*}}{{$}}
// ONE: {{^}}1{{$}}
// HIT: '@mlp_silu' replaced by a verified μGraph: {{.*}}(from the cache){{$}}
// HIT: '@mlp_gelu' replaced by a verified μGraph: {{.*}}(from the cache){{$}}
func.func @mlp_silu(%x: tensor<8x64xf32>, %w1: tensor<64x96xf32>, %w2: tensor<64x96xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %s = "ug.silu"(%g) : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
  func.return %o : tensor<8x96xf32>
}

func.func @mlp_gelu(%x: tensor<8x64xf32>, %w1: tensor<64x96xf32>, %w2: tensor<64x96xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %s = "ug.gelu"(%g) : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
  func.return %o : tensor<8x96xf32>
}
