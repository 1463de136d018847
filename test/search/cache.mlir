// The search cache: a second compile reads the result (and says so); a
// damaged entry is detected, ignored and rewritten.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.first | FileCheck %s --check-prefix=FIRST
// RUN: ls %t.cache | count 1
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.second | FileCheck %s --check-prefix=SECOND
// RUN: diff %t.first %t.second
// Corrupt the entry: flip the body, keep the header.
// RUN: sed -i 's/ug.accum/ug.accun/' %t.cache/*.mlir
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.third | FileCheck %s --check-prefix=DAMAGED
// RUN: diff %t.first %t.third
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SECOND
// Truncated entry.
// RUN: head -c 100 %t.cache/*.mlir > %t.trunc && cp %t.trunc %t.cache/$(ls %t.cache)
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DAMAGED

// FIRST: remark: mirage-search: '@rms' replaced by a verified μGraph: 6 kernel(s) -> 1
// FIRST-NOT: from the cache
// SECOND: replaced by a verified μGraph: {{.*}}(from the cache)
// DAMAGED: remark: mirage-search: ignoring a damaged cache entry: cache entry '{{.*}}' {{fails its checksum|has a bad header}}
// DAMAGED: replaced by a verified μGraph
// DAMAGED-NOT: from the cache
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
