// Masks computed at run time or passed in, around a stable attention in f32
// (Q, K, V 2x16x16, scores scaled by 1/√d), as ONNX and torch-mlir write
// them. Each masked attention is ONE subprogram:
//  - @causal_position_ids: ONNX-style, the causal mask from position ids
//    (an i32 argument) by tosa.greater on two reshapes, masked_fill with
//    -inf on the true side;
//  - @causal_triu_cmpi: torch-mlir-style triu, a linalg.generic over
//    linalg.index with arith.cmpi, expanded to 1x16x16, Where(keep, s, -inf);
//  - @padding_mask_argument: a key padding mask passed as an i1 argument
//    (2x1x16, broadcast over the rows) with a -1e9 fill.
// The μGraph has no select: select(mask, s, fill) = s + A with
// A = select(mask, 0, fill) (lib/lift/mask.c). The integer ops computing the
// mask stay in the caller, cut with their reasons; A is computed just
// before the call (boundary ops) and enters the kernel graph as a float
// input; the i1 mask reaches neither the kernel graph nor its reference.
// Not a mask, and cut with the reason: @float_condition selects on a
// comparison of the scores themselves (the mask would need the kernel
// graph's own result).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// Lifting twice lifts nothing more (the boundary select is not lifted).
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-lift | mirage-opt --mirage-unlift > %t.rt2
// RUN: diff %t.in %t.rt2
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-lift --mirage-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=TWICE
// The numbers: mirage-run draws A at random, which is sound since
// s + A is the reference's function for every A.
// RUN: mirage-run --lift --range=1 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lift --range=8 %s | FileCheck %s --check-prefix=VAL
// RUN: mirage-opt --mirage-lift %s > %t.mlir
// RUN: mirage-run --lower %t.mlir | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lower --range=8 %t.mlir | FileCheck %s --check-prefix=VAL
//
// REM: '@causal_position_ids': lifted 1 subprogram (@causal_position_ids_lax0); 3 tensor ops left in place
// REM-NEXT: @causal_position_ids_lax0: 11 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM-NEXT: 'tosa.reshape' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: 'tosa.reshape' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: 'tosa.greater' is not lifted: the μGraph has no counterpart of 'tosa.greater'
// REM-NEXT: '@causal_triu_cmpi': lifted 1 subprogram (@causal_triu_cmpi_lax0); 2 tensor ops left in place
// REM-NEXT: @causal_triu_cmpi_lax0: 11 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM-NEXT: 'linalg.generic' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: 'tensor.expand_shape' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: '@padding_mask_argument': lifted 1 subprogram (@padding_mask_argument_lax0); 0 tensor ops left in place
// REM-NEXT: @padding_mask_argument_lax0: 11 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM-NEXT: '@float_condition': lifted 2 subprograms (@float_condition_lax0, @float_condition_lax1); 2 tensor ops left in place
// REM: 'tosa.select' is not lifted: its mask is computed from float values
//
// TWICE: '@causal_position_ids': nothing lifted
// TWICE: 'tosa.select' is not lifted: it computes the additive mask of a select lifted before
// TWICE: '@causal_triu_cmpi': nothing lifted
// TWICE: 'tosa.select' is not lifted: it computes the additive mask of a select lifted before
// TWICE: '@padding_mask_argument': nothing lifted
// TWICE: 'tosa.select' is not lifted: it computes the additive mask of a select lifted before
//
// VAL: @causal_position_ids_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @causal_triu_cmpi_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @padding_mask_argument_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @float_condition_lax0: {{.*}}: ok
// VAL-NEXT: @float_condition_lax1: {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}

func.func @causal_position_ids(%q: tensor<2x16x16xf32>, %k: tensor<2x16x16xf32>, %v: tensor<2x16x16xf32>, %pos: tensor<16xi32>) -> tensor<2x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %rows_shape = tosa.const_shape {values = dense<[1, 16, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %cols_shape = tosa.const_shape {values = dense<[1, 1, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %rows = tosa.reshape %pos, %rows_shape : (tensor<16xi32>, !tosa.shape<3>) -> tensor<1x16x1xi32>
  %cols = tosa.reshape %pos, %cols_shape : (tensor<16xi32>, !tosa.shape<3>) -> tensor<1x1x16xi32>
  %future = tosa.greater %cols, %rows : (tensor<1x1x16xi32>, tensor<1x16x1xi32>) -> tensor<1x16x16xi1>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %x = tosa.select %future, %ninf, %ss : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  return %o : tensor<2x16x16xf32>
}

func.func @causal_triu_cmpi(%q: tensor<2x16x16xf32>, %k: tensor<2x16x16xf32>, %v: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %empty = tensor.empty() : tensor<16x16xi1>
  %keep = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%empty : tensor<16x16xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    linalg.yield %le : i1
  } -> tensor<16x16xi1>
  %keep3 = tensor.expand_shape %keep [[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xi1> into tensor<1x16x16xi1>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %x = tosa.select %keep3, %ss, %ninf : (tensor<1x16x16xi1>, tensor<2x16x16xf32>, tensor<1x1x1xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  return %o : tensor<2x16x16xf32>
}

func.func @padding_mask_argument(%q: tensor<2x16x16xf32>, %k: tensor<2x16x16xf32>, %v: tensor<2x16x16xf32>, %keep: tensor<2x1x16xi1>) -> tensor<2x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %lowest = "tosa.const"() <{values = dense<-1.000000e+09> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %x = tosa.select %keep, %ss, %lowest : (tensor<2x1x16xi1>, tensor<2x16x16xf32>, tensor<1x1x1xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  return %o : tensor<2x16x16xf32>
}

func.func @float_condition(%q: tensor<2x16x16xf32>, %k: tensor<2x16x16xf32>, %v: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %kt = tosa.transpose %k {perms = array<i32: 0, 2, 1>} : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %s = tosa.matmul %q, %kt, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  %scale = "tosa.const"() <{values = dense<2.500000e-01> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ss = tosa.mul %s, %scale, %shift : (tensor<2x16x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %thr = "tosa.const"() <{values = dense<1.000000e+00> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %big = tosa.greater %ss, %thr : (tensor<2x16x16xf32>, tensor<1x1x1xf32>) -> tensor<2x16x16xi1>
  %ninf = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %x = tosa.select %big, %ss, %ninf : (tensor<2x16x16xi1>, tensor<2x16x16xf32>, tensor<1x1x1xf32>) -> tensor<2x16x16xf32>
  %m = tosa.reduce_max %x {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %d = tosa.sub %x, %m : (tensor<2x16x16xf32>, tensor<2x16x1xf32>) -> tensor<2x16x16xf32>
  %e = tosa.exp %d : (tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x16x16xf32>) -> tensor<2x16x1xf32>
  %r = tosa.reciprocal %sum : (tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %p = tosa.mul %e, %r, %shift : (tensor<2x16x16xf32>, tensor<2x16x1xf32>, tensor<1xi8>) -> tensor<2x16x16xf32>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x16x16xf32>
  return %o : tensor<2x16x16xf32>
}

// The mask's integer ops stay before the call; A is made from the mask and
// the original -inf right before it.
// CHECK-LABEL: func.func @causal_position_ids(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>, %[[POS:[^:]+]]: tensor<16xi32>)
// CHECK: %[[ROWS:[0-9]+]] = tosa.reshape %[[POS]], %{{[0-9]+}} : (tensor<16xi32>, !tosa.shape<3>) -> tensor<1x16x1xi32>
// CHECK-NEXT: %[[COLS:[0-9]+]] = tosa.reshape %[[POS]], %{{[0-9]+}} : (tensor<16xi32>, !tosa.shape<3>) -> tensor<1x1x16xi32>
// CHECK-NEXT: %[[FUT:[0-9]+]] = tosa.greater %[[COLS]], %[[ROWS]]
// CHECK-NEXT: %[[NINF:[0-9]+]] = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf32>}> {ug.boundary}
// CHECK-NEXT: %[[A:[0-9]+]] = tosa.select %[[FUT]], %[[NINF]], %[[ZERO]] {ug.boundary} : (tensor<1x16x16xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x16x16xf32>
// CHECK-NEXT: %[[R:[0-9]+]] = call @causal_position_ids_lax0(%[[Q]], %[[K]], %[[V]], %[[A]]) : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: return %[[R]]
// The kernel graph: both matmuls, the add of A and the whole softmax.
// CHECK-LABEL: func.func private @causal_position_ids_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>, %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32> attributes {ug.level = "kernel", ug.reference = @causal_position_ids_lax0_ref} {
// CHECK-NEXT: %[[KT:.*]] = "ug.transpose"(%[[K]]) {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT: %[[S:.*]] = "ug.matmul"(%[[Q]], %[[KT]])
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"(%[[S]]) {scalar = 2.500000e-01 : f64}
// CHECK-NEXT: %[[X:.*]] = "ug.add"(%[[SS]], %[[A]]) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 2 : i64}
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[MAX]])
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]])
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64}
// CHECK-NEXT: %[[P:.*]] = "ug.div"(%[[EXP]], %[[SUM]])
// CHECK-NEXT: %[[O:.*]] = "ug.matmul"(%[[P]], %[[V]])
// CHECK-NEXT: return %[[O]]
// The reference adds A where the select was and reads no i1 value.
// CHECK-LABEL: func.func private @causal_position_ids_lax0_ref(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NOT: i1>
// CHECK: = tosa.add %{{[0-9]+}}, %[[A]] {ug.boundary} : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NOT: i1>
// CHECK: return
// The torch-style triu mask: the generic and its expand_shape stay.
// CHECK-LABEL: func.func @causal_triu_cmpi(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>)
// CHECK: arith.cmpi ule
// CHECK: %[[KEEP:.*]] = tensor.expand_shape %{{[0-9]+}} {{\[\[}}0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xi1> into tensor<1x16x16xi1>
// CHECK-NEXT: %[[NINF:[0-9]+]] = "tosa.const"() <{values = dense<0xFF800000> : tensor<1x1x1xf32>}>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf32>}> {ug.boundary}
// CHECK-NEXT: %[[A:[0-9]+]] = tosa.select %[[KEEP]], %[[ZERO]], %[[NINF]] {ug.boundary}
// CHECK-NEXT: call @causal_triu_cmpi_lax0(%[[Q]], %[[K]], %[[V]], %[[A]]) : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-LABEL: func.func private @causal_triu_cmpi_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: "ug.transpose"
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"
// CHECK-NEXT: "ug.add"(%[[SS]], %[[A]]) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: "ug.reduce_max"
// CHECK-NEXT: "ug.sub"
// CHECK-NEXT: "ug.exp"
// CHECK-NEXT: "ug.sum"
// CHECK-NEXT: "ug.div"
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: return
// The padding mask argument: A has the mask's shape, 2x1x16.
// CHECK-LABEL: func.func @padding_mask_argument(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>, %[[KEEP:[^:]+]]: tensor<2x1x16xi1>)
// CHECK: %[[FILL:[0-9]+]] = "tosa.const"() <{values = dense<-1.000000e+09> : tensor<1x1x1xf32>}>
// CHECK-NEXT: %[[ZERO:[0-9]+]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1x1x1xf32>}> {ug.boundary}
// CHECK-NEXT: %[[A:[0-9]+]] = tosa.select %[[KEEP]], %[[ZERO]], %[[FILL]] {ug.boundary} : (tensor<2x1x16xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<2x1x16xf32>
// CHECK-NEXT: call @padding_mask_argument_lax0(%[[Q]], %[[K]], %[[V]], %[[A]]) : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x1x16xf32>) -> tensor<2x16x16xf32>
// CHECK-LABEL: func.func private @padding_mask_argument_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<2x1x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: "ug.transpose"
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"
// CHECK-NEXT: "ug.add"(%[[SS]], %[[A]]) : (tensor<2x16x16xf32>, tensor<2x1x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: "ug.reduce_max"
// CHECK-NEXT: "ug.sub"
// CHECK-NEXT: "ug.exp"
// CHECK-NEXT: "ug.sum"
// CHECK-NEXT: "ug.div"
// CHECK-NEXT: "ug.matmul"
// CHECK-NEXT: return
// A float condition on the scores: the select stays between two calls.
// CHECK-LABEL: func.func @float_condition(
// CHECK: %[[S:[0-9]+]] = call @float_condition_lax0(
// CHECK: %[[BIG:[0-9]+]] = tosa.greater %[[S]], %{{[0-9]+}}
// CHECK: tosa.select %[[BIG]], %[[S]], %{{[0-9]+}} : (tensor<2x16x16xi1>
// CHECK-NEXT: call @float_condition_lax1(
