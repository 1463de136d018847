//===- lower.h - μGraph programs as MLIR text for the CPU or the GPU -*- C -*-===//
//
// mg_lower_emit turns a program into upstream MLIR (memref, scf, arith,
// math; gpu for the GPU) as text, op for op as lib/interp runs it, so the
// same semantics hold on both targets:
//  - GPU: one `gpu.func ... kernel` per graph-defined kernel (and per
//    predefined kernel op and view op but a free view, which is a
//    memref view of its operand's buffer) in a `gpu.module`: one workgroup
//    per block,
//    block_threads threads sharing every op's elements in a strided loop,
//    tiles in shared memory, a barrier after every op. Upstream
//    passes take it to NVVM and PTX (docs/lower.md).
//  - host: the `func.func` on tensors (the kernel graph's signature) that
//    copies the inputs to the device, launches those kernels in order
//    (grid, block_threads, dynamic shared memory) and copies the outputs
//    back: gpu.alloc / gpu.memcpy / gpu.launch_func, which upstream's
//    gpu-to-llvm takes to the CUDA runtime calls.
//  - CPU: one `func.func` over memrefs (inputs, then outputs written in
//    place) that runs the whole program: blocks as loops, tiles in
//    buffers; it is what mirage-run JIT-compiles to check the lowering.
// Values are loaded, computed in f32 and stored back in the tensor's
// element type after every op, as a kernel keeping tiles in their declared
// types would. On sm_80+ block matmuls of f16/bf16 tiles run on tensor
// cores (ldmatrix + mma.sync, f32 accumulators), which the CPU form
// emulates lane by lane.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LOWER_H
#define MIRAGE_LOWER_H

#include "mirage/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum MgLowerMode {
  MG_LOWER_CPU,
  MG_LOWER_GPU,
  MG_LOWER_HOST,
  MG_LOWER_MODE_COUNT
} MgLowerMode;

typedef struct MgLowerOptions {
  MgLowerMode mode;
  const char *name;   // symbol: the CPU or host function, or the GPU module
                      // (its kernels are "<module>_k<op>")
  const char *module; // host: the GPU module the kernels are in
  bool c_interface;   // CPU: mark the function llvm.emit_c_interface
} MgLowerOptions;

/// The launch of kernel op `op` of the root graph: a custom op's grid and
/// block threads; a kernel-level matmul of at most 8 rows, the split-K
/// GEMV's; another predefined op's grid-stride launch. The host launches
/// with it and the kernel declares it (known_grid_size, known_block_size).
MG_API void mg_lower_launch(const MgProgram *p, MgOpId op, int64_t grid[3],
                            int64_t *threads);
/// True when root op `op` becomes a GPU kernel of its own: any op but an
/// input and a free view (a reshape of a contiguous buffer in its own
/// element type, or a transpose or slice that is one, lowered as a memref
/// view of that buffer).
MG_API bool mg_lower_is_kernel(const MgProgram *p, MgOpId op);
/// Threads per block of a predefined op's kernel (a grid-stride loop over
/// its result's elements, or a view op's vectors) and the grid it is
/// launched with.
#define MG_LOWER_PREDEFINED_THREADS 256
MG_API int64_t mg_lower_predefined_blocks(const MgProgram *program,
                                          MgOpId op);

/// Appends the lowering of a valid program to `out`. INVALID when the
/// program uses what the lowering does not support (ranks, kinds), NOMEM
/// when the text could not grow. For the default target, sm_90.
MG_API MgStatus mg_lower_emit(const MgProgram *program,
                              const MgLowerOptions *options, MgText *out,
                              MgDiag *diag);
/// The same for a target of compute capability `sm` x 10 (80 for sm_80;
/// 0: the default, sm_90). From 80 on, block matmuls of f16 or bf16 tiles
/// whose dims are multiples of the m16n8k16 shape run on tensor cores
/// (ldmatrix + mma.sync), and the CPU form emulates the same fragments;
/// below, and for other matmuls, on the FP32 lanes (docs/lower.md).
MG_API MgStatus mg_lower_emit_for(const MgProgram *program,
                                  const MgLowerOptions *options, int sm,
                                  MgText *out, MgDiag *diag);

/// Shared memory the tiles of root op `op` take (each 16-byte aligned; 0
/// for a predefined op).
MG_API int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op);
/// Tiles up to this many bytes are static workgroup buffers; above it (the
/// CUDA limit for static shared memory) they are views of dynamic shared
/// memory that the launch sizes.
#define MG_LOWER_STATIC_SMEM 49152
/// Dynamic shared memory bytes to launch the GPU kernel of root op `op`
/// with: its tile bytes when above MG_LOWER_STATIC_SMEM, else 0.
MG_API int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_LOWER_H
