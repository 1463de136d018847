// REQUIRES: ptxas
// Implicit GEMM (issue 30): the search fuses a convolution's matmul with
// its bias and ReLU into one graph-defined kernel after the ug.im2col
// view; since that kernel is the patches' only reader, the patches are
// never stored (mg_graph_im2col_folds): the kernel takes the NHWC input
// itself and its iterator gathers each tile element through the index
// map (clamped load, 0 in the padding), 16 bytes of channels at a time
// where a group's channels are whole vectors. One kernel for convolution and
// epilogue, no copy kernel; ptxas accepts it at sm_90 and sm_80; the
// lowered CPU form agrees with the interpreter (dropping the left padding
// from the gather gives a mismatch at element 0).
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=200000 cache=false" --mirage-remarks %S/Inputs/conv-block.mlir -o %t.opt 2>&1 | FileCheck %s --check-prefix=SEARCH
// RUN: mirage-run %t.opt | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-lower="ptx=false" %t.opt | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %t.opt -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mirage-opt --mirage-lower="ptxas=true target=sm_80" --mirage-remarks %t.opt -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS80
// Three channels (test/run/im2col.mlir's dilated convolution, f32) are no
// whole vector: that gather goes element by element.
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=100000 cache=false" %S/../run/im2col.mlir -o %t.small.opt
// RUN: mirage-run --lower %t.small.opt | FileCheck %s --check-prefix=SMALL
// RUN: mirage-opt --mirage-lower="ptx=false" %t.small.opt | FileCheck %s --check-prefix=SCALAR

// SMALL: @strided: 1 output, 200 elements, {{.*}}: ok
// SMALL: @dilated: 1 output, 80 elements, {{.*}}: ok
// SMALL: @depthwise: 1 output, 100 elements, {{.*}}: ok
// SCALAR: gpu.func @dilated_gpu_k{{[0-9]+}}(%arg0: memref<1x8x8x3xf32>
// SCALAR-NOT: gpu.func
// SCALAR: %[[X:.*]] = memref.load %{{.*}} : memref<1x8x8x3xf32>
// SCALAR: arith.select %{{.*}}, %[[X]], %cst{{.*}} : f32
// SEARCH: remark: mirage-search: '@block_lax0' replaced by a verified μGraph: 4 kernel(s) -> 1,
// NUM: @block_lax0: 1 output, 16384 elements, {{.*}}: ok
// PTXAS: remark: mirage-lower: '@block_lax0': 1 kernel(s) in gpu.module @block_lax0_gpu
// PTXAS: remark: mirage-ptxas: '@block_lax0_gpu': ptxas accepts 1 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS80: remark: mirage-ptxas: '@block_lax0_gpu': ptxas accepts 1 kernel(s) for sm_80: {{.*}} 0 bytes spill

// One kernel, taking the input [1,16,16,32] (not the patches [1,256,288]).
// CHECK: gpu.func @block_lax0_gpu_k{{[0-9]+}}(%arg0: memref<1x16x16x32xf16> {{.*}}, %arg1: memref<1x288x64xf16> {{.*}}, %arg2: memref<1x1x64xf16> {{.*}}, %arg3: memref<1x256x64xf16>
// CHECK-NOT: gpu.func
// The tile of patches gathered 8 channels at a time (32 channels are
// whole 16-byte vectors): clamped position, one vector load, select 0.
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: %[[IN:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x16x16x32xf16>, vector<8xf16>
// CHECK: %[[V:.*]] = arith.select %[[IN]], %[[X]], %{{.*}} : vector<8xf16>
// CHECK: vector.store %[[V]], %{{.*}} : memref<1x1x288xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.launch_func async [{{.*}}] @block_lax0_gpu::@block_lax0_gpu_k{{[0-9]+}} {{.*}} args(%{{.*}} : memref<1x16x16x32xf16>
// CHECK-NOT: gpu.launch_func
