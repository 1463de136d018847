//===- print.c - Printing an MgProgram as μGraph dialect text ------------===//
//
// Pure C (no MLIR): the text is the dialect's generic form, parsed back by
// MLIR in export.c and later used as the search cache's on-disk format.
// SSA names are `%t<tensor id>` so the text is a function of the program.
//
//===----------------------------------------------------------------------===//
#include "mirage/bridge.h"
#include "mirage/support.h"

#include <stdio.h>

static void put_type(MgText *t, const MgTensor *tensor) {
  mg_text_printf(t, "tensor<");
  for (uint32_t d = 0; d < tensor->rank; ++d)
    if (mg_tensor_sym(tensor, d))
      mg_text_printf(t, "?x");
    else
      mg_text_printf(t, "%lldx", (long long)tensor->dims[d]);
  mg_text_printf(t, "%s>", mg_dtype_name((MgDType)tensor->dtype));
}

static void put_map(MgText *t, const char *name, const int8_t *map) {
  mg_text_printf(t, "%s = array<i64: %d, %d, %d>", name, map[0], map[1], map[2]);
}

static void graph_name(char *buf, size_t size, const MgProgram *p,
                       const char *root, const char *const *names,
                       uint32_t g) {
  if (names && names[g])
    snprintf(buf, size, "%s", names[g]);
  else if (g == 0)
    snprintf(buf, size, "%s", root);
  else
    snprintf(buf, size, "%s_%s%u", root,
             mg_level_name((MgLevel)p->graphs[g].level), g);
}

static void put_op(MgText *t, const MgProgram *p, const MgGraph *g,
                   const MgOp *op, const char *root,
                   const char *const *names) {
  mg_text_printf(t, "    ");
  for (uint32_t i = 0; i < op->num_outputs; ++i)
    mg_text_printf(t, "%s%%t%u", i ? ", " : "", op->outputs[i]);
  mg_text_printf(t, " = \"ug.%s\"(", mg_op_kind_name((MgOpKind)op->kind));
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    mg_text_printf(t, "%s%%t%u", i ? ", " : "", op->inputs[i]);
  mg_text_printf(t, ")");
  char sub[256];
  switch ((MgOpKind)op->kind) {
  case MG_OP_MUL_SCALAR:
  case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR:
  case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR:
    mg_text_printf(t, " {scalar = %.17e : f64}", op->scalar);
    break;
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
  case MG_OP_CONCAT:
    mg_text_printf(t, " {dim = %d : i64}", op->attr);
    break;
  case MG_OP_TRANSPOSE:
    mg_text_printf(t, " {perm = array<i64");
    for (uint32_t d = 0; d < g->tensors[op->inputs[0]].rank; ++d)
      mg_text_printf(t, "%s %d", d ? "," : ":", op->perm[d]);
    mg_text_printf(t, ">}");
    break;
  case MG_OP_SLICE:
    mg_text_printf(t, " {dim = %d : i64, offset = %lld : i64}", op->attr,
                   (long long)op->shape[0]);
    break;
  case MG_OP_IM2COL: {
    MgIm2col c = mg_op_im2col(op);
    mg_text_printf(t, " {dilations = array<i64: %lld, %lld>, groups = %d : "
                   "i64, pad = array<i64: %lld, %lld, %lld, %lld>, strides = "
                   "array<i64: %lld, %lld>, window = array<i64: %lld, %lld>}",
                   (long long)c.dh, (long long)c.dw, c.groups,
                   (long long)c.pad_top, (long long)c.pad_bottom,
                   (long long)c.pad_left, (long long)c.pad_right,
                   (long long)c.sh, (long long)c.sw, (long long)c.kh,
                   (long long)c.kw);
    break;
  }
  case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    graph_name(sub, sizeof sub, p, root, names, (uint32_t)op->attr);
    mg_text_printf(t, " {kernel = @%s, operandSegmentSizes = array<i32: ", sub);
    for (uint32_t i = 0; i < MG_MAX_OP_INPUTS; ++i)
      mg_text_printf(t, "%s%d", i ? ", " : "", i < op->num_inputs);
    mg_text_printf(t, ">, resultSegmentSizes = array<i32: ");
    for (uint32_t i = 0; i < MG_MAX_OP_OUTPUTS; ++i)
      mg_text_printf(t, "%s%d", i ? ", " : "", i < op->num_outputs);
    mg_text_printf(t, ">}");
    break;
  case MG_OP_ITERATOR:
    mg_text_printf(t, " {fmap = %d : i64, ", op->fmap);
    put_map(t, "imap", op->imap);
    mg_text_printf(t, "}");
    break;
  case MG_OP_ACCUM:
    mg_text_printf(t, " {kind = \"%s\"}", mg_accum_kind_name((MgAccumKind)op->acc));
    break;
  case MG_OP_SAVER:
    mg_text_printf(t, " {");
    put_map(t, "omap", op->omap);
    mg_text_printf(t, "}");
    break;
  default:
    break;
  }
  mg_text_printf(t, " : (");
  for (uint32_t i = 0; i < op->num_inputs; ++i) {
    mg_text_printf(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[op->inputs[i]]);
  }
  mg_text_printf(t, ") -> ");
  if (op->num_outputs != 1)
    mg_text_printf(t, "(");
  for (uint32_t i = 0; i < op->num_outputs; ++i) {
    mg_text_printf(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[op->outputs[i]]);
  }
  if (op->num_outputs != 1)
    mg_text_printf(t, ")");
  mg_text_printf(t, "\n");
}

// An argument's stored type: its tensor's, permuted by its layout.
static MgTensor stored_tensor(const MgGraph *g, MgTensorId id) {
  return mg_graph_stored_tensor(g, id);
}

static void put_stored_type(MgText *t, const MgGraph *g, MgTensorId id) {
  MgTensor s = stored_tensor(g, id);
  put_type(t, &s);
}

// ` {ug.sym = array<i64: ...>}`: the symbol of each stored dim of an
// argument with symbolic dims (the `?` of its type).
static void put_arg_syms(MgText *t, const MgGraph *g, MgTensorId id) {
  MgTensor s = stored_tensor(g, id);
  if (!s.sym)
    return;
  mg_text_printf(t, " {ug.sym = array<i64");
  for (uint32_t d = 0; d < s.rank; ++d)
    mg_text_printf(t, "%s %u", d ? "," : ":", mg_tensor_sym(&s, d));
  mg_text_printf(t, ">}");
}

// `%t<id> = ug.transpose %s<id>` for an input with a layout.
static void put_layout(MgText *t, const MgGraph *g, const MgOp *op) {
  int8_t perm[MG_MAX_DIMS];
  const MgTensor *x = &g->tensors[op->outputs[0]];
  // A folded view's layout is derived from the kernel graph: not printed.
  if (op->kind != MG_OP_INPUT || op->folded ||
      !mg_op_input_perm(op, x->rank, perm))
    return;
  mg_text_printf(t, "    %%t%u = \"ug.transpose\"(%%s%u) {perm = array<i64",
                 op->outputs[0], op->outputs[0]);
  for (uint32_t d = 0; d < x->rank; ++d)
    mg_text_printf(t, "%s %d", d ? "," : ":", perm[d]);
  mg_text_printf(t, ">} : (");
  put_stored_type(t, g, op->outputs[0]);
  mg_text_printf(t, ") -> ");
  put_type(t, x);
  mg_text_printf(t, "\n");
}

static void put_graph(MgText *t, const MgProgram *p, uint32_t gi,
                      const char *root, const char *const *names) {
  const MgGraph *g = &p->graphs[gi];
  char name[256];
  graph_name(name, sizeof name, p, root, names, gi);
  mg_text_printf(t, "  func.func @%s(", name);
  // Arguments in position order; INPUT ops may appear anywhere in the list.
  for (uint32_t pos = 0; pos < g->num_inputs; ++pos) {
    for (uint32_t o = 0; o < g->num_ops; ++o) {
      const MgOp *op = &g->ops[o];
      if (op->kind == MG_OP_INPUT && (uint32_t)op->attr == pos) {
        int8_t perm[MG_MAX_DIMS];
        const MgTensor *x = &g->tensors[op->outputs[0]];
        bool view = !op->folded && mg_op_input_perm(op, x->rank, perm);
        mg_text_printf(t, "%s%%%s%u: ", pos ? ", " : "", view ? "s" : "t",
                       op->outputs[0]);
        put_stored_type(t, g, op->outputs[0]);
        put_arg_syms(t, g, op->outputs[0]);
      }
    }
  }
  mg_text_printf(t, ") -> (");
  for (uint32_t i = 0; i < g->num_outputs; ++i) {
    mg_text_printf(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[g->outputs[i]]);
  }
  mg_text_printf(t, ") attributes {");
  if (g->level == MG_LEVEL_BLOCK)
    mg_text_printf(t, "ug.block_threads = %d : i64, ug.forloop = %d : i64, "
           "ug.grid = array<i64: %d, %d, %d>, ",
        g->block_threads, g->forloop, g->grid[0], g->grid[1], g->grid[2]);
  if (g->level == MG_LEVEL_BLOCK &&
      (g->grid_sym[0] || g->grid_sym[1] || g->grid_sym[2]))
    mg_text_printf(t, "ug.grid_sym = array<i64: %u, %u, %u>, ",
                   g->grid_sym[0], g->grid_sym[1], g->grid_sym[2]);
  if (g->level == MG_LEVEL_BLOCK &&
      (g->grid_rows[0] > 1 || g->grid_rows[1] > 1 || g->grid_rows[2] > 1))
    mg_text_printf(t, "ug.grid_rows = array<i64: %d, %d, %d>, ",
                   g->grid_rows[0], g->grid_rows[1], g->grid_rows[2]);
  if (g->level == MG_LEVEL_BLOCK && g->forloop_sym)
    mg_text_printf(t, "ug.forloop_rows = %d : i64, ug.forloop_sym = %u : i64, ",
                   g->forloop_rows, g->forloop_sym);
  // The symbols' sizes in this instantiation, on the root.
  if (gi == 0 && mg_program_syms(p)) {
    mg_text_printf(t, "ug.syms = array<i64");
    for (unsigned k = 1; k <= MG_MAX_SYMS; ++k)
      mg_text_printf(t, "%s %lld", k > 1 ? "," : ":",
                     (long long)mg_program_sym_size(p, k));
    mg_text_printf(t, ">, ");
  }
  mg_text_printf(t, "ug.level = \"%s\"} {\n", mg_level_name((MgLevel)g->level));
  for (uint32_t o = 0; o < g->num_ops; ++o)
    put_layout(t, g, &g->ops[o]);
  for (uint32_t o = 0; o < g->num_ops; ++o)
    if (g->ops[o].kind != MG_OP_INPUT)
      put_op(t, p, g, &g->ops[o], root, names);
  mg_text_printf(t, "    func.return");
  for (uint32_t i = 0; i < g->num_outputs; ++i)
    mg_text_printf(t, "%s %%t%u", i ? "," : "", g->outputs[i]);
  if (g->num_outputs) {
    mg_text_printf(t, " : ");
    for (uint32_t i = 0; i < g->num_outputs; ++i) {
      mg_text_printf(t, "%s", i ? ", " : "");
      put_type(t, &g->tensors[g->outputs[i]]);
    }
  }
  mg_text_printf(t, "\n  }\n");
}

char *mg_bridge_print(const MgProgram *program, const char *root_name,
                      const char *const *names) {
  MgText t = {0};
  mg_text_printf(&t, "module {\n");
  // Callees first, so a reader meets each graph before its use.
  for (uint32_t g = program->num_graphs; g-- > 0;)
    put_graph(&t, program, g, root_name, names);
  mg_text_printf(&t, "}\n");
  if (t.failed) {
    mg_text_free(&t);
    return NULL;
  }
  return t.data;
}
