//===- lower_internal.h - The MLIR text emitter's shared state ------------===//
//
// One Emit per graph being written. Every tensor of the graph has a memref
// value name and type (`val`, `type`); ops are written as element loops
// over their result (ops.c), structure around them by emit.c.
//
// Invariants: SSA names are "%v<N>" from one counter per function, so they
// never clash; a loop's index names are valid only inside it; in GPU mode
// every element loop is followed by a barrier, so an op sees its operands
// complete.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_INTERNAL_H
#define MIRAGE_LIB_LOWER_INTERNAL_H

#include "mirage/lower.h"

#define NAME_LEN 24
#define TYPE_LEN 128

typedef char Name[NAME_LEN];

typedef struct Emit {
  MgText *t;
  MgLowerMode mode;
  const MgProgram *p;
  const MgGraph *g;
  Name *val;             // per tensor: its memref
  char (*type)[TYPE_LEN]; // per tensor: its memref type
  uint8_t *dtype;        // per tensor: its element type in memory (tiles
                         // of accumulators are f32, as registers would be)
  uint32_t *counter;     // SSA numbering of the enclosing function
  int indent;
  // Element loops: first index and step (GPU: thread id, threads; CPU: 0,
  // 1). Predefined kernels on the GPU stride over the whole grid.
  Name lo, step;
  bool barrier;          // GPU: a barrier after each element loop
  // Block graphs: block index per grid axis and the for-loop iteration.
  Name block[3], iter;
  const char *error;     // first unsupported construct met
} Emit;

/// A fresh SSA name.
void mg_lower_fresh(Emit *e, Name out);
/// One indented line.
void mg_lower_line(Emit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// An index constant.
void mg_lower_index(Emit *e, int64_t v, Name out);
/// "f16", "bf16", "f32".
const char *mg_lower_elt(MgDType dtype);
/// "memref<2x16xf16>" (element type `dtype`) plus an address space when
/// `space` is not NULL.
void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]);

/// Writes op `op` of e->g (not INPUT) as element loops. For ACCUM this is
/// the per-iteration update; mg_lower_accum_init writes the zero fill.
void mg_lower_op(Emit *e, const MgOp *op);
void mg_lower_accum_init(Emit *e, const MgOp *op);

#endif // MIRAGE_LIB_LOWER_INTERNAL_H
