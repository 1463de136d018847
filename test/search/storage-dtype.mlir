// A kernel graph that computes in f32 and returns f16: the frontend's last
// narrowing cast (`softmax(x.float()).half()` once the leading cast is
// gone, or any f32 program whose result is stored in f16) makes the lifted
// graph's output f16 while its ops run in f32. The search matches target
// outputs by shape and stores them in the target's dtype, so these become
// one kernel (they found no candidate at all when outputs had to match in
// dtype), and the saver converts the f32 tile as it writes it: per 4-wide
// vector (arith.truncf) in the GPU and CPU forms alike.
//
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-remarks %s -o %t 2>%t.err
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: mirage-opt --mirage-verify-ugraph %t > /dev/null
// RUN: mirage-run --range=1 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower --range=1 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower --range=8 %t | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false ptx=false" %s | FileCheck %s --check-prefix=GPU

// REMARK: '@rownorm_lax0' replaced by a verified μGraph: 2 kernel(s) -> 1,
// REMARK: '@softmax_lax0' replaced by a verified μGraph: 5 kernel(s) -> 1,

// CHECK-LABEL: func.func private @rownorm_lax0(%arg0: tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: "ug.custom"(%arg0) {{.*}} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @softmax_lax0(%arg0: tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: "ug.custom"(%arg0) {{.*}} : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
// CHECK-NEXT: return

// NUM: @rownorm_lax0: 1 output, 2048 elements, max abs error {{.*}}: ok
// NUM: @softmax_lax0: 1 output, 2048 elements, max abs error {{.*}}: ok
// NUM-NOT: ill-conditioned

// GPU: gpu.func @rownorm_lax0_gpu_k1(
// GPU: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>
// GPU: gpu.func @softmax_lax0_gpu_k1(
// GPU: arith.truncf {{.*}} : vector<4xf32> to vector<4xf16>

func.func @rownorm(%arg0: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %4 = tosa.reduce_sum %arg0 {axis = 2 : i32} : (tensor<2x16x64xf32>) -> tensor<2x16x1xf32>
  %5 = tosa.reciprocal %4 : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %6 = tosa.mul %arg0, %5, %shift : (tensor<2x16x64xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x64xf32>
  %7 = tosa.cast %6 : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %7 : tensor<2x16x64xf16>
}

func.func @softmax(%arg0: tensor<2x16x64xf32>) -> tensor<2x16x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.reduce_max %arg0 {axis = 2 : i32} : (tensor<2x16x64xf32>) -> tensor<2x16x1xf32>
  %2 = tosa.sub %arg0, %1 : (tensor<2x16x64xf32>, tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
  %3 = tosa.exp %2 : (tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  %4 = tosa.reduce_sum %3 {axis = 2 : i32} : (tensor<2x16x64xf32>) -> tensor<2x16x1xf32>
  %5 = tosa.reciprocal %4 : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %6 = tosa.mul %3, %5, %shift : (tensor<2x16x64xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x64xf32>
  %7 = tosa.cast %6 : (tensor<2x16x64xf32>) -> tensor<2x16x64xf16>
  return %7 : tensor<2x16x64xf16>
}
