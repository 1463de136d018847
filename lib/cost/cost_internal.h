//===- cost_internal.h - Sustained fractions of the GPUs' peaks -----------===//
//
// Tuned kernels reach about these fractions of the data-sheet peaks; the
// lower bound (program.c) must use the same DRAM figure as the estimate
// (kernel.c) so that it never exceeds one. See docs/cost.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_COST_INTERNAL_H
#define MIRAGE_LIB_COST_INTERNAL_H

#define MG_COST_DRAM_EFF 0.85
#define MG_COST_L2_EFF 0.7
#define MG_COST_SMEM_EFF 0.8
#define MG_COST_TENSOR_EFF 0.7
#define MG_COST_SIMT_EFF 0.8
#define MG_COST_SFU_EFF 0.8

#endif // MIRAGE_LIB_COST_INTERNAL_H
