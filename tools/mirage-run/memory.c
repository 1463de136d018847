//===- memory.c - The memory a check needs, and its bound -----------------===//
//
// A check holds every tensor of the run in host memory: the inputs in
// their element types (the JIT's) and as doubles (the interpreter's), the
// outputs of both sides and their two error estimates, the intermediates
// of the JIT-compiled side, and the 8-byte cells of the interpreter and
// of the estimates. At LLM shapes and beyond (an input of 2^29 or 2^40
// elements) that is tens of GB to TB, so mirage-run sums it here, from
// the shapes alone and before allocating anything, and refuses (or samples
// fewer rows) when it passes --memory-limit, as the search stops at its
// memory_limit. Sizes saturate at UINT64_MAX: any shape, however large,
// gives a finite answer above every bound.
//
// The sum is an upper estimate of the peak, by phase (main.c's order):
// the buffers held for the whole check, plus the largest of the JIT's
// intermediates (every tensor an op of the reference computes, views and
// tensor.empty aside, counted at once: the JIT's own deallocation frees
// them earlier), the reordering of inputs with a layout, and the
// interpreter with the estimates (each: its cells of the inputs, the live
// tensors of the root graph at the worst op, scratch as large as two of
// the largest tensor, every tile of the block graphs; the interpreter and
// the estimates at once when mg_run uses a thread for the former).
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mirage/bridge.h"
#include "mirage/interp.h"
#include "mlir-c/BuiltinTypes.h"

static uint64_t add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t mul(uint64_t a, uint64_t b) {
  return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t max2(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t numel(uint32_t rank, const int64_t *dims) {
  uint64_t n = 1;
  for (uint32_t d = 0; d < rank; ++d)
    n = mul(n, dims[d] > 0 ? (uint64_t)dims[d] : 0);
  return n;
}

static uint64_t tensor_numel(const MgTensor *t) {
  return numel(t->rank < MG_MAX_DIMS ? t->rank : MG_MAX_DIMS, t->dims);
}

uint64_t mg_run_memory_default(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return MG_RUN_MEMORY_UNKNOWN;
  uint64_t half = mul((uint64_t)pages, (uint64_t)page) / 2;
  return half < MG_RUN_MEMORY_MIN   ? MG_RUN_MEMORY_MIN
         : half > MG_RUN_MEMORY_CAP ? MG_RUN_MEMORY_CAP
                                    : half;
}

bool mg_run_memory_parse(const char *text, uint64_t *bytes) {
  if (!strcmp(text, "none")) {
    *bytes = UINT64_MAX;
    return true;
  }
  // A decimal number only: strtod alone would take "inf", "nan", hex
  // floats and leading spaces.
  size_t digits = strspn(text, "0123456789.eE+-");
  if (!(*text >= '0' && *text <= '9'))
    return false;
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (errno || !isfinite(v) || end != text + digits)
    return false;
  static const char units[] = "KMGT";
  const char *unit = *end ? strchr(units, *end) : NULL;
  if (*end && (!unit || end[1]))
    return false;
  v = ldexp(v, unit ? 10 * (int)(unit - units + 1) : 0);
  if (!(v >= (double)MG_RUN_MEMORY_MIN && v <= (double)MG_RUN_MEMORY_MAX))
    return false;
  *bytes = (uint64_t)v;
  return true;
}

void mg_run_memory_str(uint64_t bytes, char *buf, size_t size) {
  static const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB",
                                "EiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 6)
    v /= 1024, ++u;
  if (bytes == UINT64_MAX)
    snprintf(buf, size, "more than 16 EiB");
  else if (u == 0)
    snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
  else
    snprintf(buf, size, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

/// Remembers the tensor with the most elements, to name in a refusal.
static void consider(MgRunMemory *m, uint64_t n, size_t elem_bytes,
                     const char *what, const char *type) {
  if (n <= m->numel && m->tensor[0])
    return;
  m->numel = n;
  m->tensor_bytes = mul(n, elem_bytes);
  snprintf(m->tensor, sizeof m->tensor, "%.100s (%.140s)", what, type);
}

static void consider_sig(MgRunMemory *m, const MgRunTensorType *t,
                         const char *kind, uint32_t i) {
  char what[48], type[96];
  snprintf(what, sizeof what, "%s %u", kind, i);
  mg_run_type_str(t, type, sizeof type);
  consider(m, numel(t->rank, t->dims), mg_dtype_bytes(t->dtype), what, type);
}

static void consider_tensor(MgRunMemory *m, const MgGraph *g, MgTensorId t) {
  const MgTensor *x = &g->tensors[t];
  MgRunTensorType type = {(MgDType)x->dtype, x->rank, {0}};
  memcpy(type.dims, x->dims, sizeof type.dims);
  char what[64], text[96];
  snprintf(what, sizeof what, "the result of 'ug.%s'",
           mg_op_kind_name((MgOpKind)g->ops[x->producer].kind));
  mg_run_type_str(&type, text, sizeof text);
  consider(m, tensor_numel(x), mg_dtype_bytes((MgDType)x->dtype), what,
           text);
}

//===--- The interpreter and the error estimates ---------------------------===//

/// Cells the root graph holds at its worst op: results are allocated
/// before the op runs and freed after their last reader (exec.c); inputs
/// are borrowed, outputs stay. Plus scratch (broadcasts, reductions: up
/// to two buffers as large as the largest tensor) and every tile of the
/// block and thread graphs. UINT64_MAX when out of memory.
static uint64_t live_cells(const MgProgram *p, MgRunMemory *m) {
  const MgGraph *g = &p->graphs[0];
  uint32_t *last = malloc((g->num_tensors ? g->num_tensors : 1) *
                          sizeof *last);
  if (!last)
    return UINT64_MAX;
  for (MgTensorId t = 0; t < g->num_tensors; ++t)
    last[t] = g->ops[g->tensors[t].producer].kind == MG_OP_INPUT
                  ? MG_NO_ID
                  : g->tensors[t].producer;
  for (uint32_t o = 0; o < g->num_ops; ++o)
    for (uint32_t k = 0; k < g->ops[o].num_inputs; ++k)
      if (last[g->ops[o].inputs[k]] != MG_NO_ID)
        last[g->ops[o].inputs[k]] = o;
  for (uint32_t j = 0; j < g->num_outputs; ++j)
    last[g->outputs[j]] = MG_NO_ID;
  uint64_t live = 0, peak = 0, largest = 0;
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    if (op->kind == MG_OP_INPUT)
      continue;
    for (uint32_t k = 0; k < op->num_outputs; ++k) {
      uint64_t n = tensor_numel(&g->tensors[op->outputs[k]]);
      live = add(live, n);
      largest = max2(largest, n);
      consider_tensor(m, g, op->outputs[k]);
    }
    peak = max2(peak, live);
    // Dead after its last reader (a result nobody reads: at once).
    for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; ++k) {
      MgTensorId t = k < op->num_inputs ? op->inputs[k]
                                        : op->outputs[k - op->num_inputs];
      if (last[t] != o)
        continue;
      last[t] = MG_NO_ID; // an operand read twice dies once
      if (live != UINT64_MAX)
        live -= tensor_numel(&g->tensors[t]);
    }
  }
  free(last);
  uint64_t tiles = 0;
  for (uint32_t gi = 1; gi < p->num_graphs; ++gi)
    for (uint32_t t = 0; t < p->graphs[gi].num_tensors; ++t)
      tiles = add(tiles, tensor_numel(&p->graphs[gi].tensors[t]));
  return add(add(peak, mul(2, largest)), tiles);
}

/// The interpreter and the estimates on `p` (main.c's
/// interpret_and_compare; overflow.c's mg_run_interpret).
static void interpreter_phase(const MgProgram *p, const MgRunSignature *sig,
                              MgRunMemory *m) {
  const MgGraph *g = &p->graphs[0];
  uint64_t in = 0, reorder = 0, kept = 0;
  for (uint32_t i = 0; i < sig->num_inputs; ++i) {
    const MgTensor *t = mg_graph_input_tensor(g, i);
    uint64_t n = t ? tensor_numel(t) : 0;
    in = add(in, n);
    int8_t perm[MG_MAX_DIMS];
    if (t && mg_op_input_perm(&g->ops[t->producer], t->rank, perm))
      reorder = max2(reorder, n);
  }
  for (MgTensorId t = 0; t < g->num_tensors; ++t)
    if (g->ops[g->tensors[t].producer].kind != MG_OP_INPUT)
      kept = add(kept, tensor_numel(&g->tensors[t]));
  uint64_t live = live_cells(p, m);
  uint64_t one_run = mul(add(in, live), sizeof(MgCell));
  // The probe keeps every tensor as cells and as doubles (overflow.c):
  // beside the plain run when that is cheap, later on a mismatch else;
  // the scaled copies of the inputs come with the search for a range.
  m->probe = mul(add(mul(in, 2), mul(kept, 2)), sizeof(MgCell));
  bool probe_now = (double)kept * sizeof(MgCell) < MG_RUN_PARALLEL_BYTES;
  uint64_t interp = probe_now ? max2(one_run, m->probe) : one_run;
  bool parallel = (double)in * sizeof(MgCell) < MG_RUN_PARALLEL_BYTES;
  uint64_t runs = parallel ? add(interp, one_run) : max2(interp, one_run);
  m->phase = max2(m->phase, max2(mul(reorder, sizeof(double)), runs));
}

//===--- The JIT's intermediates -------------------------------------------===//

typedef struct RefWalk {
  MgRunMemory *m;
  MlirOperation ret; // the function's return: its operands are out-params
  uint64_t bytes;
} RefWalk;

static bool is_op(MlirOperation op, const char *name) {
  MlirStringRef s = mlirIdentifierStr(mlirOperationGetName(op));
  return strlen(name) == s.length && !memcmp(s.data, name, s.length);
}

/// Ops whose result needs no buffer of its own: views, and tensor.empty
/// (its buffer is the one its consumer writes, counted there).
static bool no_buffer(MlirOperation op) {
  static const char *views[] = {
      "tensor.empty",         "tensor.expand_shape", "tensor.collapse_shape",
      "tensor.extract_slice", "tensor.reshape",      "tosa.reshape",
      "tensor.cast",          "func.return"};
  for (size_t i = 0; i < sizeof views / sizeof *views; ++i)
    if (is_op(op, views[i]))
      return true;
  return false;
}

static bool returned(MlirOperation ret, MlirValue v) {
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(ret); ++i)
    if (mlirValueEqual(mlirOperationGetOperand(ret, i), v))
      return true;
  return false;
}

static MlirWalkResult ref_op(MlirOperation op, void *ud) {
  RefWalk *w = ud;
  if (no_buffer(op))
    return MlirWalkResultAdvance;
  for (intptr_t r = 0; r < mlirOperationGetNumResults(op); ++r) {
    MlirValue v = mlirOperationGetResult(op, r);
    MlirType type = mlirValueGetType(v);
    if (!mlirTypeIsARankedTensor(type) || !mlirShapedTypeHasStaticShape(type))
      continue;
    if (!mlirOperationIsNull(w->ret) && returned(w->ret, v))
      continue;
    int64_t dims[16];
    intptr_t rank = mlirShapedTypeGetRank(type);
    if (rank > 16)
      continue;
    for (intptr_t d = 0; d < rank; ++d)
      dims[d] = mlirShapedTypeGetDimSize(type, d);
    uint64_t n = numel((uint32_t)rank, dims);
    MlirType elem = mlirShapedTypeGetElementType(type);
    uint64_t bits = mlirTypeIsAFloat(elem)     ? mlirFloatTypeGetWidth(elem)
                    : mlirTypeIsAInteger(elem) ? mlirIntegerTypeGetWidth(elem)
                                               : 64;
    size_t bytes = bits ? (size_t)((bits + 7) / 8) : 1;
    w->bytes = add(w->bytes, mul(n, bytes));
    char what[96], text[128];
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    snprintf(what, sizeof what, "the result of '%.*s' in the reference",
             (int)name.length, name.data);
    mg_bridge_type_text(type, text, sizeof text);
    consider(w->m, n, bytes, what, text);
  }
  return MlirWalkResultAdvance;
}

/// Bytes of the tensors the ops of reference function `ref` compute, less
/// its results (written into the caller's buffers) and views.
static uint64_t reference_bytes(MlirOperation ref, MgRunMemory *m) {
  RefWalk w = {m, {NULL}, 0};
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(ref, 0));
  if (!mlirBlockIsNull(body))
    w.ret = mlirBlockGetTerminator(body);
  mlirOperationWalk(ref, ref_op, &w, MlirWalkPreOrder);
  return w.bytes;
}

/// Bytes of the root graph's intermediates in their element types: lib/lower's
/// buffers between kernels.
static uint64_t lowered_bytes(const MgProgram *p) {
  const MgGraph *g = &p->graphs[0];
  uint64_t bytes = 0;
  for (MgTensorId t = 0; t < g->num_tensors; ++t) {
    bool output = g->ops[g->tensors[t].producer].kind == MG_OP_INPUT;
    for (uint32_t j = 0; j < g->num_outputs; ++j)
      output = output || g->outputs[j] == t;
    if (!output)
      bytes = add(bytes, mul(tensor_numel(&g->tensors[t]),
                             mg_dtype_bytes((MgDType)g->tensors[t].dtype)));
  }
  return bytes;
}

//===--- Whole checks -------------------------------------------------------===//

static void finish(MgRunMemory *m, uint64_t jit) {
  m->phase = max2(m->phase, jit);
  m->bytes = add(m->held, m->phase);
}

void mg_run_memory_full(const MgProgram *program, const MgRunSignature *sig,
                        MgRunMemoryJit jit, MlirOperation ref,
                        MgRunMemory *m) {
  memset(m, 0, sizeof *m);
  for (uint32_t i = 0; i < sig->num_inputs; ++i) {
    const MgRunTensorType *t = &sig->inputs[i];
    m->held = add(m->held, mul(numel(t->rank, t->dims),
                               mg_dtype_bytes(t->dtype) + sizeof(double)));
    consider_sig(m, t, "argument", i);
  }
  for (uint32_t i = 0; i < sig->num_outputs; ++i) {
    const MgRunTensorType *t = &sig->outputs[i];
    m->held = add(m->held, mul(numel(t->rank, t->dims),
                               mg_dtype_bytes(t->dtype) + 3 * sizeof(double)));
    consider_sig(m, t, "result", i);
  }
  interpreter_phase(program, sig, m);
  finish(m, jit == MG_RUN_MEMORY_REFERENCE ? reference_bytes(ref, m)
            : jit == MG_RUN_MEMORY_LOWERED ? lowered_bytes(program)
                                           : 0);
}

void mg_run_memory_sampled(const MgRunSignature *sig, const MgRunSample *s,
                           MlirOperation ref, MgRunMemory *m) {
  memset(m, 0, sizeof *m);
  // The whole inputs and the whole result in their element types (the
  // JIT's), the sampled indices, the slices as doubles.
  for (uint32_t i = 0; i < sig->num_inputs; ++i) {
    const MgRunTensorType *t = &sig->inputs[i], *p = &s->sig.inputs[i];
    m->held = add(m->held, mul(numel(t->rank, t->dims),
                               mg_dtype_bytes(t->dtype)));
    m->held = add(m->held, mul(numel(p->rank, p->dims), sizeof(double)));
    consider_sig(m, t, "argument", i);
  }
  const MgRunTensorType *out = &sig->outputs[0], *part = &s->sig.outputs[0];
  m->held = add(m->held, mul(numel(out->rank, out->dims),
                             mg_dtype_bytes(out->dtype)));
  m->held = add(m->held, mul(numel(part->rank, part->dims),
                             mg_dtype_bytes(out->dtype) + 3 * sizeof(double)));
  m->held = add(m->held, mul(mul(s->num_sampled, (uint64_t)s->out_unit),
                             sizeof(int64_t)));
  consider_sig(m, out, "result", 0);
  interpreter_phase(s->program, &s->sig, m);
  // The reference's tiled loop computes slices; counted whole, for when
  // the tiling does not apply and the reference runs whole.
  finish(m, reference_bytes(ref, m));
}
