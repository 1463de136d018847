//===- cost_internal.h - Sustained fractions; the view ops' traffic ------===//
//
// Tuned kernels reach about these fractions of the data-sheet peaks; the
// lower bound (program.c) must use the same DRAM figure as the estimate
// (kernel.c) so that it never exceeds one. See docs/cost.md. views.c
// counts what the view ops' copy kernels move.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_COST_INTERNAL_H
#define MIRAGE_LIB_COST_INTERNAL_H

#include "mirage/cost.h"

#define MG_COST_DRAM_EFF 0.85
#define MG_COST_L2_EFF 0.7
#define MG_COST_SMEM_EFF 0.8
#define MG_COST_TENSOR_EFF 0.7
#define MG_COST_SIMT_EFF 0.8
#define MG_COST_SFU_EFF 0.8

/// Global reads of iterator `it` of block graph `b` over `blocks` blocks
/// and the for-loop (L2 traffic), and in `dram` those DRAM serves: its
/// kernel tensor once when it is re-read and fits in half the L2, else
/// every read.
double mg_cost_iterator_traffic(const MgGraph *b, const MgOp *it,
                                double blocks, const MgGpu *gpu,
                                double *dram);

/// The traffic of kernel-level view op `op`'s copy kernel into `c`
/// (views.c): sectors read and written, utilization 1.
void mg_cost_view(const MgProgram *p, const MgOp *op, const MgGpu *gpu,
                  MgKernelCost *c);

#endif // MIRAGE_LIB_COST_INTERNAL_H
