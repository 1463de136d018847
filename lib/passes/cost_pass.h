//===- cost_pass.h - The figures --mirage-cost prints, for reuse ---------===//
//
// --mirage-explain prints the cost model's figures of the search's
// candidates in the words --mirage-cost uses, so that one can be checked
// against the other (test/search/explain-*.mlir).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_COST_PASS_H
#define MIRAGE_PASSES_COST_PASS_H

#include "mirage/cost.h"

#include <stddef.h>

/// "N kernel(s), estimated X us, roofline Y us" for the whole program
/// (inputs and free views are no kernels).
void mg_cost_pass_program_figures(const MgProgram *p, const MgGpu *gpu,
                                  char *buf, size_t size);
/// "program bound Z us (DRAM A MB once at B TB/s, F flop at the
/// tensor-core peak) + one launch L us": the bound of what the program
/// computes (mg_cost_program_bound), whatever kernels compute it.
void mg_cost_pass_bound_figures(const MgProgram *p, const MgGpu *gpu,
                                char *buf, size_t size);
/// The figures of one kernel op after its name: "[N block(s), utilization
/// U, ]estimated X us (b-bound), roofline Y us (b-bound), DRAM ... sfu op"
/// ("estimated" only when lib/lower has a plan for it).
void mg_cost_pass_kernel_figures(const MgOp *op, const MgKernelCost *c,
                                 const MgEmittedCost *e, char *buf,
                                 size_t size);

#endif // MIRAGE_PASSES_COST_PASS_H
