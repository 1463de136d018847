// RUN: not mirage-opt --split-input-file %s 2>&1 | FileCheck %s
// Each chunk is processed on its own; a bad chunk fails the run but keeps
// its original line numbers.

// CHECK: func.func @first
func.func @first() {
  return
}

// -----

// CHECK: split-input.mlir:[[@LINE+1]]:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
  "bogus.op"() : () -> ()

// -----

// CHECK: func.func @third
func.func @third() {
  return
}
