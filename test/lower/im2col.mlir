// REQUIRES: ptxas
// The im2col copy kernel (issue 30): threads stride over the patches
// [G, N*Ho*Wo, KH*KW*Cg]; each reads its input element at a position
// clamped into the input and selects 0 where the position was outside
// (the padding), so the copy needs no branch and never reads out of
// bounds. ptxas accepts the kernels of test/run/im2col.mlir's three
// convolutions (strided with padding, dilated, depthwise) at sm_90 and
// sm_80; their CPU form is checked there.
// RUN: mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %S/../run/im2col.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mirage-opt --mirage-lower="ptxas=true target=sm_80" --mirage-remarks %S/../run/im2col.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS80
// RUN: mirage-opt --mirage-lower="ptx=false" %S/../run/im2col.mlir | FileCheck %s

// PTXAS: remark: mirage-ptxas: '@strided_gpu': ptxas accepts 2 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS: remark: mirage-ptxas: '@dilated_gpu': ptxas accepts 2 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS: remark: mirage-ptxas: '@depthwise_gpu': ptxas accepts 4 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS80: remark: mirage-ptxas: '@strided_gpu': ptxas accepts 2 kernel(s) for sm_80: {{.*}} 0 bytes spill

// The strided convolution's copy kernel: row m = (n, ho, wo), column
// k = (i, j, c); h = ho*2 + i - 1 clamped to [0, 8], w likewise; 0 where
// either was clamped.
// CHECK: gpu.func @strided_gpu_k{{[0-9]+}}(%arg0: memref<1x9x9x4xf32> {{.*}}, %arg1: memref<1x25x36xf32>
// CHECK: %[[H0:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: %[[H1:.*]] = arith.addi %[[H0]], %{{.*}} : index
// CHECK: %[[H:.*]] = arith.subi %[[H1]], %c1{{.*}} : index
// CHECK: %[[W0:.*]] = arith.muli %{{.*}}, %c2{{.*}} : index
// CHECK: %[[W1:.*]] = arith.addi %[[W0]], %{{.*}} : index
// CHECK: %[[W:.*]] = arith.subi %[[W1]], %c1{{.*}} : index
// CHECK: %[[HL:.*]] = arith.maxsi %[[H]], %c0{{.*}} : index
// CHECK: %[[HC:.*]] = arith.minsi %[[HL]], %c8{{.*}} : index
// CHECK: %[[HIN:.*]] = arith.cmpi eq, %[[H]], %[[HC]] : index
// CHECK: %[[WL:.*]] = arith.maxsi %[[W]], %c0{{.*}} : index
// CHECK: %[[WC:.*]] = arith.minsi %[[WL]], %c8{{.*}} : index
// CHECK: %[[WIN:.*]] = arith.cmpi eq, %[[W]], %[[WC]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[HIN]], %[[WIN]] : i1
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}, %[[HC]], %[[WC]], %{{.*}}] : memref<1x9x9x4xf32>
// CHECK: %[[V:.*]] = arith.select %[[IN]], %[[X]], %cst{{.*}} : f32
// CHECK: memref.store %[[V]], %{{.*}}[
