// A damaged cache secret (0 bytes: a writer killed by an older tool) is
// treated as missing: replaced through a temporary file with one warning,
// and entries carry MACs (and hits need no verification) again.
// RUN: rm -rf %t.cache && mkdir -p %t.cache
// RUN: mirage-opt --mirage-search="cache=false" %s > %t.nocache
// RUN: : > %t.cache/secret && chmod 600 %t.cache/secret
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out1 | FileCheck %s --implicit-check-not=warning: --check-prefix=HEALED
// RUN: cmp %t.nocache %t.out1
// RUN: stat -c '%%s %%a' %t.cache/secret | FileCheck %s --check-prefix=SECRET
// RUN: grep -c ' mac=[0-9a-f]\{64\}$' %t.cache/*.mlir | FileCheck %s --check-prefix=ONE
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out2 | FileCheck %s --implicit-check-not=warning: --check-prefix=HIT
// RUN: cmp %t.nocache %t.out2
// A secret too long is damaged too.
// RUN: head -c 40 /dev/urandom > %t.cache/secret
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=LONG
// RUN: stat -c '%%s %%a' %t.cache/secret | FileCheck %s --check-prefix=SECRET
//
// Stale temporary files of the cache's own names (a writer killed before
// its rename), a day old, are removed when the directory is opened; fresh
// ones (a writer at work) and other names stay.
// RUN: touch -d '2 days ago' %t.cache/.secret.AbC123 %t.cache/.0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.mlir.x1Y2z3 %t.cache/.notes.txt.AbC123
// RUN: touch %t.cache/.secret.Fresh1
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" %s >/dev/null
// RUN: ls -A %t.cache | grep '^\.' | FileCheck %s --check-prefix=TEMPS

// HEALED: warning: mirage-search: cache secret damaged ('{{.*}}/secret' has 0 bytes, not 32): replaced by a new one; entries written before are verified again on use
// HEALED: '@rms' replaced by a verified μGraph: 6 kernel(s) -> 1, estimated {{[^(]*}}{{$}}
// SECRET: {{^}}32 600{{$}}
// ONE: {{^}}1{{$}}
// HIT: replaced by a verified μGraph: {{.*}}(from the cache){{$}}
// LONG: warning: mirage-search: cache secret damaged ('{{.*}}/secret' has 40 bytes, not 32): replaced by a new one
// LONG: replaced by a verified μGraph: {{.*}}(from the cache, verified again){{$}}
// TEMPS: {{^}}.notes.txt.AbC123{{$}}
// TEMPS-NEXT: {{^}}.secret.Fresh1{{$}}
// TEMPS-NOT: {{.}}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
