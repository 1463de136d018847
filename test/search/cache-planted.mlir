// What another user can plant at a cache entry's name in a directory they
// can write (a team share, /tmp) is never followed, read or blocked on: a
// symbolic link to a victim's file, a FIFO, a link to /dev/zero, a file of
// their own. Each is ignored with one warning, the kernel graph searched
// again (the output is the uncached one) and the victim's file is intact;
// the fresh entry replaces the planted name (never written through it).
// RUN: rm -rf %t.cache %t.victim && mkdir -p %t.cache
// RUN: mirage-opt --mirage-search="cache=false" %s > %t.nocache
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" %s > %t.filled
// RUN: cmp %t.nocache %t.filled
// RUN: ls %t.cache/*.mlir > %t.name
// RUN: test $(wc -l < %t.name) -eq 1
//
// A link to the victim's file.
// RUN: echo "the victim's file" > %t.victim && cp %t.victim %t.victim.orig
// RUN: rm $(cat %t.name) && ln -s %t.victim $(cat %t.name)
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out1 | FileCheck %s --implicit-check-not=warning: --check-prefixes=PLANTED,LINK
// RUN: cmp %t.nocache %t.out1
// RUN: cmp %t.victim.orig %t.victim
// RUN: test -f $(cat %t.name) && test ! -L $(cat %t.name)
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=HIT
//
// A FIFO nobody writes: no hang (timeout: a blocked read fails the test).
// RUN: rm $(cat %t.name) && mkfifo $(cat %t.name)
// RUN: timeout 60 mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out2 | FileCheck %s --implicit-check-not=warning: --check-prefixes=PLANTED,FIFO
// RUN: cmp %t.nocache %t.out2
// RUN: test -f $(cat %t.name) && test ! -p $(cat %t.name)
//
// A link to /dev/zero: not read at all (a read would never end).
// RUN: rm $(cat %t.name) && ln -s /dev/zero $(cat %t.name)
// RUN: timeout 60 mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out3 | FileCheck %s --implicit-check-not=warning: --check-prefixes=PLANTED,LINK
// RUN: cmp %t.nocache %t.out3
//
// Another user's file (as root, where the test can chown; else skipped):
// even a copy of a good entry is not used.
// RUN: if [ "$(id -u)" = 0 ]; then chown 65534:65534 $(cat %t.name) && mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out4 | FileCheck %s --implicit-check-not=warning: --check-prefixes=PLANTED,OWNER && cmp %t.nocache %t.out4 && test "$(stat -c %%u $(cat %t.name))" = 0; fi
//
// The directory is the user's own (mode 0700 when the tool makes it); one
// others can write is used with a warning.
// RUN: rm -rf %t.made && mirage-opt --mirage-search="cache-dir=%t.made/sub" %s >/dev/null
// RUN: stat -c %%a %t.made %t.made/sub | FileCheck %s --check-prefix=MODE
// RUN: chmod 1777 %t.cache
// RUN: mirage-opt --mirage-search="cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.out5 | FileCheck %s --check-prefixes=SHARED,HIT
// RUN: cmp %t.nocache %t.out5

// PLANTED: warning: mirage-search: the cache entry for '@mlp' is ignored and searched again: '{{.*}}.mlir' is{{ }}
// LINK-SAME: a symbolic link
// FIFO-SAME: not a regular file
// OWNER-SAME: owned by another user
// PLANTED: '@mlp' replaced by a verified μGraph: 4 kernel(s) -> 1, estimated {{[^(]*}}{{$}}
// SHARED: warning: mirage-search: cache directory '{{.*}}' can be written by other users
// HIT: '@mlp' replaced by a verified μGraph: {{.*}}(from the cache){{$}}
// MODE: {{^}}700{{$}}
// MODE-NEXT: {{^}}700{{$}}
func.func @mlp(%x: tensor<8x64xf32>, %w1: tensor<64x96xf32>, %w2: tensor<64x96xf32>) -> tensor<8x96xf32> attributes {ug.level = "kernel"} {
  %g = "ug.matmul"(%x, %w1) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %s = "ug.silu"(%g) : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %u = "ug.matmul"(%x, %w2) : (tensor<8x64xf32>, tensor<64x96xf32>) -> tensor<8x96xf32>
  %o = "ug.mul"(%s, %u) : (tensor<8x96xf32>, tensor<8x96xf32>) -> tensor<8x96xf32>
  func.return %o : tensor<8x96xf32>
}
