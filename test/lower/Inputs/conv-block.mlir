// A 3x3 convolution (padding 1) with its bias and ReLU as a kernel graph:
// ug.im2col, the filter reshaped, a matmul, the bias add and the ReLU;
// the reference a tensor.pad, linalg.conv_2d_nhwc_hwcf and a generic.
func.func @block(%x: tensor<1x16x16x32xf16>, %w: tensor<3x3x32x64xf16>, %b: tensor<64xf16>) -> tensor<1x16x16x64xf16> {
  %y = func.call @block_lax0(%x, %w, %b) : (tensor<1x16x16x32xf16>, tensor<3x3x32x64xf16>, tensor<64xf16>) -> tensor<1x16x16x64xf16>
  return %y : tensor<1x16x16x64xf16>
}
func.func private @block_lax0(%x: tensor<1x16x16x32xf16>, %w: tensor<3x3x32x64xf16>, %b: tensor<64xf16>) -> tensor<1x16x16x64xf16> attributes {ug.level = "kernel", ug.reference = @block_lax0_ref} {
  %p = "ug.im2col"(%x) {window = array<i64: 3, 3>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, groups = 1 : i64} : (tensor<1x16x16x32xf16>) -> tensor<1x256x288xf16>
  %f = "ug.reshape"(%w) : (tensor<3x3x32x64xf16>) -> tensor<1x288x64xf16>
  %y = "ug.matmul"(%p, %f) : (tensor<1x256x288xf16>, tensor<1x288x64xf16>) -> tensor<1x256x64xf16>
  %bb = "ug.reshape"(%b) : (tensor<64xf16>) -> tensor<1x1x64xf16>
  %a = "ug.add"(%y, %bb) : (tensor<1x256x64xf16>, tensor<1x1x64xf16>) -> tensor<1x256x64xf16>
  %r = "ug.relu"(%a) : (tensor<1x256x64xf16>) -> tensor<1x256x64xf16>
  %o = "ug.reshape"(%r) : (tensor<1x256x64xf16>) -> tensor<1x16x16x64xf16>
  func.return %o : tensor<1x16x16x64xf16>
}
func.func private @block_lax0_ref(%x: tensor<1x16x16x32xf16>, %w: tensor<3x3x32x64xf16>, %b: tensor<64xf16>) -> tensor<1x16x16x64xf16> {
  %zero = arith.constant 0.0 : f16
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f16
  } : tensor<1x16x16x32xf16> to tensor<1x18x18x32xf16>
  %e = tensor.empty() : tensor<1x16x16x64xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x16x16x64xf16>) -> tensor<1x16x16x64xf16>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w : tensor<1x18x18x32xf16>, tensor<3x3x32x64xf16>) outs(%z : tensor<1x16x16x64xf16>) -> tensor<1x16x16x64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y, %b : tensor<1x16x16x64xf16>, tensor<64xf16>) outs(%e : tensor<1x16x16x64xf16>) {
  ^bb0(%v: f16, %bv: f16, %o: f16):
    %s = arith.addf %v, %bv : f16
    %m = arith.maximumf %s, %zero : f16
    linalg.yield %m : f16
  } -> tensor<1x16x16x64xf16>
  return %r : tensor<1x16x16x64xf16>
}
