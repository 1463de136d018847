// The μGraph dialect loads into stock mlir-opt from its IRDL file, and the
// plugin's semantic checks run there too.
// RUN: %mlir_opt --irdl-file=%ugraph_irdl --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-verify-ugraph)' %s | FileCheck %s
// RUN: not %mlir_opt --irdl-file=%ugraph_irdl --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-verify-ugraph{target=sm_80})' %s 2>&1 | FileCheck %s --check-prefix=SMEM

// CHECK-LABEL: func.func @big_tile
// SMEM: error: {{.*}}shared memory
func.func @big_tile_block(%x: tensor<128x400xf32>) -> tensor<128x400xf32> attributes {ug.level = "block", ug.grid = array<i64: 1, 1, 1>, ug.block_threads = 128 : i64, ug.forloop = 1 : i64} {
  %t = "ug.iterator"(%x) {imap = array<i64: -1, -1, -1>, fmap = -1 : i64} : (tensor<128x400xf32>) -> tensor<128x400xf32>
  %o = "ug.saver"(%t) {omap = array<i64: -1, -1, -1>} : (tensor<128x400xf32>) -> tensor<128x400xf32>
  func.return %o : tensor<128x400xf32>
}
func.func @big_tile(%x: tensor<128x400xf32>) -> tensor<128x400xf32> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x) {kernel = @big_tile_block, operandSegmentSizes = array<i32: 1, 0, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<128x400xf32>) -> tensor<128x400xf32>
  func.return %y : tensor<128x400xf32>
}
