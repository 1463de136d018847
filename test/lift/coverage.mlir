// --mirage-remarks ends with the module's coverage: ops lifted and left,
// the mean kernel-graph size, and the cuts by reason (numbers in reasons
// read N, so cuts of one kind count together), most frequent first.
// Input: the two-layer Llama of bench/models/llama_tosa.py at tiny shapes.
// RUN: %python %mirage_src/bench/models/llama_tosa.py --layers 2 --seq 8 --hidden 64 --heads 4 --ffn 96 > %t.mlir
// RUN: mirage-opt --mirage-lift --mirage-remarks %t.mlir 2>&1 >/dev/null | FileCheck %s
// CHECK: remark: mirage-lift: '@forward': lifted 14 subprograms
// CHECK: remark: mirage-lift: module: 179 of 216 tensor ops lifted (82.9 %) into 14 subprograms, 5.6 μGraph ops each on average; 37 left in place, by reason:
// CHECK-NEXT: remark: mirage-lift: module:     8 x 'tosa.slice': the μGraph has no counterpart of 'tosa.slice'
// CHECK-NEXT: remark: mirage-lift: module:     8 x 'tosa.transpose': its result would leave the kernel graph as a reshaped or transposed view
// Transposed weights (x·Wᵀ) lift as inputs with a layout: no cut left.
// CHECK-NOT: matmul operands have μGraph ranks
// CHECK: remark: mirage-lift: module:     2 x 'tosa.reduce_max': the μGraph has no counterpart of 'tosa.reduce_max'
// CHECK: remark: mirage-lift: module:     1 x 'tosa.cast': its result would leave the kernel graph as f32, computed in f16
// A module lifted whole says so, with no reasons.
// RUN: mirage-opt --mirage-lift --mirage-remarks %mirage_src/test/lift/rmsnorm-tosa.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE
// WHOLE: remark: mirage-lift: module: 13 of 13 tensor ops lifted (100.0 %) into 2 subprograms, 6.0 μGraph ops each on average; 0 left in place{{$}}
// WHOLE-NOT: module:
// The whole pipeline prints it too.
// RUN: mirage-opt --mirage-superopt="lower=false cache=false" --mirage-remarks %mirage_src/test/lift/rmsnorm-tosa.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE
