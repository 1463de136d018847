// The cache keys a program with dynamic dims by the program with its
// symbols (issue 29 item 7): the lift writes every `?` at one stand-in
// size, so one entry serves every size. The entry is the generalized
// μGraph; a warm compile reads it (same output); with cache-verify=true,
// or without this user's MAC, it is checked for every size (no kernel
// mixes rows, field tests at 1, 7 and each block's rows + 1). A poisoned
// entry is removed and searched again.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000 cache-dir=%t.cache" --mirage-remarks %s 2>&1 -o %t.cold | FileCheck %s --check-prefix=COLD
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000 cache-dir=%t.cache" --mirage-remarks %s 2>&1 -o %t.warm | FileCheck %s --check-prefix=WARM
// RUN: cmp %t.cold %t.warm
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000 cache-dir=%t.cache cache-verify=true" --mirage-remarks %s 2>&1 -o %t.verified | FileCheck %s --check-prefix=VERIFIED
// RUN: cmp %t.cold %t.verified
// RUN: %python %S/Inputs/cache_entry.py replace %t.cache "ug.grid_sym" '"ug.div"' '"ug.mul"'
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=400000 cache-dir=%t.cache" --mirage-remarks %s 2>&1 -o %t.healed | FileCheck %s --check-prefix=POISONED
// RUN: cmp %t.cold %t.healed

// COLD: remark: mirage-search: '@softmax_rows_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1
// COLD-NOT: from the cache
// WARM: remark: mirage-search: '@softmax_rows_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1, {{.*}} (from the cache)
// VERIFIED: remark: mirage-search: '@softmax_rows_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1, {{.*}} (from the cache, verified again)
// POISONED: warning: mirage-search: the cache entry for '@softmax_rows_lax0' is removed and searched again: it is not shown equivalent at size 1
// POISONED: remark: mirage-search: '@softmax_rows_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1
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
