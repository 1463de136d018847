//===- run.h - mirage-run internals: signatures, values, JIT, tolerance ---===//
//
// mirage-run checks numbers: a function made of upstream ops (TOSA, linalg,
// arith, tensor) is JIT-compiled for the CPU through the MLIR
// ExecutionEngine, a μGraph kernel graph with the same signature runs in the
// float interpreter (lib/interp), both on the same random inputs, and every
// output element is compared within a tolerance derived from the element
// types, the reduction lengths and a per-element estimate of the rounding
// error (docs/mirage-run.md). With --time the kernel graph's lowered GPU
// code runs on a device through the dlopen'd CUDA driver (driver.h) and
// its results take the JIT's place.
//
// Invariant shared by the files of the tool: an argument or result is a
// statically shaped ranked tensor of rank 1..MG_MAX_DIMS with element type
// f16, bf16 or f32 (MgRunTensorType); its host storage is dense row-major in
// that element type (uint16_t bits for f16/bf16, float for f32), and every
// value handed to the interpreter is exactly the stored value as a double.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TOOLS_RUN_H
#define MIRAGE_TOOLS_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "driver.h"
#include "mirage/graph.h"
#include "mlir-c/IR.h"

/// Arguments or results per function; more is reported as unsupported.
#define MG_RUN_MAX_VALUES 16

typedef struct MgRunTensorType {
  MgDType dtype;
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
} MgRunTensorType;

typedef struct MgRunSignature {
  uint32_t num_inputs, num_outputs;
  MgRunTensorType inputs[MG_RUN_MAX_VALUES];
  MgRunTensorType outputs[MG_RUN_MAX_VALUES];
} MgRunSignature;

//===--- signature.c ------------------------------------------------------===//

/// Reads the function type of func.func `func`. False (with a message in
/// `err`) when an argument or result is not a supported tensor.
bool mg_run_signature_read(MlirOperation func, MgRunSignature *sig, char *err,
                           size_t err_size);
/// True when both signatures are identical; otherwise describes the first
/// difference in `err`.
bool mg_run_signature_equal(const MgRunSignature *a, const MgRunSignature *b,
                            char *err, size_t err_size);
/// Number of elements of a tensor type.
int64_t mg_run_numel(const MgRunTensorType *t);
/// Writes "tensor<2x64xf16>" into `buf`.
void mg_run_type_str(const MgRunTensorType *t, char *buf, size_t size);
/// The largest unit roundoff among the float element types of every value
/// (results and block arguments) in `func`: the precision the JIT computes in.
double mg_run_func_roundoff(MlirOperation func);
/// The float element type with the smallest range among the same values
/// (f16 < bf16 < f32): the type an overflow of `func` most likely exceeded.
MgDType mg_run_func_narrowest(MlirOperation func);

//===--- values.c ---------------------------------------------------------===//

/// `x` rounded to nearest-even in `dtype` (overflow gives ±inf).
double mg_run_round(MgDType dtype, double x);
/// Unit roundoff 2^-p of `dtype` (p = significand bits).
double mg_run_unit_roundoff(MgDType dtype);
/// The largest finite value of `dtype` (65504 for f16).
double mg_run_max_finite(MgDType dtype);
/// IEEE binary16 and bfloat16 bit patterns of `v` rounded to nearest-even
/// (mg_run_round is their value), and back.
uint16_t mg_run_f16_bits(double v);
double mg_run_f16_value(uint16_t bits);
uint16_t mg_run_bf16_bits(double v);
double mg_run_bf16_value(uint16_t bits);
/// Element `i` of dense storage in `dtype`, as a double, and the reverse
/// (`v` must be representable).
double mg_run_load(MgDType dtype, const void *storage, size_t i);
void mg_run_store(MgDType dtype, void *storage, size_t i, double v);
/// Fills `values` (doubles) and `storage` (dtype) with the same n values,
/// uniform in [-range, range] and rounded to `dtype`, drawn from `state`.
void mg_run_random_fill(uint64_t *state, MgDType dtype, double range,
                        double *values, void *storage, size_t n);

//===--- jit.c ------------------------------------------------------------===//

/// Copies `func` (and the functions it calls, from `module`) into a fresh
/// module, lowers it with the upstream pipeline, JIT-compiles it and runs it
/// on `inputs` (one dense buffer per argument in its element type), writing
/// `outputs` (one preallocated buffer per result). `cpu` is "host" (or
/// NULL: the host CPU and its features) or "baseline" (the architecture's
/// baseline CPU, no optional features). False with a message on lowering or
/// JIT failure (MLIR diagnostics go to the context's handler).
bool mg_run_jit(MlirOperation module, MlirOperation func, const char *cpu,
                const MgRunSignature *sig, void *const *inputs,
                void *const *outputs, char *err, size_t err_size);
/// The textual pipeline used to lower the copied function (for --help).
const char *mg_run_jit_pipeline(void);
/// Lowers `program` for the CPU (lib/lower), JIT-compiles it in `ctx` and
/// runs it as mg_run_jit does.
bool mg_run_jit_lowered(MlirContext ctx, const MgProgram *program,
                        const char *cpu, const MgRunSignature *sig, void *const *inputs,
                        void *const *outputs, char *err, size_t err_size);
/// The pipeline taking lib/lower's CPU output to the LLVM dialect.
const char *mg_run_jit_lowered_pipeline(void);
/// $MIRAGE_JIT_CPU, or "host" when unset: the default of --jit-cpu.
const char *mg_run_jit_cpu_default(void);

//===--- tolerance.c ------------------------------------------------------===//

/// Per graph output of the root kernel graph: the length of the longest
/// chain of roundings that computes it (sum of reduction lengths plus one
/// per element-wise op along the worst path). `lengths` has one entry per
/// root output.
void mg_run_error_lengths(const MgProgram *program, double *lengths);
/// Absolute tolerance for an output whose largest exact magnitude is
/// `scale`, computed with unit roundoff `u` through `length` roundings.
double mg_run_tolerance(double u, double length, double scale);

//===--- errprop.c --------------------------------------------------------===//

/// Deviations of the estimated rounding error allowed per element: of the
/// independent-error estimate, and of the linear (fully correlated) one,
/// which already bounds over every correlation.
#define MG_RUN_SIGMAS 6.0
#define MG_RUN_LINEAR_SIGMAS 4.0
/// An argument of sqrt/rsqrt or a divisor closer to zero than this many
/// deviations of its own error makes the result ill-conditioned. Far enough
/// from 0 that the first-order estimate still holds: a 3σ error in a
/// divisor at 10σ changes the quotient by 43%, inside the 6σ = 60% that
/// the linear estimate allows.
#define MG_RUN_SINGULAR_SIGMAS 10.0

/// How errors carried in by operands combine (errprop.c).
typedef enum MgRunErrMode {
  MG_RUN_ERR_INDEPENDENT, // in quadrature
  MG_RUN_ERR_LINEAR,      // linearly: every correlation allowed
} MgRunErrMode;

/// Runs `program` on `inputs` in a domain that propagates, to first order,
/// the rounding errors a computation in unit roundoff `u` makes at every
/// operation (docs/mirage-run.md). Writes, per output element, the
/// deviation of its error into `sigma` (one array per graph output, sized
/// like it); +inf marks an ill-conditioned element.
MgStatus mg_run_error_sigma(const MgProgram *program,
                            const MgRunSignature *sig,
                            const double *const *inputs, double u,
                            MgRunErrMode mode, double *const *sigma,
                            MgDiag *diag);

//===--- timing.c: running the lowered kernels on a GPU ---------------===//

/// A kernel's memref argument: the device buffer it addresses and the
/// identity-layout shape it is passed with (the tensor's stored dims).
typedef struct MgRunGpuArg {
  uint32_t buffer;
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
} MgRunGpuArg;

/// One launch of the host code lib/lower writes (host.c), from the same
/// functions: root op `op`'s kernel "<module>_k<op>".
typedef struct MgRunGpuLaunch {
  MgOpId op;
  int64_t grid[3], threads; // mg_lower_launch
  int64_t smem;             // mg_lower_smem_bytes: dynamic shared memory
  uint32_t num_args;        // the op's operands, then its results
  MgRunGpuArg args[MG_MAX_OP_INPUTS + MG_MAX_OP_OUTPUTS];
} MgRunGpuLaunch;

/// Device buffers and launches of a program, as its host code makes them.
typedef struct MgRunGpuPlan {
  uint32_t num_buffers;
  int64_t *buffer_bytes;   // per buffer
  uint32_t *tensor_buffer; // per root tensor (a free view: its operand's)
  uint32_t num_launches;
  MgRunGpuLaunch *launches;
  uint32_t num_inputs, num_outputs;
  uint32_t input_buffer[MG_RUN_MAX_VALUES];    // per function argument
  MgTensorId output_tensor[MG_RUN_MAX_VALUES]; // per function result
} MgRunGpuPlan;

/// Builds the plan of valid program `p` whose function signature is `sig`.
/// False with a message when they disagree, or out of memory.
bool mg_run_gpu_plan_build(const MgProgram *p, const MgRunSignature *sig,
                           MgRunGpuPlan *plan, char *err, size_t err_size);
void mg_run_gpu_plan_free(MgRunGpuPlan *plan);
/// Bytes every run must move at least: each argument read once, each
/// result written once.
int64_t mg_run_gpu_min_dram_bytes(const MgRunSignature *sig);
/// Parameters of `.entry <entry>(...)` in PTX text `ptx`; -1 when the entry
/// is not there.
int mg_run_ptx_entry_params(const char *ptx, const char *entry);

/// The code of one kernel graph: a gpu.binary's object (NUL-terminated PTX
/// text, or a cubin) and the kernel names of the plan's launches in order.
typedef struct MgRunGpuImage {
  char *name;     // the gpu.binary's symbol
  char *data;
  size_t size;
  bool is_ptx;
  char **kernels; // one per launch
  uint32_t num_kernels;
} MgRunGpuImage;

typedef struct MgRunGpu {
  const MgCuda *cuda;
  const MgCudaDevice *device;
} MgRunGpu;

typedef struct MgRunTimeOptions {
  uint32_t runs;   // timed runs (the median is reported)
  uint32_t warmup; // untimed runs before them
  bool flush_l2;   // evict the L2 before every timed run
} MgRunTimeOptions;

typedef struct MgRunTiming {
  uint32_t runs;
  double median_us, min_us; // of the whole launch sequence, CUDA events
} MgRunTiming;

/// Loads `image`, allocates the plan's buffers, copies `inputs` (one dense
/// buffer per argument, stored shape) in, runs the launch sequence
/// opt->warmup times, then opt->runs times between two CUDA events, and
/// copies the results of the last run into `outputs` (logical order).
/// False with a message on any driver error; everything is freed.
bool mg_run_gpu_time(const MgRunGpu *gpu, const MgRunGpuPlan *plan,
                     const MgProgram *program, const MgRunGpuImage *image,
                     void *const *inputs, void *const *outputs,
                     const MgRunTimeOptions *opt, MgRunTiming *timing,
                     char *err, size_t err_size);

//===--- gpu_module.c: the lowered module -----------------------------===//

/// A copy of `module` lowered by the mirage-lower pass with PTX for
/// `target` (libdevice from `toolkit`), as mirage-opt --mirage-superopt
/// lowers the programs it chose. Null after the diagnostics and a message
/// in `err` when the pass fails. The caller destroys the result.
MlirOperation mg_run_lower_module(MlirOperation module, const char *target,
                                  const char *toolkit, char *err,
                                  size_t err_size);
/// The gpu.binary the host function `func_name` of `lowered` launches from,
/// and its kernels, checked against `plan` (same number, "_k<op>" each).
/// False with a message otherwise.
bool mg_run_gpu_image_find(MlirOperation lowered, const char *func_name,
                           const MgRunGpuPlan *plan, MgRunGpuImage *image,
                           char *err, size_t err_size);
void mg_run_gpu_image_free(MgRunGpuImage *image);

#endif // MIRAGE_TOOLS_RUN_H
