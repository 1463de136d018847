//===- jit.c - Running an upstream-dialect function on the CPU ------------===//
//
// The function under test is copied into a fresh module (with the functions
// it calls), renamed to a fixed entry symbol, marked llvm.emit_c_interface
// and lowered by upstream passes only (the pipeline below; the choices are
// explained in docs/mirage-run.md). Function-boundary bufferization with
// identity layouts followed by buffer-results-to-out-params turns every
// tensor result into a trailing memref argument, so the C interface is
//   void _mlir_ciface_entry(Desc *arg0, ..., Desc *out0, ...)
// where Desc is the memref descriptor {allocated, aligned, offset,
// sizes[rank], strides[rank]}: every field is 8 bytes, so a descriptor is an
// array of 3 + 2·rank int64 words. The caller owns every buffer: nothing the
// JIT allocates escapes (its own temporaries are freed by the
// buffer-deallocation pipeline), and no result can alias an input or a
// constant global.
//
//===----------------------------------------------------------------------===//
#include "mirage/bridge.h"
#include "mirage/lower.h"
#include "mirage/tool.h"
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mirage/support.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/ExecutionEngine.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

_Static_assert(sizeof(void *) == sizeof(int64_t),
               "memref descriptors are built as arrays of 64-bit words");

#define ENTRY "mirage_run_entry"
/// Functions copied into the JIT module at most (the entry and its callees).
#define MAX_FUNCS 64

// From memrefs to LLVM, shared by both pipelines. math-to-llvm runs before
// math-to-libm so rsqrt and friends become LLVM intrinsics; only what LLVM
// lacks (erf, tanh, ...) becomes a libm call, with f16/bf16 promoted to f32
// by that pass. bf16 arithmetic is rewritten as f32 arithmetic rounded back
// to bf16 after every op, and arith-expand{include-bf16} turns those
// roundings into integer code with round-to-nearest-even: left to itself,
// LLVM's x86 bf16 legalization flushes subnormal results to zero. f16 is
// left to LLVM (F16C conversions or the libgcc helpers), which rounds
// correctly.
#define MEMREF_TO_LLVM                                                         \
  "convert-scf-to-cf,"                                                         \
  "expand-strided-metadata,"                                                   \
  "lower-affine,"                                                              \
  "convert-math-to-llvm,"                                                      \
  "convert-math-to-libm,"                                                      \
  "func.func(arith-emulate-unsupported-floats{source-types=bf16 "             \
  "target-type=f32}),"                                                         \
  "arith-expand{include-bf16},"                                                \
  "finalize-memref-to-llvm,"                                                   \
  "convert-to-llvm,"                                                           \
  "reconcile-unrealized-casts"

// TOSA is legalized to linalg/arith/tensor first (named ops before the rest,
// as upstream's tosa-to-linalg-pipeline does), then everything is bufferized
// at once. Element-wise arith/math on whole tensors (which lift, docs/lift.md)
// become linalg.generic first: bufferization has no tensor form of them.
#define TOSA_TO_LINALG                                                         \
  "func.func(tosa-to-linalg-named, tosa-to-linalg, tosa-to-arith, "           \
  "tosa-to-tensor, convert-elementwise-to-linalg)"
#define TENSORS_TO_LLVM                                                        \
  "one-shot-bufferize{bufferize-function-boundaries "                          \
  "function-boundary-type-conversion=identity-layout-map},"                    \
  "buffer-results-to-out-params{hoist-static-allocs "                          \
  "modify-public-functions},"                                                  \
  "func.func(convert-linalg-to-loops),"                                        \
  "buffer-deallocation-pipeline,"                                              \
  "convert-bufferization-to-memref," MEMREF_TO_LLVM
static const char pipeline[] =
    "builtin.module(" TOSA_TO_LINALG "," TENSORS_TO_LLVM ")";
// The same in three steps for mg_run_jit_rows, which tiles in between.
static const char to_linalg[] = "builtin.module(" TOSA_TO_LINALG ")";
static const char tiling[] = "builtin.module(transform-interpreter)";
static const char linalg_to_llvm[] = "builtin.module(" TENSORS_TO_LLVM ")";

// The CPU lowering of a μGraph (lib/lower) is already on memrefs with its
// own allocations and frees: no bufferization, no deallocation pipeline.
static const char lowered_pipeline[] = "builtin.module(" MEMREF_TO_LLVM ")";

const char *mg_run_jit_pipeline(void) { return pipeline; }
const char *mg_run_jit_lowered_pipeline(void) { return lowered_pipeline; }

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// Removes `ug.*` attributes (a μGraph marker must not reach the lowering).
static void strip_ug_attrs(MlirOperation op) {
  for (intptr_t i = mlirOperationGetNumAttributes(op) - 1; i >= 0; --i) {
    MlirStringRef name =
        mlirIdentifierStr(mlirOperationGetAttribute(op, i).name);
    if (name.length > 3 && !memcmp(name.data, "ug.", 3))
      mlirOperationRemoveAttributeByName(op, name);
  }
}

typedef struct Callees {
  MlirStringRef names[MAX_FUNCS];
  size_t count;
  bool overflow;
} Callees;

static MlirWalkResult find_calls(MlirOperation op, void *ud) {
  Callees *c = ud;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length != 9 || memcmp(name.data, "func.call", 9))
    return MlirWalkResultAdvance;
  MlirAttribute callee =
      mlirOperationGetAttributeByName(op, str("callee"));
  if (mlirAttributeIsNull(callee) || !mlirAttributeIsAFlatSymbolRef(callee))
    return MlirWalkResultAdvance;
  MlirStringRef target = mlirFlatSymbolRefAttrGetValue(callee);
  for (size_t i = 0; i < c->count; ++i)
    if (mlirStringRefEqual(c->names[i], target))
      return MlirWalkResultAdvance;
  if (c->count == MAX_FUNCS)
    c->overflow = true;
  else
    c->names[c->count++] = target;
  return MlirWalkResultAdvance;
}

/// Makes every result of the entry a fresh tensor (a copy): a function that
/// returns an argument, a view of one or one value twice bufferizes to
/// returned block arguments or duplicates, on which MLIR 22's
/// buffer-results-to-out-params crashes. The copies cost nothing here.
static void copy_results(MlirOperation entry) {
  MlirContext ctx = mlirOperationGetContext(entry);
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(entry, 0));
  MlirOperation ret = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(ret) || !mg_bridge_op_is(ret, "func.return"))
    return;
  // Loaded now, or the op would be created unregistered.
  mlirContextGetOrLoadDialect(ctx, str("bufferization"));
  int32_t segments[3] = {0, 1, 0}; // dynamic sizes, copy, size hint
  MlirNamedAttribute seg = mlirNamedAttributeGet(
      mlirIdentifierGet(ctx, str("operandSegmentSizes")),
      mlirDenseI32ArrayGet(ctx, 3, segments));
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(ret); ++i) {
    MlirValue v = mlirOperationGetOperand(ret, i);
    MlirType type = mlirValueGetType(v);
    MlirOperationState st = mlirOperationStateGet(
        str("bufferization.alloc_tensor"), mlirOperationGetLocation(ret));
    mlirOperationStateAddOperands(&st, 1, &v);
    mlirOperationStateAddResults(&st, 1, &type);
    mlirOperationStateAddAttributes(&st, 1, &seg);
    MlirOperation copy = mlirOperationCreate(&st);
    mlirBlockInsertOwnedOperationBefore(block, ret, copy);
    mlirOperationSetOperand(ret, i, mlirOperationGetResult(copy, 0));
  }
}

/// Routes result 0 of `entry` through `linalg.copy {mirage.sample}` of a
/// fresh tensor.empty: the op mg_run_jit_rows tiles, whose loops are the
/// result's dims in order whatever computes the result.
static void add_tiling_copy(MlirOperation entry) {
  MlirContext ctx = mlirOperationGetContext(entry);
  MlirBlock block = mlirRegionGetFirstBlock(mlirOperationGetRegion(entry, 0));
  MlirOperation ret = mlirBlockGetTerminator(block);
  if (mlirOperationIsNull(ret) || mlirOperationGetNumOperands(ret) < 1)
    return;
  mlirContextGetOrLoadDialect(ctx, str("linalg"));
  mlirContextGetOrLoadDialect(ctx, str("tensor"));
  MlirLocation loc = mlirOperationGetLocation(ret);
  MlirValue v = mlirOperationGetOperand(ret, 0);
  MlirType type = mlirValueGetType(v);
  MlirOperationState es = mlirOperationStateGet(str("tensor.empty"), loc);
  mlirOperationStateAddResults(&es, 1, &type);
  MlirOperation empty = mlirOperationCreate(&es);
  mlirBlockInsertOwnedOperationBefore(block, ret, empty);
  int32_t segments[2] = {1, 1}; // ins, outs
  MlirNamedAttribute attrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("operandSegmentSizes")),
                            mlirDenseI32ArrayGet(ctx, 2, segments)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("mirage.sample")),
                            mlirUnitAttrGet(ctx))};
  MlirValue operands[2] = {v, mlirOperationGetResult(empty, 0)};
  MlirRegion body = mlirRegionCreate();
  MlirOperationState cs = mlirOperationStateGet(str("linalg.copy"), loc);
  mlirOperationStateAddOperands(&cs, 2, operands);
  mlirOperationStateAddResults(&cs, 1, &type);
  mlirOperationStateAddAttributes(&cs, 2, attrs);
  mlirOperationStateAddOwnedRegions(&cs, 1, &body);
  MlirOperation copy = mlirOperationCreate(&cs);
  mlirLinalgFillBuiltinNamedOpRegion(copy);
  mlirBlockInsertOwnedOperationBefore(block, ret, copy);
  mlirOperationSetOperand(ret, 0, mlirOperationGetResult(copy, 0));
}

/// Builds the module to lower: the entry copy of `func` (with the tiling
/// copy when `rows`), then a copy of every function it calls, transitively
/// (names unchanged).
static bool build_module(MlirOperation module, MlirOperation func, bool rows,
                         MlirModule *out, char *err, size_t err_size) {
  MlirContext ctx = mlirOperationGetContext(func);
  MlirModule jm = mlirModuleCreateEmpty(mlirOperationGetLocation(func));
  MlirBlock body = mlirModuleGetBody(jm);
  MlirOperation entry = mlirOperationClone(func);
  mlirOperationSetAttributeByName(entry, str("sym_name"),
                                  mlirStringAttrGet(ctx, str(ENTRY)));
  mlirOperationRemoveAttributeByName(entry, str("sym_visibility"));
  mlirOperationSetAttributeByName(entry, str("llvm.emit_c_interface"),
                                  mlirUnitAttrGet(ctx));
  strip_ug_attrs(entry);
  if (rows)
    add_tiling_copy(entry);
  copy_results(entry);
  mlirBlockAppendOwnedOperation(body, entry);

  Callees callees = {.count = 0};
  mlirOperationWalk(entry, find_calls, &callees, MlirWalkPreOrder);
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  bool ok = true;
  // The list grows while it is scanned: each copy may call further functions.
  for (size_t i = 0; ok && i < callees.count; ++i) {
    MlirOperation callee = mlirSymbolTableLookup(table, callees.names[i]);
    if (mlirOperationIsNull(callee)) {
      snprintf(err, err_size, "called function '@%.*s' not found",
               (int)callees.names[i].length, callees.names[i].data);
      ok = false;
      break;
    }
    MlirOperation copy = mlirOperationClone(callee);
    mlirBlockAppendOwnedOperation(body, copy);
    mlirOperationWalk(copy, find_calls, &callees, MlirWalkPreOrder);
  }
  mlirSymbolTableDestroy(table);
  if (ok && callees.overflow) {
    snprintf(err, err_size, "more than %d functions called", MAX_FUNCS);
    ok = false;
  }
  if (!ok) {
    mlirModuleDestroy(jm);
    return false;
  }
  *out = jm;
  return true;
}

static bool lower(MlirModule jm, const char *text, char *err,
                  size_t err_size) {
  MlirContext ctx = mlirModuleGetContext(jm);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MgToolText perr = {"", 0};
  bool ok = mlirLogicalResultIsSuccess(mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm), str(text), mg_tool_collect,
      &perr));
  if (!ok)
    snprintf(err, err_size, "cannot build the lowering pipeline: %s",
             perr.text);
  else if (mlirLogicalResultIsFailure(
               mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(jm)))) {
    snprintf(err, err_size, "lowering to the LLVM dialect failed");
    ok = false;
  }
  mlirPassManagerDestroy(pm);
  return ok;
}

/// A rank-r memref descriptor over dense row-major `data`.
static void fill_descriptor(int64_t *desc, void *data,
                            const MgRunTensorType *t) {
  memcpy(&desc[0], &data, sizeof data); // allocated pointer
  memcpy(&desc[1], &data, sizeof data); // aligned pointer
  desc[2] = 0;                          // offset
  int64_t stride = 1;
  for (uint32_t d = t->rank; d-- > 0;) {
    desc[3 + d] = t->dims[d];
    desc[3 + t->rank + d] = stride;
    stride *= t->dims[d];
  }
}

//===--- Soft-float helpers -----------------------------------------------===//
//
// Without native conversions (F16C, AVX512-BF16, AVX-NE-CONVERT) LLVM lowers
// f32/f64 -> f16/bf16 truncations and f16 -> f32 extensions to calls of
// these compiler-rt/libgcc names, which the JIT would otherwise resolve in
// the process: GCC 12's libgcc has no __truncsfbf2, and the others depend on
// the libgcc version. Ours are registered before anything is compiled, so
// the JIT's numbers do not depend on the host CPU or its libgcc.
//
// ABI: on x86-64 and AArch64 a half or bfloat16 argument or result travels
// in the low 16 bits of the first FP/SIMD register, as a float does in the
// low 32, so a float carrying the 16 bits in its low half has the same
// calling convention.

static float jit_truncsfbf2(float x) {
  return mg_f32_from_bits(mg_softfloat_f32_to_bf16(mg_f32_bits(x)));
}
static float jit_truncdfbf2(double x) {
  return mg_f32_from_bits(mg_softfloat_f64_to_bf16(mg_f64_bits(x)));
}
static float jit_truncsfhf2(float x) {
  return mg_f32_from_bits(mg_softfloat_f32_to_f16(mg_f32_bits(x)));
}
static float jit_truncdfhf2(double x) {
  return mg_f32_from_bits(mg_softfloat_f64_to_f16(mg_f64_bits(x)));
}
static float jit_extendhfsf2(float h) {
  return mg_f32_from_bits(mg_softfloat_f16_to_f32((uint16_t)mg_f32_bits(h)));
}
static float jit_extendbfsf2(float b) {
  return mg_f32_from_bits(mg_softfloat_bf16_to_f32((uint16_t)mg_f32_bits(b)));
}

static void register_float_helpers(MlirExecutionEngine engine) {
#if defined(__x86_64__) || defined(__aarch64__)
  static const struct {
    const char *name;
    void *fn;
  } helpers[] = {
      {"__truncsfbf2", (void *)jit_truncsfbf2},
      {"__truncdfbf2", (void *)jit_truncdfbf2},
      {"__truncsfhf2", (void *)jit_truncsfhf2},
      {"__truncdfhf2", (void *)jit_truncdfhf2},
      {"__extendhfsf2", (void *)jit_extendhfsf2},
      {"__gnu_h2f_ieee", (void *)jit_extendhfsf2},
      {"__gnu_f2h_ieee", (void *)jit_truncsfhf2},
      {"__extendbfsf2", (void *)jit_extendbfsf2},
  };
  for (size_t i = 0; i < sizeof helpers / sizeof *helpers; ++i)
    mlirExecutionEngineRegisterSymbol(engine, str(helpers[i].name),
                                      helpers[i].fn);
#else
  (void)engine; // other ABIs: the process's own helpers
#endif
}

//===--- Target CPU -------------------------------------------------------===//

/// The baseline CPU of the host's architecture.
static const char *baseline_cpu(void) {
#if defined(__x86_64__)
  return "x86-64";
#else
  return "generic";
#endif
}

/// "baseline": every function is compiled for the architecture's baseline
/// CPU with no optional features (function attributes override the JIT's
/// host target machine, per function), so a test cannot pass only because
/// the host converts bf16/f16 natively.
static bool set_target_cpu(MlirModule jm, const char *cpu, char *err,
                           size_t err_size) {
  if (!cpu || strcmp(cpu, "baseline")) // "host" (main.c checks the value)
    return true;
  MlirContext ctx = mlirModuleGetContext(jm);
  MlirAttribute name = mlirStringAttrGet(ctx, str(baseline_cpu()));
  MlirAttribute features =
      mlirAttributeParseGet(ctx, str("#llvm.target_features<[]>"));
  if (mlirAttributeIsNull(features)) {
    snprintf(err, err_size, "cannot build #llvm.target_features");
    return false;
  }
  MlirBlock body = mlirModuleGetBody(jm);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "llvm.func"))
      continue;
    mlirOperationSetAttributeByName(op, str("target_cpu"), name);
    mlirOperationSetAttributeByName(op, str("target_features"), features);
  }
  return true;
}

const char *mg_run_jit_cpu_default(void) {
  const char *env = getenv("MIRAGE_JIT_CPU");
  return env && *env ? env : "host";
}

// Compiles the lowered module `jm` (consumed) and calls ENTRY on the
// buffers: descriptors of the inputs, then of the outputs.
static bool execute(MlirModule jm, const MgRunJitCall *call, char *err,
                    size_t err_size) {
  const MgRunSignature *sig = call->sig;
  if (!set_target_cpu(jm, call->cpu, err, err_size)) {
    mlirModuleDestroy(jm);
    return false;
  }
  mlirRegisterAllLLVMTranslations(mlirModuleGetContext(jm));
#ifdef MIRAGE_C_RUNNER_UTILS
  MlirStringRef libs[] = {mlirStringRefCreateFromCString(MIRAGE_C_RUNNER_UTILS)};
  MlirExecutionEngine engine = mlirExecutionEngineCreate(jm, 2, 1, libs,
                                                         false, false);
#else
  MlirExecutionEngine engine = mlirExecutionEngineCreate(jm, 2, 0, NULL,
                                                         false, false);
#endif
  if (mlirExecutionEngineIsNull(engine)) {
    snprintf(err, err_size, "the ExecutionEngine could not compile the "
                            "lowered module");
    mlirModuleDestroy(jm);
    return false;
  }
  register_float_helpers(engine);

  enum { WORDS = 3 + 2 * MG_MAX_DIMS };
  int64_t desc[2 * MG_RUN_MAX_VALUES][WORDS];
  int64_t *desc_ptr[2 * MG_RUN_MAX_VALUES];
  void *args[2 * MG_RUN_MAX_VALUES];
  uint32_t n = 0;
  for (uint32_t i = 0; i < sig->num_inputs; ++i, ++n)
    fill_descriptor(desc[n], call->inputs[i], &sig->inputs[i]);
  for (uint32_t i = 0; i < sig->num_outputs; ++i, ++n)
    fill_descriptor(desc[n], call->outputs[i], &sig->outputs[i]);
  for (uint32_t i = 0; i < n; ++i) {
    desc_ptr[i] = desc[i];
    args[i] = &desc_ptr[i]; // packed: a pointer to each C-interface argument
  }
  bool ok = mlirLogicalResultIsSuccess(
      mlirExecutionEngineInvokePacked(engine, str(ENTRY), args));
  if (!ok)
    snprintf(err, err_size, "the JIT-compiled function could not be called");
  mlirExecutionEngineDestroy(engine);
  mlirModuleDestroy(jm);
  return ok;
}

bool mg_run_jit(MlirOperation module, MlirOperation func,
                const MgRunJitCall *call, char *err, size_t err_size) {
  MlirModule jm;
  if (!build_module(module, func, false, &jm, err, err_size))
    return false;
  if (!lower(jm, pipeline, err, err_size)) {
    mlirModuleDestroy(jm);
    return false;
  }
  return execute(jm, call, err, err_size);
}

//===--- Some rows only ---------------------------------------------------===//
//
// Upstream's tiling computes the rows: transform.structured.fuse tiles the
// tagged linalg.copy along the dim with tile size 1 and fuses its producers
// into the loop (each computing the slice the row needs: TilingInterface),
// then dead whole-tensor ops are dropped. The loop, over every index of the
// dim, is then pointed at the sampled ones: its upper bound becomes their
// number and its induction variable an index into a constant table of them.
// Each row is computed by the same ops on the same operand slices as in the
// full program, so its numbers are those of the full run.

static MlirOperation constant_op(MlirLocation loc, MlirType type,
                                 MlirAttribute value) {
  MlirContext ctx = mlirLocationGetContext(loc);
  MlirNamedAttribute a =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("value")), value);
  MlirOperationState st = mlirOperationStateGet(str("arith.constant"), loc);
  mlirOperationStateAddResults(&st, 1, &type);
  mlirOperationStateAddAttributes(&st, 1, &a);
  return mlirOperationCreate(&st);
}

static MlirWalkResult find_loop(MlirOperation op, void *ud) {
  if (mlirAttributeIsNull(
          mlirOperationGetAttributeByName(op, str("mirage.sample_loop"))))
    return MlirWalkResultAdvance;
  *(MlirOperation *)ud = op;
  return MlirWalkResultInterrupt;
}

/// The transform script: tile the tagged copy along `dim` (of `rank`),
/// fuse its producers, tag the loop, drop dead ops.
static void tiling_script(uint32_t rank, uint32_t dim, char *buf,
                          size_t size) {
  char sizes[32] = "";
  for (uint32_t d = 0; d < rank; ++d)
    snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%d",
             d ? ", " : "", d == dim);
  snprintf(buf, size,
           "module attributes {transform.with_named_sequence} {\n"
           "  transform.named_sequence @__transform_main(%%root: "
           "!transform.any_op {transform.readonly}) {\n"
           "    %%copy = transform.structured.match ops{[\"linalg.copy\"]} "
           "attributes {mirage.sample} in %%root : (!transform.any_op) -> "
           "!transform.any_op\n"
           "    %%tiled, %%loop = transform.structured.fuse %%copy "
           "tile_sizes [%s] : (!transform.any_op) -> (!transform.any_op, "
           "!transform.any_op)\n"
           "    transform.annotate %%loop \"mirage.sample_loop\" : "
           "!transform.any_op\n"
           "    %%funcs = transform.structured.match ops{[\"func.func\"]} "
           "in %%root : (!transform.any_op) -> !transform.any_op\n"
           "    transform.apply_dce to %%funcs : !transform.any_op\n"
           "    transform.yield\n"
           "  }\n"
           "}\n",
           sizes);
}

/// Tiles `jm` (on linalg) along rows->dim and points the loop at
/// rows->rows. False when the tiling did not happen as expected; `jm` must
/// then be thrown away.
static bool tile_rows(MlirModule jm, const MgRunSignature *sig,
                      const MgRunJitRows *rows) {
  MlirContext ctx = mlirModuleGetContext(jm);
  char text[2048];
  tiling_script(sig->outputs[0].rank, rows->dim, text, sizeof text);
  MlirModule script = mlirModuleCreateParse(ctx, str(text));
  if (mlirModuleIsNull(script))
    return false;
  MlirBlock body = mlirModuleGetBody(jm);
  MlirOperation library = mlirOperationClone(mlirModuleGetOperation(script));
  mlirModuleDestroy(script);
  mlirBlockAppendOwnedOperation(body, library);
  char err[256];
  bool ok = lower(jm, tiling, err, sizeof err);
  mlirOperationDestroy(library);
  MlirOperation loop = {NULL};
  if (ok)
    mlirOperationWalk(mlirModuleGetOperation(jm), find_loop, &loop,
                      MlirWalkPreOrder);
  // An scf.for from 0 to the dim's extent in steps of 1.
  if (mlirOperationIsNull(loop) || !mg_bridge_op_is(loop, "scf.for") ||
      mlirOperationGetNumOperands(loop) < 3)
    return false;
  MlirValue ub = mlirOperationGetOperand(loop, 1);
  MlirOperation ub_op = mlirValueIsAOpResult(ub) ? mlirOpResultGetOwner(ub)
                                                 : (MlirOperation){NULL};
  MlirAttribute ub_value =
      mlirOperationIsNull(ub_op)
          ? (MlirAttribute){NULL}
          : mlirOperationGetAttributeByName(ub_op, str("value"));
  if (mlirAttributeIsNull(ub_value) || !mlirAttributeIsAInteger(ub_value) ||
      mlirIntegerAttrGetValueInt(ub_value) !=
          sig->outputs[0].dims[rows->dim])
    return false;
  MlirLocation loc = mlirOperationGetLocation(loop);
  MlirBlock block = mlirOperationGetBlock(loop);
  MlirType index = mlirIndexTypeGet(ctx), i64 = mlirIntegerTypeGet(ctx, 64);
  MlirOperation count = constant_op(
      loc, index, mlirIntegerAttrGet(index, rows->count));
  int64_t shape[1] = {rows->count};
  MlirType table_type =
      mlirRankedTensorTypeGet(1, shape, i64, mlirAttributeGetNull());
  MlirOperation table = constant_op(
      loc, table_type,
      mlirDenseElementsAttrInt64Get(table_type, rows->count, rows->rows));
  mlirBlockInsertOwnedOperationBefore(block, loop, count);
  mlirBlockInsertOwnedOperationBefore(block, loop, table);
  mlirOperationSetOperand(loop, 1, mlirOperationGetResult(count, 0));
  // In the body: row = table[iv], read wherever iv was.
  MlirBlock loop_body =
      mlirRegionGetFirstBlock(mlirOperationGetRegion(loop, 0));
  MlirValue iv = mlirBlockGetArgument(loop_body, 0);
  MlirValue extract_operands[2] = {mlirOperationGetResult(table, 0), iv};
  MlirOperationState es = mlirOperationStateGet(str("tensor.extract"), loc);
  mlirOperationStateAddOperands(&es, 2, extract_operands);
  mlirOperationStateAddResults(&es, 1, &i64);
  MlirOperation extract = mlirOperationCreate(&es);
  mlirBlockInsertOwnedOperation(loop_body, 0, extract);
  MlirValue wide = mlirOperationGetResult(extract, 0);
  MlirOperationState cs = mlirOperationStateGet(str("arith.index_cast"), loc);
  mlirOperationStateAddOperands(&cs, 1, &wide);
  mlirOperationStateAddResults(&cs, 1, &index);
  MlirOperation cast = mlirOperationCreate(&cs);
  mlirBlockInsertOwnedOperationAfter(loop_body, extract, cast);
  mlirValueReplaceAllUsesExcept(iv, mlirOperationGetResult(cast, 0), 1,
                                &extract);
  return mlirOperationVerify(mlirModuleGetOperation(jm));
}

bool mg_run_jit_rows(MlirOperation module, MlirOperation func,
                     const MgRunJitCall *call, MgRunJitRows *rows, char *err,
                     size_t err_size) {
  const MgRunSignature *sig = call->sig;
  rows->tiled = false;
  MlirModule jm;
  if (sig->num_outputs != 1 ||
      !build_module(module, func, true, &jm, err, err_size))
    return mg_run_jit(module, func, call, err, err_size);
  if (!lower(jm, to_linalg, err, err_size)) {
    mlirModuleDestroy(jm);
    return false;
  }
  rows->tiled = tile_rows(jm, sig, rows);
  if (!rows->tiled) { // the whole result, as mg_run_jit computes it
    mlirModuleDestroy(jm);
    return mg_run_jit(module, func, call, err, err_size);
  }
  if (!lower(jm, linalg_to_llvm, err, err_size)) {
    mlirModuleDestroy(jm);
    return false;
  }
  return execute(jm, call, err, err_size);
}

bool mg_run_jit_lowered(MlirContext ctx, const MgProgram *program,
                        const MgRunJitCall *call, char *err, size_t err_size) {
  MgText text = {0};
  MgDiag diag = MG_DIAG_INIT;
  MgLowerOptions o = {MG_LOWER_CPU, ENTRY, NULL, true,
                      MG_LOWER_HOST_COPY, NULL};
  if (mg_lower_emit(program, &o, &text, &diag) != MG_STATUS_OK) {
    snprintf(err, err_size, "%s", diag.message);
    mg_text_free(&text);
    return false;
  }
  MlirModule jm = mlirModuleCreateParse(ctx, str(text.data));
  mg_text_free(&text);
  if (mlirModuleIsNull(jm)) {
    snprintf(err, err_size, "the lowered module does not parse (a bug in "
                            "lib/lower)");
    return false;
  }
  if (!lower(jm, lowered_pipeline, err, err_size)) {
    mlirModuleDestroy(jm);
    return false;
  }
  return execute(jm, call, err, err_size);
}
