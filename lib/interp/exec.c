//===- exec.c - mg_exec_run: kernel and thread graphs ---------------------===//
//
// Kernel and thread graphs are "flat": their ops run once, in the stored
// (topological) order, over a table of one value per tensor. Kernel graphs
// may launch graph-defined kernels (block.c) and hold view ops (views.c);
// thread graphs only hold element-wise ops. Before running a graph its ids, counts and ranks are
// checked, so no program, valid or not, can make the executor index out of
// bounds; the root graph's values are freed right after their last reader to
// keep peak memory near the live set at the paper's shapes.
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <stdlib.h>
#include <string.h>

MgStatus mg_interp_check_graph(MgExec *ex, MgGraphId gid, MgLevel level) {
  const MgProgram *p = ex->program;
  ex->cur_graph = (int32_t)gid;
  ex->cur_op = -1;
  if (gid >= p->num_graphs || !p->graphs)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "graph %u does not exist",
                          gid);
  const MgGraph *g = &p->graphs[gid];
  if (g->level != level) {
    const char *have = mg_level_name((MgLevel)g->level);
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "graph %u is a %s graph, expected a %s graph", gid,
                          have ? have : "?", mg_level_name(level));
  }
  if ((g->num_ops && !g->ops) || (g->num_tensors && !g->tensors) ||
      (g->num_outputs && !g->outputs))
    return mg_interp_fail(ex, MG_STATUS_INVALID, "graph %u has no storage",
                          gid);
  if (level == MG_LEVEL_BLOCK) {
    for (int a = 0; a < 3; ++a)
      if (g->grid[a] < 1)
        return mg_interp_fail(ex, MG_STATUS_INVALID,
                              "grid dim %d is %d, must be >= 1", a,
                              g->grid[a]);
    if (g->forloop < 1)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "for-loop range %d must be >= 1", g->forloop);
  }
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    if (g->tensors[t].rank > MG_MAX_DIMS)
      return mg_interp_fail(ex, MG_STATUS_INVALID, "tensor %u has rank %u",
                            t, g->tensors[t].rank);
  for (uint32_t t = 0; t < g->num_outputs; ++t)
    if (g->outputs[t] >= g->num_tensors)
      return mg_interp_fail(ex, MG_STATUS_INVALID, "output %u is no tensor",
                            t);
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    ex->cur_op = (int32_t)o;
    if (op->kind >= MG_OP_COUNT || op->num_inputs > MG_MAX_OP_INPUTS ||
        op->num_outputs > MG_MAX_OP_OUTPUTS)
      return mg_interp_fail(ex, MG_STATUS_INVALID, "malformed op %u", o);
    bool multi = op->kind == MG_OP_CUSTOM || op->kind == MG_OP_THREAD;
    if (!multi && op->num_outputs != 1)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "'%s' must have one result",
                            mg_op_kind_name((MgOpKind)op->kind));
    // Topological order and single producers also rule out an op writing
    // a tensor it reads (which would free its own operand).
    for (uint32_t k = 0; k < op->num_inputs; ++k) {
      MgTensorId t = op->inputs[k];
      if (t >= g->num_tensors || g->tensors[t].producer >= o)
        return mg_interp_fail(ex, MG_STATUS_INVALID,
                              "operand %u is not produced before op %u", k,
                              o);
    }
    for (uint32_t k = 0; k < op->num_outputs; ++k) {
      MgTensorId t = op->outputs[k];
      if (t >= g->num_tensors || g->tensors[t].producer != o)
        return mg_interp_fail(ex, MG_STATUS_INVALID,
                              "result %u of op %u has another producer", k,
                              o);
    }
  }
  ex->cur_op = -1;
  return MG_STATUS_OK;
}

static MgStatus bind_input(MgExec *ex, const MgGraph *g, const MgOp *op,
                           const MgBuffer *inputs, uint32_t num_inputs,
                           MgExecValue *vals) {
  if (op->attr < 0 || (uint32_t)op->attr >= num_inputs)
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "input position %d out of range (%u inputs)",
                          op->attr, num_inputs);
  const MgBuffer *in = &inputs[op->attr];
  const MgTensor *t = &g->tensors[op->outputs[0]];
  size_t n;
  if (!mg_interp_numel(in->rank, in->dims, &n))
    return mg_interp_fail(ex, MG_STATUS_INVALID, "input %d is malformed",
                          op->attr);
  if (!in->data)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "input %d has no data",
                          op->attr);
  // Only root inputs come from the caller; thread-graph inputs are tiles
  // whose shapes the enclosing block computed.
  if (g->level == MG_LEVEL_KERNEL) {
    bool ok = in->rank == t->rank;
    for (uint32_t d = 0; ok && d < t->rank; ++d)
      ok = in->dims[d] == t->dims[d];
    if (!ok)
      return mg_interp_fail(ex, MG_STATUS_INVALID,
                            "input %d does not have the declared shape",
                            op->attr);
  }
  mg_interp_value_borrow(&vals[op->outputs[0]], in);
  return MG_STATUS_OK;
}

/// last[t] = index of the last op reading t; graph outputs never die.
static uint32_t *last_uses(const MgGraph *g) {
  uint32_t *last = malloc((g->num_tensors ? g->num_tensors : 1) *
                          sizeof(uint32_t));
  if (!last)
    return NULL;
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    last[t] = MG_NO_ID;
  for (uint32_t o = 0; o < g->num_ops; ++o)
    for (uint32_t k = 0; k < g->ops[o].num_inputs; ++k)
      last[g->ops[o].inputs[k]] = o;
  for (uint32_t j = 0; j < g->num_outputs; ++j)
    last[g->outputs[j]] = MG_NO_ID;
  return last;
}

MgStatus mg_interp_run_flat(MgExec *ex, MgGraphId gid, const MgBuffer *inputs,
                            uint32_t num_inputs, MgExecValue *vals,
                            bool free_dead) {
  const MgGraph *g = &ex->program->graphs[gid];
  uint32_t *last = NULL;
  if (free_dead && !(last = last_uses(g)))
    return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
  MgStatus st = MG_STATUS_OK;
  for (uint32_t o = 0; o < g->num_ops && st == MG_STATUS_OK; ++o) {
    const MgOp *op = &g->ops[o];
    ex->cur_graph = (int32_t)gid;
    ex->cur_op = (int32_t)o;
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      st = bind_input(ex, g, op, inputs, num_inputs, vals);
      break;
    case MG_OP_CUSTOM:
      if (g->level != MG_LEVEL_KERNEL)
        st = mg_interp_fail(ex, MG_STATUS_UNSUPPORTED,
                            "'custom' is only allowed in a kernel graph");
      else
        st = mg_interp_run_custom(ex, gid, o, vals);
      break;
    case MG_OP_ITERATOR:
    case MG_OP_ACCUM:
    case MG_OP_SAVER:
    case MG_OP_THREAD:
      st = mg_interp_fail(ex, MG_STATUS_UNSUPPORTED,
                          "'%s' is only allowed in a block graph",
                          mg_op_kind_name((MgOpKind)op->kind));
      break;
    case MG_OP_TRANSPOSE:
    case MG_OP_RESHAPE:
    case MG_OP_SLICE:
    case MG_OP_IM2COL:
      if (g->level != MG_LEVEL_KERNEL)
        st = mg_interp_fail(ex, MG_STATUS_UNSUPPORTED,
                            "'%s' is only allowed in a kernel graph",
                            mg_op_kind_name((MgOpKind)op->kind));
      else
        st = mg_interp_eval_view(ex, op, vals);
      break;
    default:
      st = mg_interp_eval_basic(ex, op, vals);
      break;
    }
    if (last)
      for (uint32_t k = 0; k < op->num_inputs; ++k)
        if (last[op->inputs[k]] == o)
          mg_interp_value_release(&vals[op->inputs[k]]);
  }
  free(last);
  return st;
}

MgStatus mg_exec_run(const MgProgram *program, const MgDomain *domain,
                     void *domain_ctx, const MgBuffer *inputs,
                     MgBuffer *outputs, MgDiag *diag) {
  MgExec ex = {.program = program, .dom = domain, .dctx = domain_ctx,
               .diag = diag, .cur_graph = -1, .cur_op = -1};
  if (!program || !domain || !domain->binary || !domain->unary ||
      !domain->add_into || !domain->matmul || !outputs)
    return mg_interp_fail(&ex, MG_STATUS_INVALID,
                          "missing program, domain or outputs");
  // Zero the outputs first so that a caller may free them on any failure.
  if (program->num_graphs && program->graphs)
    memset(outputs, 0,
           (size_t)program->graphs[0].num_outputs * sizeof *outputs);
  MgStatus st = mg_interp_check_graph(&ex, 0, MG_LEVEL_KERNEL);
  if (st != MG_STATUS_OK)
    return st;
  const MgGraph *g = &program->graphs[0];
  if (!inputs && g->num_inputs)
    return mg_interp_fail(&ex, MG_STATUS_INVALID, "missing inputs");
  MgExecValue *vals = calloc(g->num_tensors ? g->num_tensors : 1, sizeof *vals);
  if (!vals)
    return mg_interp_fail(&ex, MG_STATUS_NOMEM, "out of memory");
  st = mg_interp_run_flat(&ex, 0, inputs, g->num_inputs, vals, true);
  uint32_t done = 0;
  for (; st == MG_STATUS_OK && done < g->num_outputs; ++done) {
    MgTensorId t = g->outputs[done];
    ex.cur_graph = 0;
    ex.cur_op = (int32_t)g->tensors[t].producer;
    bool again = false; // listed twice: copy all but the last occurrence
    for (uint32_t j = done + 1; j < g->num_outputs; ++j)
      again = again || g->outputs[j] == t;
    if (!again) {
      st = mg_interp_value_take(&ex, &vals[t], &outputs[done]);
    } else if (!vals[t].buf.data) {
      st = mg_interp_fail(&ex, MG_STATUS_INVALID, "output was never computed");
    } else {
      MgExecValue copy = {0};
      st = mg_interp_value_copy(&ex, &copy, &vals[t].buf);
      outputs[done] = copy.buf;
    }
  }
  if (st != MG_STATUS_OK)
    for (uint32_t j = 0; j < done; ++j)
      mg_buffer_free(&outputs[j]);
  for (uint32_t t = 0; t < g->num_tensors; ++t)
    mg_interp_value_release(&vals[t]);
  free(vals);
  mg_interp_exec_dispose(&ex);
  return st;
}
