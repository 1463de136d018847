// A subprogram the search cut at its prologues (QKNorm with 16 queries and
// a KV length of 1024, where the cut composition is chosen: Q/rms(Q),
// V/rms(V), then attention) is cached part by part. A hit
// cuts the kernel graph again, verifies each part's entry against its part
// (to 2^-40 / parts, as the search did) and composes them itself; one part's
// entry changed behind a valid checksum (rsqrt -> sqrt in V / rms(V)) is
// rejected, removed and searched again, with the same output as before.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" %s > %t.filled
// RUN: head -qn1 %t.cache/*.mlir | FileCheck %s --check-prefix=ENTRIES
// RUN: %python %S/Inputs/cache_entry.py replace %t.cache "@cached[(]%%t0: tensor<2x1024x64xf16>[)] ->" ug.rsqrt ug.sqrt
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out | FileCheck %s --check-prefix=PART
// RUN: cmp %t.filled %t.out
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.hit | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.filled %t.hit

// The whole entry says 3 parts; the 3 parts' entries have none.
// ENTRIES-DAG: parts=3
// ENTRIES-DAG: parts=0
// PART: warning: mirage-search: the cache entry for '@qknorm' is removed and searched again: part {{[0-9]}}: it is not equivalent to the kernel graph
// PART: '@qknorm' replaced by a verified μGraph: 15 kernel(s) -> 4
// PART-NOT: from the cache
// HIT-NOT: warning
// HIT: '@qknorm' replaced by a verified μGraph: 15 kernel(s) -> 4, {{.*}}(from the cache)

func.func @qknorm(%arg0: tensor<2x16x64xf16>, %arg1: tensor<2x64x1024xf16>, %arg2: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.square"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %1 = "ug.sum"(%0) {dim = 2 : i64} : (tensor<2x16x64xf16>) -> tensor<2x16x1xf16>
  %2 = "ug.mul_scalar"(%1) {scalar = 1.562500e-02 : f64} : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %3 = "ug.rsqrt"(%2) : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %4 = "ug.mul"(%arg0, %3) : (tensor<2x16x64xf16>, tensor<2x16x1xf16>) -> tensor<2x16x64xf16>
  %5 = "ug.square"(%arg2) : (tensor<2x1024x64xf16>) -> tensor<2x1024x64xf16>
  %6 = "ug.sum"(%5) {dim = 2 : i64} : (tensor<2x1024x64xf16>) -> tensor<2x1024x1xf16>
  %7 = "ug.mul_scalar"(%6) {scalar = 1.562500e-02 : f64} : (tensor<2x1024x1xf16>) -> tensor<2x1024x1xf16>
  %8 = "ug.rsqrt"(%7) : (tensor<2x1024x1xf16>) -> tensor<2x1024x1xf16>
  %9 = "ug.mul"(%arg2, %8) : (tensor<2x1024x64xf16>, tensor<2x1024x1xf16>) -> tensor<2x1024x64xf16>
  %10 = "ug.matmul"(%4, %arg1) : (tensor<2x16x64xf16>, tensor<2x64x1024xf16>) -> tensor<2x16x1024xf16>
  %11 = "ug.exp"(%10) : (tensor<2x16x1024xf16>) -> tensor<2x16x1024xf16>
  %12 = "ug.sum"(%11) {dim = 2 : i64} : (tensor<2x16x1024xf16>) -> tensor<2x16x1xf16>
  %13 = "ug.div"(%11, %12) : (tensor<2x16x1024xf16>, tensor<2x16x1xf16>) -> tensor<2x16x1024xf16>
  %14 = "ug.matmul"(%13, %9) : (tensor<2x16x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x16x64xf16>
  func.return %14 : tensor<2x16x64xf16>
}
