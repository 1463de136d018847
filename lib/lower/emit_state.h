//===- emit_state.h - The state of one graph's emission -------------------===//
//
// Not a layer: the Emit every layer's writers share (docs/lower.md,
// "Layers"). One Emit per graph being written. Every tensor of the graph
// has a memref value name and type (`val`, `type`); ops are written as
// element loops over their result (write/), structure around them by the
// forms (form/) and the block body writer (write/block.c).
//
// Invariants: SSA names are "%v<N>" from one counter per function, so they
// never clash; a loop's index names are valid only inside it; in GPU block
// graphs a barrier separates every two groups of ops with a shared-memory
// dependence (write/block.c), so an op sees its operands complete.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_EMIT_STATE_H
#define MIRAGE_LIB_LOWER_EMIT_STATE_H

#include "mirage/lower.h"
#include "mirage/target.h"

#define NAME_LEN 24
// Room for the longest memref type: rank MG_MAX_DIMS (8), a strided
// layout, dims whose product and strides are below 2^48 (MG_MAX_NUMEL),
// an address space: about 23 digits of dims, 8 x 16 of strides, 60 more.
#define TYPE_LEN 256

typedef char Name[NAME_LEN];
/// One index name per dim of a tensor.
typedef Name Index[MG_MAX_DIMS];
/// A memref value and its type.
typedef struct Memref {
  Name val;
  char type[TYPE_LEN];
} Memref;

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
  int64_t step_value;    // the step when a known constant, else 0
  int elem_loops;        // scf.for ops the open element loop has (write/elements.c)
  bool elem_guard;       // its body is inside a bounds check (write/elements.c)
  // An element loop carrying its (outer, inner) position (write/elements.c): the
  // names, the inner extent (0: none open) and the step.
  Name carry_o, carry_j;
  int64_t carry_inner, carry_step;
  // Staged tiles (write/block.c): per tensor the two-stage buffer and type.
  Name *stage_buf;
  char (*stage_type)[TYPE_LEN];
  // Per online accumulator's result: its running-max state (write/online.c).
  Name *aux_buf;
  char (*aux_type)[TYPE_LEN];
  bool barrier;          // GPU: a barrier after each element loop
  // Block graphs: block index per grid axis and the for-loop iteration.
  Name block[3], iter;
  // Cooperative reductions (write/ops.c): the block's threads when they are whole
  // warps (0: every reduction is sequential per element), the thread id and
  // (GPU) the shared f32 scratch of one value per warp. The CPU form makes
  // the same choices and emulates the lanes in the same order.
  int64_t coop_threads;
  Name tid, scratch;
  bool in_loop;          // emitting the body of a block graph's for-loop
  const MgTarget *target; // what the kernels are for (never NULL)
  bool fma_matmuls;      // block matmuls as FMA loops whatever the target
                         // (the plan's form: plan.c)
  Name sym[MG_MAX_SYMS + 1]; // host and CPU functions: each symbol's size
                             // (form/symbols.c), "" when unused
  Name sym_pad[MG_MAX_SYMS + 1]; // ... rounded up to whole blocks of rows:
                                 // the rows its buffers are allocated with
  // A for-loop over a symbol (ug.forloop_sym, write/block.c): per tensor
  // the dims that hold the iteration's rows (bit d; NULL when the loop is
  // static) and the index value of how many rows this iteration has; a
  // reduction over such a dim skips the rest (write/ops.c).
  uint8_t *loop_dims;
  Name loop_valid;
  const char *error;     // first unsupported construct met
} Emit;

#endif // MIRAGE_LIB_LOWER_EMIT_STATE_H
