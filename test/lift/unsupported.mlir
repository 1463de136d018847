// Bad or unsupported input passes through unchanged, with a remark per
// function and per tensor op saying why: a dynamic dim beside a static
// dim of the size a `?` lifts at (docs/lift.md), integer and f64
// tensors, rank-0, zero-sized and sparse tensors, ops the μGraph has no
// counterpart for, calls, empty functions and declarations, inputs of rank
// > 8 (the limit), names that need quoting, linalg on buffers. No error.
//
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift %s > %t.out
// RUN: diff %t.in %t.out
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s

func.func @dynamic(%x: tensor<?x1009xf32>, %y: tensor<?x1009xf32>) -> tensor<?x1009xf32> {
  %a = tosa.add %x, %y : (tensor<?x1009xf32>, tensor<?x1009xf32>) -> tensor<?x1009xf32>
  %e = tosa.exp %a : (tensor<?x1009xf32>) -> tensor<?x1009xf32>
  return %e : tensor<?x1009xf32>
}

func.func @integers(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %a = tosa.add %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %b = tosa.sub %a, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  return %b : tensor<4x8xi32>
}

func.func @unknown(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.floor %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.sin %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}

func.func @empty() {
  return
}

func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

func.func @zero_sized(%x: tensor<0x8xf32>, %y: tensor<0x8xf32>) -> tensor<0x8xf32> {
  %e = tensor.empty() : tensor<0x8xf32>
  %a = linalg.add ins(%x, %y : tensor<0x8xf32>, tensor<0x8xf32>) outs(%e : tensor<0x8xf32>) -> tensor<0x8xf32>
  return %a : tensor<0x8xf32>
}

func.func @rank0(%x: tensor<f32>, %y: tensor<f32>) -> tensor<f32> {
  %a = tosa.add %x, %y : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %a : tensor<f32>
}

func.func @f64(%x: tensor<4xf64>) -> tensor<4xf64> {
  %a = tosa.exp %x : (tensor<4xf64>) -> tensor<4xf64>
  return %a : tensor<4xf64>
}

func.func @calls(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @declaration(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

func.func @rank9(%x: tensor<1x2x3x1x2x3x1x1x2xf32>) -> tensor<1x2x3x1x2x3x1x1x2xf32> {
  %a = tosa.exp %x : (tensor<1x2x3x1x2x3x1x1x2xf32>) -> tensor<1x2x3x1x2x3x1x1x2xf32>
  return %a : tensor<1x2x3x1x2x3x1x1x2xf32>
}

func.func @"needs quoting"(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %a : tensor<4xf32>
}

func.func @memrefs(%x: memref<4xf32>, %y: memref<4xf32>) {
  linalg.add ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%y : memref<4xf32>)
  return
}

// CHECK: {{.*}}:13:{{[0-9]+}}: remark: mirage-lift: '@dynamic': nothing lifted; 2 tensor ops left in place
// CHECK: {{.*}}:14:{{[0-9]+}}: remark: mirage-lift: 'tosa.add' is not lifted: a static dim of 1009 cannot be told from a dynamic dim
// CHECK: {{.*}}:15:{{[0-9]+}}: remark: mirage-lift: 'tosa.exp' is not lifted: a static dim of 1009 cannot be told from a dynamic dim
// CHECK: {{.*}}:19:{{[0-9]+}}: remark: mirage-lift: '@integers': nothing lifted; 2 tensor ops left in place
// CHECK: {{.*}}:20:{{[0-9]+}}: remark: mirage-lift: 'tosa.add' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// CHECK: {{.*}}:21:{{[0-9]+}}: remark: mirage-lift: 'tosa.sub' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// CHECK: {{.*}}:25:{{[0-9]+}}: remark: mirage-lift: '@unknown': nothing lifted; 2 tensor ops left in place
// CHECK: {{.*}}:26:{{[0-9]+}}: remark: mirage-lift: 'tosa.floor' is not lifted: the μGraph has no counterpart of 'tosa.floor'
// CHECK: {{.*}}:27:{{[0-9]+}}: remark: mirage-lift: 'tosa.sin' is not lifted: the μGraph has no counterpart of 'tosa.sin'
// CHECK: {{.*}}:31:{{[0-9]+}}: remark: mirage-lift: '@empty': nothing to lift (the function is empty)
// CHECK: {{.*}}:35:{{[0-9]+}}: remark: mirage-lift: '@declaration': nothing to lift (a declaration)
// CHECK: {{.*}}:37:{{[0-9]+}}: remark: mirage-lift: '@zero_sized': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:39:{{[0-9]+}}: remark: mirage-lift: 'linalg.add' is not lifted: operand 0 has a zero-sized dim
// CHECK: {{.*}}:43:{{[0-9]+}}: remark: mirage-lift: '@rank0': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:44:{{[0-9]+}}: remark: mirage-lift: 'tosa.add' is not lifted: operand 0 is a rank-0 tensor
// CHECK: {{.*}}:48:{{[0-9]+}}: remark: mirage-lift: '@f64': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:49:{{[0-9]+}}: remark: mirage-lift: 'tosa.exp' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// CHECK: {{.*}}:53:{{[0-9]+}}: remark: mirage-lift: '@calls': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:54:{{[0-9]+}}: remark: mirage-lift: 'func.call' is not lifted: 'func.call' is not a known side-effect-free tensor op
// CHECK: {{.*}}:58:{{[0-9]+}}: remark: mirage-lift: '@rank9': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:59:{{[0-9]+}}: remark: mirage-lift: 'tosa.exp' is not lifted: operand 0 has more than 8 dims
// CHECK: {{.*}}:63:{{[0-9]+}}: remark: mirage-lift: '@needs quoting': not lifted (its name needs quoting, which kernel graph names cannot carry)
// CHECK: {{.*}}:68:{{[0-9]+}}: remark: mirage-lift: '@memrefs': nothing lifted; 0 tensor ops left in place

func.func @sparse(%x: tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>) -> tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>> {
  %e = tensor.empty() : tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>
  %a = linalg.add ins(%x, %x : tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>, tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>) outs(%e : tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>) -> tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>
  return %a : tensor<4x8xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>
}
// CHECK: {{.*}}:[[# @LINE - 5]]:{{[0-9]+}}: remark: mirage-lift: '@sparse': nothing lifted; 1 tensor op left in place
// CHECK: {{.*}}:[[# @LINE - 4]]:{{[0-9]+}}: remark: mirage-lift: 'linalg.add' is not lifted: operand 0 has an encoding (sparse or other layouts are not lifted)
