//===- interp.h - Executing μGraphs: one executor, two value domains -*- C -*-===//
//
// The executor runs a program exactly as a GPU would: every block of every
// graph-defined kernel, every for-loop iteration, iterators cutting tiles by
// imap/fmap, accumulators, savers placing tiles by omap. It is serial and
// simple: the oracle the other parts are tested against.
//
// Values are 8-byte cells whose meaning belongs to a domain: the float domain
// stores doubles (f64 accumulation), the finite-field domain (lib/verify)
// stores residue pairs. The executor only moves cells and calls the domain.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_INTERP_H
#define MIRAGE_INTERP_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t MgCell;

/// The shape of one matmul, c(m,n) = a(m,k) · b(k,n).
typedef struct MgMatmulShape {
  int64_t m, k, n;
} MgMatmulShape;

/// Arithmetic on arrays of cells. Every function returns MG_STATUS_OK or a
/// failure that stops execution (e.g. a zero divisor residue), described in
/// the domain's own state.
typedef struct MgDomain {
  /// out[i] = a[i] (kind) b[i], kind in ADD SUB MUL DIV.
  MgStatus (*binary)(void *ctx, MgOpKind kind, const MgCell *a,
                     const MgCell *b, MgCell *out, size_t n);
  /// out[i] = kind(a[i]); kind is a unary or scalar op (scalar given).
  MgStatus (*unary)(void *ctx, MgOpKind kind, double scalar, const MgCell *a,
                    MgCell *out, size_t n);
  /// acc[i] += x[i].
  MgStatus (*add_into)(void *ctx, MgCell *acc, const MgCell *x, size_t n);
  /// c(m,n) = a(m,k) · b(k,n), row-major, c not aliasing a or b.
  MgStatus (*matmul)(void *ctx, const MgCell *a, const MgCell *b, MgCell *c,
                     MgMatmulShape shape);
  /// The additive identity.
  MgCell zero;
} MgDomain;

/// A dense row-major host tensor of cells; `data` is owned by whoever
/// allocated it.
typedef struct MgBuffer {
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
  MgCell *data;
} MgBuffer;

/// Runs the root graph (graph 0) of `program` on `inputs` (one per graph
/// input, matching shapes). On success `outputs[i]` receives a malloc'd
/// buffer per graph output (free with mg_buffer_free). The program must be
/// valid (mg_program_validate).
MG_API MgStatus mg_exec_run(const MgProgram *program, const MgDomain *domain,
                            void *domain_ctx, const MgBuffer *inputs,
                            MgBuffer *outputs, MgDiag *diag);

/// Allocates a zero-filled buffer of the given shape; false on no memory.
MG_API bool mg_buffer_alloc(MgBuffer *buf, uint32_t rank, const int64_t *dims);
MG_API void mg_buffer_free(MgBuffer *buf);
MG_API int64_t mg_buffer_numel(const MgBuffer *buf);
/// True when both buffers have the same rank and dims.
MG_API bool mg_buffer_same_shape(const MgBuffer *a, const MgBuffer *b);

/// The float reference domain: cells hold doubles; non-LAX ops use their real
/// definitions (silu x·σ(x), gelu with erf, relu max(x,0)).
MG_API const MgDomain *mg_interp_float_domain(void);
/// Doubles stored in cells and back.
MG_API MgCell mg_cell_from_double(double v);
MG_API double mg_cell_to_double(MgCell c);

/// Interpreters read inputs in their logical shape. An input with a layout
/// (mg_graph_set_input_perm) arrives from a caller as stored: this rewrites
/// each such `values[i]` in place from stored to logical order. False on
/// no memory.
MG_API bool mg_interp_stored_to_logical(const MgProgram *program,
                                        double *const *values);
/// Convenience: runs `program` in the float domain on double arrays.
/// `outputs[i]` must hold as many doubles as graph output i has elements.
MG_API MgStatus mg_interp_run_f64(const MgProgram *program,
                                  const double *const *inputs,
                                  double *const *outputs, MgDiag *diag);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_INTERP_H
