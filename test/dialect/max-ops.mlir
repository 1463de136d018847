// The max ops of issue 12 (ug.maximum, ug.reduce_max, the "max" and
// "online" accumulators): round trip through the printer and the dialect
// bridge, and the μGraph rules on them.
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: mirage-opt %s > %t.printed
// RUN: mirage-opt --mirage-test-bridge %s > %t.bridged
// RUN: diff %t.printed %t.bridged
// RUN: mirage-opt --mirage-verify-ugraph %s > /dev/null
// RUN: not mirage-opt --mirage-verify-ugraph --split-input-file %S/Inputs/max-ops-invalid.mlir 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @flash_k1
// CHECK: "ug.reduce_max"(%{{.*}}) {dim = 2 : i64} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
// CHECK: "ug.accum"(%{{.*}}, %{{.*}}) {kind = "online"} : (tensor<1x2x8xf32>, tensor<1x2x1xf32>) -> tensor<1x2x8xf32>
// CHECK: "ug.accum"(%{{.*}}) {kind = "max"} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
func.func @flash_k1(%q: tensor<2x4x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>) attributes {ug.level = "block", ug.grid = array<i64: 2, 2, 1>, ug.block_threads = 128 : i64, ug.forloop = 4 : i64} {
  %qt = "ug.iterator"(%q) {imap = array<i64: 1, 0, -1>, fmap = -1 : i64} : (tensor<2x4x8xf32>) -> tensor<1x2x8xf32>
  %kt = "ug.iterator"(%k) {imap = array<i64: -1, 0, -1>, fmap = 2 : i64} : (tensor<2x8x16xf32>) -> tensor<1x8x4xf32>
  %vt = "ug.iterator"(%v) {imap = array<i64: -1, 0, -1>, fmap = 1 : i64} : (tensor<2x16x8xf32>) -> tensor<1x4x8xf32>
  %s = "ug.matmul"(%qt, %kt) : (tensor<1x2x8xf32>, tensor<1x8x4xf32>) -> tensor<1x2x4xf32>
  %m = "ug.reduce_max"(%s) {dim = 2 : i64} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %d = "ug.sub"(%s, %m) : (tensor<1x2x4xf32>, tensor<1x2x1xf32>) -> tensor<1x2x4xf32>
  %p = "ug.exp"(%d) : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %pv = "ug.matmul"(%p, %vt) : (tensor<1x2x4xf32>, tensor<1x4x8xf32>) -> tensor<1x2x8xf32>
  %r = "ug.sum"(%p) {dim = 2 : i64} : (tensor<1x2x4xf32>) -> tensor<1x2x1xf32>
  %num = "ug.accum"(%pv, %m) {kind = "online"} : (tensor<1x2x8xf32>, tensor<1x2x1xf32>) -> tensor<1x2x8xf32>
  %den = "ug.accum"(%r, %m) {kind = "online"} : (tensor<1x2x1xf32>, tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %mx = "ug.accum"(%m) {kind = "max"} : (tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %o = "ug.div"(%num, %den) : (tensor<1x2x8xf32>, tensor<1x2x1xf32>) -> tensor<1x2x8xf32>
  %out = "ug.saver"(%o) {omap = array<i64: 1, 0, -1>} : (tensor<1x2x8xf32>) -> tensor<2x4x8xf32>
  %outm = "ug.saver"(%mx) {omap = array<i64: 1, 0, -1>} : (tensor<1x2x1xf32>) -> tensor<2x4x1xf32>
  return %out, %outm : tensor<2x4x8xf32>, tensor<2x4x1xf32>
}

// CHECK-LABEL: func.func @flash
// CHECK: "ug.maximum"(%{{.*}}, %{{.*}}) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
func.func @flash(%q: tensor<2x4x8xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x16x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>) attributes {ug.level = "kernel"} {
  %o:2 = "ug.custom"(%q, %k, %v) {kernel = @flash_k1, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<2x16x8xf32>) -> (tensor<2x4x8xf32>, tensor<2x4x1xf32>)
  %m = "ug.maximum"(%o#1, %o#1) : (tensor<2x4x1xf32>, tensor<2x4x1xf32>) -> tensor<2x4x1xf32>
  return %o#0, %m : tensor<2x4x8xf32>, tensor<2x4x1xf32>
}

// ERR: max-ops-invalid.mlir:4:8: error: 'accum' takes 2 operands but got 1
// ERR: max-ops-invalid.mlir:{{[0-9]+}}:8: error: online accumulator: max dim 1 is 3 but the tile's is 4 (expected it or 1)
// ERR: max-ops-invalid.mlir:{{[0-9]+}}:8: error: reduce_max dim 2 is out of range for rank 2
// ERR: max-ops-invalid.mlir:{{[0-9]+}}:8: error: 'maximum' shape mismatch: 'lhs' dim 1 is 8 but 'rhs' dim 1 is 3 (neither is 1)
// ERR: max-ops-invalid.mlir:{{[0-9]+}}:8: error: 'kind' must be "sum", "sum_last", "sum_sq_last", "max" or "online"
