// Slices and concatenation as data movement (issue 30 item 3), in the
// forms torch-mlir's linalg path writes them: torch.cat as tensor.concat
// (RoPE's rotated halves rejoined), a KV-cache write at a fixed position
// as tensor.insert_slice into the cache (its result returned and read by
// the scores), both lifted as kernel-level ug.slice / ug.concat views
// around the compute. An insert into tensor.empty (the rest undefined) and
// one partial in two dims are left in place with a remark. Numbers agree
// with the original ops through the interpreter and through the searched
// and lowered kernels' CPU form; unlift gives the module back.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=LOWER

// CHECK-LABEL: func.func private @rope_rejoin_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x4x8xf16>,
// CHECK-DAG: %[[LO:.*]] = "ug.slice"(%[[X]]) {dim = 2 : i64, offset = 0 : i64} : (tensor<2x4x8xf16>) -> tensor<2x4x4xf16>
// CHECK-DAG: %[[HI:.*]] = "ug.slice"(%[[X]]) {dim = 2 : i64, offset = 4 : i64} : (tensor<2x4x8xf16>) -> tensor<2x4x4xf16>
// CHECK: "ug.concat"({{.*}}) {dim = 2 : i64} : (tensor<2x4x4xf16>, tensor<2x4x4xf16>) -> tensor<2x4x8xf16>
// CHECK-LABEL: func.func private @kv_write_lax0(
// CHECK-SAME: %[[C:[^:]+]]: tensor<1x8x16xf32>, %[[K:[^:]+]]: tensor<1x1x16xf32>
// CHECK: %[[A:.*]] = "ug.slice"(%[[C]]) {dim = 1 : i64, offset = 0 : i64} : (tensor<1x8x16xf32>) -> tensor<1x3x16xf32>
// CHECK-NEXT: %[[B:.*]] = "ug.concat"(%[[A]], %[[K]]) {dim = 1 : i64}
// CHECK-NEXT: %[[D:.*]] = "ug.slice"(%[[C]]) {dim = 1 : i64, offset = 4 : i64} : (tensor<1x8x16xf32>) -> tensor<1x4x16xf32>
// CHECK-NEXT: "ug.concat"(%[[B]], %[[D]]) {dim = 1 : i64} : (tensor<1x4x16xf32>, tensor<1x4x16xf32>) -> tensor<1x8x16xf32>
// CHECK: "ug.matmul"
// CHECK-LABEL: func.func @cat_into_empty(
// CHECK: tensor.insert_slice
// CHECK: tensor.insert_slice

// REM-DAG: remark: mirage-lift: '@rope_rejoin': lifted 1 subprogram (@rope_rejoin_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@kv_write': lifted 1 subprogram (@kv_write_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: 'tensor.insert_slice' is not lifted: an insert into tensor.empty leaves the rest undefined (tensor.concat lifts)
// REM-DAG: remark: mirage-lift: 'tensor.insert_slice' is not lifted: the inserted slice is partial in two dims (1 and 2)

// NUM-DAG: @rope_rejoin_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// NUM-DAG: @kv_write_lax0: 2 outputs, 144 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH
// LOWER-DAG: @rope_rejoin_lax0: 1 output, 64 elements, max abs error {{.*}}: ok
// LOWER-DAG: @kv_write_lax0: 2 outputs, 144 elements, max abs error {{.*}}: ok
// LOWER-NOT: MISMATCH

// x·cos + rotate_half(x)·sin, rotate_half = cat(-x2, x1), in f16.
func.func @rope_rejoin(%x: tensor<2x4x8xf16>, %cos: tensor<2x4x8xf16>, %sin: tensor<2x4x8xf16>) -> tensor<2x4x8xf16> {
  %x1 = tensor.extract_slice %x[0, 0, 0] [2, 4, 4] [1, 1, 1] : tensor<2x4x8xf16> to tensor<2x4x4xf16>
  %x2 = tensor.extract_slice %x[0, 0, 4] [2, 4, 4] [1, 1, 1] : tensor<2x4x8xf16> to tensor<2x4x4xf16>
  %n2 = arith.negf %x2 : tensor<2x4x4xf16>
  %rot = tensor.concat dim(2) %n2, %x1 : (tensor<2x4x4xf16>, tensor<2x4x4xf16>) -> tensor<2x4x8xf16>
  %a = arith.mulf %x, %cos : tensor<2x4x8xf16>
  %b = arith.mulf %rot, %sin : tensor<2x4x8xf16>
  %y = arith.addf %a, %b : tensor<2x4x8xf16>
  return %y : tensor<2x4x8xf16>
}

// The new key written into the cache at position 3; the updated cache is
// returned and scored against the queries.
func.func @kv_write(%cache: tensor<1x8x16xf32>, %k: tensor<1x1x16xf32>, %q: tensor<1x2x16xf32>) -> (tensor<1x8x16xf32>, tensor<1x2x8xf32>) {
  %c = tensor.insert_slice %k into %cache[0, 3, 0] [1, 1, 16] [1, 1, 1] : tensor<1x1x16xf32> into tensor<1x8x16xf32>
  %e = tensor.empty() : tensor<1x16x8xf32>
  %ct = linalg.transpose ins(%c : tensor<1x8x16xf32>) outs(%e : tensor<1x16x8xf32>) permutation = [0, 2, 1]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  %s = linalg.batch_matmul ins(%q, %ct : tensor<1x2x16xf32>, tensor<1x16x8xf32>) outs(%f : tensor<1x2x8xf32>) -> tensor<1x2x8xf32>
  return %c, %s : tensor<1x8x16xf32>, tensor<1x2x8xf32>
}

// torch.cat written as inserts into tensor.empty: the first insert's result
// is undefined outside its slice, so it stays.
func.func @cat_into_empty(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = tensor.insert_slice %a into %e[0, 0] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  %1 = tensor.insert_slice %b into %0[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// A block written into the middle of a matrix: partial in both dims.
func.func @insert_block(%m: tensor<1x8x8xf32>, %blk: tensor<1x2x2xf32>) -> tensor<1x8x8xf32> {
  %r = tensor.insert_slice %blk into %m[0, 2, 2] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<1x8x8xf32>
  return %r : tensor<1x8x8xf32>
}
