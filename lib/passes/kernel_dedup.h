//===- kernel_dedup.h - One copy of each distinct GPU kernel -------------===//
#ifndef MIRAGE_PASSES_KERNEL_DEDUP_H
#define MIRAGE_PASSES_KERNEL_DEDUP_H

#include <stdbool.h>
#include <stdint.h>

#include "mlir-c/IR.h"

typedef struct MgKernelDedup {
  uint32_t kernels;        // gpu.func kernels compared
  uint32_t merged;         // erased: an earlier identical kernel serves
  uint32_t modules_erased; // gpu.modules left empty and erased
} MgKernelDedup;

/// Points every gpu.launch_func of `module` at the first of the identical
/// kernels (same text under one name, no symbol references inside) and
/// erases the other copies; false when out of memory (nothing erased).
bool mg_lower_dedup_kernels(MlirOperation module, MgKernelDedup *stats);

#endif // MIRAGE_PASSES_KERNEL_DEDUP_H
