// REQUIRES: ptxas
// A for-loop over a dynamic dim (issue 29, docs/verification.md §4c), one
// lowering for every KV length: the host reads the length from the K
// argument (tensor.dim), pads the buffers to whole iterations (256 rows),
// launches the scores kernel on ceil(n / 64) blocks and passes n to the
// softmax·V kernel, which runs ceil(n / 256) iterations; in the last one
// every reduction over the KV rows (the max, the dot products of P·V, the
// sum) masks the rows past n with a select of its neutral element, so the
// padding (never initialised) cannot reach the result. No tensor cores,
// no cp.async ring and no fused GEMV form for such a loop yet (their
// fragments and prefetches are not masked). ptxas accepts both targets;
// mirage-run --lower runs the CPU form of the same lowering at lengths
// below, at and past one iteration and far past the searched tiles: a
// missing mask gives NaN or a wrong sum at every length that is not a
// multiple of 256.
// RUN: mirage-opt --mirage-lower="ptxas=true" --mirage-remarks %S/Inputs/decode-loop.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: mirage-opt --mirage-lower="ptxas=true target=sm_80" --mirage-remarks %S/Inputs/decode-loop.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTXAS80
// RUN: mirage-opt --mirage-lower="ptx=false" %S/Inputs/decode-loop.mlir | FileCheck %s
// RUN: mirage-run --lower --dynamic-sizes=1,7,255,256,257,513,4099 %S/Inputs/decode-loop.mlir | FileCheck %s --check-prefix=NUM

// PTXAS: remark: mirage-ptxas: '@decode_attention_lax0_gpu': ptxas accepts 2 kernel(s) for sm_90: {{.*}} 0 bytes spill
// PTXAS80: remark: mirage-ptxas: '@decode_attention_lax0_gpu': ptxas accepts 2 kernel(s) for sm_80: {{.*}} 0 bytes spill

// The loop kernel takes the length after its tensors.
// CHECK: gpu.func @decode_attention_lax0_gpu_k{{[0-9]+}}(%arg0: memref<1x?x64xf32> {llvm.align = 16 : i64}, %arg1: memref<1x1x?xf32> {llvm.align = 16 : i64}, %arg2: memref<1x1x64xf32> {llvm.align = 16 : i64}, %[[N:arg[0-9]+]]: index)
// ceil(n / 256) iterations, each with min(256, n - 256 i) rows.
// CHECK: %[[T:.*]] = arith.addi %[[N]], %c255{{.*}} : index
// CHECK: %[[F:.*]] = arith.divui %[[T]], %c256{{.*}} : index
// CHECK: scf.for %[[I:.*]] = %c0{{.*}} to %[[F]] step %c1{{.*}} {
// CHECK: %[[FIRST:.*]] = arith.muli %[[I]], %c256{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[N]], %[[FIRST]] : index
// CHECK: %[[VALID:.*]] = arith.minui %[[LEFT]], %c256{{.*}} : index
// The max: rows past n are -inf.
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[VALID]] : index
// CHECK: arith.select %[[IN]], %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.maximumf
// P·V and the sum: rows past n are 0.
// CHECK: arith.cmpi ult, %{{.*}}, %[[VALID]] : index
// CHECK: arith.select
// CHECK: arith.cmpi ult, %{{.*}}, %[[VALID]] : index
// CHECK: arith.select
// CHECK: } {mirage.for_loop}
// The host: the length from K, buffers padded to whole iterations.
// CHECK: %[[DIM:.*]] = tensor.dim %arg1, %c1 : tensor<1x?x64xf32>
// CHECK: gpu.alloc async [{{.*}}] (%[[PAD:.*]]) : memref<1x?x64xf32>
// CHECK: gpu.launch_func async {{.*}} args({{.*}}, %[[DIM]] : index)

// NUM: @decode_attention_lax0[?=1]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=7]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=255]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=256]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=257]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=513]: 1 output, 64 elements, {{.*}}: ok
// NUM: @decode_attention_lax0[?=4099]: 1 output, 64 elements, {{.*}}: ok
