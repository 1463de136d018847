// Top-level attribute aliases (as mirage-opt and mlir-opt print linalg) are
// read back: the implicit module opens after them.
// RUN: mirage-opt %s | FileCheck %s
// RUN: mirage-opt %s | mirage-opt | FileCheck %s
// RUN: not mirage-opt %s --pass-pipeline='builtin.module(bogus)' 2>&1 | FileCheck %s --check-prefix=ERR

#id = affine_map<(d0) -> (d0)>
!t = tensor<4xf32>

// CHECK: #[[MAP:.*]] = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @copy
// CHECK: linalg.generic {indexing_maps = [#[[MAP]], #[[MAP]]]
func.func @copy(%a: !t, %b: !t) -> !t {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : !t) outs(%b : !t) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> !t
  return %0 : !t
}
// ERR: invalid --pass-pipeline
