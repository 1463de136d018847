//===- text.c - The text/SSA toolbox: lines, names, types -----------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "text/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mg_lower_fresh(Emit *e, Name out) {
  MG_ASSERT(e->counter); // set by the function being written
  snprintf(out, NAME_LEN, "%%v%u", (*e->counter)++);
}

void mg_lower_line(Emit *e, const char *fmt, ...) {
  MG_ASSERT(e->t && e->indent >= 0); // every close matches an open
  mg_text_printf(e->t, "%*s", 2 * e->indent, "");
  va_list ap;
  va_start(ap, fmt);
  mg_text_vprintf(e->t, fmt, ap);
  va_end(ap);
  mg_text_printf(e->t, "\n");
}

void mg_lower_index_op(Emit *e, const char *op, const char *a, const char *b,
                       Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = %s %s, %s : index", out, op, a, b);
}

void mg_lower_index(Emit *e, int64_t v, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.constant %lld : index", out, (long long)v);
}

const char *mg_lower_elt(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16: return "f16";
  case MG_DTYPE_BF16: return "bf16";
  default: return "f32";
  }
}

// "<kind><2x?x" for `t`: its dims, a symbolic one `?`; the length written.
static size_t shaped_prefix(const char *kind, const MgTensor *t,
                            char out[TYPE_LEN]) {
  size_t n = (size_t)snprintf(out, TYPE_LEN, "%s<", kind);
  for (uint32_t d = 0; d < t->rank; d++)
    n += mg_tensor_sym(t, d)
             ? (size_t)snprintf(out + n, TYPE_LEN - n, "?x")
             : (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                                (long long)t->dims[d]);
  return n;
}

void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]) {
  size_t n = shaped_prefix("memref", t, out);
  snprintf(out + n, TYPE_LEN - n, "%s%s%s>", mg_lower_elt(dtype),
           space ? ", " : "", space ? space : "");
}

void mg_lower_tensor_type(const MgTensor *t, char out[TYPE_LEN]) {
  size_t n = shaped_prefix("tensor", t, out);
  snprintf(out + n, TYPE_LEN - n, "%s>", mg_lower_elt((MgDType)t->dtype));
}
