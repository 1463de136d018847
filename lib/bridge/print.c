//===- print.c - Printing an MgProgram as μGraph dialect text ------------===//
//
// Pure C (no MLIR): the text is the dialect's generic form, parsed back by
// MLIR in export.c and later used as the search cache's on-disk format.
// SSA names are `%t<tensor id>` so the text is a function of the program.
//
//===----------------------------------------------------------------------===//
#include "mirage/bridge.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Text {
  char *data;
  size_t len, cap;
  bool failed;
} Text;

static void put(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(Text *t, const char *fmt, ...) {
  if (t->failed)
    return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->data + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      t->failed = true;
      return;
    }
    if ((size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return;
    }
    size_t cap = (t->cap + (size_t)n + 1) * 2;
    char *data = realloc(t->data, cap);
    if (!data) {
      t->failed = true;
      return;
    }
    t->data = data;
    t->cap = cap;
  }
}

static void put_type(Text *t, const MgTensor *tensor) {
  put(t, "tensor<");
  for (uint32_t d = 0; d < tensor->rank; ++d)
    put(t, "%lldx", (long long)tensor->dims[d]);
  put(t, "%s>", mg_dtype_name((MgDType)tensor->dtype));
}

static void put_map(Text *t, const char *name, const int8_t *map) {
  put(t, "%s = array<i64: %d, %d, %d>", name, map[0], map[1], map[2]);
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

static void put_op(Text *t, const MgProgram *p, const MgGraph *g,
                   const MgOp *op, const char *root,
                   const char *const *names) {
  put(t, "    ");
  for (uint32_t i = 0; i < op->num_outputs; ++i)
    put(t, "%s%%t%u", i ? ", " : "", op->outputs[i]);
  put(t, " = \"ug.%s\"(", mg_op_kind_name((MgOpKind)op->kind));
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    put(t, "%s%%t%u", i ? ", " : "", op->inputs[i]);
  put(t, ")");
  char sub[256];
  switch ((MgOpKind)op->kind) {
  case MG_OP_MUL_SCALAR:
  case MG_OP_DIV_SCALAR:
    put(t, " {scalar = %.17e : f64}", op->scalar);
    break;
  case MG_OP_SUM:
  case MG_OP_CONCAT:
    put(t, " {dim = %d : i64}", op->attr);
    break;
  case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    graph_name(sub, sizeof sub, p, root, names, (uint32_t)op->attr);
    put(t, " {kernel = @%s, operandSegmentSizes = array<i32: ", sub);
    for (uint32_t i = 0; i < MG_MAX_OP_INPUTS; ++i)
      put(t, "%s%d", i ? ", " : "", i < op->num_inputs);
    put(t, ">, resultSegmentSizes = array<i32: ");
    for (uint32_t i = 0; i < MG_MAX_OP_OUTPUTS; ++i)
      put(t, "%s%d", i ? ", " : "", i < op->num_outputs);
    put(t, ">}");
    break;
  case MG_OP_ITERATOR:
    put(t, " {fmap = %d : i64, ", op->fmap);
    put_map(t, "imap", op->imap);
    put(t, "}");
    break;
  case MG_OP_ACCUM:
    put(t, " {kind = \"%s\"}", mg_accum_kind_name((MgAccumKind)op->acc));
    break;
  case MG_OP_SAVER:
    put(t, " {");
    put_map(t, "omap", op->omap);
    put(t, "}");
    break;
  default:
    break;
  }
  put(t, " : (");
  for (uint32_t i = 0; i < op->num_inputs; ++i) {
    put(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[op->inputs[i]]);
  }
  put(t, ") -> ");
  if (op->num_outputs != 1)
    put(t, "(");
  for (uint32_t i = 0; i < op->num_outputs; ++i) {
    put(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[op->outputs[i]]);
  }
  if (op->num_outputs != 1)
    put(t, ")");
  put(t, "\n");
}

static void put_graph(Text *t, const MgProgram *p, uint32_t gi,
                      const char *root, const char *const *names) {
  const MgGraph *g = &p->graphs[gi];
  char name[256];
  graph_name(name, sizeof name, p, root, names, gi);
  put(t, "  func.func @%s(", name);
  // Arguments in position order; INPUT ops may appear anywhere in the list.
  for (uint32_t pos = 0; pos < g->num_inputs; ++pos) {
    for (uint32_t o = 0; o < g->num_ops; ++o) {
      const MgOp *op = &g->ops[o];
      if (op->kind == MG_OP_INPUT && (uint32_t)op->attr == pos) {
        put(t, "%s%%t%u: ", pos ? ", " : "", op->outputs[0]);
        put_type(t, &g->tensors[op->outputs[0]]);
      }
    }
  }
  put(t, ") -> (");
  for (uint32_t i = 0; i < g->num_outputs; ++i) {
    put(t, "%s", i ? ", " : "");
    put_type(t, &g->tensors[g->outputs[i]]);
  }
  put(t, ") attributes {");
  if (g->level == MG_LEVEL_BLOCK)
    put(t, "ug.block_threads = %d : i64, ug.forloop = %d : i64, "
           "ug.grid = array<i64: %d, %d, %d>, ",
        g->block_threads, g->forloop, g->grid[0], g->grid[1], g->grid[2]);
  put(t, "ug.level = \"%s\"} {\n", mg_level_name((MgLevel)g->level));
  for (uint32_t o = 0; o < g->num_ops; ++o)
    if (g->ops[o].kind != MG_OP_INPUT)
      put_op(t, p, g, &g->ops[o], root, names);
  put(t, "    func.return");
  for (uint32_t i = 0; i < g->num_outputs; ++i)
    put(t, "%s %%t%u", i ? "," : "", g->outputs[i]);
  if (g->num_outputs) {
    put(t, " : ");
    for (uint32_t i = 0; i < g->num_outputs; ++i) {
      put(t, "%s", i ? ", " : "");
      put_type(t, &g->tensors[g->outputs[i]]);
    }
  }
  put(t, "\n  }\n");
}

char *mg_bridge_print(const MgProgram *program, const char *root_name,
                      const char *const *names) {
  Text t = {0};
  put(&t, "module {\n");
  // Callees first, so a reader meets each graph before its use.
  for (uint32_t g = program->num_graphs; g-- > 0;)
    put_graph(&t, program, g, root_name, names);
  put(&t, "}\n");
  if (t.failed) {
    free(t.data);
    return NULL;
  }
  return t.data;
}
