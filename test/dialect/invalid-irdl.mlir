// What IRDL itself checks when the μGraph dialect is parsed.
// RUN: not mirage-opt --split-input-file %s 2>&1 | FileCheck %s

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: {{.*}}expects exactly 2 operands
func.func @matmul_one_operand(%a: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.matmul"(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %0 : tensor<4x4xf32>
}

// -----

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base type 'builtin.tensor' but got 'builtin.memref'
func.func @memref_operand(%a: memref<4xf32>) attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%a) : (memref<4xf32>) -> memref<4xf32>
  func.return
}

// -----

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected 'tensor<4xf32>' but got 'tensor<4xf16>'
func.func @unary_changes_type(%a: tensor<4xf32>) -> tensor<4xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.exp"(%a) : (tensor<4xf32>) -> tensor<4xf16>
  func.return %0 : tensor<4xf16>
}

// -----

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'ug.iterator' op attribute "fmap" is expected but not provided
func.func @iterator_without_fmap(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "block"} {
  %0 = "ug.iterator"(%a) {imap = array<i64: -1, -1, -1>} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: expected base attribute 'builtin.string' but got 'builtin.integer'
func.func @accum_kind_not_string(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "block"} {
  %0 = "ug.accum"(%a) {kind = 3 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// CHECK: invalid-irdl.mlir:[[@LINE+2]]:{{[0-9]+}}: error: {{.*}}unregistered{{.*}}
func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  %0 = "ug.frobnicate"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
