// REQUIRES: ptxas
// A dynamic dim after a static one (issue 29): grouped-query decode
// attention's K and V [2,?,64] and its scores [2,4,?]. The buffers are
// padded to whole blocks of rows (256 KV rows), so their head stride is
// the padded length: the kernels take `memref<2x?x64xf16>` and index
// through it (strides from the descriptor), and the host copies the
// caller's rows into a padded host buffer through a strided subview
// (explicit loops) before one contiguous gpu.memcpy, since gpu.memcpy
// takes contiguous buffers only. ptxas accepts both targets; upstream's
// pipeline takes the host code; mirage-run --lower runs the CPU form at
// lengths below, at and past one tile and one iteration. With the
// contiguous copy of a unit-dims-first tensor instead (the caller's rows
// as the first n·64 elements) head 1 reads the wrong rows: NaN at 7 and
// 257 rows, right only at multiples of 256.
// RUN: mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %S/Inputs/gqa-decode.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mirage-opt --mirage-lower="ptxas=true target=sm_80" --mirage-remarks %S/Inputs/gqa-decode.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS80
// RUN: mirage-opt --mirage-lower="ptx=false" %S/Inputs/gqa-decode.mlir -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: %mlir_opt %t.mlir --one-shot-bufferize="bufferize-function-boundaries" --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" -o %t.llvm.mlir
// RUN: %mlir_translate --mlir-to-llvmir %t.llvm.mlir | FileCheck %s --check-prefix=LLVM
// RUN: mirage-run --lower --dynamic-sizes=1,7,129,255,256,257,1000,4099 %S/Inputs/gqa-decode.mlir | FileCheck %s --check-prefix=NUM

// PTXAS: remark: mirage-ptxas: '@gqa_decode_groups_lax0_gpu': ptxas accepts 2 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS80: remark: mirage-ptxas: '@gqa_decode_groups_lax0_gpu': ptxas accepts 2 kernel(s) for sm_80: {{.*}} 0 bytes spill

// The kernels take the padded buffers with their `?` after the heads.
// CHECK: gpu.func @gqa_decode_groups_lax0_gpu_k{{[0-9]+}}(%arg0: memref<2x4x64xf16> {{.*}}, %arg1: memref<2x?x64xf16> {{.*}}, %arg2: memref<2x4x?xf16>
// CHECK: gpu.func @gqa_decode_groups_lax0_gpu_k{{[0-9]+}}(%arg0: memref<2x?x64xf16> {{.*}}, %arg1: memref<2x4x?xf16> {{.*}}, %arg2: memref<2x4x64xf16> {{.*}}, %arg3: index)
// The host: n from K, padded to 256 rows (lcm of 128 a block, 256 an
// iteration); K's rows through a strided view of a padded host buffer.
// CHECK: %[[N:.*]] = tensor.dim %arg1, %c1 : tensor<2x?x64xf16>
// CHECK: %[[T:.*]] = arith.addi %[[N]], %c255
// CHECK: %[[B:.*]] = arith.divui %[[T]], %c256
// CHECK: %[[PAD:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[DEV:.*]], %{{.*}} = gpu.alloc async [%{{.*}}] (%[[PAD]]) : memref<2x?x64xf16>
// CHECK: %[[K:.*]] = bufferization.to_buffer %arg1
// CHECK: %[[STAGE:.*]] = memref.alloc(%[[PAD]]) : memref<2x?x64xf16>
// CHECK: %[[ROWS:.*]] = memref.subview %[[STAGE]][0, 0, 0] [2, %[[N]], 64] [1, 1, 1] : memref<2x?x64xf16> to memref<2x?x64xf16, strided<[?, 64, 1]>>
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[N]] step
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[X:.*]] = memref.load %[[K]][%[[H]], %[[R]], %[[C]]] : memref<2x?x64xf16>
// CHECK: memref.store %[[X]], %[[ROWS]][%[[H]], %[[R]], %[[C]]] : memref<2x?x64xf16, strided<[?, 64, 1]>>
// CHECK: %[[CP:.*]] = gpu.memcpy async [%{{.*}}] %[[DEV]], %[[STAGE]] : memref<2x?x64xf16>, memref<2x?x64xf16>
// CHECK: gpu.wait [%[[CP]]]
// CHECK: memref.dealloc %[[STAGE]]
// The scores, padded too; one block per 128 KV rows.
// CHECK: gpu.alloc async [%{{.*}}] (%[[PAD]]) : memref<2x4x?xf16>
// CHECK: gpu.launch_func async

// Upstream's pipeline lowers the host code: the padded copies become the
// CUDA runtime wrappers' memcpy, then the two launches.
// LLVM: call void @mgpuMemcpy
// LLVM: call void @mgpuLaunchKernel
// LLVM: call void @mgpuLaunchKernel

// NUM: @gqa_decode_groups_lax0[?=1]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=7]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=129]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=255]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=256]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=257]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=1000]: 1 output, 512 elements, {{.*}}: ok
// NUM: @gqa_decode_groups_lax0[?=4099]: 1 output, 512 elements, {{.*}}: ok
