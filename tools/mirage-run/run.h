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
/// A `?` dim of a signature read from IR (mg_run_signature_read).
#define MG_RUN_DYNAMIC (-1)
/// True when some dim of `sig` is `?`.
bool mg_run_signature_dynamic(const MgRunSignature *sig);
/// `sig` with every `?` dim of size `n`: the lift makes all the `?` of a
/// subprogram one symbol (docs/lift.md), so one size instantiates them.
MgRunSignature mg_run_signature_at(const MgRunSignature *sig, int64_t n);
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

/// Unit roundoff 2^-p of `dtype` (p = significand bits).
double mg_run_unit_roundoff(MgDType dtype);
/// IEEE binary16 and bfloat16 bit patterns of `v` rounded to nearest-even
/// (mg_dtype_round is their value), and back.
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
/// The same storage and state as mg_run_random_fill, without the doubles.
void mg_run_random_fill_storage(uint64_t *state, MgDType dtype, double range,
                                void *storage, size_t n);

//===--- jit.c ------------------------------------------------------------===//

/// What a JIT-compiled function is compiled for and runs on. `cpu` is
/// "host" (or NULL: the host CPU and its features) or "baseline" (the
/// architecture's baseline CPU, no optional features); `inputs` has one
/// dense buffer per argument of `sig` in its element type (read),
/// `outputs` one preallocated buffer per result (written).
typedef struct MgRunJitCall {
  const char *cpu;
  const MgRunSignature *sig;
  void *const *inputs;
  void *const *outputs;
} MgRunJitCall;

/// Copies `func` (and the functions it calls, from `module`) into a fresh
/// module, lowers it with the upstream pipeline, JIT-compiles it for
/// call->cpu and runs it on call's buffers. False with a message on
/// lowering or JIT failure (MLIR diagnostics go to the context's handler).
bool mg_run_jit(MlirOperation module, MlirOperation func,
                const MgRunJitCall *call, char *err, size_t err_size);
/// The indices of one dim of a function's single result to compute.
typedef struct MgRunJitRows {
  uint32_t dim;
  int64_t count;
  const int64_t *rows; // increasing
  bool tiled;          // set by mg_run_jit_rows
} MgRunJitRows;
/// mg_run_jit computing only `rows` of the result: before bufferization the
/// result is copied by a linalg.copy that upstream's tiling
/// (transform.structured.fuse, tile size 1 along the dim) turns into a loop
/// over the dim with the producers fused in, and the loop runs over the
/// given indices only. The other elements of `outputs[0]` are left
/// unwritten. Sets rows->tiled to false when the tiling did not apply (the
/// whole result was computed).
bool mg_run_jit_rows(MlirOperation module, MlirOperation func,
                     const MgRunJitCall *call, MgRunJitRows *rows, char *err,
                     size_t err_size);
/// The textual pipeline used to lower the copied function (for --help).
const char *mg_run_jit_pipeline(void);
/// Lowers `program` for the CPU (lib/lower), JIT-compiles it in `ctx` and
/// runs it as mg_run_jit does.
bool mg_run_jit_lowered(MlirContext ctx, const MgProgram *program,
                        const MgRunJitCall *call, char *err, size_t err_size);
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

/// Inputs (as 8-byte cells) up to which the interpreter and the error
/// estimates run in parallel, each with its own copy of them, and a
/// suggested --range is checked by running at it.
#define MG_RUN_PARALLEL_BYTES (256.0 * 1024 * 1024)

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

/// Runs `program` on `inputs` twice, in domains that propagate, to first
/// order, the rounding errors a computation in unit roundoff `u` makes at
/// every operation (docs/mirage-run.md): once with carried errors
/// independent (in quadrature), once linear (every correlation allowed).
/// Writes, per output
/// element, the deviation of its error into `out` (see MgRunSigmas); +inf
/// marks an ill-conditioned element.
typedef struct MgRunSigmas {
  double *const *sigma;     // independent errors: one array per graph
                            // output, sized like it
  double *const *sigma_lin; // linear errors, the same way
} MgRunSigmas;
MgStatus mg_run_error_sigmas(const MgProgram *program,
                             const MgRunSignature *sig,
                             const double *const *inputs, double u,
                             MgRunSigmas out, MgDiag *diag);

//===--- overflow.c: values past their element type's range ----------------===//

/// The kernel-level tensor whose values go furthest past its type's largest
/// finite value, in an exact (f64) run.
typedef struct MgRunOverflow {
  double ratio; // its largest magnitude over the type's largest finite
                // value (0: no such tensor)
  double peak;  // that largest magnitude
  MgDType dtype;
  char op[24];  // the op kind computing it ("sum")
} MgRunOverflow;

/// Runs `program` on `inputs` (logical order) in the float interpreter with
/// every tensor of the root graph kept, and finds the tensor furthest past
/// its type's range. False on failure (no memory).
bool mg_run_overflow_probe(const MgProgram *program,
                           const double *const *inputs, MgRunOverflow *out);
/// mg_interp_run_f64 that also fills `peaks` as the probe does, at no
/// extra run when keeping every tensor is cheap (else peaks->ratio = -1).
MgStatus mg_run_interpret(const MgProgram *program,
                          const double *const *inputs,
                          double *const *outputs, MgRunOverflow *peaks,
                          MgDiag *diag);
/// A --range to suggest when `program` overflows at `range` (the probe at
/// `range` gave `at_range`): the largest power of two below `range` at
/// which, with the inputs scaled to it, every tensor stays within half its
/// type's range (bisection: at most 6 more runs, 1 or 2 when the ratio is
/// known). Without `verify`, no run: a power of two safe for any quantity
/// that grows at least linearly with the range (often smaller than
/// needed).
double mg_run_overflow_range(const MgProgram *program,
                             const double *const *inputs, double range,
                             const MgRunOverflow *at_range, bool verify);

//===--- sample.c: checking a random sample of output rows -----------------===//

/// Operations a full check of `program` does per run (a multiply-add counts
/// one): the unit of mirage-run's budget.
double mg_run_program_work(const MgProgram *program);

/// Most groups a sample checks.
#define MG_RUN_SAMPLE_MAX (1 << 20)
/// Default budget of a check, in operations (mg_run_program_work): beyond
/// it a sample of rows is checked (--sample-above).
#define MG_RUN_SAMPLE_ABOVE 1e8

typedef enum MgRunSampleKind {
  MG_RUN_SAMPLE_FULL, // within the budget: every element is checked
  MG_RUN_SAMPLE_ROWS, // a sample of rows (MgRunSample)
  MG_RUN_SAMPLE_NONE, // beyond the budget, but no dim can be sliced
} MgRunSampleKind;

/// A check of some rows only: dim `dim` of the (single) output is cut into
/// `groups` groups of `out_unit` consecutive indices, `num_sampled` of which
/// are checked (sample.c explains the slicing).
typedef struct MgRunSample {
  uint32_t dim;
  int64_t groups;
  uint32_t num_sampled;
  int64_t *sampled; // the checked groups, increasing (the first, the last,
                    // the others at random)
  int64_t out_unit;
  int8_t in_dim[MG_RUN_MAX_VALUES];   // per input: its sliced stored dim, -1
  int64_t in_unit[MG_RUN_MAX_VALUES]; // per input: indices per group
  MgProgram *program;                 // the kernel graph, sliced
  MgRunSignature sig;                 // its signature (stored shapes)
  double full_work, work;             // estimated operations
} MgRunSample;

/// Decides how to check `program` (signature `sig`) within `budget`
/// operations; MG_RUN_SAMPLE_ROWS fills `s` (free with mg_run_sample_free),
/// its random groups drawn from `seed`.
MgRunSampleKind mg_run_sample_plan(const MgProgram *program,
                                   const MgRunSignature *sig, double budget,
                                   uint64_t seed, MgRunSample *s);
void mg_run_sample_free(MgRunSample *s);
/// Input `i` of the sliced program as doubles (stored order), gathered from
/// the full input's `storage` (signature `full`).
void mg_run_sample_gather_input(const MgRunSample *s,
                                const MgRunSignature *full, uint32_t i,
                                const void *storage, double *out);
/// The sampled elements of the full output's `storage` into `out` (the
/// sliced output's storage).
void mg_run_sample_gather_output(const MgRunSample *s,
                                 const MgRunSignature *full,
                                 const void *storage, void *out);
/// Flat index into the full output of flat index `i` into the sliced one.
int64_t mg_run_sample_output_index(const MgRunSample *s,
                                   const MgRunTensorType *full, int64_t i);
/// The sampled indices of the output's dim, increasing, into `rows`
/// (num_sampled * out_unit entries); returns their number.
int64_t mg_run_sample_rows(const MgRunSample *s, int64_t *rows);

//===--- memory.c: the memory a check needs, and its bound -----------------===//

/// --memory-limit: at least 16 MiB (the search's floor), at most 2^60
/// bytes; by default half the physical memory, at most 64 GiB (4 GiB when
/// the system does not say).
#define MG_RUN_MEMORY_MIN ((uint64_t)16 << 20)
#define MG_RUN_MEMORY_MAX ((uint64_t)1 << 60)
#define MG_RUN_MEMORY_CAP ((uint64_t)64 << 30)
#define MG_RUN_MEMORY_UNKNOWN ((uint64_t)4 << 30)

/// The default of --memory-limit on this machine.
uint64_t mg_run_memory_default(void);
/// A --memory-limit value: bytes with an optional K, M, G or T suffix
/// (powers of 1024; "1.5G"), or "none" (UINT64_MAX: no bound). False when
/// malformed or outside [MG_RUN_MEMORY_MIN, MG_RUN_MEMORY_MAX].
bool mg_run_memory_parse(const char *text, uint64_t *bytes);
/// "1.5 GiB", "512 MiB", "100 bytes".
void mg_run_memory_str(uint64_t bytes, char *buf, size_t size);

/// The host memory a check needs at its peak (an upper estimate, from the
/// shapes alone; sizes saturate at UINT64_MAX), and its largest tensor.
typedef struct MgRunMemory {
  uint64_t bytes;        // held + phase
  uint64_t held;         // buffers held for the whole check
  uint64_t phase;        // the largest of the JIT's and the interpreter's
  uint64_t probe;        // overflow.c's probe that keeps every tensor
  uint64_t numel;        // elements of the largest tensor
  uint64_t tensor_bytes; // ... in its element type
  char tensor[256];      // "argument 0 (tensor<8192x65536xf32>)"
} MgRunMemory;

/// What runs the compiled side of a check.
typedef enum MgRunMemoryJit {
  MG_RUN_MEMORY_REFERENCE, // the JIT, the reference function's ops
  MG_RUN_MEMORY_LOWERED,   // the JIT, lib/lower's code of the kernel graph
  MG_RUN_MEMORY_DEVICE,    // a GPU (--time): nothing more on the host
} MgRunMemoryJit;

/// The memory of a check of every element of `program` (signature `sig`);
/// `ref` is the reference function with MG_RUN_MEMORY_REFERENCE.
void mg_run_memory_full(const MgProgram *program, const MgRunSignature *sig,
                        MgRunMemoryJit jit, MlirOperation ref,
                        MgRunMemory *m);
/// The memory of the check of sample `s` against reference `ref`.
void mg_run_memory_sampled(const MgRunSignature *sig, const MgRunSample *s,
                           MlirOperation ref, MgRunMemory *m);

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

/// One kernel graph to time: the program, its launch plan and compiled
/// image, and the host buffers of its arguments and results.
typedef struct MgRunGpuJob {
  const MgProgram *program;
  const MgRunGpuPlan *plan;
  const MgRunGpuImage *image;
  void *const *inputs;  // one dense buffer per argument, stored shape
  void *const *outputs; // one per result, logical order
} MgRunGpuJob;

/// Loads job->image, allocates the plan's buffers, copies the inputs in,
/// runs the launch sequence opt->warmup times, then opt->runs times between
/// two CUDA events, and copies the results of the last run into the
/// outputs. False with a message on any driver error; everything is freed.
bool mg_run_gpu_time(const MgRunGpu *gpu, const MgRunGpuJob *job,
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
