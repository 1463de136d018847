// The six paper benchmarks at small shapes as lifted kernel graphs (from
// test/lift/*-tosa.mlir with --mirage-lift; references dropped): input
// of the lowering fuzz test (test/lower/candidates.mlir), not a test.
func.func @rmsnorm_small_lax0(%arg0: tensor<1x2x64xf16>, %arg1: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.square"(%arg0) : (tensor<1x2x64xf16>) -> tensor<1x2x64xf16>
  %1 = "ug.sum"(%0) {dim = 2 : i64} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %2 = "ug.mul_scalar"(%1) {scalar = 1.562500e-02 : f64} : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %3 = "ug.sqrt"(%2) : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %4 = "ug.div"(%arg0, %3) : (tensor<1x2x64xf16>, tensor<1x2x1xf16>) -> tensor<1x2x64xf16>
  %5 = "ug.matmul"(%4, %arg1) : (tensor<1x2x64xf16>, tensor<1x64x96xf16>) -> tensor<1x2x96xf16>
  return %5 : tensor<1x2x96xf16>
}
func.func @gqa_small_lax0(%arg0: tensor<2x4x8xf16>, %arg1: tensor<2x8x16xf16>, %arg2: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.matmul"(%arg0, %arg1) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  %1 = "ug.exp"(%0) : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %2 = "ug.sum"(%1) {dim = 2 : i64} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
  %3 = "ug.div"(%1, %2) : (tensor<2x4x16xf16>, tensor<2x4x1xf16>) -> tensor<2x4x16xf16>
  %4 = "ug.matmul"(%3, %arg2) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
  return %4 : tensor<2x4x8xf16>
}
func.func @qknorm_small_lax0(%arg0: tensor<2x4x8xf16>, %arg1: tensor<2x8x16xf16>, %arg2: tensor<2x16x8xf16>) -> tensor<2x4x8xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.square"(%arg0) : (tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  %1 = "ug.sum"(%0) {dim = 2 : i64} : (tensor<2x4x8xf16>) -> tensor<2x4x1xf16>
  %2 = "ug.mul_scalar"(%1) {scalar = 1.250000e-01 : f64} : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %3 = "ug.rsqrt"(%2) : (tensor<2x4x1xf16>) -> tensor<2x4x1xf16>
  %4 = "ug.mul"(%arg0, %3) : (tensor<2x4x8xf16>, tensor<2x4x1xf16>) -> tensor<2x4x8xf16>
  %5 = "ug.square"(%arg2) : (tensor<2x16x8xf16>) -> tensor<2x16x8xf16>
  %6 = "ug.sum"(%5) {dim = 2 : i64} : (tensor<2x16x8xf16>) -> tensor<2x16x1xf16>
  %7 = "ug.mul_scalar"(%6) {scalar = 1.250000e-01 : f64} : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %8 = "ug.rsqrt"(%7) : (tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %9 = "ug.mul"(%arg2, %8) : (tensor<2x16x8xf16>, tensor<2x16x1xf16>) -> tensor<2x16x8xf16>
  %10 = "ug.matmul"(%4, %arg1) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  %11 = "ug.exp"(%10) : (tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %12 = "ug.sum"(%11) {dim = 2 : i64} : (tensor<2x4x16xf16>) -> tensor<2x4x1xf16>
  %13 = "ug.div"(%11, %12) : (tensor<2x4x16xf16>, tensor<2x4x1xf16>) -> tensor<2x4x16xf16>
  %14 = "ug.matmul"(%13, %9) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
  return %14 : tensor<2x4x8xf16>
}
func.func @lora_small_lax0(%arg0: tensor<1x4x32xf16>, %arg1: tensor<1x32x64xf16>, %arg2: tensor<1x32x4xf16>, %arg3: tensor<1x4x64xf16>) -> tensor<1x4x64xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.matmul"(%arg0, %arg1) : (tensor<1x4x32xf16>, tensor<1x32x64xf16>) -> tensor<1x4x64xf16>
  %1 = "ug.matmul"(%arg0, %arg2) : (tensor<1x4x32xf16>, tensor<1x32x4xf16>) -> tensor<1x4x4xf16>
  %2 = "ug.matmul"(%1, %arg3) : (tensor<1x4x4xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
  %3 = "ug.add"(%0, %2) : (tensor<1x4x64xf16>, tensor<1x4x64xf16>) -> tensor<1x4x64xf16>
  return %3 : tensor<1x4x64xf16>
}
func.func @gated_mlp_small_lax0(%arg0: tensor<1x8x64xf16>, %arg1: tensor<1x64x64xf16>, %arg2: tensor<1x64x64xf16>) -> tensor<1x8x64xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.matmul"(%arg0, %arg1) : (tensor<1x8x64xf16>, tensor<1x64x64xf16>) -> tensor<1x8x64xf16>
  %1 = "ug.silu"(%0) : (tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  %2 = "ug.matmul"(%arg0, %arg2) : (tensor<1x8x64xf16>, tensor<1x64x64xf16>) -> tensor<1x8x64xf16>
  %3 = "ug.mul"(%1, %2) : (tensor<1x8x64xf16>, tensor<1x8x64xf16>) -> tensor<1x8x64xf16>
  return %3 : tensor<1x8x64xf16>
}
func.func @ntrans_small_lax0(%arg0: tensor<8x64xf16>, %arg1: tensor<8x64xf16>, %arg2: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel"} {
  %0 = "ug.square"(%arg0) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %1 = "ug.sum"(%0) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %2 = "ug.mul_scalar"(%1) {scalar = 1.562500e-02 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %3 = "ug.rsqrt"(%2) : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %4 = "ug.mul"(%arg0, %3) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
  %5 = "ug.add"(%4, %arg1) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %6 = "ug.mul"(%arg2, %5) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %7 = "ug.add"(%arg1, %6) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %8 = "ug.square"(%7) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %9 = "ug.sum"(%8) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %10 = "ug.mul_scalar"(%9) {scalar = 1.562500e-02 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %11 = "ug.rsqrt"(%10) : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %12 = "ug.mul"(%7, %11) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
  return %12 : tensor<8x64xf16>
}
