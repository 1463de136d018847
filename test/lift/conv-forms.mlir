// More convolution forms (issue 30 item 1): torch-mlir's grouped
// convolution (channels split into groups by tensor.expand_shape around
// linalg.conv_2d_ngchw_gfchw; the tensor.pad and the bias broadcast fold
// through the split), its depthwise convolution (depthwise_conv_2d_nchw_chw
// on the collapsed filter), depthwise with a channel multiplier
// (depthwise_conv_2d_nhwc_hwcm), conv_2d_ngchw_fgchw, conv_2d_nhwc_fhwc
// (what tosa-to-linalg-named writes) and sum pooling from a non-zero
// start; and the element types: f16 data accumulated in f32 and truncated
// as torch-mlir writes it (the matmul, and the reshape after it, store
// f16), f16 throughout as linalg.matmul does, bf16 through tosa.conv2d,
// and tosa.conv2d's f32 result of f16 data cast back.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-verify-ugraph > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lift --lower %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM

// The grouped convolution: groups = 2, the filter [2, 18, 4], the bias per
// group [2, 1, 4], the groups put back next to each other.
// CHECK-LABEL: func.func private @torch_grouped_lax0(
// CHECK-SAME: %arg0: tensor<1x4x8x8xf32>, %arg1: tensor<8x2x3x3xf32>, %arg2: tensor<8xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 2 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x4xf32>) -> tensor<2x64x18xf32>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<2x64x18xf32>, tensor<2x18x4xf32>) -> tensor<2x64x4xf32>
// CHECK: "ug.add"({{.*}}) : (tensor<2x64x4xf32>, tensor<2x1x4xf32>) -> tensor<2x64x4xf32>
// CHECK-NEXT: "ug.transpose"({{.*}}) {perm = array<i64: 1, 0, 2>} : (tensor<2x64x4xf32>) -> tensor<64x2x4xf32>

// CHECK-LABEL: func.func private @torch_depthwise_lax0(
// CHECK: "ug.reshape"(%arg1) : (tensor<8x1x3x3xf32>) -> tensor<8x9x1xf32>
// CHECK-NEXT: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 8 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x8xf32>) -> tensor<8x64x9xf32>
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: "ug.add"({{.*}}, %arg2) : (tensor<8x64x1xf32>, tensor<8x1x1xf32>)

// CHECK-LABEL: func.func private @hwcm_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 4 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x9x9x4xf32>) -> tensor<4x16x9xf32>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<4x16x9xf32>, tensor<4x9x3xf32>) -> tensor<4x16x3xf32>
// CHECK: "ug.reshape"({{.*}}) : (tensor<16x4x3xf32>) -> tensor<1x4x4x4x3xf32>

// CHECK-LABEL: func.func private @fgchw_lax0(
// CHECK: "ug.transpose"(%arg0) {perm = array<i64: 0, 3, 4, 1, 2>} : (tensor<2x3x2x6x6xf32>) -> tensor<2x6x6x3x2xf32>
// CHECK: "ug.transpose"(%arg1) {perm = array<i64: 1, 3, 4, 2, 0>} : (tensor<4x3x2x3x3xf32>) -> tensor<3x3x3x2x4xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 3 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<2x6x6x6xf32>) -> tensor<3x32x18xf32>
// CHECK: "ug.transpose"({{.*}}) {perm = array<i64: 0, 3, 4, 1, 2>} : (tensor<2x4x4x3x4xf32>) -> tensor<2x3x4x4x4xf32>

// CHECK-LABEL: func.func private @fhwc_sum_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, window = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x49x16xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 5 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x7x7x5xf32>) -> tensor<5x9x9xf32>
// CHECK-NEXT: "ug.sum"
// CHECK: "ug.add"

// CHECK-LABEL: func.func private @f16_wide_lax0(
// CHECK-SAME: -> tensor<1x6x6x8xf16>
// CHECK: "ug.matmul"({{.*}}) : (tensor<1x36x36xf16>, tensor<1x36x8xf16>) -> tensor<1x36x8xf16>
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<1x36x8xf16>) -> tensor<1x6x6x8xf16>
// CHECK-LABEL: func.func private @bf16_tosa_lax0(
// CHECK: "ug.im2col"(%arg0) {{.*}} : (tensor<1x8x8x4xbf16>) -> tensor<1x36x36xbf16>
// CHECK-LABEL: func.func private @tosa_f16_f32_lax0(
// CHECK: "ug.matmul"({{.*}}) : (tensor<1x36x36xf16>, tensor<1x36x8xf16>) -> tensor<1x36x8xf32>
// CHECK-NEXT: "ug.add"({{.*}}) : (tensor<1x36x8xf32>, tensor<1x1x8xf32>) -> tensor<1x36x8xf16>
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<1x36x8xf16>) -> tensor<1x6x6x8xf16>

// REM-DAG: remark: mirage-lift: @torch_grouped_lax0: 7 ops -> kernel graph of 2 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: @torch_depthwise_lax0: 4 ops -> kernel graph of 2 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: @hwcm_lax0: 1 op -> kernel graph of 1 μGraph op, 2 inputs, 1 output
// REM-DAG: remark: mirage-lift: @fgchw_lax0: 1 op -> kernel graph of 1 μGraph op, 2 inputs, 1 output
// REM-DAG: remark: mirage-lift: @fhwc_sum_lax0: 2 ops -> kernel graph of 3 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: @f16_wide_lax0: 2 ops -> kernel graph of 1 μGraph op, 2 inputs, 1 output
// REM-DAG: remark: mirage-lift: @f16_narrow_lax0: 1 op -> kernel graph of 1 μGraph op, 2 inputs, 1 output
// REM-DAG: remark: mirage-lift: @bf16_tosa_lax0: 1 op -> kernel graph of 2 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: @tosa_f16_f32_lax0: 2 ops -> kernel graph of 2 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: module: 21 of 21 tensor ops lifted (100.0 %) into 9 subprograms, 1.7 μGraph ops each on average; 0 left in place
// REM-NOT: is not lifted

// NUM-DAG: @torch_grouped_lax0: 1 output, 512 elements, {{.*}}: ok
// NUM-DAG: @torch_depthwise_lax0: 1 output, 512 elements, {{.*}}: ok
// NUM-DAG: @hwcm_lax0: 1 output, 192 elements, {{.*}}: ok
// NUM-DAG: @fgchw_lax0: 1 output, 384 elements, {{.*}}: ok
// NUM-DAG: @fhwc_sum_lax0: 1 output, 45 elements, {{.*}}: ok
// NUM-DAG: @f16_wide_lax0: 1 output, 288 elements, {{.*}}: ok
// NUM-DAG: @f16_narrow_lax0: 1 output, 288 elements, {{.*}}: ok
// NUM-DAG: @bf16_tosa_lax0: 1 output, 288 elements, {{.*}}: ok
// NUM-DAG: @tosa_f16_f32_lax0: 1 output, 288 elements, {{.*}}: ok
// NUM-NOT: MISMATCH

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias1 = affine_map<(d0, d1, d2, d3) -> (d1)>
// nn.Conv2d(4, 8, 3, padding=1, groups=2) on torch-mlir's linalg path:
// channels split into groups by expand_shape, conv_2d_ngchw_gfchw,
// collapsed back; the bias broadcast into the init before the split.
func.func @torch_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
    tensor.yield %cst : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %0 = tensor.empty() : tensor<1x8x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#bias1, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%0 : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %xe = tensor.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 10, 10] : tensor<1x4x10x10xf32> into tensor<1x2x2x10x10xf32>
  %we = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [2, 4, 2, 3, 3] : tensor<8x2x3x3xf32> into tensor<2x4x2x3x3xf32>
  %ie = tensor.expand_shape %1 [[0], [1, 2], [3], [4]] output_shape [1, 2, 4, 8, 8] : tensor<1x8x8x8xf32> into tensor<1x2x4x8x8xf32>
  %2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%xe, %we : tensor<1x2x2x10x10xf32>, tensor<2x4x2x3x3xf32>) outs(%ie : tensor<1x2x4x8x8xf32>) -> tensor<1x2x4x8x8xf32>
  %3 = tensor.collapse_shape %2 [[0], [1, 2], [3], [4]] : tensor<1x2x4x8x8xf32> into tensor<1x8x8x8xf32>
  return %3 : tensor<1x8x8x8xf32>
}

// nn.Conv2d(8, 8, 3, padding=1, groups=8) (depthwise) on torch-mlir's
// linalg path: the filter collapsed to [C, KH, KW].
func.func @torch_depthwise(%x: tensor<1x8x8x8xf32>, %w: tensor<8x1x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
    tensor.yield %cst : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %0 = tensor.empty() : tensor<1x8x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#bias1, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<8xf32>) outs(%0 : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %wc = tensor.collapse_shape %w [[0, 1], [2], [3]] : tensor<8x1x3x3xf32> into tensor<8x3x3xf32>
  %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %wc : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// Depthwise with a channel multiplier in linalg (out [N, H, W, C, M]),
// stride 2; and the grouped form with the filter [FG, G, C, KH, KW].
func.func @hwcm(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x3xf32>) -> tensor<1x4x4x4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x4x3xf32>) -> tensor<1x4x4x4x3xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x9x9x4xf32>, tensor<3x3x4x3xf32>) outs(%z : tensor<1x4x4x4x3xf32>) -> tensor<1x4x4x4x3xf32>
  return %y : tensor<1x4x4x4x3xf32>
}
func.func @fgchw(%x: tensor<2x3x2x6x6xf32>, %w: tensor<4x3x2x3x3xf32>) -> tensor<2x3x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x4x4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  %y = linalg.conv_2d_ngchw_fgchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x3x2x6x6xf32>, tensor<4x3x2x3x3xf32>) outs(%z : tensor<2x3x4x4x4xf32>) -> tensor<2x3x4x4x4xf32>
  return %y : tensor<2x3x4x4x4xf32>
}

// What tosa-to-linalg-named makes of tosa.conv2d (filter [F, KH, KW, C]),
// and sum pooling from a non-zero start.
func.func @fhwc_sum(%x: tensor<1x8x8x4xf32>, %w: tensor<5x2x2x4xf32>, %acc: tensor<1x3x3x5xf32>) -> tensor<1x3x3x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x4xf32>, tensor<5x2x2x4xf32>) outs(%z : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%y, %win : tensor<1x7x7x5xf32>, tensor<3x3xf32>) outs(%acc : tensor<1x3x3x5xf32>) -> tensor<1x3x3x5xf32>
  return %s : tensor<1x3x3x5xf32>
}

// f16 data, accumulated in f32 and truncated; f16 throughout; bf16 TOSA.
func.func @f16_wide(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x4x8xf16>) -> tensor<1x6x6x8xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x6x6x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x4xf16>, tensor<3x3x4x8xf16>) outs(%z : tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf32>
  %eh = tensor.empty() : tensor<1x6x6x8xf16>
  %t = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x6x6x8xf32>) outs(%eh : tensor<1x6x6x8xf16>) {
  ^bb0(%in: f32, %o: f16):
    %h = arith.truncf %in : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x6x6x8xf16>
  return %t : tensor<1x6x6x8xf16>
}
func.func @f16_narrow(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x4x8xf16>) -> tensor<1x6x6x8xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x8xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x4xf16>, tensor<3x3x4x8xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %c : tensor<1x6x6x8xf16>
}
func.func @bf16_tosa(%x: tensor<1x8x8x4xbf16>, %w: tensor<8x3x3x4xbf16>, %b: tensor<8xbf16>) -> tensor<1x6x6x8xbf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xbf16>, tensor<8x3x3x4xbf16>, tensor<8xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x6x6x8xbf16>
  return %y : tensor<1x6x6x8xbf16>
}

// torch-mlir's TOSA path in f16: the f32 result of f16 data cast back, as
// for tosa.matmul (the bias add stores f16, the reshape after it too).
func.func @tosa_f16_f32(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16>, tensor<8xf32>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x8xf32>
  %c = tosa.cast %y : (tensor<1x6x6x8xf32>) -> tensor<1x6x6x8xf16>
  return %c : tensor<1x6x6x8xf16>
}
