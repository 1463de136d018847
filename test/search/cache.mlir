// The search cache: a second compile reads the result (and says so); its
// MAC spares the verification only under a private secret of this user; a
// damaged entry is detected, ignored and rewritten.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.first | FileCheck %s --check-prefix=FIRST
// RUN: ls %t.cache/*.mlir | count 1
// The entry is signed with the cache's secret, which only its owner reads.
// RUN: stat -c %%a %t.cache/secret | FileCheck %s --check-prefix=MODE
// RUN: grep -c ' mac=[0-9a-f]\{64\}$' %t.cache/*.mlir | FileCheck %s --check-prefix=ONE
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.second | FileCheck %s --check-prefix=SECOND
// RUN: diff %t.first %t.second
// A secret others can read proves nothing: hits are verified again; so they
// are with cache-verify=true.
// RUN: chmod 644 %t.cache/secret
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFIED
// RUN: chmod 600 %t.cache/secret
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache cache-verify=true" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFIED
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SECOND
// Another secret (a fresh one, as after `rm`): the old MACs do not match.
// RUN: rm %t.cache/secret && head -c 32 /dev/zero > %t.cache/secret && chmod 600 %t.cache/secret
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=VERIFIED
// Corrupt the entry: flip the body, keep the header.
// RUN: sed -i 's/ug.accum/ug.accun/' %t.cache/*.mlir
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.third | FileCheck %s --check-prefix=DAMAGED
// RUN: diff %t.first %t.third
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SECOND
// Truncated entry.
// RUN: head -c 100 %t.cache/*.mlir > %t.trunc && cp %t.trunc %t.cache/*.mlir
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DAMAGED

// FIRST: remark: mirage-search: '@rms' replaced by a verified μGraph: 6 kernel(s) -> 1
// FIRST-NOT: from the cache
// SECOND: replaced by a verified μGraph: {{.*}}(from the cache){{$}}
// VERIFIED: replaced by a verified μGraph: {{.*}}(from the cache, verified again){{$}}
// MODE: {{^}}600{{$}}
// ONE: {{^}}1{{$}}
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
