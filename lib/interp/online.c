//===- online.c - The max and online-softmax accumulators -----------------===//
//
// MG_ACCUM_MAX keeps max_i tile_i. MG_ACCUM_ONLINE keeps the FlashAttention-2
// running form of Σ_i x_i·exp(m_i − M), M = max_i m_i: a running max M and
// a running sum rescaled by exp(M_old − M_new) at every step, exactly as the
// lowering does, so the interpreters test the form that runs. Both are
// written with the domain's own ops, so the finite-field verifier sees the
// same steps (there exp(a − b) = exp(a)·exp(b)⁻¹ makes the rescales cancel).
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <string.h>

MgStatus mg_interp_accum_max(MgExec *ex, MgExecValue *acc, const MgBuffer *x,
                             bool first) {
  size_t n = (size_t)mg_buffer_numel(x);
  if (first) {
    MgStatus st = mg_interp_value_shape(ex, acc, x->rank, x->dims);
    if (st != MG_STATUS_OK)
      return st;
    memcpy(acc->buf.data, x->data, n * sizeof(MgCell));
    return MG_STATUS_OK;
  }
  return mg_interp_domain_check(ex,
                  ex->dom->binary(ex->dctx, MG_OP_MAX, acc->buf.data, x->data,
                                  acc->buf.data, n),
                  "max");
}

// dst (x's shape) = src (m's shape) broadcast.
static MgCell *expand(MgExec *ex, MgExecScratch slot, const MgCell *src,
                      const MgBuffer *m, const MgBuffer *x, size_t n) {
  MgCell *t = mg_interp_scratch(ex, slot, n);
  if (t)
    mg_interp_broadcast(src, m->rank, m->dims, t, x->rank, x->dims);
  return t;
}

MgStatus mg_interp_accum_online(MgExec *ex, MgOnlineAcc on, const MgBuffer *x,
                                const MgBuffer *m, int64_t count, bool first) {
  MgExecValue *const acc = on.acc, *const runmax = on.runmax;
  const MgDomain *d = ex->dom;
  size_t n = (size_t)mg_buffer_numel(x), nm = (size_t)mg_buffer_numel(m);
  MgStatus st;
  int64_t c = 0;
  if (first) { // M = m, acc = x·exp(m − m) = x
    if ((st = mg_interp_value_shape(ex, acc, x->rank, x->dims)) ||
        (st = mg_interp_value_copy(ex, runmax, m)))
      return st;
    memcpy(acc->buf.data, x->data, n * sizeof(MgCell));
    c = 1;
  }
  MgCell *mn = mg_interp_scratch(ex, MG_EXEC_SCRATCH_MAX, nm);
  MgCell *sc = mg_interp_scratch(ex, MG_EXEC_SCRATCH_SCALE, nm);
  MgCell *t = mg_interp_scratch(ex, MG_EXEC_SCRATCH_TERM, n);
  if (!mn || !sc || !t)
    return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
  MgCell *M = runmax->buf.data;
  for (; c < count; ++c) {
    // mn = max(M, m); acc ·= exp(M − mn); acc += x·exp(m − mn); M = mn.
    if ((st = d->binary(ex->dctx, MG_OP_MAX, M, m->data, mn, nm)) ||
        (st = d->binary(ex->dctx, MG_OP_SUB, M, mn, sc, nm)) ||
        (st = d->unary(ex->dctx, MG_OP_EXP, 0.0, sc, sc, nm)))
      return mg_interp_domain_check(ex, st, "online rescale");
    const MgCell *s = expand(ex, MG_EXEC_SCRATCH_LHS, sc, m, x, n);
    if (!s)
      return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
    if ((st = d->binary(ex->dctx, MG_OP_MUL, acc->buf.data, s, acc->buf.data,
                        n)) ||
        (st = d->binary(ex->dctx, MG_OP_SUB, m->data, mn, sc, nm)) ||
        (st = d->unary(ex->dctx, MG_OP_EXP, 0.0, sc, sc, nm)))
      return mg_interp_domain_check(ex, st, "online rescale");
    if (!(s = expand(ex, MG_EXEC_SCRATCH_LHS, sc, m, x, n)))
      return mg_interp_fail(ex, MG_STATUS_NOMEM, "out of memory");
    if ((st = d->binary(ex->dctx, MG_OP_MUL, x->data, s, t, n)) ||
        (st = d->add_into(ex->dctx, acc->buf.data, t, n)))
      return mg_interp_domain_check(ex, st, "online sum");
    memcpy(M, mn, nm * sizeof(MgCell));
  }
  return MG_STATUS_OK;
}
