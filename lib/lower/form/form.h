//===- form.h - The forms: the GPU kernels, the host code, the CPU program ===//
//
// One writer per MgLowerMode: a gpu.func per kernel op (gpu.c), the host
// function that launches them (host.c, with host=device's argument checks
// in device_args.c) and the CPU function that runs the whole program
// (cpu.c). They lay out functions, buffers and loops over blocks, and
// call the op writers (write/) for the bodies; the driver (driver.c,
// plan.c) calls them (docs/lower.md, "Layers").
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_FORM_H
#define MIRAGE_LIB_LOWER_FORM_H

#include "write/write.h"

/// The writers: one gpu.func, the CPU function, the host function.
void mg_lower_gpu_kernel(Emit *e, const char *name, MgOpId op);
void mg_lower_cpu_program(Emit *e, const MgLowerOptions *o);
void mg_lower_host_program(Emit *e, const MgLowerOptions *o);

//===--- host=device's argument checks (device_args.c) --------------------===//

/// The messages of one host function's failed checks: llvm.mlir.global
/// strings @"<func>.arg_error<n>" emitted after it.
typedef struct MgLowerArgErrors {
  const char *func;
  MgText globals;
  uint32_t count;
} MgLowerArgErrors;

/// scf.if `bad` (an i1): `message` (a new global after @F) to stderr, then
/// abort.
void mg_lower_fail_if(Emit *e, MgLowerArgErrors *errs, const char *bad,
                      const char *message);
/// `dense` (an identity memref type of rank `rank`) with a fully dynamic
/// strided layout: the type host=device's @F takes for it.
void mg_lower_caller_type(const char *dense, uint32_t rank,
                          char out[TYPE_LEN]);
/// At @F's entry: argument `given` (signature position `position`, the
/// caller's type of x's identity memref type) is checked to be what the
/// kernels read (offset 0, dense strides, 16-byte aligned) or @F writes a
/// message to stderr and aborts; `val` names it cast to the identity type.
void mg_lower_check_arg(Emit *e, MgLowerArgErrors *errs, uint32_t position,
                        const char *given, const MgTensor *x, Name val);
/// After @F: the messages and the declarations of write and abort.
void mg_lower_arg_errors_finish(Emit *e, MgLowerArgErrors *errs);

//===--- Symbols: sizes known at run time (symbols.c) ---------------------===//

// mg_lower_symbols_unsupported (lower.h) is here too: every symbolic
// tensor is a graph-defined kernel's operand or result or a plain input,
// with only unit dims before its symbolic dims, and host=copy.
/// At the entry of function @`func`: e->sym[s] = the size of each symbol s
/// the root's inputs have, read from the arguments (e->val/e->type of the
/// INPUT tensors: memrefs; `tensor_args`: the tensor arguments %arg<pos>),
/// every other dim of that symbol checked equal to it, and each grid axis
/// of a symbol checked against the target's limit (a message and abort
/// otherwise).
void mg_lower_bind_symbols(Emit *e, MgLowerArgErrors *errs, bool tensor_args);
/// The operands an alloc of root tensor `t` takes: its symbols' sizes, one
/// per `?` dim, comma-separated ("" when static), rounded up to whole
/// blocks of rows (e->sym_pad): the kernels' last block of a symbol with
/// several rows a block reads and writes the padding.
void mg_lower_alloc_sizes(const Emit *e, const MgTensor *t,
                          char out[TYPE_LEN]);
/// The same at the caller's sizes (e->sym): the buffers it gets back.
void mg_lower_caller_sizes(const Emit *e, const MgTensor *t,
                           char out[TYPE_LEN]);
/// The symbol kernel op `op` (of p's root) runs a for-loop over, 0 when
/// none: the kernel takes its size as an index argument after its tensors.
unsigned mg_lower_loop_sym(const MgProgram *p, const MgOp *op);
/// The least common multiple of the rows a block of `p` takes of symbol s
/// (1 when every block takes one row): what buffers are padded to.
int64_t mg_lower_sym_quantum(const MgProgram *p, unsigned s);
/// Into `out`, the blocks of block graph b's grid axis a of a symbol:
/// ceil(size / rows a block).
void mg_lower_grid_extent(Emit *e, const MgGraph *b, int a, Name out);
/// True when root tensor t's buffers have more rows than the caller's.
bool mg_lower_is_padded(const Emit *e, const MgTensor *t);
/// `out` (type `out_type`) = a view of the caller's rows of padded buffer
/// `buf` (type `type`) of root tensor t; true when it made one, false
/// (out = buf) when t is not padded. Strided when a symbol comes after a
/// static dim other than 1 (mg_lower_rows_strided).
bool mg_lower_caller_rows(Emit *e, const MgTensor *t, const char *buf,
                          const char *type, Name out,
                          char out_type[TYPE_LEN]);
/// True when t is padded and its strides depend on the padded size: the
/// caller's rows are not the buffer's first elements, so a copy between
/// them is strided (on the host: gpu.memcpy takes contiguous buffers).
bool mg_lower_rows_strided(const Emit *e, const MgTensor *t);
/// Element loops copying the caller's rows of root tensor t from `src`
/// (type `stype`) to `dst` (type `dtype`): explicit, since memref.copy of
/// a strided view lowers to a call into MLIR's runner utilities, which a
/// program linking only the CUDA runtime wrappers does not have.
void mg_lower_copy_rows(Emit *e, const MgTensor *t, const char *src,
                        const char *stype, const char *dst,
                        const char *dtype);

#endif // MIRAGE_LIB_LOWER_FORM_H
