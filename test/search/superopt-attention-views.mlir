// Attention as torch-mlir's TOSA backend writes it (our own text; B 1,
// S 16, 2 heads of 16): nn.Linear projections
// through transposed weights and rank-3 wrappers, heads split by reshape +
// transpose of the computed Q/K/V projections, Kᵀ, a scaled and masked
// softmax, P·V, heads merged by transpose + reshape, the output
// projection; f16 and bf16. The search splits the target at its view ops;
// the head-split transposes (with Kᵀ composed into K's) are folded into
// the next part's kernels, which read the projections' buffers through
// strides, and the head merge's transpose into the softmax·V kernel,
// whose savers write the merged layout (lib/graph/fold.c): 6 kernels per
// block instead of 10 (3 projections, QKᵀ, softmax·V, the output
// projection).
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-remarks %s -o %t.ug.mlir 2>%t.remarks
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: mirage-opt --mirage-verify-ugraph %t.ug.mlir > /dev/null
// The searched kernel graphs compute what the TOSA ops compute: in the
// interpreter, and through the CPU form of their lowering.
// RUN: mirage-run --range=0.25 %t.ug.mlir | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lower --range=0.25 %t.ug.mlir | FileCheck %s --check-prefix=NUM
// The lowering reads a printed kernel graph the same way (the folded
// layouts are derived again, not printed).
// The lowering (mirage-superopt's last step, run apart so the search runs
// once):
// RUN: mirage-opt --mirage-lower="ptx=false" %t.ug.mlir | FileCheck %s
// Heads merged and returned (no output projection): softmax·V writes
// the caller's buffer in the merged layout; with host=device straight
// into the out-param, no copy.
// RUN: mirage-opt --mirage-lower="ptx=false host=device" %t.ug.mlir | FileCheck %s --check-prefix=DEVICE

// REMARK: '@attention_f16_lax0' replaced by a verified μGraph: 12 kernel(s) -> 6
// REMARK: '@attention_bf16_lax0' replaced by a verified μGraph: 12 kernel(s) -> 6
// REMARK: '@heads_merged_f16_lax0' replaced by a verified μGraph: 11 kernel(s) -> 5
// NUM: @attention_f16_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NEXT: @attention_bf16_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NEXT: @heads_merged_f16_lax0: 1 output, 512 elements, max abs error {{.*}}: ok
// NUM-NOT: MISMATCH

// CHECK-LABEL: gpu.module @attention_f16_lax0_gpu
// The Q, K, V and output projections (32x32 weights) are one kernel,
// compiled once (docs/lower.md, identical kernels).
// CHECK: gpu.func @[[PROJ:attention_f16_lax0_gpu_k[0-9]+]](%arg0: memref<1x16x32xf16>
// Q·Kᵀ reads the Q and K projections' buffers, typed as stored, through
// the composed views: (B,S,H·D) -> (H,B,S,D) for Q, (H,B,D,S) for Kᵀ.
// The mask enters this kernel too.
// CHECK: gpu.func @[[QK:attention_f16_lax0_gpu_k[0-9]+]](%arg0: memref<1x16x2x16xf16> {{.*}}, %arg1: memref<1x16x2x16xf16> {{.*}}, %arg2: memref<1x1x16x16xf16> {{.*}}, %arg3: memref<2x1x16x16xf16>
// CHECK-DAG: memref.reinterpret_cast {{.*}} to offset: [0], sizes: [2, 1, 16, 16], strides: [16, 512, 32, 1] : memref<1x16x2x16xf16> to memref<2x1x16x16xf16, strided<[16, 512, 32, 1]>>
// CHECK-DAG: memref.reinterpret_cast {{.*}} to offset: [0], sizes: [2, 1, 16, 16], strides: [16, 512, 1, 32] : memref<1x16x2x16xf16> to memref<2x1x16x16xf16, strided<[16, 512, 1, 32]>>
// Softmax·V reads V's buffer the same way and writes its result through
// the head merge's transpose, in the layout the reshape reads.
// CHECK: gpu.func @[[PV:attention_f16_lax0_gpu_k[0-9]+]](%arg0: memref<1x16x2x16xf16> {{.*}}, %arg1: memref<2x1x16x16xf16> {{.*}}, %arg2: memref<1x16x2x16xf16>
// CHECK-DAG: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 1, 16, 16], strides: [16, 512, 32, 1] : memref<1x16x2x16xf16> to memref<2x1x16x16xf16, strided<[16, 512, 32, 1]>>
// CHECK-DAG: memref.store {{.*}} : memref<2x1x16x16xf16, strided<[16, 512, 32, 1]>>
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func private @attention_f16_lax0(
// CHECK-COUNT-3: gpu.launch_func async [%{{.*}}] @attention_f16_lax0_gpu::@[[PROJ]] blocks
// CHECK: gpu.launch_func async [%{{.*}}] @attention_f16_lax0_gpu::@[[QK]] blocks
// CHECK: gpu.launch_func async [%{{.*}}] @attention_f16_lax0_gpu::@[[PV]] blocks
// CHECK: gpu.launch_func async [%{{.*}}] @attention_f16_lax0_gpu::@[[PROJ]] blocks
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK-LABEL: gpu.module @attention_bf16_lax0_gpu
// CHECK-COUNT-3: gpu.func
// CHECK-NOT: gpu.func
// CHECK-LABEL: func.func private @attention_bf16_lax0(
// CHECK-COUNT-6: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// The f16 block with its heads merged differently has the f16 attention's
// kernels: it launches them and has no GPU module of its own.
// CHECK-NOT: gpu.module @heads_merged_f16_lax0_gpu
// CHECK-LABEL: func.func private @heads_merged_f16_lax0(
// CHECK-COUNT-5: gpu.launch_func async [%{{.*}}] @attention_f16_lax0_gpu::
// CHECK-NOT: gpu.launch_func

// DEVICE-LABEL: func.func private @heads_merged_f16_lax0(
// DEVICE-COUNT-5: gpu.launch_func
// DEVICE-NOT: gpu.memcpy
// DEVICE: return

func.func @attention_f16(%x: tensor<1x16x32xf16>, %mask: tensor<1x1x16x16xf16>, %wq: tensor<32x32xf16>, %wk: tensor<32x32xf16>, %wv: tensor<32x32xf16>, %wo: tensor<32x32xf16>) -> tensor<1x16x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %sh0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3w = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4h = tosa.const_shape {values = dense<[1, 16, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %qwt = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %qw3 = tosa.reshape %qwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %qm = tosa.matmul %x, %qw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %qc = tosa.cast %qm : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %qr = tosa.reshape %qc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %qh = tosa.transpose %qr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %kwt = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %kw3 = tosa.reshape %kwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %km = tosa.matmul %x, %kw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %kc = tosa.cast %km : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %kr = tosa.reshape %kc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %kh = tosa.transpose %kr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %vwt = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %vw3 = tosa.reshape %vwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %vm = tosa.matmul %x, %vw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %vc = tosa.cast %vm : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %vr = tosa.reshape %vc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %vh = tosa.transpose %vr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %kt = tosa.transpose %kh {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %s3q = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3k = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %qh, %s3q : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %sm = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %sc = tosa.cast %sm : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %s4s = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s4 = tosa.reshape %sc, %s4s : (tensor<2x16x16xf16>, !tosa.shape<4>) -> tensor<1x2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
  %ss = tosa.mul %s4, %scale, %sh0 : (tensor<1x2x16x16xf16>, tensor<1x1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x16x16xf16>
  %sa = tosa.add %ss, %mask : (tensor<1x2x16x16xf16>, tensor<1x1x16x16xf16>) -> tensor<1x2x16x16xf16>
  %e = tosa.exp %sa : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %z = tosa.reduce_sum %e {axis = 3 : i32} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x1xf16>
  %rz = tosa.reciprocal %z : (tensor<1x2x16x1xf16>) -> tensor<1x2x16x1xf16>
  %pr = tosa.mul %e, %rz, %sh0 : (tensor<1x2x16x16xf16>, tensor<1x2x16x1xf16>, tensor<1xi8>) -> tensor<1x2x16x16xf16>
  %s3p = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %pr, %s3p : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %v3 = tosa.reshape %vh, %s3q : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %om = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %oc = tosa.cast %om : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %s4o = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %oc, %s4o : (tensor<2x16x16xf16>, !tosa.shape<4>) -> tensor<1x2x16x16xf16>
  %ot = tosa.transpose %o4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x16x16xf16>) -> tensor<1x16x2x16xf16>
  %s3o = tosa.const_shape {values = dense<[1, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o3 = tosa.reshape %ot, %s3o : (tensor<1x16x2x16xf16>, !tosa.shape<3>) -> tensor<1x16x32xf16>
  %owt = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %ow3 = tosa.reshape %owt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %ym = tosa.matmul %o3, %ow3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %y = tosa.cast %ym : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  return %y : tensor<1x16x32xf16>
}

func.func @attention_bf16(%x: tensor<1x16x32xbf16>, %mask: tensor<1x1x16x16xbf16>, %wq: tensor<32x32xbf16>, %wk: tensor<32x32xbf16>, %wv: tensor<32x32xbf16>, %wo: tensor<32x32xbf16>) -> tensor<1x16x32xbf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xbf16>}> : () -> tensor<1xbf16>
  %sh0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3w = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4h = tosa.const_shape {values = dense<[1, 16, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %qwt = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %qw3 = tosa.reshape %qwt, %s3w : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %qm = tosa.matmul %x, %qw3, %zp, %zp : (tensor<1x16x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x32xf32>
  %qc = tosa.cast %qm : (tensor<1x16x32xf32>) -> tensor<1x16x32xbf16>
  %qr = tosa.reshape %qc, %s4h : (tensor<1x16x32xbf16>, !tosa.shape<4>) -> tensor<1x16x2x16xbf16>
  %qh = tosa.transpose %qr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xbf16>) -> tensor<1x2x16x16xbf16>
  %kwt = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %kw3 = tosa.reshape %kwt, %s3w : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %km = tosa.matmul %x, %kw3, %zp, %zp : (tensor<1x16x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x32xf32>
  %kc = tosa.cast %km : (tensor<1x16x32xf32>) -> tensor<1x16x32xbf16>
  %kr = tosa.reshape %kc, %s4h : (tensor<1x16x32xbf16>, !tosa.shape<4>) -> tensor<1x16x2x16xbf16>
  %kh = tosa.transpose %kr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xbf16>) -> tensor<1x2x16x16xbf16>
  %vwt = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %vw3 = tosa.reshape %vwt, %s3w : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %vm = tosa.matmul %x, %vw3, %zp, %zp : (tensor<1x16x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x32xf32>
  %vc = tosa.cast %vm : (tensor<1x16x32xf32>) -> tensor<1x16x32xbf16>
  %vr = tosa.reshape %vc, %s4h : (tensor<1x16x32xbf16>, !tosa.shape<4>) -> tensor<1x16x2x16xbf16>
  %vh = tosa.transpose %vr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xbf16>) -> tensor<1x2x16x16xbf16>
  %kt = tosa.transpose %kh {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %s3q = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3k = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %qh, %s3q : (tensor<1x2x16x16xbf16>, !tosa.shape<3>) -> tensor<2x16x16xbf16>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x16x16xbf16>, !tosa.shape<3>) -> tensor<2x16x16xbf16>
  %sm = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x16x16xbf16>, tensor<2x16x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x16x16xf32>
  %sc = tosa.cast %sm : (tensor<2x16x16xf32>) -> tensor<2x16x16xbf16>
  %s4s = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s4 = tosa.reshape %sc, %s4s : (tensor<2x16x16xbf16>, !tosa.shape<4>) -> tensor<1x2x16x16xbf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xbf16>}> : () -> tensor<1x1x1x1xbf16>
  %ss = tosa.mul %s4, %scale, %sh0 : (tensor<1x2x16x16xbf16>, tensor<1x1x1x1xbf16>, tensor<1xi8>) -> tensor<1x2x16x16xbf16>
  %sa = tosa.add %ss, %mask : (tensor<1x2x16x16xbf16>, tensor<1x1x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %e = tosa.exp %sa : (tensor<1x2x16x16xbf16>) -> tensor<1x2x16x16xbf16>
  %z = tosa.reduce_sum %e {axis = 3 : i32} : (tensor<1x2x16x16xbf16>) -> tensor<1x2x16x1xbf16>
  %rz = tosa.reciprocal %z : (tensor<1x2x16x1xbf16>) -> tensor<1x2x16x1xbf16>
  %pr = tosa.mul %e, %rz, %sh0 : (tensor<1x2x16x16xbf16>, tensor<1x2x16x1xbf16>, tensor<1xi8>) -> tensor<1x2x16x16xbf16>
  %s3p = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %pr, %s3p : (tensor<1x2x16x16xbf16>, !tosa.shape<3>) -> tensor<2x16x16xbf16>
  %v3 = tosa.reshape %vh, %s3q : (tensor<1x2x16x16xbf16>, !tosa.shape<3>) -> tensor<2x16x16xbf16>
  %om = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x16x16xbf16>, tensor<2x16x16xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<2x16x16xf32>
  %oc = tosa.cast %om : (tensor<2x16x16xf32>) -> tensor<2x16x16xbf16>
  %s4o = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %oc, %s4o : (tensor<2x16x16xbf16>, !tosa.shape<4>) -> tensor<1x2x16x16xbf16>
  %ot = tosa.transpose %o4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x16x16xbf16>) -> tensor<1x16x2x16xbf16>
  %s3o = tosa.const_shape {values = dense<[1, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o3 = tosa.reshape %ot, %s3o : (tensor<1x16x2x16xbf16>, !tosa.shape<3>) -> tensor<1x16x32xbf16>
  %owt = tosa.transpose %wo {perms = array<i32: 1, 0>} : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
  %ow3 = tosa.reshape %owt, %s3w : (tensor<32x32xbf16>, !tosa.shape<3>) -> tensor<1x32x32xbf16>
  %ym = tosa.matmul %o3, %ow3, %zp, %zp : (tensor<1x16x32xbf16>, tensor<1x32x32xbf16>, tensor<1xbf16>, tensor<1xbf16>) -> tensor<1x16x32xf32>
  %y = tosa.cast %ym : (tensor<1x16x32xf32>) -> tensor<1x16x32xbf16>
  return %y : tensor<1x16x32xbf16>
}

func.func @heads_merged_f16(%x: tensor<1x16x32xf16>, %mask: tensor<1x1x16x16xf16>, %wq: tensor<32x32xf16>, %wk: tensor<32x32xf16>, %wv: tensor<32x32xf16>, %wo: tensor<32x32xf16>) -> tensor<1x16x32xf16> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf16>}> : () -> tensor<1xf16>
  %sh0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %s3w = tosa.const_shape {values = dense<[1, 32, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s4h = tosa.const_shape {values = dense<[1, 16, 2, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %qwt = tosa.transpose %wq {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %qw3 = tosa.reshape %qwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %qm = tosa.matmul %x, %qw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %qc = tosa.cast %qm : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %qr = tosa.reshape %qc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %qh = tosa.transpose %qr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %kwt = tosa.transpose %wk {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %kw3 = tosa.reshape %kwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %km = tosa.matmul %x, %kw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %kc = tosa.cast %km : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %kr = tosa.reshape %kc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %kh = tosa.transpose %kr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %vwt = tosa.transpose %wv {perms = array<i32: 1, 0>} : (tensor<32x32xf16>) -> tensor<32x32xf16>
  %vw3 = tosa.reshape %vwt, %s3w : (tensor<32x32xf16>, !tosa.shape<3>) -> tensor<1x32x32xf16>
  %vm = tosa.matmul %x, %vw3, %zp, %zp : (tensor<1x16x32xf16>, tensor<1x32x32xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x16x32xf32>
  %vc = tosa.cast %vm : (tensor<1x16x32xf32>) -> tensor<1x16x32xf16>
  %vr = tosa.reshape %vc, %s4h : (tensor<1x16x32xf16>, !tosa.shape<4>) -> tensor<1x16x2x16xf16>
  %vh = tosa.transpose %vr {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x16x2x16xf16>) -> tensor<1x2x16x16xf16>
  %kt = tosa.transpose %kh {perms = array<i32: 0, 1, 3, 2>} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %s3q = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s3k = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %qh, %s3q : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %k3 = tosa.reshape %kt, %s3k : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %sm = tosa.matmul %q3, %k3, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %sc = tosa.cast %sm : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %s4s = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %s4 = tosa.reshape %sc, %s4s : (tensor<2x16x16xf16>, !tosa.shape<4>) -> tensor<1x2x16x16xf16>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1x1xf16>}> : () -> tensor<1x1x1x1xf16>
  %ss = tosa.mul %s4, %scale, %sh0 : (tensor<1x2x16x16xf16>, tensor<1x1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x16x16xf16>
  %sa = tosa.add %ss, %mask : (tensor<1x2x16x16xf16>, tensor<1x1x16x16xf16>) -> tensor<1x2x16x16xf16>
  %e = tosa.exp %sa : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x16xf16>
  %z = tosa.reduce_sum %e {axis = 3 : i32} : (tensor<1x2x16x16xf16>) -> tensor<1x2x16x1xf16>
  %rz = tosa.reciprocal %z : (tensor<1x2x16x1xf16>) -> tensor<1x2x16x1xf16>
  %pr = tosa.mul %e, %rz, %sh0 : (tensor<1x2x16x16xf16>, tensor<1x2x16x1xf16>, tensor<1xi8>) -> tensor<1x2x16x16xf16>
  %s3p = tosa.const_shape {values = dense<[2, 16, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %p3 = tosa.reshape %pr, %s3p : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %v3 = tosa.reshape %vh, %s3q : (tensor<1x2x16x16xf16>, !tosa.shape<3>) -> tensor<2x16x16xf16>
  %om = tosa.matmul %p3, %v3, %zp, %zp : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<2x16x16xf32>
  %oc = tosa.cast %om : (tensor<2x16x16xf32>) -> tensor<2x16x16xf16>
  %s4o = tosa.const_shape {values = dense<[1, 2, 16, 16]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %o4 = tosa.reshape %oc, %s4o : (tensor<2x16x16xf16>, !tosa.shape<4>) -> tensor<1x2x16x16xf16>
  %ot = tosa.transpose %o4 {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x2x16x16xf16>) -> tensor<1x16x2x16xf16>
  %s3o = tosa.const_shape {values = dense<[1, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %o3 = tosa.reshape %ot, %s3o : (tensor<1x16x2x16xf16>, !tosa.shape<3>) -> tensor<1x16x32xf16>
  return %o3 : tensor<1x16x32xf16>
}
