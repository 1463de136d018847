// Convolutions and pooling (issue 30 item 1) in the forms frontends write:
// linalg NHWC with tensor.pad (a ResNet basic block, a strided and a
// dilated convolution), torch-mlir's linalg NCHW (the bias broadcast into
// the init by a linalg.generic), a MobileNetV2 block (1x1, depthwise 3x3
// with ReLU6 as maximumf / minimumf, 1x1), torch-mlir's TOSA path
// (tosa.conv2d between transposes, tosa.depthwise_conv2d with a channel
// multiplier in f16, tosa.max_pool2d / avg_pool2d) and a small NCHW CNN
// with max pooling, a global average pool and a linear head. Each
// convolution is ug.im2col (zero padding from the tensor.pad folded in),
// a batched matmul with the filter viewed as [G, KH*KW*Cg, Fg] and the
// bias, ReLU or residual in front of the reshape back to NHWC (sink.c);
// pooling reduces the patches with groups = C. Every function lifts whole,
// agrees with the original ops through the interpreter and through the
// lowered CPU form, and unlifts back to the input.
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-verify-ugraph > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lift --lower %s | FileCheck %s --check-prefix=NUM
// The search sees each matmul with its epilogue as one part: the ResNet
// block is two kernels (matmul + bias + ReLU; matmul + bias + residual +
// ReLU); its searched and lowered form agrees with the interpreter too.
// RUN: mirage-opt --mirage-superopt="lower=false cache=false time-budget-s=0" %s > %t.opt
// RUN: FileCheck %s --check-prefix=FUSED < %t.opt
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM
// Lowered, the ResNet block is those two kernels and nothing else: each
// gathers its patches from the input (implicit GEMM, no im2col copy).
// RUN: mirage-opt --mirage-lower="ptx=false" --mirage-remarks %t.opt -o /dev/null 2>&1 | FileCheck %s --check-prefix=KERNELS
// KERNELS: remark: mirage-lower: '@resnet_block_lax0': 2 kernel(s) in gpu.module @resnet_block_lax0_gpu

// CHECK-LABEL: func.func @resnet_block(
// CHECK: %[[R:.*]] = call @resnet_block_lax0(
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @resnet_block_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x8x8x8xf32>, %[[W1:[^:]+]]: tensor<3x3x8x8xf32>, %[[B1:[^:]+]]: tensor<1x1x8xf32>, %[[W2:[^:]+]]: tensor<3x3x8x8xf32>, %[[B2:[^:]+]]: tensor<1x1x8xf32>
// CHECK: %[[F1:.*]] = "ug.reshape"(%[[W1]]) : (tensor<3x3x8x8xf32>) -> tensor<1x72x8xf32>
// CHECK-NEXT: %[[P1:.*]] = "ug.im2col"(%[[X]]) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x8xf32>) -> tensor<1x64x72xf32>
// CHECK-NEXT: %[[M1:.*]] = "ug.matmul"(%[[P1]], %[[F1]]) : (tensor<1x64x72xf32>, tensor<1x72x8xf32>) -> tensor<1x64x8xf32>
// CHECK-NEXT: %[[A1:.*]] = "ug.add"(%[[M1]], %[[B1]])
// CHECK-NEXT: %[[R1:.*]] = "ug.relu"(%[[A1]]) : (tensor<1x64x8xf32>)
// CHECK: %[[H:.*]] = "ug.reshape"(%[[R1]]) : (tensor<1x64x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[P2:.*]] = "ug.im2col"(%[[H]]) {{.*}}pad = array<i64: 1, 1, 1, 1>
// CHECK-NEXT: %[[M2:.*]] = "ug.matmul"(%[[P2]],
// CHECK-NEXT: %[[A2:.*]] = "ug.add"(%[[M2]], %[[B2]])
// CHECK-NEXT: %[[XR:.*]] = "ug.reshape"(%[[X]]) : (tensor<1x8x8x8xf32>) -> tensor<1x64x8xf32>
// CHECK-NEXT: %[[S:.*]] = "ug.add"(%[[A2]], %[[XR]])
// CHECK-NEXT: %[[R2:.*]] = "ug.relu"(%[[S]])
// CHECK-NEXT: %[[O:.*]] = "ug.reshape"(%[[R2]]) : (tensor<1x64x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: return %[[O]]

// CHECK-LABEL: func.func private @strided_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x9x9x4xf32>) -> tensor<1x25x36xf32>
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<1x25x8xf32>) -> tensor<1x5x5x8xf32>

// CHECK-LABEL: func.func private @dilated_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 2, 2>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<2x12x10x3xf32>) -> tensor<1x96x27xf32>

// CHECK-LABEL: func.func private @torch_nchw_lax0(
// CHECK: %[[XT:.*]] = "ug.transpose"(%arg0) {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[WT:.*]] = "ug.transpose"(%arg1) {perm = array<i64: 2, 3, 1, 0>} : (tensor<8x4x3x3xf32>) -> tensor<3x3x4x8xf32>
// CHECK-NEXT: %[[WF:.*]] = "ug.reshape"(%[[WT]]) : (tensor<3x3x4x8xf32>) -> tensor<1x36x8xf32>
// CHECK-NEXT: %[[P:.*]] = "ug.im2col"(%[[XT]]) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>}
// CHECK-NEXT: %[[M:.*]] = "ug.matmul"(%[[P]], %[[WF]])
// CHECK-NEXT: %[[A:.*]] = "ug.add"(%[[M]], %arg2)
// CHECK-NEXT: %[[R:.*]] = "ug.relu"(%[[A]])
// CHECK-NEXT: %[[N:.*]] = "ug.reshape"(%[[R]]) : (tensor<1x64x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: "ug.transpose"(%[[N]]) {perm = array<i64: 0, 3, 1, 2>}

// The depthwise 3x3: groups = 16, the filter per channel [16, 9, 1].
// CHECK-LABEL: func.func private @mobilenet_block_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, window = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>) -> tensor<1x64x4xf32>
// CHECK: "ug.relu"
// CHECK-NEXT: "ug.min_scalar"({{.*}}) {scalar = 6.000000e+00 : f64} : (tensor<1x64x16xf32>)
// CHECK: "ug.transpose"(%arg2) {perm = array<i64: 2, 0, 1>} : (tensor<3x3x16xf32>) -> tensor<16x3x3xf32>
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<16x3x3xf32>) -> tensor<16x9x1xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 16 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x16xf32>) -> tensor<16x64x9xf32>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<16x64x9xf32>, tensor<16x9x1xf32>) -> tensor<16x64x1xf32>
// CHECK-NEXT: "ug.relu"
// CHECK-NEXT: "ug.min_scalar"
// CHECK: "ug.transpose"({{.*}}) {perm = array<i64: 1, 0, 2>} : (tensor<16x64x1xf32>) -> tensor<64x16x1xf32>

// CHECK-LABEL: func.func private @tosa_conv_lax0(
// CHECK: "ug.transpose"(%arg1) {perm = array<i64: 1, 2, 3, 0>} : (tensor<8x3x3x4xf32>) -> tensor<3x3x4x8xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, window = array<i64: 3, 3>} : (tensor<1x9x9x4xf32>) -> tensor<1x25x36xf32>

// Channel c*2 + m of the result: [4, 49, 2] -> [49, 4, 2] -> NHWC.
// CHECK-LABEL: func.func private @tosa_depthwise_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 4 : i64, pad = array<i64: 1, 0, 0, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x4xf16>) -> tensor<4x49x9xf16>
// CHECK-NEXT: "ug.matmul"({{.*}}) : (tensor<4x49x9xf16>, tensor<4x9x2xf16>) -> tensor<4x49x2xf16>
// CHECK-NEXT: "ug.reshape"(%arg2) : (tensor<8xf16>) -> tensor<4x1x2xf16>
// CHECK-NEXT: "ug.add"
// CHECK-NEXT: "ug.relu"
// CHECK-NEXT: "ug.min_scalar"
// CHECK-NEXT: "ug.transpose"({{.*}}) {perm = array<i64: 1, 0, 2>} : (tensor<4x49x2xf16>) -> tensor<49x4x2xf16>
// CHECK-NEXT: "ug.reshape"({{.*}}) : (tensor<49x4x2xf16>) -> tensor<1x7x7x8xf16>

// CHECK-LABEL: func.func private @tosa_pools_lax0(
// CHECK: "ug.im2col"(%arg0) {dilations = array<i64: 1, 1>, groups = 4 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<4x16x4xf32>
// CHECK-NEXT: "ug.reduce_max"({{.*}}) {dim = 2 : i64} : (tensor<4x16x4xf32>) -> tensor<4x16x1xf32>
// CHECK: "ug.sum"({{.*}}) {dim = 2 : i64} : (tensor<4x16x4xf32>) -> tensor<4x16x1xf32>
// CHECK-NEXT: "ug.div_scalar"({{.*}}) {scalar = 4.000000e+00 : f64}

// The max pooling reads the first convolution's NHWC result; the global
// average pool is one 8x8 window per channel.
// CHECK-LABEL: func.func private @small_cnn_lax0(
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x16x16x3xf32>) -> tensor<1x256x27xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 8 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>, window = array<i64: 2, 2>} : (tensor<1x16x16x8xf32>) -> tensor<8x64x4xf32>
// CHECK-NEXT: "ug.reduce_max"
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 1 : i64, pad = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, window = array<i64: 3, 3>} : (tensor<1x8x8x8xf32>) -> tensor<1x64x72xf32>
// CHECK: "ug.im2col"({{.*}}) {dilations = array<i64: 1, 1>, groups = 16 : i64, pad = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, window = array<i64: 8, 8>} : (tensor<1x8x8x16xf32>) -> tensor<16x1x64xf32>
// CHECK-NEXT: "ug.sum"
// CHECK-NEXT: "ug.div_scalar"({{.*}}) {scalar = 6.400000e+01 : f64}
// CHECK: "ug.matmul"({{.*}}) : (tensor<1x1x16xf32>, tensor<1x16x10xf32>) -> tensor<1x1x10xf32>

// FUSED-LABEL: func.func private @resnet_block_lax0_k2(
// FUSED: "ug.matmul"
// FUSED-NEXT: "ug.add"
// FUSED-NEXT: "ug.add"
// FUSED-NEXT: "ug.relu"
// FUSED-NEXT: "ug.saver"
// FUSED-LABEL: func.func private @resnet_block_lax0_k1(
// FUSED: "ug.matmul"
// FUSED-NEXT: "ug.add"
// FUSED-NEXT: "ug.relu"
// FUSED-NEXT: "ug.saver"
// FUSED-LABEL: func.func private @resnet_block_lax0(
// FUSED: "ug.custom"({{.*}}) {kernel = @resnet_block_lax0_k1
// FUSED: "ug.custom"({{.*}}) {kernel = @resnet_block_lax0_k2
// FUSED-NOT: "ug.relu"
// FUSED: return

// REM-DAG: remark: mirage-lift: '@resnet_block': lifted 1 subprogram (@resnet_block_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: @resnet_block_lax0: 9 ops -> kernel graph of 7 μGraph ops, 5 inputs, 1 output
// REM-DAG: remark: mirage-lift: '@strided': lifted 1 subprogram (@strided_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@dilated': lifted 1 subprogram (@dilated_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@torch_nchw': lifted 1 subprogram (@torch_nchw_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: @torch_nchw_lax0: 4 ops -> kernel graph of 3 μGraph ops, 3 inputs, 1 output
// REM-DAG: remark: mirage-lift: '@mobilenet_block': lifted 1 subprogram (@mobilenet_block_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: @mobilenet_block_lax0: 6 ops -> kernel graph of 7 μGraph ops, 4 inputs, 1 output
// REM-DAG: remark: mirage-lift: '@tosa_conv': lifted 1 subprogram (@tosa_conv_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@tosa_depthwise': lifted 1 subprogram (@tosa_depthwise_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@tosa_pools': lifted 1 subprogram (@tosa_pools_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: '@small_cnn': lifted 1 subprogram (@small_cnn_lax0); 0 tensor ops left in place
// REM-DAG: remark: mirage-lift: @small_cnn_lax0: 15 ops -> kernel graph of 11 μGraph ops, 7 inputs, 1 output
// REM-DAG: remark: mirage-lift: module: 44 of 44 tensor ops lifted (100.0 %) into 9 subprograms, 4.3 μGraph ops each on average; 0 left in place
// REM-NOT: is not lifted

// NUM-DAG: @resnet_block_lax0: 1 output, 512 elements, {{.*}}: ok
// NUM-DAG: @strided_lax0: 1 output, 200 elements, {{.*}}: ok
// NUM-DAG: @dilated_lax0: 1 output, 480 elements, {{.*}}: ok
// NUM-DAG: @torch_nchw_lax0: 1 output, 512 elements, {{.*}}: ok
// NUM-DAG: @mobilenet_block_lax0: 1 output, 256 elements, {{.*}}: ok
// NUM-DAG: @tosa_conv_lax0: 1 output, 200 elements, {{.*}}: ok
// NUM-DAG: @tosa_depthwise_lax0: 1 output, 392 elements, {{.*}}: ok
// NUM-DAG: @tosa_pools_lax0: 2 outputs, 128 elements, {{.*}}: ok
// NUM-DAG: @small_cnn_lax0: 1 output, 10 elements, {{.*}}: ok
// NUM-NOT: MISMATCH

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#bias1 = affine_map<(d0, d1, d2, d3) -> (d1)>

// A ResNet basic block in NHWC: conv3x3 (zero-padded by tensor.pad) +
// bias + ReLU, conv3x3 + bias, the residual, ReLU. The biases are
// broadcast into the convolutions' inits, as torch-mlir writes them.
func.func @resnet_block(%x: tensor<1x8x8x8xf32>, %w1: tensor<3x3x8x8xf32>, %b1: tensor<8xf32>, %w2: tensor<3x3x8x8xf32>, %b2: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %i1 = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xp, %w1 : tensor<1x10x10x8xf32>, tensor<3x3x8x8xf32>) outs(%i1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  %rp = tensor.pad %r1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x10x10x8xf32>
  %i2 = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x8x8xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%rp, %w2 : tensor<1x10x10x8xf32>, tensor<3x3x8x8xf32>) outs(%i2 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %s = linalg.add ins(%c2, %x : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<1x8x8x8xf32>) outs(%e : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x8x8xf32>
  return %r2 : tensor<1x8x8x8xf32>
}

// Stride 2 with padding 1: 9x9 -> 5x5.
func.func @strided(%x: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x8xf32>) -> tensor<1x5x5x8xf32> {
  %zero = arith.constant 0.0 : f32
  %xp = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x9x9x4xf32> to tensor<1x11x11x4xf32>
  %e = tensor.empty() : tensor<1x5x5x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%xp, %w : tensor<1x11x11x4xf32>, tensor<3x3x4x8xf32>) outs(%z : tensor<1x5x5x8xf32>) -> tensor<1x5x5x8xf32>
  return %y : tensor<1x5x5x8xf32>
}

// Dilation 2 (a 5x5 reach), no padding, two images: 12x10 -> 8x6.
func.func @dilated(%x: tensor<2x12x10x3xf32>, %w: tensor<3x3x3x5xf32>) -> tensor<2x8x6x5xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x6x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x6x5xf32>) -> tensor<2x8x6x5xf32>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x12x10x3xf32>, tensor<3x3x3x5xf32>) outs(%z : tensor<2x8x6x5xf32>) -> tensor<2x8x6x5xf32>
  return %y : tensor<2x8x6x5xf32>
}

// nn.Conv2d(4, 8, 3, padding=1) + ReLU on torch-mlir's linalg path: NCHW,
// padded by tensor.pad, the bias broadcast into the init.
func.func @torch_nchw(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
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
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%1 : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %3 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : tensor<1x8x8x8xf32>) outs(%0 : tensor<1x8x8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.cmpf ugt, %in, %cst : f32
    %5 = arith.select %4, %in, %cst : f32
    linalg.yield %5 : f32
  } -> tensor<1x8x8x8xf32>
  return %3 : tensor<1x8x8x8xf32>
}

// A MobileNetV2 inverted residual without the skip: 1x1 conv 4 -> 16 +
// ReLU6, depthwise 3x3 (padding 1) + ReLU6, 1x1 conv 16 -> 4. ReLU6 as a
// clamp of maximumf and minimumf in a linalg.generic.
func.func @mobilenet_block(%x: tensor<1x8x8x4xf32>, %we: tensor<1x1x4x16xf32>, %wd: tensor<3x3x16xf32>, %wp: tensor<1x1x16x4xf32>) -> tensor<1x8x8x4xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e16 = tensor.empty() : tensor<1x8x8x16xf32>
  %z16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %we : tensor<1x8x8x4xf32>, tensor<1x1x4x16xf32>) outs(%z16 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %a1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x8x8x16xf32>) outs(%e16 : tensor<1x8x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %lo = arith.maximumf %in, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x8x8x16xf32>
  %ap = tensor.pad %a1 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x16xf32> to tensor<1x10x10x16xf32>
  %c2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%ap, %wd : tensor<1x10x10x16xf32>, tensor<3x3x16xf32>) outs(%z16 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %a2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<1x8x8x16xf32>) outs(%e16 : tensor<1x8x8x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %lo = arith.maximumf %in, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x8x8x16xf32>
  %e4 = tensor.empty() : tensor<1x8x8x4xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %c3 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a2, %wp : tensor<1x8x8x16xf32>, tensor<1x1x16x4xf32>) outs(%z4 : tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %c3 : tensor<1x8x8x4xf32>
}

// nn.Conv2d(4, 8, 3, stride=2, padding=1) on torch-mlir's TOSA path: NCHW
// transposed to NHWC and back, the filter OHWI, bias added by the op.
func.func @tosa_conv(%x: tensor<1x4x9x9xf32>, %w: tensor<8x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<1x8x5x5xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %xt = tosa.transpose %x {perms = array<i32: 0, 2, 3, 1>} : (tensor<1x4x9x9xf32>) -> tensor<1x9x9x4xf32>
  %y = tosa.conv2d %xt, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>} : (tensor<1x9x9x4xf32>, tensor<8x3x3x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x5x5x8xf32>
  %yt = tosa.transpose %y {perms = array<i32: 0, 3, 1, 2>} : (tensor<1x5x5x8xf32>) -> tensor<1x8x5x5xf32>
  return %yt : tensor<1x8x5x5xf32>
}

// Depthwise with channel multiplier 2 in f16 (accumulating in f32, as
// written), asymmetric padding, then ReLU6 as tosa.clamp.
func.func @tosa_depthwise(%x: tensor<1x8x8x4xf16>, %w: tensor<3x3x4x2xf16>, %b: tensor<8xf16>) -> tensor<1x7x7x8xf16> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %y = tosa.depthwise_conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 0, 0, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf16>, tensor<3x3x4x2xf16>, tensor<8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x7x7x8xf16>
  %r = tosa.clamp %y {max_val = 6.000000e+00 : f16, min_val = 0.000000e+00 : f16} : (tensor<1x7x7x8xf16>) -> tensor<1x7x7x8xf16>
  return %r : tensor<1x7x7x8xf16>
}

// TOSA pooling: max 2x2 stride 2, average 2x2 stride 2 (no padding).
func.func @tosa_pools(%x: tensor<1x8x8x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %m = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x4x4xf32>
  %a = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %m, %a : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// A small CNN as torch-mlir's linalg path writes it (NCHW): conv3x3 +
// ReLU, max_pool2d(2, 2), conv3x3 + ReLU, a global average pool
// (avg_pool2d over the whole map: pooling_nchw_sum, then a divide),
// flatten and nn.Linear.
func.func @small_cnn(%x: tensor<1x3x16x16xf32>, %w1: tensor<8x3x3x3xf32>, %b1: tensor<8xf32>, %w2: tensor<16x8x3x3xf32>, %b2: tensor<16xf32>, %wl: tensor<10x16xf32>, %bl: tensor<10xf32>) -> tensor<1x10xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %count = arith.constant 6.400000e+01 : f32
  %p1 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x3x16x16xf32> to tensor<1x3x18x18xf32>
  %e1 = tensor.empty() : tensor<1x8x16x16xf32>
  %i1 = linalg.generic {indexing_maps = [#bias1, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b1 : tensor<8xf32>) outs(%e1 : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x16x16xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p1, %w1 : tensor<1x3x18x18xf32>, tensor<8x3x3x3xf32>) outs(%i1 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %r1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1 : tensor<1x8x16x16xf32>) outs(%e1 : tensor<1x8x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x8x16x16xf32>
  %em = tensor.empty() : tensor<1x8x8x8xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %mp = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%r1, %win : tensor<1x8x16x16xf32>, tensor<2x2xf32>) outs(%fm : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p2 = tensor.pad %mp low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x8xf32> to tensor<1x8x10x10xf32>
  %e2 = tensor.empty() : tensor<1x16x8x8xf32>
  %i2 = linalg.generic {indexing_maps = [#bias1, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b2 : tensor<16xf32>) outs(%e2 : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x16x8x8xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%p2, %w2 : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%i2 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %r2 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c2 : tensor<1x16x8x8xf32>) outs(%e2 : tensor<1x16x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x8xf32>
  %eg = tensor.empty() : tensor<1x16x1x1xf32>
  %fg = linalg.fill ins(%zero : f32) outs(%eg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %wg = tensor.empty() : tensor<8x8xf32>
  %sg = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%r2, %wg : tensor<1x16x8x8xf32>, tensor<8x8xf32>) outs(%fg : tensor<1x16x1x1xf32>) -> tensor<1x16x1x1xf32>
  %ag = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sg : tensor<1x16x1x1xf32>) outs(%eg : tensor<1x16x1x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %d = arith.divf %in, %count : f32
    linalg.yield %d : f32
  } -> tensor<1x16x1x1xf32>
  %flat = tensor.collapse_shape %ag [[0], [1, 2, 3]] : tensor<1x16x1x1xf32> into tensor<1x16xf32>
  %el = tensor.empty() : tensor<16x10xf32>
  %wt = linalg.transpose ins(%wl : tensor<10x16xf32>) outs(%el : tensor<16x10xf32>) permutation = [1, 0]
  %eo = tensor.empty() : tensor<1x10xf32>
  %fo = linalg.fill ins(%zero : f32) outs(%eo : tensor<1x10xf32>) -> tensor<1x10xf32>
  %mm = linalg.matmul ins(%flat, %wt : tensor<1x16xf32>, tensor<16x10xf32>) outs(%fo : tensor<1x10xf32>) -> tensor<1x10xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bl : tensor<1x10xf32>, tensor<10xf32>) outs(%eo : tensor<1x10xf32>) {
  ^bb0(%in: f32, %in2: f32, %o: f32):
    %s = arith.addf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}
