//===- gen.c - The ops the generator may append on one operand ------------===//
//
// Both levels append ops in canonical order (canon.c): all ops whose
// largest operand is tensor `m`, for m from the first operand up. This file
// lists them for one `m` from the target's vocabulary: unary and scalar
// element-wise ops, sums over each dim, accumulators (block level), binary
// element-wise ops and matmuls with every earlier operand (commutative ops
// once, operands in increasing order). Each op comes with the attribute
// that separates it from ops of the same kind on the same operands.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <string.h>

static const MgOpKind unary_kinds[] = {MG_OP_EXP,  MG_OP_SQUARE, MG_OP_SQRT,
                                       MG_OP_RSQRT, MG_OP_SILU,  MG_OP_GELU,
                                       MG_OP_RELU,  MG_OP_LOG,   MG_OP_TANH,
                                       MG_OP_ERF};
static const MgOpKind binary_kinds[] = {MG_OP_ADD, MG_OP_SUB, MG_OP_MUL,
                                        MG_OP_DIV, MG_OP_MAX};
static const MgOpKind reductions[] = {MG_OP_SUM, MG_OP_REDUCE_MAX};

static bool commutative(MgOpKind k) {
  return k == MG_OP_ADD || k == MG_OP_MUL || k == MG_OP_MAX;
}

// `op` on operands (j, m), then (m, j) unless j == m or `once` (a
// commutative kind): every two-operand op is appended this way.
static bool both_orders(MgOp op, uint32_t j, uint32_t m, bool once,
                        uint32_t attr, GenSink sink) {
  op.num_inputs = 2;
  for (int order = 0; order < 2; order++) {
    if (order == 1 && (j == m || once))
      break;
    op.inputs[0] = order == 0 ? j : m;
    op.inputs[1] = order == 0 ? m : j;
    if (!sink.fn(sink.ctx, &op, attr))
      return false;
  }
  return true;
}

bool mg_gen_ops(const Vocab *v, bool block, uint32_t m, uint32_t first,
                uint32_t rank_m, GenSink sink) {
  MgOp op;
  for (size_t i = 0; i < sizeof unary_kinds / sizeof unary_kinds[0]; i++) {
    if (!v->kind[unary_kinds[i]])
      continue;
    op = mg_op_blank(unary_kinds[i]);
    op.num_inputs = 1;
    op.inputs[0] = m;
    if (!sink.fn(sink.ctx, &op, 0))
      return false;
  }
  for (uint32_t i = 0; i < v->num_scalars; i++) {
    op = mg_op_blank((MgOpKind)v->scalars[i].kind);
    op.num_inputs = 1;
    op.inputs[0] = m;
    op.scalar = v->scalars[i].value;
    if (!sink.fn(sink.ctx, &op, i))
      return false;
  }
  for (size_t r = 0; r < sizeof reductions / sizeof reductions[0]; r++)
    if (v->kind[reductions[r]])
      for (uint32_t d = 0; d < rank_m; d++) {
        op = mg_op_blank(reductions[r]);
        op.num_inputs = 1;
        op.inputs[0] = m;
        op.attr = (int32_t)d;
        if (!sink.fn(sink.ctx, &op, d))
          return false;
      }
  // The online accumulator pairs a tile with its max: either operand may
  // be the newest.
  if (block && v->accum[MG_ACCUM_ONLINE]) {
    op = mg_op_blank(MG_OP_ACCUM);
    op.acc = MG_ACCUM_ONLINE;
    for (uint32_t j = first; j <= m; j++)
      if (!both_orders(op, j, m, false, MG_ACCUM_ONLINE, sink))
        return false;
  }
  if (block)
    for (uint32_t a = 0; a < MG_ACCUM_COUNT; a++) {
      if (!v->accum[a] || a == MG_ACCUM_ONLINE)
        continue;
      op = mg_op_blank(MG_OP_ACCUM);
      op.num_inputs = 1;
      op.inputs[0] = m;
      op.acc = (uint8_t)a;
      if (!sink.fn(sink.ctx, &op, a))
        return false;
    }
  for (uint32_t j = first; j <= m; j++) {
    for (size_t i = 0; i < sizeof binary_kinds / sizeof binary_kinds[0];
         i++) {
      MgOpKind k = binary_kinds[i];
      if (v->kind[k] &&
          !both_orders(mg_op_blank(k), j, m, commutative(k), 0, sink))
        return false;
    }
    if (v->kind[MG_OP_MATMUL] &&
        !both_orders(mg_op_blank(MG_OP_MATMUL), j, m, false, 0, sink))
      return false;
  }
  return true;
}
