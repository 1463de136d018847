//===- layout.c - Inputs stored in another layout, viewed -----------------===//
//
// One concern of its layer (docs/lower.md, "Layers"; the folder's header).
//
//===----------------------------------------------------------------------===//
#include "write/write.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A folded view: `val`, the dense buffer it views, becomes the logical
// shape over it through memref.reinterpret_cast (offset and strides of
// the composed view ops; nothing copied).
static void folded_view(Emit *e, const MgTensor *x, const MgStridedView *v,
                        Name val, char type[TYPE_LEN]) {
  char sizes[128], strides[128], view[TYPE_LEN], logical[TYPE_LEN];
  size_t n = 0, k = 0;
  for (uint32_t d = 0; d < x->rank; d++) {
    n += (size_t)snprintf(sizes + n, sizeof sizes - n, "%s%lld",
                          d ? ", " : "", (long long)x->dims[d]);
    k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                          d ? ", " : "", (long long)v->stride[d]);
  }
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, logical);
  if (snprintf(view, sizeof view, "%.*s, strided<[%s], offset: %lld>>",
               (int)strlen(logical) - 1, logical, strides,
               (long long)v->offset) >= (int)sizeof view) {
    e->error = "a folded view whose memref type is too long";
    return;
  }
  Name out;
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.reinterpret_cast %s to offset: [%lld], "
                   "sizes: [%s], strides: [%s] : %s to %s", out, val,
                (long long)v->offset, sizes, strides, type, view);
  snprintf(val, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", view);
}

void mg_lower_layout_view(Emit *e, const MgGraph *g, MgTensorId t, Name val,
                          char type[TYPE_LEN]) {
  const MgTensor *x = &g->tensors[t];
  int8_t perm[MG_MAX_DIMS];
  MgStridedView v;
  if (mg_graph_folded_view(g, t, &v)) {
    folded_view(e, x, &v, val, type);
    return;
  }
  if (g->ops[x->producer].folded || !mg_graph_tensor_perm(g, x, perm))
    return; // a block input gets its kernel tensor's view made already
  int64_t sstride[MG_MAX_DIMS], n = 1;
  // A stride past a symbolic dim of the stored array is known at run time
  // only (`?`; only unit dims come before a symbol, form/symbols.c).
  bool dyn[MG_MAX_DIMS], past = false;
  MgTensor s = mg_graph_stored_tensor(g, t);
  for (uint32_t d = x->rank; d-- > 0;) {
    sstride[d] = n;
    dyn[d] = past;
    n *= s.dims[d];
    past |= mg_tensor_sym(&s, d) != 0;
  }
  char map[96], strides[128], view[TYPE_LEN]; // rank 6, strides < 2^48
  size_t m = (size_t)snprintf(map, sizeof map, "(");
  for (uint32_t d = 0; d < x->rank; d++)
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%u", d ? ", " : "", d);
  m += (size_t)snprintf(map + m, sizeof map - m, ") -> (");
  size_t k = 0;
  for (uint32_t d = 0; d < x->rank; d++) {
    m += (size_t)snprintf(map + m, sizeof map - m, "%sd%d", d ? ", " : "",
                          perm[d]);
    if (dyn[perm[d]])
      k += (size_t)snprintf(strides + k, sizeof strides - k, "%s?",
                            d ? ", " : "");
    else
      k += (size_t)snprintf(strides + k, sizeof strides - k, "%s%lld",
                            d ? ", " : "", (long long)sstride[perm[d]]);
  }
  snprintf(map + m, sizeof map - m, ")");
  // memref<AxBxT> -> memref<BxAxT, strided<[1, B]>>: the logical shape
  // over the stored array, nothing copied.
  char logical[TYPE_LEN];
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, logical);
  snprintf(view, sizeof view, "%.*s, strided<[%s]>>",
           (int)strlen(logical) - 1, logical, strides);
  Name out;
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.transpose %s %s : %s to %s", out, val, map,
                type, view);
  snprintf(val, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", view);
}
