// The shipped examples lift into one kernel graph each, validate, round-trip
// and compute what they did.
//
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %mirage_src/examples/rmsnorm_matmul.mlir | FileCheck %s --check-prefix=RMS
// RUN: mirage-opt %mirage_src/examples/rmsnorm_matmul.mlir > %t.rms.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %mirage_src/examples/rmsnorm_matmul.mlir > %t.rms.rt
// RUN: diff %t.rms.in %t.rms.rt
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %mirage_src/examples/gated_mlp_torch.mlir | FileCheck %s --check-prefix=MLP
// RUN: mirage-opt %mirage_src/examples/gated_mlp_torch.mlir > %t.mlp.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %mirage_src/examples/gated_mlp_torch.mlir > %t.mlp.rt
// RUN: diff %t.mlp.in %t.mlp.rt
// RUN: mirage-run --lift %mirage_src/examples/gated_mlp_torch.mlir | FileCheck %s --check-prefix=NUM

// RMS: call @rmsnorm_matmul_lax0(%arg0, %arg1)
// RMS: "ug.square"
// RMS-NEXT: "ug.sum"
// RMS-NEXT: "ug.mul_scalar"
// RMS-NEXT: "ug.rsqrt"
// RMS-NEXT: "ug.mul"
// RMS-NEXT: "ug.matmul"
// RMS-NOT: _lax1

// nn.Linear's weights are read as stored, through layouts.
// MLP: call @forward_lax0(%arg0, %arg1, %arg2)
// MLP: "ug.transpose"(%arg1) {perm = array<i64: 1, 0>}
// MLP-NEXT: "ug.transpose"(%arg2) {perm = array<i64: 1, 0>}
// MLP-NEXT: "ug.matmul"
// MLP-NEXT: "ug.silu"
// MLP-NEXT: "ug.matmul"
// MLP-NEXT: "ug.mul"
// MLP-NOT: _lax1

// NUM: @forward_lax0: {{.*}}: ok
