// Gated MLP (the Mirage paper's fifth benchmark at small shapes) as torch-mlir's
// TOSA backend emits it for silu(x @ W1.T) * (x @ W2.T) with nn.Linear layers.
// Try: mirage-opt --mirage-lift --mirage-remarks examples/gated_mlp_torch.mlir
func.func @forward(%arg0: tensor<8x64xf32>, %arg1: tensor<96x64xf32>, %arg2: tensor<96x64xf32>) -> tensor<8x96xf32> {
  %0 = tosa.transpose %arg1 {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %1 = tosa.const_shape  {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %2 = tosa.reshape %arg0, %1 : (tensor<8x64xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  %3 = tosa.const_shape  {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %4 = tosa.reshape %0, %3 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %5 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %6 = tosa.matmul %2, %4, %5, %5 : (tensor<1x8x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x96xf32>
  %7 = tosa.const_shape  {values = dense<[8, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %8 = tosa.reshape %6, %7 : (tensor<1x8x96xf32>, !tosa.shape<2>) -> tensor<8x96xf32>
  %9 = tosa.sigmoid %8 : (tensor<8x96xf32>) -> tensor<8x96xf32>
  %10 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %11 = tosa.mul %8, %9, %10 : (tensor<8x96xf32>, tensor<8x96xf32>, tensor<1xi8>) -> tensor<8x96xf32>
  %12 = tosa.transpose %arg2 {perms = array<i32: 1, 0>} : (tensor<96x64xf32>) -> tensor<64x96xf32>
  %13 = tosa.const_shape  {values = dense<[1, 8, 64]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %14 = tosa.reshape %arg0, %13 : (tensor<8x64xf32>, !tosa.shape<3>) -> tensor<1x8x64xf32>
  %15 = tosa.const_shape  {values = dense<[1, 64, 96]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %16 = tosa.reshape %12, %15 : (tensor<64x96xf32>, !tosa.shape<3>) -> tensor<1x64x96xf32>
  %17 = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %18 = tosa.matmul %14, %16, %17, %17 : (tensor<1x8x64xf32>, tensor<1x64x96xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x96xf32>
  %19 = tosa.const_shape  {values = dense<[8, 96]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %20 = tosa.reshape %18, %19 : (tensor<1x8x96xf32>, !tosa.shape<2>) -> tensor<8x96xf32>
  %21 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %22 = tosa.mul %11, %20, %21 : (tensor<8x96xf32>, tensor<8x96xf32>, tensor<1xi8>) -> tensor<8x96xf32>
  return %22 : tensor<8x96xf32>
}
