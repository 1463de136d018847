// REQUIRES: redis
// The shared cache in Redis (cache-url=redis://...), against a redis-server
// of the test's own on a free loopback port (Inputs/with_redis.py; the
// steps are Inputs/cache_shared.sh, which leaves each run's output and
// stderr in %t.*).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" %s -o %t/plain
// RUN: %python %S/Inputs/with_redis.py %t/redis -- bash %S/Inputs/cache_shared.sh %s %t %python %S/Inputs/redis_entries.py
//
// A fills the shared cache; B, another machine (its own empty cache-dir),
// finds the result there, verifies it and writes what a run with
// cache=false writes; B's next compile reads its own disk.
// RUN: FileCheck %s --check-prefix=FILL < %t/a.err
// RUN: FileCheck %s --check-prefix=HIT < %t/b.err
// RUN: FileCheck %s --check-prefix=LOCAL < %t/b2.err
// RUN: cmp %t/plain %t/a.out
// RUN: cmp %t/plain %t/b.out
// RUN: cmp %t/plain %t/b2.out
// FILL-NOT: warning
// FILL: '@mm' kept: no cheaper verified μGraph found{{$}}
// FILL: '@rms' replaced by a verified μGraph: {{.*}} on sm_90{{$}}
// HIT-NOT: warning
// HIT: '@mm' kept: no cheaper verified μGraph found (from the shared cache)
// HIT: '@rms' replaced by a verified μGraph: {{.*}} on sm_90 (from the shared cache, verified again)
// LOCAL-NOT: shared cache
// LOCAL: '@rms' replaced by a verified μGraph: {{.*}} on sm_90 (from the cache){{$}}
//
// Every value in Redis rewritten by a hostile or broken writer: truncated,
// random bytes, another op (checksum fixed up), another shape, 65 MiB. Each
// run (a fresh cache-dir) warns once per rejected entry, deletes it, searches
// again and writes the clean run's bytes (and the clean entry back).
// RUN: FileCheck %s --check-prefix=BAD < %t/truncate.err
// RUN: FileCheck %s --check-prefix=BAD < %t/random.err
// RUN: FileCheck %s --check-prefix=BAD-OP < %t/op.err
// RUN: FileCheck %s --check-prefix=BAD-SHAPE < %t/shape.err
// RUN: FileCheck %s --check-prefix=BAD < %t/huge.err
// RUN: for m in truncate random op shape huge; do cmp %t/plain %t/$m.out || exit 1; done
// BAD-DAG: warning: mirage-search: the shared cache entry for '@rms' is deleted and searched again
// BAD-DAG: warning: mirage-search: the shared cache entry for '@mm' is deleted and searched again
// The op and shape rewrites touch @rms only (@mm's entry has neither):
// BAD-OP: warning: mirage-search: the shared cache entry for '@rms' is deleted and searched again: it is not equivalent to the kernel graph
// BAD-SHAPE: warning: mirage-search: the shared cache entry for '@rms' is deleted and searched again: its inputs or outputs differ
//
// One search across the fleet: while another process holds a kernel
// graph's lock (SET NX PX), this one waits for its result; if none comes
// within cache-wait-s it searches itself (the other's lock left alone); if
// it comes, it is taken from the shared cache.
// RUN: FileCheck %s --check-prefix=STALE < %t/stale.err
// RUN: FileCheck %s --check-prefix=STALE-LOCKS < %t/stale.locks
// RUN: FileCheck %s --check-prefix=WAITED < %t/waited.err
// RUN: cmp %t/plain %t/stale.out
// RUN: cmp %t/plain %t/waited.out
// STALE: '@mm': another process has been searching it for {{[0-9.]+}} s; searched here too
// STALE: '@rms': another process has been searching it for {{[0-9.]+}} s; searched here too
// STALE-LOCKS: other
// STALE-LOCKS-NEXT: other
// The other process writes @rms's result right after @mm's, so whether
// this one finds it there or waits a moment for it too depends on which
// is first; either way it comes from the shared cache, verified.
// WAITED: '@mm' kept: no cheaper verified μGraph found (from the shared cache, after waiting for another process's search)
// WAITED: '@rms' replaced by a verified μGraph: {{.*}} (from the shared cache, {{(after waiting for another process's search, )?}}verified again)
//
// A server that is full (maxmemory 1 byte, no eviction): one warning, the
// run right.
// RUN: FileCheck %s --check-prefix=FULL < %t/full.err
// RUN: cmp %t/plain %t/full.out
// FULL-COUNT-1: warning: mirage-search: the shared cache is out of use for this run: SET{{( NX)?}}: the server answered 'OOM
//
// The server stopped in the middle of a run (shut down while this process
// polls another's lock, cache-wait-s 600): one warning, the wait ends
// there, both kernel graphs are searched here, the run right.
// RUN: FileCheck %s --check-prefix=STOPPED < %t/stopped.err
// RUN: cmp %t/plain %t/stopped.out
// STOPPED-COUNT-1: warning: mirage-search: the shared cache is out of use for this run:
// STOPPED-NOT: warning
// STOPPED-NOT: after waiting
//
// No server there; a server that accepts and never answers (its timeout,
// 0.5 s, bounds each run): one warning each, the run right.
// RUN: not mirage-opt --mirage-search="cache-url=http://x" %s 2>&1 | FileCheck %s --check-prefix=URL
// URL: cache-url 'http://x' is not redis://HOST[:PORT][/DB]
// RUN: env MIRAGE_CACHE_URL=redis://127.0.0.1:1 mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t/down" %s -o %t/down.out 2>%t/down.err
// RUN: FileCheck %s --check-prefix=DOWN < %t/down.err
// RUN: cmp %t/plain %t/down.out
// DOWN-COUNT-1: warning: mirage-search: no shared cache for this run: cannot reach redis://127.0.0.1:1
// RUN: %python %S/Inputs/with_redis.py --silent %t/silent -- 'mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t/hung cache-url=$REDIS_URL cache-timeout-s=0.5" --mirage-remarks %s -o %t/hung.out 2>%t/hung.err'
// RUN: FileCheck %s --check-prefix=HUNG < %t/hung.err
// RUN: cmp %t/plain %t/hung.out
// HUNG-COUNT-1: warning: mirage-search: no shared cache for this run: redis://127.0.0.1:{{[0-9]+}}: no reply within 0.5 s

func.func @mm(%a: tensor<2x512xf16>, %b: tensor<512x1024xf16>) -> tensor<2x1024xf16> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%a, %b) : (tensor<2x512xf16>, tensor<512x1024xf16>) -> tensor<2x1024xf16>
  func.return %y : tensor<2x1024xf16>
}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
