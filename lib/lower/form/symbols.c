//===- symbols.c - Sizes known at run time in the host and CPU forms ------===//
//
// A symbol's size is read once at the function's entry from an argument
// that has it (memref.dim or tensor.dim), and every other dim of that
// symbol is checked equal to it: the lift made all `?` of a subprogram one
// symbol, so a caller passing two sizes gets a message and an abort, not
// wrong output. Kernels take it through their memrefs' `?` dims and the
// grid: a graph-defined kernel has one block per index of each symbol
// (lib/search/symbolic.c), so its grid axis is the size itself and the
// kernel body is the same as at any static size: it indexes through the
// memref, so a stride that depends on the padded size comes from the
// descriptor. Only the copies between the caller's rows and a padded
// buffer see such a stride (mg_lower_caller_rows).
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdio.h>
#include <string.h>

static bool is_symbolic(const MgTensor *t) { return t->sym != 0; }

// A dim before the first symbolic one that is not 1: a stride would
// depend on the symbol.
static bool strides_move(const MgTensor *t) {
  for (uint32_t d = 0; d < t->rank; d++) {
    if (mg_tensor_sym(t, d))
      return false;
    if (t->dims[d] != 1)
      return true;
  }
  return false;
}

const char *mg_lower_symbols_unsupported(const MgProgram *p, MgLowerMode mode,
                                         MgLowerHost host) {
  if (!mg_program_syms(p))
    return NULL;
  if (mode == MG_LOWER_HOST && host == MG_LOWER_HOST_DEVICE)
    return "dynamic dims with host=device (use host=copy)";
  const MgGraph *root = &p->graphs[0];
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    // An input with a layout (a transpose of an argument) is the caller's
    // buffer as stored: its strides are what must not move.
    if (op->kind == MG_OP_INPUT) {
      continue; // as stored, strided copies in (mg_lower_caller_rows)
    }
    bool sym = false;
    for (uint32_t k = 0; k < op->num_inputs; k++)
      sym |= is_symbolic(&root->tensors[op->inputs[k]]);
    // A transpose its readers take through strides of its operand's
    // buffer has no buffer of its own: only the operand's strides count.
    bool view = op->kind == MG_OP_TRANSPOSE && mg_graph_view_folds(root, op);
    for (uint32_t k = 0; k < op->num_outputs; k++)
      sym |= is_symbolic(&root->tensors[op->outputs[k]]);
    if (sym && op->kind != MG_OP_INPUT && op->kind != MG_OP_CUSTOM && !view)
      return "a predefined or view op on dynamic dims (only graph-defined "
             "kernels take them)";
    for (uint32_t k = 0; k < op->num_outputs + op->num_inputs; k++) {
      const MgTensor *t = &root->tensors[k < op->num_outputs
                                             ? op->outputs[k]
                                             : op->inputs[k - op->num_outputs]];
      unsigned seen = 0;
      for (uint32_t d = 0; d < t->rank; d++) {
        unsigned s = mg_tensor_sym(t, d);
        if (s && (seen & (1u << s)) && mg_lower_sym_quantum(p, s) > 1)
          return "a tensor with one dynamic size twice, padded to blocks of "
                 "rows";
        seen |= s ? 1u << s : 0;
      }
    }
  }
  return NULL;
}

static int64_t lcm(int64_t q, int64_t r) {
  int64_t x = q, y = r;
  while (y) {
    int64_t t = x % y;
    x = y, y = t;
  }
  return q / x * r;
}

// The rows a block takes of symbol s on a grid axis, and an iteration of
// a for-loop over it: the last block or iteration reads (and the block
// writes) the padding.
int64_t mg_lower_sym_quantum(const MgProgram *p, unsigned s) {
  int64_t q = 1;
  for (uint32_t g = 1; g < p->num_graphs; g++) {
    const MgGraph *b = &p->graphs[g];
    if (b->level != MG_LEVEL_BLOCK)
      continue;
    for (int a = 0; a < 3; a++)
      if (b->grid_sym[a] == s)
        q = lcm(q, b->grid_rows[a]);
    if (b->forloop_sym == s)
      q = lcm(q, b->forloop_rows);
  }
  return q;
}

// %v = the size of dim d of input tensor t as stored (`stored`).
static void read_dim(Emit *e, const MgTensor *stored, MgTensorId t, uint32_t d,
                     bool tensor_args, Name v) {
  const MgGraph *root = &e->p->graphs[0];
  Name c;
  mg_lower_index(e, d, c);
  mg_lower_fresh(e, v);
  if (tensor_args) {
    char type[TYPE_LEN];
    mg_lower_tensor_type(stored, type);
    mg_lower_line(e, "%s = tensor.dim %%arg%d, %s : %s", v,
                  root->ops[root->tensors[t].producer].attr, c, type);
  } else {
    mg_lower_line(e, "%s = memref.dim %s, %s : %s", v, e->val[t], c,
                  e->type[t]);
  }
}

void mg_lower_bind_symbols(Emit *e, MgLowerArgErrors *errs,
                           bool tensor_args) {
  const MgGraph *root = &e->p->graphs[0];
  char message[512];
  int first_pos[MG_MAX_SYMS + 1];
  uint32_t first_dim[MG_MAX_SYMS + 1];
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    // The caller's buffer as stored (an input with a layout is permuted).
    const MgTensor stored = mg_graph_stored_tensor(root, op->outputs[0]);
    const MgTensor *x = &stored;
    for (uint32_t d = 0; d < x->rank; d++) {
      unsigned s = mg_tensor_sym(x, d);
      if (!s)
        continue;
      Name v;
      read_dim(e, x, op->outputs[0], d, tensor_args, v);
      if (!e->sym[s][0]) {
        memcpy(e->sym[s], v, NAME_LEN);
        first_pos[s] = op->attr;
        first_dim[s] = d;
        continue;
      }
      Name bad;
      mg_lower_index_op(e, "arith.cmpi ne,", v, e->sym[s], bad);
      snprintf(message, sizeof message, "mirage: @%s: argument %d dim %u "
               "differs from argument %d dim %u; its kernels take both as "
               "one dynamic size", errs->func, op->attr, d, first_pos[s],
               first_dim[s]);
      mg_lower_fail_if(e, errs, bad, message);
    }
  }
  // Buffers hold whole blocks of rows: the size rounded up to the least
  // common multiple of the rows a block takes.
  for (unsigned s = 1; s <= MG_MAX_SYMS; s++) {
    int64_t q = e->sym[s][0] ? mg_lower_sym_quantum(e->p, s) : 1;
    if (q <= 1) {
      memcpy(e->sym_pad[s], e->sym[s], NAME_LEN);
      continue;
    }
    Name c, m1, t, blocks;
    mg_lower_index(e, q - 1, m1);
    mg_lower_index(e, q, c);
    mg_lower_index_op(e, "arith.addi", e->sym[s], m1, t);
    mg_lower_index_op(e, "arith.divui", t, c, blocks);
    mg_lower_index_op(e, "arith.muli", blocks, c, e->sym_pad[s]);
  }
  // A symbol on grid axis y or z must fit its limit (x's is 2^31 - 1).
  bool checked[3][MG_MAX_SYMS + 1] = {{false}};
  for (uint32_t i = 0; i < root->num_ops; i++) {
    if (root->ops[i].kind != MG_OP_CUSTOM)
      continue;
    const MgGraph *b = &e->p->graphs[root->ops[i].attr];
    for (int a = 0; a < 3; a++) {
      unsigned s = b->grid_sym[a];
      if (!s || !e->sym[s][0] || checked[a][s])
        continue;
      checked[a][s] = true;
      Name lim, bad, extent;
      mg_lower_grid_extent(e, b, a, extent);
      mg_lower_index(e, e->target->max_grid[a], lim);
      mg_lower_index_op(e, "arith.cmpi ugt,", extent, lim, bad);
      snprintf(message, sizeof message, "mirage: @%s: a dynamic size above "
               "%lld: kernel %u has one block per index on grid axis %c",
               errs->func, (long long)e->target->max_grid[a], i, "xyz"[a]);
      mg_lower_fail_if(e, errs, bad, message);
    }
  }
}

// The `?` sizes of t, padded or the caller's.
static void sizes_of(const Emit *e, const MgTensor *t, bool padded,
                     char out[TYPE_LEN]) {
  size_t n = 0;
  out[0] = '\0';
  for (uint32_t d = 0; d < t->rank; d++)
    if (mg_tensor_sym(t, d))
      n += (size_t)snprintf(out + n, TYPE_LEN - n, "%s%s", n ? ", " : "",
                            padded ? e->sym_pad[mg_tensor_sym(t, d)]
                                   : e->sym[mg_tensor_sym(t, d)]);
}

void mg_lower_alloc_sizes(const Emit *e, const MgTensor *t,
                          char out[TYPE_LEN]) {
  sizes_of(e, t, true, out);
}

void mg_lower_caller_sizes(const Emit *e, const MgTensor *t,
                           char out[TYPE_LEN]) {
  sizes_of(e, t, false, out);
}

void mg_lower_grid_extent(Emit *e, const MgGraph *b, int a, Name out) {
  unsigned s = b->grid_sym[a];
  int64_t rows = b->grid_rows[a];
  if (rows <= 1) {
    memcpy(out, e->sym[s], NAME_LEN);
    return;
  }
  Name m1, c, t;
  mg_lower_index(e, rows - 1, m1);
  mg_lower_index(e, rows, c);
  mg_lower_index_op(e, "arith.addi", e->sym[s], m1, t);
  mg_lower_index_op(e, "arith.divui", t, c, out);
}

bool mg_lower_is_padded(const Emit *e, const MgTensor *t) {
  for (uint32_t d = 0; d < t->rank; d++)
    if (mg_tensor_sym(t, d) && strcmp(e->sym[mg_tensor_sym(t, d)],
                                      e->sym_pad[mg_tensor_sym(t, d)]) != 0)
      return true;
  return false;
}

bool mg_lower_rows_strided(const Emit *e, const MgTensor *t) {
  return mg_lower_is_padded(e, t) && strides_move(t);
}

// The caller's rows of a padded buffer whose strides depend on the padded
// size (a symbol after a static dim): a subview, strided<[?, ..]> up to
// the last symbol.
static void strided_rows(Emit *e, const MgTensor *t, const char *buf,
                         const char *type, Name out, char out_type[TYPE_LEN]) {
  char offs[TYPE_LEN], sizes[TYPE_LEN], ones[TYPE_LEN], strides[TYPE_LEN];
  size_t no = 0, ns = 0, n1 = 0, nt = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    const char *sep = d ? ", " : "";
    no += (size_t)snprintf(offs + no, TYPE_LEN - no, "%s0", sep);
    n1 += (size_t)snprintf(ones + n1, TYPE_LEN - n1, "%s1", sep);
    if (mg_tensor_sym(t, d))
      ns += (size_t)snprintf(sizes + ns, TYPE_LEN - ns, "%s%s", sep,
                             e->sym[mg_tensor_sym(t, d)]);
    else
      ns += (size_t)snprintf(sizes + ns, TYPE_LEN - ns, "%s%lld", sep,
                             (long long)t->dims[d]);
    int64_t stride = 1;
    bool dynamic = false;
    for (uint32_t k = d + 1; k < t->rank; k++) {
      dynamic |= mg_tensor_sym(t, k) != 0;
      stride *= t->dims[k];
    }
    if (dynamic)
      nt += (size_t)snprintf(strides + nt, TYPE_LEN - nt, "%s?", sep);
    else
      nt += (size_t)snprintf(strides + nt, TYPE_LEN - nt, "%s%lld", sep,
                             (long long)stride);
  }
  int keep = (int)strlen(type) - 1, room = TYPE_LEN - 16 - keep;
  snprintf(out_type, TYPE_LEN, "%.*s, strided<[%.*s]>>", keep, type,
           room > 0 ? room : 0, strides);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.subview %s[%s] [%s] [%s] : %s to %s", out,
                buf, offs, sizes, ones, type, out_type);
}

void mg_lower_copy_rows(Emit *e, const MgTensor *t, const char *src,
                        const char *stype, const char *dst,
                        const char *dtype) {
  Name idx[MG_MAX_DIMS], zero, one;
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  size_t n = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    Name hi;
    if (mg_tensor_sym(t, d))
      memcpy(hi, e->sym[mg_tensor_sym(t, d)], NAME_LEN);
    else
      mg_lower_index(e, t->dims[d], hi);
    mg_lower_fresh(e, idx[d]);
    mg_lower_line(e, "scf.for %s = %s to %s step %s {", idx[d], zero, hi,
                  one);
    e->indent++;
    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", d ? ", " : "",
                          idx[d]);
  }
  Name v;
  mg_lower_fresh(e, v);
  mg_lower_line(e, "%s = memref.load %s[%s] : %s", v, src, list, stype);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", v, dst, list, dtype);
  for (uint32_t d = 0; d < t->rank; d++) {
    e->indent--;
    mg_lower_line(e, "}");
  }
}

bool mg_lower_caller_rows(Emit *e, const MgTensor *t, const char *buf,
                          const char *type, Name out,
                          char out_type[TYPE_LEN]) {
  snprintf(out_type, TYPE_LEN, "%s", type);
  if (!mg_lower_is_padded(e, t)) {
    snprintf(out, NAME_LEN, "%s", buf);
    return false;
  }
  if (strides_move(t)) {
    strided_rows(e, t, buf, type, out, out_type);
    return true;
  }
  // Only unit dims before the symbols: the first rows, contiguous.
  char sizes[TYPE_LEN], strides[TYPE_LEN];
  size_t ns = 0, nt = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    int64_t stride = 1;
    for (uint32_t k = d + 1; k < t->rank; k++)
      stride *= mg_tensor_sym(t, k) ? 1 : t->dims[k];
    if (mg_tensor_sym(t, d))
      ns += (size_t)snprintf(sizes + ns, TYPE_LEN - ns, "%s%s", d ? ", " : "",
                             e->sym[mg_tensor_sym(t, d)]);
    else
      ns += (size_t)snprintf(sizes + ns, TYPE_LEN - ns, "%s%lld",
                             d ? ", " : "", (long long)t->dims[d]);
    nt += (size_t)snprintf(strides + nt, TYPE_LEN - nt, "%s%lld",
                           d ? ", " : "", (long long)stride);
  }
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.reinterpret_cast %s to offset: [0], sizes: "
                   "[%s], strides: [%s] : %s to %s", out, buf, sizes, strides,
                type, type);
  return true;
}

unsigned mg_lower_loop_sym(const MgProgram *p, const MgOp *op) {
  if (op->kind != MG_OP_CUSTOM || op->attr < 1 ||
      (uint32_t)op->attr >= p->num_graphs)
    return 0;
  return p->graphs[op->attr].forloop_sym;
}
