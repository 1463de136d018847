// The partition: subprograms are contiguous stretches of liftable ops
// (stepping over independent pure ops, which stay where they are), split
//  - where nothing connects the two sides (@unrelated: two kernel graphs),
//    but not when unrelated ops interleave (@interleaved: one), and ops that
//    read the same input are connected (@shared_input: one, two outputs);
//  - before an exp that would read an exp result (@lax: at most one exp on
//    any path; rsqrt, an uninterpreted function for the verifier, resets);
//  - at max-ops (@bounded with max-ops=3; the boundary moves back over the
//    sigmoid so x * sigmoid(x) stays whole and becomes ug.silu).
// Dead ops go into the reference but not into the kernel graph; values
// read after the subprogram are outputs. Blocks of a CFG are partitioned one
// by one. The reference records in ug.unlift where each op returns.
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift=max-ops=3 %s | FileCheck %s --check-prefix=BOUND
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift=max-ops=3 --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM3
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// RUN: mirage-opt --mirage-lift=max-ops=3 --mirage-unlift %s > %t.rt3
// RUN: diff %t.in %t.rt3
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=NUM
// RUN: mirage-run --lift=max-ops=3 %s | FileCheck %s --check-prefix=NUM

func.func @bounded(%x: tensor<1x4x8xf32>, %w1: tensor<1x8x8xf32>, %w2: tensor<1x8x8xf32>) -> tensor<1x4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.matmul %x, %w1, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %b = tosa.matmul %x, %w2, %zp, %zp : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x8xf32>
  %c = tosa.add %a, %b : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %s = tosa.sigmoid %c : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %d = tosa.mul %c, %s, %shift : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %e = tosa.mul %d, %a, %shift : (tensor<1x4x8xf32>, tensor<1x4x8xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  return %e : tensor<1x4x8xf32>
}

func.func @lax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.sub %a, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.exp %r : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.add %c, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tosa.exp %d : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}

func.func @unrelated(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.add %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.sub %c, %c : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @interleaved(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %y : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.add %a, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %d = tosa.sub %c, %c : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %b, %d : tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @shared_input(%x: tensor<2x8xf32>, %wq: tensor<8x8xf32>, %wk: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<2x8xf32>, tensor<8x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<2x8xf32>, tensor<8x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %q, %k : tensor<2x8xf32>, tensor<2x8xf32>
}

func.func @dead_and_outputs(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %unused = tosa.rsqrt %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = tosa.reduce_sum %a {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = tosa.reciprocal %s : (tensor<4x1xf32>) -> tensor<4x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p = tosa.mul %a, %r, %shift : (tensor<4x8xf32>, tensor<4x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  return %p, %s : tensor<4x8xf32>, tensor<4x1xf32>
}

func.func @independent_in_span(%x: tensor<1x4x8xf32>, %t: tensor<1x4x8xf32>, %idx: tensor<1x4xi32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) {
  %a = tosa.exp %x : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %g = tosa.gather %t, %idx : (tensor<1x4x8xf32>, tensor<1x4xi32>) -> tensor<1x4x8xf32>
  %c = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %b = tosa.mul %a, %c, %shift : (tensor<1x4x8xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x4x8xf32>
  %d = tosa.add %b, %g : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  return %d, %g : tensor<1x4x8xf32>, tensor<1x4x8xf32>
}

func.func @blocks(%x: tensor<4x8xf32>, %flag: i1) -> tensor<4x8xf32> {
  %a = tosa.exp %x : (tensor<4x8xf32>) -> tensor<4x8xf32>
  cf.cond_br %flag, ^bb1, ^bb2(%a : tensor<4x8xf32>)
^bb1:
  %b = tosa.add %a, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  cf.br ^bb2(%c : tensor<4x8xf32>)
^bb2(%r: tensor<4x8xf32>):
  %s = tosa.sub %r, %a : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @bounded(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[W1:[^:]+]]: tensor<1x8x8xf32>, %[[W2:[^:]+]]: tensor<1x8x8xf32>)
// CHECK: call @bounded_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> tensor<1x4x8xf32>
// CHECK-LABEL: func.func private @bounded_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[W1:[^:]+]]: tensor<1x8x8xf32>, %[[W2:[^:]+]]: tensor<1x8x8xf32>) -> tensor<1x4x8xf32> attributes {ug.level = "kernel", ug.reference = @bounded_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM1]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[SILU:.*]] = "ug.silu"(%[[ADD]]) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[MM0]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[MUL]] : tensor<1x4x8xf32>
// CHECK-LABEL: func.func @lax(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: %[[LAX0:.*]] = call @lax_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: call @lax_lax1(%[[LAX0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @lax_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @lax_lax0_ref} {
// CHECK-NEXT: %[[EXP0:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[EXP0]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[SUB]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[EXP1:.*]] = "ug.exp"(%[[RSQRT]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[EXP1]], %[[SUB]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @lax_lax1(
// CHECK-SAME: %[[LAX0:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @lax_lax1_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[LAX0]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @unrelated(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @unrelated_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: call @unrelated_lax1(%[[Y]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @unrelated_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @unrelated_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[EXP]], %[[EXP]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @unrelated_lax1(
// CHECK-SAME: %[[Y:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @unrelated_lax1_ref} {
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[Y]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[RSQRT]], %[[RSQRT]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SUB]] : tensor<4x8xf32>
// CHECK-LABEL: func.func @interleaved(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @interleaved_lax0(%[[X]], %[[Y]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK-LABEL: func.func private @interleaved_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[Y:[^:]+]]: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) attributes {ug.level = "kernel", ug.reference = @interleaved_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[Y]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[EXP]], %[[EXP]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[RSQRT]], %[[RSQRT]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[ADD]], %[[SUB]] : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-LABEL: func.func @shared_input(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[WQ:[^:]+]]: tensor<8x8xf32>, %[[WK:[^:]+]]: tensor<8x8xf32>)
// CHECK: call @shared_input_lax0(%[[X]], %[[WQ]], %[[WK]]) : (tensor<2x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>)
// CHECK-LABEL: func.func private @shared_input_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<2x8xf32>, %[[WQ:[^:]+]]: tensor<8x8xf32>, %[[WK:[^:]+]]: tensor<8x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) attributes {ug.level = "kernel", ug.reference = @shared_input_lax0_ref} {
// CHECK-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[WQ]]) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[WK]]) : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %[[MM0]], %[[MM1]] : tensor<2x8xf32>, tensor<2x8xf32>
// CHECK-LABEL: func.func @dead_and_outputs(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>)
// CHECK: call @dead_and_outputs_lax0(%[[X]]) : (tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>)
// CHECK-LABEL: func.func private @dead_and_outputs_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>) attributes {ug.level = "kernel", ug.reference = @dead_and_outputs_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: %[[DIV:.*]] = "ug.div"(%[[EXP]], %[[SUM]]) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SUM]], %[[DIV]] : tensor<4x1xf32>, tensor<4x8xf32>
// CHECK-LABEL: func.func @independent_in_span(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[T:[^:]+]]: tensor<1x4x8xf32>, %[[IDX:[^:]+]]: tensor<1x4xi32>)
// CHECK: %[[GATHER:.*]] = tosa.gather %[[T]], %[[IDX]] : (tensor<1x4x8xf32>, tensor<1x4xi32>) -> tensor<1x4x8xf32>
// CHECK: call @independent_in_span_lax0(%[[X]], %[[GATHER]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-LABEL: func.func private @independent_in_span_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[GATHER:[^:]+]]: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> attributes {ug.level = "kernel", ug.reference = @independent_in_span_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[MULS:.*]] = "ug.mul_scalar"(%[[EXP]]) {scalar = 5.000000e-01 : f64} : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[MULS]], %[[GATHER]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[ADD]] : tensor<1x4x8xf32>
// The gather and the two constants stayed in the span: three slots; the
// reference's ops go back before stayed op 0, are the originals of stayed
// ops 1 and 2, or go back just before the call (slot 3).
// CHECK-LABEL: func.func private @independent_in_span_lax0_ref(
// CHECK-SAME: attributes {ug.unlift = array<i64: 3, 0, -3, -4, 3, 3>}
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[FLAG:[^:]+]]: i1)
// CHECK: %[[LAX0:.*]] = call @blocks_lax0(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: call @blocks_lax1(%[[X]], %[[LAX0]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK: ^bb2(%[[MERGED:[^:]+]]: tensor<4x8xf32>):
// CHECK-NEXT: call @blocks_lax2(%[[MERGED]], %[[LAX0]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-LABEL: func.func private @blocks_lax0(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @blocks_lax0_ref} {
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[EXP]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @blocks_lax1(
// CHECK-SAME: %[[X:[^:]+]]: tensor<4x8xf32>, %[[LAX0:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @blocks_lax1_ref} {
// CHECK-NEXT: %[[ADD:.*]] = "ug.add"(%[[LAX0]], %[[X]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[RSQRT:.*]] = "ug.rsqrt"(%[[ADD]]) : (tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[RSQRT]] : tensor<4x8xf32>
// CHECK-LABEL: func.func private @blocks_lax2(
// CHECK-SAME: %[[MERGED:[^:]+]]: tensor<4x8xf32>, %[[LAX0:[^:]+]]: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel", ug.reference = @blocks_lax2_ref} {
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[MERGED]], %[[LAX0]]) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[SUB]] : tensor<4x8xf32>

// BOUND-LABEL: func.func @bounded(
// BOUND-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[W1:[^:]+]]: tensor<1x8x8xf32>, %[[W2:[^:]+]]: tensor<1x8x8xf32>)
// BOUND: %[[LAX0:.*]]:2 = call @bounded_lax0(%[[X]], %[[W1]], %[[W2]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>, tensor<1x8x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>)
// BOUND: call @bounded_lax1(%[[LAX0]]#0, %[[LAX0]]#1) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// BOUND-LABEL: func.func private @bounded_lax0(
// BOUND-SAME: %[[X:[^:]+]]: tensor<1x4x8xf32>, %[[W1:[^:]+]]: tensor<1x8x8xf32>, %[[W2:[^:]+]]: tensor<1x8x8xf32>) -> (tensor<1x4x8xf32>, tensor<1x4x8xf32>) attributes {ug.level = "kernel", ug.reference = @bounded_lax0_ref} {
// BOUND-NEXT: %[[MM0:.*]] = "ug.matmul"(%[[X]], %[[W1]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>) -> tensor<1x4x8xf32>
// BOUND-NEXT: %[[MM1:.*]] = "ug.matmul"(%[[X]], %[[W2]]) : (tensor<1x4x8xf32>, tensor<1x8x8xf32>) -> tensor<1x4x8xf32>
// BOUND-NEXT: %[[ADD:.*]] = "ug.add"(%[[MM0]], %[[MM1]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// BOUND-NEXT: return %[[MM0]], %[[ADD]] : tensor<1x4x8xf32>, tensor<1x4x8xf32>
// BOUND-LABEL: func.func private @bounded_lax1(
// BOUND-SAME: %[[A:[^:]+]]: tensor<1x4x8xf32>, %[[C:[^:]+]]: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> attributes {ug.level = "kernel", ug.reference = @bounded_lax1_ref} {
// BOUND-NEXT: %[[SILU:.*]] = "ug.silu"(%[[C]]) : (tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// BOUND-NEXT: %[[MUL:.*]] = "ug.mul"(%[[SILU]], %[[A]]) : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
// BOUND-NEXT: return %[[MUL]] : tensor<1x4x8xf32>

// REM: {{.*}}:27:{{[0-9]+}}: remark: mirage-lift: '@bounded': lifted 1 subprogram (@bounded_lax0); 0 tensor ops left in place
// REM: {{.*}}:30:{{[0-9]+}}: remark: mirage-lift: @bounded_lax0: 6 ops -> kernel graph of 5 μGraph ops, 3 inputs, 1 output
// REM: {{.*}}:39:{{[0-9]+}}: remark: mirage-lift: '@lax': lifted 2 subprograms (@lax_lax0, @lax_lax1); 0 tensor ops left in place
// REM: {{.*}}:40:{{[0-9]+}}: remark: mirage-lift: @lax_lax0: 5 ops -> kernel graph of 5 μGraph ops, 1 input, 1 output
// REM: {{.*}}:45:{{[0-9]+}}: remark: mirage-lift: @lax_lax1: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output; it starts here because an exp here reads an exp result of the previous subprogram (one exp per path keeps each LAX)
// REM: {{.*}}:49:{{[0-9]+}}: remark: mirage-lift: '@unrelated': lifted 2 subprograms (@unrelated_lax0, @unrelated_lax1); 0 tensor ops left in place
// REM: {{.*}}:50:{{[0-9]+}}: remark: mirage-lift: @unrelated_lax0: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:52:{{[0-9]+}}: remark: mirage-lift: @unrelated_lax1: 2 ops -> kernel graph of 2 μGraph ops, 1 input, 1 output
// REM: {{.*}}:57:{{[0-9]+}}: remark: mirage-lift: '@interleaved': lifted 1 subprogram (@interleaved_lax0); 0 tensor ops left in place
// REM: {{.*}}:58:{{[0-9]+}}: remark: mirage-lift: @interleaved_lax0: 4 ops -> kernel graph of 4 μGraph ops, 2 inputs, 2 outputs
// REM: {{.*}}:65:{{[0-9]+}}: remark: mirage-lift: '@shared_input': lifted 1 subprogram (@shared_input_lax0); 0 tensor ops left in place
// REM: {{.*}}:69:{{[0-9]+}}: remark: mirage-lift: @shared_input_lax0: 2 ops -> kernel graph of 2 μGraph ops, 3 inputs, 2 outputs
// REM: {{.*}}:74:{{[0-9]+}}: remark: mirage-lift: '@dead_and_outputs': lifted 1 subprogram (@dead_and_outputs_lax0); 0 tensor ops left in place
// REM: {{.*}}:75:{{[0-9]+}}: remark: mirage-lift: @dead_and_outputs_lax0: 5 ops -> kernel graph of 3 μGraph ops, 1 input, 2 outputs
// REM: {{.*}}:84:{{[0-9]+}}: remark: mirage-lift: '@independent_in_span': lifted 1 subprogram (@independent_in_span_lax0); 1 tensor op left in place
// REM: {{.*}}:85:{{[0-9]+}}: remark: mirage-lift: @independent_in_span_lax0: 3 ops -> kernel graph of 3 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:86:{{[0-9]+}}: remark: mirage-lift: 'tosa.gather' is not lifted: the μGraph has no counterpart of 'tosa.gather'
// REM: {{.*}}:94:{{[0-9]+}}: remark: mirage-lift: '@blocks': lifted 3 subprograms (@blocks_lax0, @blocks_lax1, @blocks_lax2); 0 tensor ops left in place
// REM: {{.*}}:95:{{[0-9]+}}: remark: mirage-lift: @blocks_lax0: 1 op -> kernel graph of 1 μGraph op, 1 input, 1 output
// REM: {{.*}}:98:{{[0-9]+}}: remark: mirage-lift: @blocks_lax1: 2 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output
// REM: {{.*}}:102:{{[0-9]+}}: remark: mirage-lift: @blocks_lax2: 1 op -> kernel graph of 1 μGraph op, 2 inputs, 1 output

// REM3: {{.*}}:27:{{[0-9]+}}: remark: mirage-lift: '@bounded': lifted 2 subprograms (@bounded_lax0, @bounded_lax1); 0 tensor ops left in place
// REM3: {{.*}}:30:{{[0-9]+}}: remark: mirage-lift: @bounded_lax0: 3 ops -> kernel graph of 3 μGraph ops, 3 inputs, 2 outputs
// REM3: {{.*}}:33:{{[0-9]+}}: remark: mirage-lift: @bounded_lax1: 3 ops -> kernel graph of 2 μGraph ops, 2 inputs, 1 output; it starts here because the previous subprogram reached max-ops=3
// NUM-NOT: MISMATCH
