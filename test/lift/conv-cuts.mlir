// Convolutions and pooling that are not lifted, or only in part, each
// with its reason (issue 30 item 1): a '?' batch (ug.im2col needs static
// shapes), TOSA's f16 accumulation, padded TOSA pooling (max pads with
// -inf, avg leaves the padding out of its count), tensor.pads that cannot
// fold into ug.im2col's zero padding (a pad with 1.0, one of the
// channels, one also returned; max pooling's -inf pad), an init that is
// tensor.empty, a result smaller than its input allows. What lifts around
// them agrees with the original ops; the module round-trips.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-verify-ugraph > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lift --lower %s | FileCheck %s --check-prefix=NUM

// CHECK-LABEL: func.func @dynamic_batch(
// CHECK-NEXT: linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @tosa_f16_acc(
// CHECK: tosa.conv2d
// CHECK-LABEL: func.func @tosa_padded_pools(
// CHECK: tosa.max_pool2d
// CHECK: tosa.avg_pool2d
// The pads stay; the first two convolutions read the padded tensors.
// CHECK-LABEL: func.func @pads_that_stay(
// CHECK: %[[P1:.*]] = tensor.pad %arg0 low[0, 1, 1, 0]
// CHECK: call @pads_that_stay_lax0(%arg1, %[[P1]])
// CHECK: %[[P2:.*]] = tensor.pad %arg0 low[0, 0, 0, 1]
// CHECK: call @pads_that_stay_lax1(%arg2, %[[P2]])
// CHECK: tensor.pad
// CHECK-LABEL: func.func private @pads_that_stay_lax0(
// CHECK: "ug.im2col"(%arg1) {{.*}}pad = array<i64: 0, 0, 0, 0>{{.*}} : (tensor<1x8x8x4xf32>) -> tensor<1x36x36xf32>
// CHECK-LABEL: func.func @empty_init(
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @short_result(
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK-LABEL: func.func @max_pool_padded(
// CHECK: %[[P:.*]] = tensor.pad %arg0
// CHECK: call @max_pool_padded_lax0(%[[P]])
// CHECK-LABEL: func.func private @max_pool_padded_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 4 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x10x10x4xf32>) -> tensor<4x16x9xf32>
// CHECK-NEXT: "ug.reduce_max"

// REM-DAG: remark: mirage-lift: 'linalg.conv_2d_nhwc_hwcf' is not lifted: operand 0 has a dynamic dim ('?'); ug.im2col needs static shapes
// REM-DAG: remark: mirage-lift: 'tosa.conv2d' is not lifted: it accumulates in f16 (acc_type = f16); lifted convolutions and pooling accumulate in f32
// REM-DAG: remark: mirage-lift: 'tosa.max_pool2d' is not lifted: max pooling pads with -inf, ug.im2col with 0 (only unpadded max pooling lifts)
// REM-DAG: remark: mirage-lift: 'tosa.avg_pool2d' is not lifted: a padded tosa.avg_pool2d divides by the count of elements inside the input (only unpadded average pooling lifts)
// REM-DAG: remark: mirage-lift: 'tensor.pad' is not lifted: it pads with 1; only zero padding folds into a convolution's ug.im2col
// REM-DAG: remark: mirage-lift: 'tensor.pad' is not lifted: the tensor.pad pads dim 3, which is not a spatial dim of the convolution's input
// REM-DAG: remark: mirage-lift: 'tensor.pad' is not lifted: a tensor.pad lifts only folded into the convolutions and pooling ops that read it
// REM-DAG: remark: mirage-lift: 'linalg.conv_2d_nhwc_hwcf' is not lifted: the accumulator starts from tensor.empty (undefined values)
// REM-DAG: remark: mirage-lift: 'linalg.conv_2d_nhwc_hwcf' is not lifted: the result [1, 5, 5, 4] (channels last) does not match the 3x3 window over the [1, 9, 9, 4] input, which gives [1, 7, 7, 4] with these strides, dilations and padding
// REM-DAG: remark: mirage-lift: 'tensor.pad' is not lifted: it pads with -inf; only zero padding folds into a convolution's ug.im2col
// REM-DAG: remark: mirage-lift: module: 3 of 13 tensor ops lifted (23.1 %) into 3 subprograms, 1.0 μGraph ops each on average; 10 left in place, by reason:

// NUM-DAG: @pads_that_stay_lax0: 1 output, 144 elements, {{.*}}: ok
// NUM-DAG: @pads_that_stay_lax1: 1 output, 64 elements, {{.*}}: ok
// NUM-DAG: @max_pool_padded_lax0: 1 output, 64 elements, {{.*}}: ok
// NUM-NOT: MISMATCH

// A batch of '?' images: im2col needs static shapes.
func.func @dynamic_batch(%x: tensor<?x8x8x4xf32>, %w: tensor<3x3x4x8xf32>, %init: tensor<?x6x6x8xf32>) -> tensor<?x6x6x8xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x8x8x4xf32>, tensor<3x3x4x8xf32>) outs(%init : tensor<?x6x6x8xf32>) -> tensor<?x6x6x8xf32>
  return %y : tensor<?x6x6x8xf32>
}

// f16 accumulation, as acc_type asks.
func.func @tosa_f16_acc(%x: tensor<1x8x8x4xf16>, %w: tensor<8x3x3x4xf16>, %b: tensor<8xf16>) -> tensor<1x6x6x8xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f16, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<8x3x3x4xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// Padded TOSA pooling: max pads with -inf, avg leaves the padding out of
// its count.
func.func @tosa_padded_pools(%x: tensor<1x8x8x4xf32>) -> (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %m, %a : tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>
}

// A pad with 1.0, a pad of the channels, and a zero pad also returned: each
// stays; the convolutions read the padded tensors.
func.func @pads_that_stay(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>, %w6: tensor<3x3x6x4xf32>) -> (tensor<1x6x6x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %p1 = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %one : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf ins(%p1, %w : tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) outs(%z : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %p2 = tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x6x6x6xf32>
  %e4 = tensor.empty() : tensor<1x4x4x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf ins(%p2, %w6 : tensor<1x6x6x6xf32>, tensor<3x3x6x4xf32>) outs(%z4 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %p3 = tensor.pad %c1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  return %c1, %c2, %p3 : tensor<1x6x6x4xf32>, tensor<1x4x4x4xf32>, tensor<1x8x8x4xf32>
}

// An init that is tensor.empty: undefined.
func.func @empty_init(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x6x6x4xf32>, tensor<3x3x4x4xf32>) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %c : tensor<1x4x4x4xf32>
}

// A result smaller than the input allows (linalg reads only what it needs).
func.func @short_result(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x4xf32>) -> tensor<1x5x5x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x9x9x4xf32>, tensor<3x3x4x4xf32>) outs(%z : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  return %c : tensor<1x5x5x4xf32>
}

// Max pooling in NHWC padded with -inf (nn.MaxPool2d(3, 2, padding=1)):
// im2col pads with zeros, so the pad stays and the pooling reads it.
func.func @max_pool_padded(%x: tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %m = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x10x10x4xf32>, tensor<3x3xf32>) outs(%f : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %m : tensor<1x4x4x4xf32>
}
