//===- shape.c - Shape inference and local rules of every op kind ---------===//
//
// One function, mg_graph_infer, decides whether an op may be added to a
// graph and what it produces. Builders call it before appending; validation
// calls it again on every stored op and compares, so both agree by
// construction. It reads only tensors made by earlier ops (ops are in
// topological order) and, for custom/thread ops, the referenced graph's
// inputs and outputs.
//
// Messages follow the MLIR verifier style: lowercase, the offending thing in
// single quotes, expected vs actual.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <string.h>

#include <math.h>
#include <stdio.h>

const char *mg_graph_axis_name(int axis) {
  static const char *const names[3] = {"x", "y", "z"};
  return axis >= 0 && axis < 3 ? names[axis] : "?";
}

MgStatus mg_graph_check_type(MgGraphType t, const char *what, int32_t g,
                             int32_t op, MgDiag *diag) {
  uint32_t dtype = t.dtype, rank = t.rank;
  const int64_t *dims = t.dims;
  if (dtype >= MG_DTYPE_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, g, op,
                       "%s has unknown dtype %u", what, dtype);
  if (rank < 1 || rank > MG_MAX_DIMS)
    return mg_diag_set(diag, MG_STATUS_INVALID, g, op,
                       "%s has rank %u, expected 1..%d", what, rank,
                       MG_MAX_DIMS);
  int64_t numel = 1;
  for (uint32_t d = 0; d < rank; d++) {
    if (dims[d] < 1)
      return mg_diag_set(diag, MG_STATUS_INVALID, g, op,
                         "%s dim %u is %lld, expected >= 1", what, d,
                         (long long)dims[d]);
    if (dims[d] > MG_MAX_NUMEL / numel)
      return mg_diag_set(diag, MG_STATUS_INVALID, g, op,
                         "%s has more than %lld elements", what,
                         (long long)MG_MAX_NUMEL);
    numel *= dims[d];
  }
  return MG_STATUS_OK;
}

// "f16[2,4096]", for signature mismatch messages.
const char *mg_graph_format_type(const MgTensor *t, char *buf, size_t size) {
  const char *dt = mg_dtype_name((MgDType)t->dtype);
  int n = snprintf(buf, size, "%s[", dt ? dt : "?");
  for (uint32_t d = 0; d < t->rank && d < MG_MAX_DIMS && n > 0 &&
                       (size_t)n < size; d++)
    n += mg_tensor_sym(t, d)
             ? snprintf(buf + n, size - (size_t)n, "%ss%u=%lld", d ? "," : "",
                        mg_tensor_sym(t, d), (long long)t->dims[d])
             : snprintf(buf + n, size - (size_t)n, "%s%lld", d ? "," : "",
                        (long long)t->dims[d]);
  if (n > 0 && (size_t)n < size)
    snprintf(buf + n, size - (size_t)n, "]");
  return buf;
}

bool mg_graph_same_shape(const MgTensor *a, const MgTensor *b) {
  if (a->rank != b->rank || a->rank > MG_MAX_DIMS || a->sym != b->sym)
    return false;
  return memcmp(a->dims, b->dims, a->rank * sizeof(int64_t)) == 0;
}

bool mg_graph_same_type(const MgTensor *a, const MgTensor *b) {
  return a->dtype == b->dtype && mg_graph_same_shape(a, b);
}

// 'lhs'/'rhs' for two-operand ops, else 'operand N'.
static const char *operand_name(const MgOp *op, uint32_t i, char *buf,
                                size_t size) {
  if (op->num_inputs == 2 && i < 2)
    return i == 0 ? "lhs" : "rhs";
  snprintf(buf, size, "operand %u", i);
  return buf;
}

// "operand 'lhs'" or "operand 3", for messages about operand ids.
static const char *operand_label(const MgOp *op, uint32_t i, char *buf,
                                 size_t size) {
  if (op->num_inputs == 2 && i < 2)
    snprintf(buf, size, "operand '%s'", i == 0 ? "lhs" : "rhs");
  else
    snprintf(buf, size, "operand %u", i);
  return buf;
}

// Allowed operand counts per kind.
static void arity(MgOpKind kind, uint32_t *lo, uint32_t *hi) {
  switch (kind) {
  case MG_OP_INPUT:
    *lo = *hi = 0;
    return;
  case MG_OP_MATMUL: case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL:
  case MG_OP_DIV: case MG_OP_MAX:
    *lo = *hi = 2;
    return;
  case MG_OP_CONCAT:
    *lo = 2, *hi = MG_MAX_OP_INPUTS;
    return;
  case MG_OP_CUSTOM: case MG_OP_THREAD:
    *lo = 0, *hi = MG_MAX_OP_INPUTS;
    return;
  default: // unary, scalar, sum, iterator, accum, saver
    *lo = *hi = 1;
    return;
  }
}

typedef struct InferCtx {
  const MgProgram *p;
  const MgGraph *gr;
  const MgOp *op;
  const char *name; // op kind name
  int32_t g, oi;    // for diagnostics
  MgDiag *diag;
} InferCtx;

#define FAIL(cx, ...)                                                          \
  mg_diag_set((cx)->diag, MG_STATUS_INVALID, (cx)->g, (cx)->oi, __VA_ARGS__)

static const MgTensor *operand(const InferCtx *cx, uint32_t i) {
  return &cx->gr->tensors[cx->op->inputs[i]];
}

static MgStatus infer_binary(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0), *b = operand(cx, 1);
  if (a->rank != b->rank)
    return FAIL(cx, "'%s' rank mismatch: 'lhs' has rank %u but 'rhs' has "
                "rank %u", cx->name, a->rank, b->rank);
  *out = *a;
  for (uint32_t d = 0; d < a->rank; d++) {
    unsigned sa = mg_tensor_sym(a, d), sb = mg_tensor_sym(b, d);
    if (sa && sb && sa != sb)
      return FAIL(cx, "'%s' dim %u is symbol %u in 'lhs' but symbol %u in "
                  "'rhs'", cx->name, d, sa, sb);
    // A symbol broadcasts only against a static 1: any other static size
    // would hold for one size of the symbol only.
    if ((sa && !sb && b->dims[d] != 1) || (sb && !sa && a->dims[d] != 1))
      return FAIL(cx, "'%s' dim %u is symbol %u in '%s' but %lld in '%s'",
                  cx->name, d, sa ? sa : sb, sa ? "lhs" : "rhs",
                  (long long)(sa ? b->dims[d] : a->dims[d]),
                  sa ? "rhs" : "lhs");
    if (sb && !sa) {
      out->dims[d] = b->dims[d];
      mg_tensor_set_sym(out, d, sb);
      continue;
    }
    if (a->dims[d] == b->dims[d] || b->dims[d] == 1)
      continue;
    if (a->dims[d] == 1) {
      out->dims[d] = b->dims[d]; // broadcast lhs
      continue;
    }
    return FAIL(cx, "'%s' shape mismatch: 'lhs' dim %u is %lld but 'rhs' dim "
                "%u is %lld (neither is 1)", cx->name, d,
                (long long)a->dims[d], d, (long long)b->dims[d]);
  }
  return MG_STATUS_OK;
}

static MgStatus infer_matmul(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0), *b = operand(cx, 1);
  if (a->rank < 2 || b->rank < 2)
    return FAIL(cx, "matmul needs rank >= 2 but '%s' has rank %u",
                a->rank < 2 ? "lhs" : "rhs", a->rank < 2 ? a->rank : b->rank);
  if (a->rank != b->rank)
    return FAIL(cx, "matmul rank mismatch: 'lhs' has rank %u but 'rhs' has "
                "rank %u", a->rank, b->rank);
  uint32_t r = a->rank;
  for (uint32_t d = 0; d + 2 < r; d++)
    if (a->dims[d] != b->dims[d] ||
        mg_tensor_sym(a, d) != mg_tensor_sym(b, d))
      return FAIL(cx, "matmul batch mismatch: 'lhs' dim %u is %lld but 'rhs' "
                  "dim %u is %lld", d, (long long)a->dims[d], d,
                  (long long)b->dims[d]);
  if (mg_tensor_sym(a, r - 1) != mg_tensor_sym(b, r - 2))
    return FAIL(cx, "matmul contraction mismatch: 'lhs' dim %u is symbol %u "
                "but 'rhs' dim %u is symbol %u", r - 1,
                mg_tensor_sym(a, r - 1), r - 2, mg_tensor_sym(b, r - 2));
  if (a->dims[r - 1] != b->dims[r - 2])
    return FAIL(cx, "matmul contraction mismatch: 'lhs' dim %u is %lld but "
                "'rhs' dim %u is %lld", r - 1, (long long)a->dims[r - 1],
                r - 2, (long long)b->dims[r - 2]);
  *out = *a;
  out->dims[r - 1] = b->dims[r - 1];
  mg_tensor_set_sym(out, r - 1, mg_tensor_sym(b, r - 1));
  return MG_STATUS_OK;
}

static MgStatus infer_scalar(const InferCtx *cx, MgTensor *out) {
  double s = cx->op->scalar;
  if (!isfinite(s))
    return FAIL(cx, "'%s' scalar must be finite", cx->name);
  if (cx->op->kind == MG_OP_DIV_SCALAR && s == 0.0)
    return FAIL(cx, "'div_scalar' divides by zero");
  *out = *operand(cx, 0);
  return MG_STATUS_OK;
}

static MgStatus infer_sum(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  int32_t dim = cx->op->attr;
  if (dim < 0 || (uint32_t)dim >= a->rank)
    return FAIL(cx, "%s dim %d is out of range for rank %u", cx->name, dim,
                a->rank);
  *out = *a;
  out->dims[dim] = 1;
  mg_tensor_set_sym(out, (uint32_t)dim, 0);
  return MG_STATUS_OK;
}

static MgStatus infer_concat(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  int32_t dim = cx->op->attr;
  char nb[2][24];
  if (dim < 0 || (uint32_t)dim >= a->rank)
    return FAIL(cx, "concat dim %d is out of range for rank %u", dim, a->rank);
  *out = *a;
  for (uint32_t i = 1; i < cx->op->num_inputs; i++) {
    const MgTensor *b = operand(cx, i);
    const char *an = operand_name(cx->op, 0, nb[0], sizeof nb[0]);
    const char *bn = operand_name(cx->op, i, nb[1], sizeof nb[1]);
    if (b->rank != a->rank)
      return FAIL(cx, "concat rank mismatch: '%s' has rank %u but '%s' has "
                  "rank %u", an, a->rank, bn, b->rank);
    if (mg_tensor_sym(a, (uint32_t)dim) || mg_tensor_sym(b, (uint32_t)dim))
      return FAIL(cx, "concat along dim %d, which is a symbol (a sum of "
                  "sizes is not a symbol)", dim);
    for (uint32_t d = 0; d < a->rank; d++)
      if ((int32_t)d != dim && (b->dims[d] != a->dims[d] ||
                                mg_tensor_sym(b, d) != mg_tensor_sym(a, d)))
        return FAIL(cx, "concat shape mismatch: '%s' dim %u is %lld but '%s' "
                    "dim %u is %lld", an, d, (long long)a->dims[d], bn, d,
                    (long long)b->dims[d]);
    out->dims[dim] += b->dims[dim]; // bounded by the numel check after
  }
  return MG_STATUS_OK;
}

static MgStatus infer_transpose(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  if (!mg_graph_is_permutation(cx->op->perm, a->rank))
    return FAIL(cx, "transpose perm is not a permutation of 0..%u",
                a->rank ? a->rank - 1 : 0);
  *out = *a;
  for (uint32_t d = 0; d < a->rank; d++) {
    out->dims[d] = a->dims[cx->op->perm[d]];
    mg_tensor_set_sym(out, d, mg_tensor_sym(a, (uint32_t)cx->op->perm[d]));
  }
  return MG_STATUS_OK;
}

static MgStatus infer_reshape(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  int32_t rank = cx->op->attr;
  if (rank < 1 || rank > MG_MAX_DIMS)
    return FAIL(cx, "reshape rank %d is out of range 1..%d", rank,
                MG_MAX_DIMS);
  *out = *a;
  out->rank = (uint8_t)rank;
  out->sym = 0;
  // The result has the operand's symbols in the same order, so the
  // element counts agree at every size once they agree at this one (and
  // the printed `?` name them without saying which).
  unsigned order[MG_MAX_DIMS], num_syms = 0, next = 0;
  for (uint32_t d = 0; d < a->rank; d++)
    if (mg_tensor_sym(a, d))
      order[num_syms++] = mg_tensor_sym(a, d);
  int64_t n = 1;
  for (int32_t d = 0; d < MG_MAX_DIMS; d++) {
    out->dims[d] = d < rank ? cx->op->shape[d] : 0;
    if (d < rank && out->dims[d] < 0 && out->dims[d] >= -MG_MAX_SYMS) {
      unsigned sym = (unsigned)-out->dims[d];
      out->dims[d] = 0;
      for (uint32_t e = 0; e < a->rank; e++)
        if (mg_tensor_sym(a, e) == sym)
          out->dims[d] = a->dims[e];
      if (!out->dims[d])
        return FAIL(cx, "reshape dim %d names symbol %u, which the operand "
                    "does not have", d, sym);
      if (next == num_syms || order[next++] != sym)
        return FAIL(cx, "reshape dim %d is symbol %u out of the operand's "
                    "order of symbols", d, sym);
      mg_tensor_set_sym(out, (uint32_t)d, sym);
    }
    if (d < rank && (out->dims[d] < 1 || out->dims[d] > (INT64_MAX / n)))
      return FAIL(cx, "reshape dim %d is %lld", d, (long long)out->dims[d]);
    if (d < rank)
      n *= out->dims[d];
  }
  if (n != mg_tensor_numel(a))
    return FAIL(cx, "reshape to %lld elements of a tensor of %lld", (long long)n,
                (long long)mg_tensor_numel(a));
  if (next != num_syms)
    return FAIL(cx, "reshape drops symbol %u of its operand", order[next]);
  return MG_STATUS_OK;
}

static MgStatus infer_slice(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  int32_t dim = cx->op->attr;
  int64_t first = cx->op->shape[0], count = cx->op->shape[1];
  if (dim < 0 || (uint32_t)dim >= a->rank)
    return FAIL(cx, "slice dim %d is out of range for rank %u", dim, a->rank);
  if (mg_tensor_sym(a, (uint32_t)dim))
    return FAIL(cx, "slice along dim %d, which is symbol %u", dim,
                mg_tensor_sym(a, (uint32_t)dim));
  if (first < 0 || count < 1 || first > a->dims[dim] - count)
    return FAIL(cx, "slice [%lld, %lld + %lld) is out of dim %d's 0..%lld",
                (long long)first, (long long)first, (long long)count, dim,
                (long long)a->dims[dim]);
  *out = *a;
  out->dims[dim] = count;
  return MG_STATUS_OK;
}

static MgStatus infer_im2col(const InferCtx *cx, MgTensor *out) {
  const MgTensor *x = operand(cx, 0);
  MgIm2col c = mg_op_im2col(cx->op);
  if (x->rank != 4)
    return FAIL(cx, "im2col of a rank-%u tensor (NHWC, rank 4)", x->rank);
  if (x->sym)
    return FAIL(cx, "im2col of a tensor with a dynamic dim");
  if (c.groups < 1 || x->dims[3] % c.groups)
    return FAIL(cx, "im2col groups %d do not divide the %lld channels",
                c.groups, (long long)x->dims[3]);
  if (c.kh < 1 || c.kw < 1 || c.sh < 1 || c.sw < 1 || c.dh < 1 || c.dw < 1 ||
      c.kh > 1024 || c.kw > 1024 || c.sh > 1024 || c.sw > 1024 ||
      c.dh > 1024 || c.dw > 1024)
    return FAIL(cx, "im2col window %lldx%lld, strides %lldx%lld, dilations "
                "%lldx%lld: each must be 1..1024", (long long)c.kh,
                (long long)c.kw, (long long)c.sh, (long long)c.sw,
                (long long)c.dh, (long long)c.dw);
  if (c.pad_top < 0 || c.pad_bottom < 0 || c.pad_left < 0 ||
      c.pad_right < 0 || c.pad_top > 65536 || c.pad_bottom > 65536 ||
      c.pad_left > 65536 || c.pad_right > 65536)
    return FAIL(cx, "im2col padding must be 0..65536");
  int64_t ho, wo;
  mg_im2col_out_hw(&c, x->dims[1], x->dims[2], &ho, &wo);
  if (ho < 1 || wo < 1)
    return FAIL(cx, "im2col window does not fit the %lldx%lld input",
                (long long)x->dims[1], (long long)x->dims[2]);
  *out = *x;
  out->rank = 3;
  out->dims[0] = c.groups;
  out->dims[1] = x->dims[0] * ho * wo;
  out->dims[2] = c.kh * c.kw * (x->dims[3] / c.groups);
  for (uint32_t d = 3; d < MG_MAX_DIMS; d++)
    out->dims[d] = 0;
  return MG_STATUS_OK;
}

static MgStatus infer_iterator(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  const MgOp *op = cx->op;
  *out = *a;
  for (int ax = 0; ax < 3; ax++) {
    int m = op->imap[ax];
    if (m == MG_MAP_NONE)
      continue; // replica: every block along this axis sees the same data
    if (m < 0 || (uint32_t)m >= a->rank)
      return FAIL(cx, "imap axis '%s' names dim %d but the input has rank %u",
                  mg_graph_axis_name(ax), m, a->rank);
    for (int bx = 0; bx < ax; bx++)
      if (op->imap[bx] == m)
        return FAIL(cx, "imap axes '%s' and '%s' both map to dim %d",
                    mg_graph_axis_name(bx), mg_graph_axis_name(ax), m);
    int32_t n = cx->gr->grid[ax];
    if (n < 1)
      return FAIL(cx, "grid axis '%s' has size %d, expected >= 1",
                  mg_graph_axis_name(ax), n);
    unsigned gs = cx->gr->grid_sym[ax], ds = mg_tensor_sym(a, (uint32_t)m);
    if (gs != ds)
      return FAIL(cx, "imap axis '%s' (%s%u) maps dim %d (%s%u): a symbol is "
                  "split only by a grid axis of its own size",
                  mg_graph_axis_name(ax), gs ? "symbol " : "static, ", gs, m,
                  ds ? "symbol " : "static, ", ds);
    mg_tensor_set_sym(out, (uint32_t)m, 0); // grid_rows indices per block
    if (gs) {
      int64_t rows = cx->gr->grid_rows[ax];
      if (rows < 1 || n != (out->dims[m] + rows - 1) / rows)
        return FAIL(cx, "imap axis '%s' of size %d with %lld rows a block "
                    "does not cover symbol %u's %lld", mg_graph_axis_name(ax),
                    n, (long long)rows, gs, (long long)out->dims[m]);
      out->dims[m] = rows; // the last tile may run past the size
      continue;
    }
    if (out->dims[m] % n != 0)
      return FAIL(cx, "imap axis '%s' of size %d does not divide dim %d of "
                  "size %lld", mg_graph_axis_name(ax), n, m,
                  (long long)out->dims[m]);
    out->dims[m] /= n;
  }
  int f = op->fmap;
  if (f != MG_MAP_NONE) {
    if (f < 0 || (uint32_t)f >= a->rank)
      return FAIL(cx, "fmap names dim %d but the input has rank %u", f,
                  a->rank);
    unsigned fs = cx->gr->forloop_sym, ds = mg_tensor_sym(out, (uint32_t)f);
    if (fs != ds && !fs)
      return FAIL(cx, "fmap names dim %d (symbol %u) but the for-loop has a "
                  "static range: a symbol is split only by a for-loop over "
                  "it", f, ds);
    if (fs != ds)
      return FAIL(cx, "fmap names dim %d (%s%u) but the for-loop runs over "
                  "symbol %u", f, ds ? "symbol " : "static, ", ds, fs);
    int32_t n = cx->gr->forloop;
    if (n < 1)
      return FAIL(cx, "for-loop range is %d, expected >= 1", n);
    if (fs) { // forloop_rows an iteration; the last holds what is left
      int64_t rows = cx->gr->forloop_rows;
      if (rows < 1 || n != (out->dims[f] + rows - 1) / rows)
        return FAIL(cx, "a for-loop of range %d with %lld rows an iteration "
                    "does not cover symbol %u's %lld", n, (long long)rows, fs,
                    (long long)out->dims[f]);
      mg_tensor_set_sym(out, (uint32_t)f, 0);
      out->dims[f] = rows;
      goto mapped;
    }
    if (out->dims[f] % n != 0)
      return FAIL(cx, "for-loop range %d does not divide tile dim %d of size "
                  "%lld", n, f, (long long)out->dims[f]);
    out->dims[f] /= n;
  }
mapped:
  if (out->sym)
    return FAIL(cx, "the tile keeps a symbolic dim: a symbol must be mapped "
                "to the grid axis of its size");
  return MG_STATUS_OK;
}

static MgStatus infer_accum(const InferCtx *cx, MgTensor *out) {
  uint32_t acc = cx->op->acc;
  if (acc >= MG_ACCUM_COUNT)
    return FAIL(cx, "unknown accumulator kind %u", acc);
  *out = *operand(cx, 0);
  if (acc == MG_ACCUM_SUM_LAST || acc == MG_ACCUM_SUM_SQ_LAST)
    out->dims[out->rank - 1] = 1;
  if (acc == MG_ACCUM_ONLINE) { // the max must broadcast to the tile
    const MgTensor *m = operand(cx, 1);
    if (m->rank != out->rank)
      return FAIL(cx, "online accumulator: the max has rank %u but the tile "
                  "has rank %u", m->rank, out->rank);
    for (uint32_t d = 0; d < m->rank; d++)
      if (m->dims[d] != 1 && m->dims[d] != out->dims[d])
        return FAIL(cx, "online accumulator: max dim %u is %lld but the tile's "
                    "is %lld (expected it or 1)", d, (long long)m->dims[d],
                    (long long)out->dims[d]);
  }
  return MG_STATUS_OK;
}

// The size of symbol s in graph `gr`: a dim of one of its inputs; 0 when
// none has it.
static int64_t symbol_size(const MgGraph *gr, unsigned s) {
  for (uint32_t i = 0; i < gr->num_ops; i++) {
    if (gr->ops[i].kind != MG_OP_INPUT)
      continue;
    const MgTensor *x = &gr->tensors[gr->ops[i].outputs[0]];
    for (uint32_t d = 0; d < x->rank; d++)
      if (mg_tensor_sym(x, d) == s)
        return x->dims[d];
  }
  return 0;
}

static MgStatus infer_saver(const InferCtx *cx, MgTensor *out) {
  const MgTensor *a = operand(cx, 0);
  const MgOp *op = cx->op;
  *out = *a;
  for (int ax = 0; ax < 3; ax++) {
    int m = op->omap[ax];
    int32_t n = cx->gr->grid[ax];
    if (n < 1)
      return FAIL(cx, "grid axis '%s' has size %d, expected >= 1",
                  mg_graph_axis_name(ax), n);
    unsigned gs = cx->gr->grid_sym[ax];
    if (m == MG_MAP_NONE) {
      if (n > 1 || gs) // blocks along this axis would overwrite each other
        return FAIL(cx, "grid axis '%s' of size %d is not mapped by omap",
                    mg_graph_axis_name(ax), n);
      continue;
    }
    if (m < 0 || (uint32_t)m >= a->rank)
      return FAIL(cx, "omap axis '%s' names dim %d but the tile has rank %u",
                  mg_graph_axis_name(ax), m, a->rank);
    for (int bx = 0; bx < ax; bx++)
      if (op->omap[bx] == m)
        return FAIL(cx, "omap axes '%s' and '%s' both map to dim %d",
                    mg_graph_axis_name(bx), mg_graph_axis_name(ax), m);
    if (out->dims[m] > MG_MAX_NUMEL / n)
      return FAIL(cx, "saver output has more than %lld elements",
                  (long long)MG_MAX_NUMEL);
    if (gs && out->dims[m] != cx->gr->grid_rows[ax])
      return FAIL(cx, "omap axis '%s' is symbol %u but maps tile dim %d of "
                  "size %lld (expected its %d rows a block)",
                  mg_graph_axis_name(ax), gs, m, (long long)out->dims[m],
                  cx->gr->grid_rows[ax]);
    if (gs) { // the symbol's size, as the block's inputs have it
      int64_t size = symbol_size(cx->gr, gs);
      if (size < 1)
        return FAIL(cx, "omap axis '%s' is symbol %u, which no input of the "
                    "block graph has", mg_graph_axis_name(ax), gs);
      out->dims[m] = size;
    } else {
      out->dims[m] *= n;
    }
    mg_tensor_set_sym(out, (uint32_t)m, gs);
  }
  return MG_STATUS_OK;
}

// CUSTOM (body: block graph) and THREAD (body: thread graph): operands must
// match the body's inputs exactly; outputs are the body's outputs.
static MgStatus infer_call(const InferCtx *cx, MgTensor *out,
                           uint32_t *num_out) {
  const MgOp *op = cx->op;
  MgLevel want = op->kind == MG_OP_CUSTOM ? MG_LEVEL_BLOCK : MG_LEVEL_THREAD;
  int32_t sub = op->attr;
  if (sub < 0 || (uint32_t)sub >= cx->p->num_graphs)
    return FAIL(cx, "'%s' names graph %d but the program has %u graphs",
                cx->name, sub, cx->p->num_graphs);
  const MgGraph *sg = mg_program_graph(cx->p, (MgGraphId)sub);
  // Levels strictly descend (kernel -> block -> thread), so bodies cannot
  // recurse.
  if (sg->level != want)
    return FAIL(cx, "'%s' body graph %d is a %s graph, expected a %s graph",
                cx->name, sub, mg_level_name((MgLevel)sg->level)
                ? mg_level_name((MgLevel)sg->level) : "?",
                mg_level_name(want));
  if (op->num_inputs != sg->num_inputs)
    return FAIL(cx, "'%s' passes %u operands but graph %d takes %u inputs",
                cx->name, op->num_inputs, sub, sg->num_inputs);
  uint32_t found = 0;
  for (uint32_t i = 0; i < sg->num_ops; i++) {
    const MgOp *in = &sg->ops[i];
    if (in->kind != MG_OP_INPUT)
      continue;
    if (in->attr < 0 || (uint32_t)in->attr >= op->num_inputs ||
        in->outputs[0] >= sg->num_tensors)
      return FAIL(cx, "'%s' body graph %d has a malformed input op %u",
                  cx->name, sub, i);
    const MgTensor *want_t = &sg->tensors[in->outputs[0]];
    const MgTensor *got = operand(cx, (uint32_t)in->attr);
    if (!mg_graph_same_type(got, want_t)) {
      char a[64], b[64];
      return FAIL(cx, "'%s' operand %d has type %s but graph %d expects %s",
                  cx->name, in->attr, mg_graph_format_type(got, a, sizeof a), sub,
                  mg_graph_format_type(want_t, b, sizeof b));
    }
    // A block graph's input has the layout of the kernel tensor it gets.
    if (op->kind == MG_OP_CUSTOM &&
        !mg_graph_same_layout(sg, want_t, cx->gr, got))
      return FAIL(cx, "'%s' operand %d is stored in another layout than "
                  "graph %d's input says", cx->name, in->attr, sub);
    found++;
  }
  if (found != op->num_inputs)
    return FAIL(cx, "'%s' body graph %d has %u input ops, expected %u",
                cx->name, sub, found, op->num_inputs);
  if (sg->num_outputs == 0)
    return FAIL(cx, "'%s' body graph %d has no outputs", cx->name, sub);
  if (sg->num_outputs > MG_MAX_OP_OUTPUTS)
    return FAIL(cx, "'%s' body graph %d has %u outputs, at most %d allowed",
                cx->name, sub, sg->num_outputs, MG_MAX_OP_OUTPUTS);
  for (uint32_t i = 0; i < sg->num_outputs; i++) {
    if (sg->outputs[i] >= sg->num_tensors)
      return FAIL(cx, "'%s' body graph %d output %u is not a tensor",
                  cx->name, sub, i);
    out[i] = sg->tensors[sg->outputs[i]];
  }
  *num_out = sg->num_outputs;
  return MG_STATUS_OK;
}

// Operand ids, ranks and the block-graph DRAM rules.
static MgStatus check_operands(const InferCtx *cx, uint32_t op_index) {
  const MgGraph *gr = cx->gr;
  const MgOp *op = cx->op;
  char buf[24];
  for (uint32_t i = 0; i < op->num_inputs; i++) {
    const char *on = operand_label(op, i, buf, sizeof buf);
    MgTensorId t = op->inputs[i];
    if (t >= gr->num_tensors)
      return FAIL(cx, "'%s' %s names tensor %u but the graph has %u tensors",
                  cx->name, on, t, gr->num_tensors);
    const MgTensor *tt = &gr->tensors[t];
    if (tt->producer >= op_index)
      return FAIL(cx, "'%s' %s reads tensor %u before it is made (ops must "
                  "be in topological order)", cx->name, on, t);
    if (tt->rank < 1 || tt->rank > MG_MAX_DIMS)
      return FAIL(cx, "'%s' %s has rank %u, expected 1..%d", cx->name, on,
                  tt->rank, MG_MAX_DIMS);
    if (gr->level != MG_LEVEL_BLOCK)
      continue;
    MgOpKind pk = (MgOpKind)gr->ops[tt->producer].kind;
    if (op->kind == MG_OP_ITERATOR && pk != MG_OP_INPUT)
      return FAIL(cx, "iterator input must be a block-graph input, but "
                  "tensor %u comes from '%s'", t,
                  mg_op_kind_name(pk) ? mg_op_kind_name(pk) : "?");
    if (op->kind != MG_OP_ITERATOR && pk == MG_OP_INPUT)
      return FAIL(cx, "'%s' reads block-graph input tensor %u directly; only "
                  "an iterator may read it", cx->name, t);
    if (pk == MG_OP_SAVER)
      return FAIL(cx, "'%s' reads saver result tensor %u, which is a kernel "
                  "tensor", cx->name, t);
  }
  return MG_STATUS_OK;
}

MgStatus mg_graph_infer(const MgProgram *p, MgGraphId g, uint32_t op_index,
                        const MgOp *op, MgOpResults *res, MgDiag *diag) {
  MgTensor *const out = res->t;
  uint32_t *const num_out = &res->n;
  const MgGraph *gr = &p->graphs[g];
  InferCtx cx = {p, gr, op, mg_op_kind_name((MgOpKind)op->kind), (int32_t)g,
                 (int32_t)op_index, diag};
  *num_out = 0;
  if (!cx.name)
    return FAIL(&cx, "unknown op kind %u", op->kind);
  if (op->kind == MG_OP_INPUT)
    return FAIL(&cx, "'input' ops carry a type; add them with "
                "mg_graph_add_input");
  if (!mg_op_kind_allowed_at((MgOpKind)op->kind, (MgLevel)gr->level))
    return FAIL(&cx, "'%s' is not allowed in a %s graph", cx.name,
                mg_level_name((MgLevel)gr->level)
                    ? mg_level_name((MgLevel)gr->level) : "?");
  uint32_t lo, hi;
  arity((MgOpKind)op->kind, &lo, &hi);
  if (op->kind == MG_OP_ACCUM && op->acc == MG_ACCUM_ONLINE)
    lo = hi = 2; // the tile and its max
  if (op->num_inputs < lo || op->num_inputs > hi)
    return lo == hi ? FAIL(&cx, "'%s' takes %u operands but got %u", cx.name,
                           lo, op->num_inputs)
                    : FAIL(&cx, "'%s' takes %u to %u operands but got %u",
                           cx.name, lo, hi, op->num_inputs);
  MgStatus st = check_operands(&cx, op_index);
  if (st != MG_STATUS_OK)
    return st;

  *num_out = 1;
  switch ((MgOpKind)op->kind) {
  case MG_OP_MATMUL:
    st = infer_matmul(&cx, &out[0]);
    break;
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL: case MG_OP_DIV:
  case MG_OP_MAX:
    st = infer_binary(&cx, &out[0]);
    break;
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR:
    st = infer_scalar(&cx, &out[0]);
    break;
  case MG_OP_SUM: case MG_OP_REDUCE_MAX:
    st = infer_sum(&cx, &out[0]);
    break;
  case MG_OP_CONCAT:
    st = infer_concat(&cx, &out[0]);
    break;
  case MG_OP_ITERATOR:
    st = infer_iterator(&cx, &out[0]);
    break;
  case MG_OP_TRANSPOSE:
    st = infer_transpose(&cx, &out[0]);
    break;
  case MG_OP_RESHAPE:
    st = infer_reshape(&cx, &out[0]);
    break;
  case MG_OP_SLICE:
    st = infer_slice(&cx, &out[0]);
    break;
  case MG_OP_IM2COL:
    st = infer_im2col(&cx, &out[0]);
    break;
  case MG_OP_ACCUM:
    st = infer_accum(&cx, &out[0]);
    break;
  case MG_OP_SAVER:
    st = infer_saver(&cx, &out[0]);
    break;
  case MG_OP_CUSTOM: case MG_OP_THREAD:
    st = infer_call(&cx, out, num_out);
    break;
  default: // unary element-wise ops keep the shape
    out[0] = *operand(&cx, 0);
    break;
  }
  if (st != MG_STATUS_OK) {
    *num_out = 0;
    return st;
  }
  for (uint32_t i = 0; i < *num_out; i++) {
    out[i].producer = op_index;
    MgGraphType type = {out[i].dtype, out[i].rank, out[i].dims};
    st = mg_graph_check_type(type, "result", cx.g, cx.oi, diag);
    if (st != MG_STATUS_OK) {
      *num_out = 0;
      return st;
    }
  }
  return MG_STATUS_OK;
}
