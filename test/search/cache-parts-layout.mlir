// A subprogram cut at its prologues whose input has a layout (QKNorm with
// K read as stored, (B, S, D), through ug.transpose): parts are logical
// programs, so a cache hit that composes the parts' entries must give the
// composition the subprogram's layouts back. Without them the kernels
// would read K where the program reads Kᵀ.
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" %s > %t.filled
// RUN: head -qn1 %t.cache/*.mlir | FileCheck %s --check-prefix=ENTRIES
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache-dir=%t.cache" --mirage-remarks %s 2>&1 >%t.hit | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.filled %t.hit
// RUN: FileCheck %s < %t.hit

// ENTRIES-DAG: parts=3
// ENTRIES-DAG: parts=0
// HIT: '@qknorm_kt' replaced by a verified μGraph: 15 kernel(s) -> 4, {{.*}}(from the cache)
// The kernel graph and the block graph reading K both keep the layout.
// CHECK: "ug.transpose"(%{{.*}}) {perm = array<i64: 0, 2, 1>} : (tensor<2x1024x64xf16>) -> tensor<2x64x1024xf16>
// CHECK-LABEL: func.func @qknorm_kt(
// CHECK-NEXT: "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<2x1024x64xf16>) -> tensor<2x64x1024xf16>

func.func @qknorm_kt(%arg0: tensor<2x16x64xf16>, %arg1: tensor<2x1024x64xf16>, %arg2: tensor<2x1024x64xf16>) -> tensor<2x16x64xf16> attributes {ug.level = "kernel"} {
  %kt = "ug.transpose"(%arg1) {perm = array<i64: 0, 2, 1>} : (tensor<2x1024x64xf16>) -> tensor<2x64x1024xf16>
  %0 = "ug.square"(%arg0) : (tensor<2x16x64xf16>) -> tensor<2x16x64xf16>
  %1 = "ug.sum"(%0) {dim = 2 : i64} : (tensor<2x16x64xf16>) -> tensor<2x16x1xf16>
  %2 = "ug.mul_scalar"(%1) {scalar = 1.562500e-02 : f64} : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %3 = "ug.rsqrt"(%2) : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %4 = "ug.mul"(%arg0, %3) : (tensor<2x16x64xf16>, tensor<2x16x1xf16>) -> tensor<2x16x64xf16>
  %5 = "ug.square"(%arg2) : (tensor<2x1024x64xf16>) -> tensor<2x1024x64xf16>
  %6 = "ug.sum"(%5) {dim = 2 : i64} : (tensor<2x1024x64xf16>) -> tensor<2x1024x1xf16>
  %7 = "ug.mul_scalar"(%6) {scalar = 1.562500e-02 : f64} : (tensor<2x1024x1xf16>) -> tensor<2x1024x1xf16>
  %8 = "ug.rsqrt"(%7) : (tensor<2x1024x1xf16>) -> tensor<2x1024x1xf16>
  %9 = "ug.mul"(%arg2, %8) : (tensor<2x1024x64xf16>, tensor<2x1024x1xf16>) -> tensor<2x1024x64xf16>
  %10 = "ug.matmul"(%4, %kt) : (tensor<2x16x64xf16>, tensor<2x64x1024xf16>) -> tensor<2x16x1024xf16>
  %11 = "ug.exp"(%10) : (tensor<2x16x1024xf16>) -> tensor<2x16x1024xf16>
  %12 = "ug.sum"(%11) {dim = 2 : i64} : (tensor<2x16x1024xf16>) -> tensor<2x16x1xf16>
  %13 = "ug.div"(%11, %12) : (tensor<2x16x1024xf16>, tensor<2x16x1xf16>) -> tensor<2x16x1024xf16>
  %14 = "ug.matmul"(%13, %9) : (tensor<2x16x1024xf16>, tensor<2x1024x64xf16>) -> tensor<2x16x64xf16>
  func.return %14 : tensor<2x16x64xf16>
}
