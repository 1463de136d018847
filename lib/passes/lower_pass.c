//===- lower_pass.c - --mirage-lower: μGraphs to GPU kernels and PTX -----===//
//
// Each kernel-level μGraph function @F becomes
//  - `gpu.module @F_gpu` with one kernel per kernel op (lib/lower), and
//  - host code in place of @F, same name: gpu.launch_func per kernel
//    (grid, block threads, dynamic shared memory); with host=copy (the
//    default) same tensor signature, device buffers, copies in and back;
//    with host=device on device memrefs, outputs as out-params, and the
//    callers of @F in the module redirected to a tensor adapter;
// block- and thread-level functions no kernel graph uses any more are
// erased. With PTX on, the pipeline continues with upstream passes on the
// GPU modules only (nvvm-attach-target, GPU-to-NVVM, gpu-module-to-binary
// {format=isa}, then mirage-strip-compile-times so the output is
// reproducible), leaving `gpu.binary` ops that hold the PTX; host code
// stays for upstream host pipelines (bufferization, gpu-to-llvm).
//
//===----------------------------------------------------------------------===//
#include "kernel_dedup.h"
#include "lower_pass.h"
#include "ugraph_funcs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mirage/lower.h"
#include "mirage/tool.h"
#include "mlir-c/BuiltinAttributes.h"

const MgOptionSpec mg_lower_pass_options[] = {MG_LOWER_OPTION_SPECS};

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static bool ptx_mode(const char *s, int *mode) {
  if (!strcmp(s, "auto"))
    *mode = -1;
  else if (!strcmp(s, "true"))
    *mode = 1;
  else if (!strcmp(s, "false"))
    *mode = 0;
  else
    return false;
  return true;
}

static MgLowerHost host_mode(const MgOptionValue *v) {
  return strcmp(v[MG_LOWER_OPT_HOST].s, "device") ? MG_LOWER_HOST_COPY
                                                  : MG_LOWER_HOST_DEVICE;
}

bool mg_lower_pass_check(const MgOptionValue *v, char *error, size_t size) {
  int mode;
  if (!ptx_mode(v[MG_LOWER_OPT_PTX].s, &mode)) {
    snprintf(error, size, "unknown ptx mode '%s' (expected auto, true or "
             "false)", v[MG_LOWER_OPT_PTX].s);
    return false;
  }
  const char *host = v[MG_LOWER_OPT_HOST].s;
  if (strcmp(host, "copy") && strcmp(host, "device")) {
    snprintf(error, size, "unknown host mode '%s' (expected copy or device)",
             host);
    return false;
  }
  // The toolkit goes quoted into the upstream pipeline's options.
  if (strpbrk(v[MG_LOWER_OPT_TOOLKIT].s, "\"\\")) {
    snprintf(error, size, "toolkit path '%s' contains a quote or backslash",
             v[MG_LOWER_OPT_TOOLKIT].s);
    return false;
  }
  return true;
}

bool mg_lower_has_libdevice(const char *toolkit) {
  char path[4200];
  snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", toolkit);
  return access(path, R_OK) == 0;
}

void mg_lower_ptx_pipeline(const char *target, const char *toolkit, char *out,
                           size_t size) {
  snprintf(out, size,
           "nvvm-attach-target{chip=%s O=3},"
           "gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,"
           "expand-strided-metadata,"
           "lower-affine,convert-gpu-to-nvvm,convert-vector-to-llvm,"
           "convert-arith-to-llvm,"
           "convert-index-to-llvm,canonicalize,cse,"
           "reconcile-unrealized-casts),"
           "gpu-module-to-binary{format=isa toolkit=\"%s\"}",
           target, toolkit);
}

bool mg_lower_pass_extend(MlirOpPassManager pm, const MgOptionValue *v,
                          const char *target, bool remarks, char *error,
                          size_t size) {
  int mode;
  ptx_mode(v[MG_LOWER_OPT_PTX].s, &mode);
  const char *toolkit = v[MG_LOWER_OPT_TOOLKIT].s;
  bool check_ptx = v[MG_LOWER_OPT_PTXAS].b;
  if (mode == 0 || (mode < 0 && !mg_lower_has_libdevice(toolkit))) {
    if (check_ptx) {
      snprintf(error, size, "ptxas=true needs PTX, which ptx=%s does not "
               "produce here", v[MG_LOWER_OPT_PTX].s);
      return false;
    }
    return true;
  }
  if (!mg_lower_has_libdevice(toolkit)) {
    snprintf(error, size, "ptx=true needs libdevice from the CUDA toolkit, "
             "not found under '%s/nvvm/libdevice' (set toolkit=..., or "
             "ptx=false)", toolkit);
    return false;
  }
  char pipeline[8400];
  mg_lower_ptx_pipeline(target, toolkit, pipeline, sizeof pipeline);
  MgToolText err = {"", 0};
  if (mlirLogicalResultIsFailure(
          mlirOpPassManagerAddPipeline(pm, str(pipeline), mg_tool_collect,
                                       &err))) {
    snprintf(error, size, "cannot build the PTX pipeline: %s", err.text);
    return false;
  }
  if (!mg_passes_add(pm, "mirage-strip-compile-times", str(""), error, size))
    return false;
  if (check_ptx) {
    char opts[4400];
    snprintf(opts, sizeof opts, "target=%s toolkit=\"%s\" remarks=%s", target,
             toolkit, remarks ? "true" : "false");
    return mg_passes_add(pm, "mirage-ptxas", str(opts), error, size);
  }
  return true;
}

// A symbol name not yet in `table`: base, then base_1, base_2, ...
static void unique_symbol(MlirSymbolTable table, const char *base, char *out,
                          size_t size) {
  snprintf(out, size, "%s", base);
  for (int k = 1; !mlirOperationIsNull(mlirSymbolTableLookup(table, str(out)));
       k++)
    snprintf(out, size, "%s_%d", base, k);
}

typedef struct Run {
  const MgTarget *target;
  MgLowerHost host;
  bool remarks;
  uint32_t lowered; // kernel graphs lowered
} Run;

// Whether `op`'s sym_name is `name` (false for a NULL name).
static bool is_named(MlirOperation op, const char *name) {
  MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
  return name && !mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym) &&
         mlirStringRefEqual(mlirStringAttrGetValue(sym), str(name));
}

typedef struct SymbolUse {
  MlirStringRef name;
  bool found;
} SymbolUse;

static MlirWalkResult find_symbol_use(MlirOperation op, void *ud) {
  SymbolUse *use = ud;
  intptr_t n = mlirOperationGetNumAttributes(op);
  for (intptr_t i = 0; i < n; i++) {
    MlirAttribute a = mlirOperationGetAttribute(op, i).attribute;
    if (mlirAttributeIsAFlatSymbolRef(a) &&
        mlirStringRefEqual(mlirFlatSymbolRefAttrGetValue(a), use->name)) {
      use->found = true;
      return MlirWalkResultInterrupt;
    }
  }
  return MlirWalkResultAdvance;
}

// Whether an op of `module` refers to @name (a func.call of a lifted
// subprogram; the definition's sym_name is no reference).
static bool has_symbol_use(MlirOperation module, const char *name) {
  SymbolUse use = {str(name), false};
  mlirOperationWalk(module, find_symbol_use, &use, MlirWalkPreOrder);
  return use.found;
}

// A function declaration (host=device's write and abort) the module
// already has: another kernel graph's lowering, or the program, declared
// it, and a second one would be renamed away from its callers.
static bool is_known_declaration(MlirSymbolTable symbols, MlirOperation op) {
  MlirAttribute sym = mlirOperationGetAttributeByName(op, str("sym_name"));
  return mg_bridge_op_is(op, "func.func") &&
         !mlirRegionIsNull(mlirOperationGetRegion(op, 0)) &&
         mlirBlockIsNull(
             mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))) &&
         !mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym) &&
         !mlirOperationIsNull(
             mlirSymbolTableLookup(symbols, mlirStringAttrGetValue(sym)));
}

// The symbols one function's lowering defines.
typedef struct Names {
  const char *host;    // @F's own: its host function keeps it
  const char *gpu;     // the gpu.module's
  const char *adapter; // host=device only, else NULL: the tensor-signature
                       // function the callers of @F now call (lower_one
                       // redirected them)
} Names;

// Emits, parses and splices the lowering of `p` (consumed) in place of
// `func` under `names`; `symbols` (the module's) follows the functions
// added and erased.
static bool lower_named(MlirOperation module, MlirSymbolTable symbols,
                        MlirOperation func, Run *run, MgProgram *p,
                        const Names *names) {
  const char *name = names->host, *gpu_name = names->gpu,
             *adapter = names->adapter;
  MlirLocation loc = mlirOperationGetLocation(func);
  MgText text = {0};
  MgDiag diag = MG_DIAG_INIT;
  MgLowerOptions gpu = {MG_LOWER_GPU, gpu_name, NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions host = {MG_LOWER_HOST, name, gpu_name, false, run->host,
                         adapter};
  uint32_t kernels = 0;
  int64_t smem = 0;
  for (MgOpId i = 0; i < p->graphs[0].num_ops; i++)
    if (mg_lower_is_kernel(p, i)) {
      kernels++;
      int64_t b = mg_lower_tile_bytes(p, i);
      smem = b > smem ? b : smem;
    }
  mg_text_printf(&text, "module attributes {gpu.container_module} {\n");
  // A kernel graph that only passes inputs through (or views of them)
  // needs no GPU module.
  MgStatus st = kernels ? mg_lower_emit_for(p, &gpu, run->target, &text,
                                             &diag)
                        : MG_STATUS_OK;
  if (st == MG_STATUS_OK)
    st = mg_lower_emit_for(p, &host, run->target, &text, &diag);
  mg_text_printf(&text, "}\n");
  mg_program_destroy(p);
  if (st != MG_STATUS_OK) {
    mg_pass_error(loc, "mirage-lower: '@%s': %s", name, diag.message);
    mg_text_free(&text);
    return false;
  }
  MlirModule lowered =
      mlirModuleCreateParse(mlirOperationGetContext(module), str(text.data));
  mg_text_free(&text);
  if (mlirModuleIsNull(lowered)) {
    mg_pass_error(loc, "mirage-lower: internal error: the lowering of '@%s' "
                       "does not parse", name);
    return false;
  }
  // The reference the lifter kept beside @F (the original ops, private)
  // has no user once @F is host code.
  MlirAttribute ref = mlirOperationGetAttributeByName(func,
                                                      str("ug.reference"));
  if (!mlirAttributeIsNull(ref) && mlirAttributeIsAFlatSymbolRef(ref)) {
    MlirOperation r =
        mlirSymbolTableLookup(symbols, mlirFlatSymbolRefAttrGetValue(ref));
    MlirAttribute vis = mlirOperationIsNull(r)
                            ? (MlirAttribute){NULL}
                            : mlirOperationGetAttributeByName(
                                  r, str("sym_visibility"));
    if (!mlirAttributeIsNull(vis) && mlirAttributeIsAString(vis) &&
        mlirStringRefEqual(mlirStringAttrGetValue(vis), str("private")))
      mlirSymbolTableErase(symbols, r);
  }
  // Move the GPU module and the host function next to @F, then drop @F
  // and name them in the symbol table (the host function is @F again).
  MlirAttribute visibility =
      mlirOperationGetAttributeByName(func, str("sym_visibility"));
  MlirBlock body = mlirModuleGetBody(lowered);
  MlirOperation at = func, first = {NULL};
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (is_known_declaration(symbols, op))
      continue;
    MlirOperation copy = mlirOperationClone(op);
    if (mlirOperationIsNull(first))
      first = copy;
    // Diagnostics on the kernels and the host code point at the kernel
    // graph they came from.
    mlirOperationSetLocation(copy, loc);
    // @F's visibility goes to its host function (host=device's adapter
    // is private: only the callers redirected to it use it).
    if (mg_bridge_op_is(copy, "func.func") && !mlirAttributeIsNull(visibility)
        && !is_named(copy, adapter))
      mlirOperationSetAttributeByName(copy, str("sym_visibility"),
                                      visibility);
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), at, copy);
    at = copy;
  }
  mlirModuleDestroy(lowered);
  mlirSymbolTableErase(symbols, func);
  for (MlirOperation op = first; !mlirOperationIsNull(op);
       op = mlirOperationGetNextInBlock(op)) {
    if (!mlirAttributeIsNull(
            mlirOperationGetAttributeByName(op, str("sym_name"))))
      mlirSymbolTableInsert(symbols, op); // already placed: only named
    if (mlirOperationEqual(op, at))
      break;
  }
  run->lowered++;
  if (run->remarks && kernels)
    mg_pass_remark(loc, "mirage-lower: '@%s': %u kernel(s) in gpu.module "
                        "@%s, at most %lld bytes of shared memory per block",
                   name, kernels, gpu_name, (long long)smem);
  else if (run->remarks)
    mg_pass_remark(loc, "mirage-lower: '@%s': no kernel (it passes its "
                        "inputs through)", name);
  return true;
}

static bool lower_one(MlirOperation module, MlirSymbolTable symbols,
                      MlirOperation func, void *ud) {
  Run *run = ud;
  MlirLocation loc = mlirOperationGetLocation(func);
  MgBridgeMap map;
  MgProgram *p = mg_pass_import_checked(symbols, func, run->target, &map);
  if (!p)
    return false;
  // Symbols of any length: the host function must keep @F's exact name.
  size_t len = strlen(map.graph_names[0]);
  char *name = malloc(len + 1), *base = malloc(len + 8),
       *gpu_name = malloc(len + 24), *adapter = malloc(len + 24);
  bool ok = name && base && gpu_name && adapter;
  if (ok) {
    memcpy(name, map.graph_names[0], len + 1);
    snprintf(base, len + 8, "%s_gpu", name);
    unique_symbol(symbols, base, gpu_name, len + 24);
  }
  mg_bridge_map_free(&map);
  // host=device changes @F's signature to memrefs: callers in the module
  // (on tensors) are redirected, before @F is replaced, to an adapter.
  bool adapt = ok && run->host == MG_LOWER_HOST_DEVICE &&
               has_symbol_use(module, name);
  if (adapt) {
    snprintf(base, len + 8, "%s_tensor", name);
    unique_symbol(symbols, base, adapter, len + 24);
    ok = mlirLogicalResultIsSuccess(
        mlirSymbolTableReplaceAllSymbolUses(str(name), str(adapter), module));
    if (!ok)
      mg_pass_error(loc, "mirage-lower: cannot redirect the callers of "
                         "'@%s' to '@%s'", name, adapter);
  }
  if (ok) {
    Names names = {name, gpu_name, adapt ? adapter : NULL};
    ok = lower_named(module, symbols, func, run, p, &names);
  } else {
    mg_program_destroy(p);
    if (!name || !base || !gpu_name || !adapter)
      mg_pass_error(loc, "out of memory");
  }
  free(name);
  free(base);
  free(gpu_name);
  free(adapter);
  return ok;
}

// Block and thread graphs: after lowering nothing refers to them.
static void erase_graph_funcs(MlirOperation module) {
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  MlirOperation op = mlirBlockGetFirstOperation(body);
  while (!mlirOperationIsNull(op)) {
    MlirOperation next = mlirOperationGetNextInBlock(op);
    MgLevel level;
    if (mg_bridge_func_level(op, &level) && level != MG_LEVEL_KERNEL)
      mlirOperationDestroy(op);
    op = next;
  }
}

bool mg_lower_pass_run_on(MlirOperation module, const MgTarget *target,
                          const MgOptionValue *values, bool remarks) {
  Run run = {target, host_mode(values), remarks, 0};
  if (!mg_pass_for_each_kernel_func(module, lower_one, &run))
    return false;
  if (run.lowered == 0)
    return true; // nothing to do: the module stays as it is
  erase_graph_funcs(module);
  MgKernelDedup dedup = {0};
  if (values[MG_LOWER_OPT_DEDUP].b && !mg_lower_dedup_kernels(module, &dedup)) {
    mg_pass_error(mlirOperationGetLocation(module), "out of memory");
    return false;
  }
  if (remarks && dedup.merged)
    mg_pass_remark(mlirOperationGetLocation(module),
                   "mirage-lower: %u of %u kernels are identical to an "
                   "earlier one and share it (%u distinct kernels to "
                   "compile)",
                   dedup.merged, dedup.kernels,
                   dedup.kernels - dedup.merged);
  mlirOperationSetAttributeByName(
      module, str("gpu.container_module"),
      mlirUnitAttrGet(mlirOperationGetContext(module)));
  return true;
}

enum { OPT_PTX, OPT_TARGET = OPT_PTX + MG_LOWER_OPT_COUNT, OPT_REMARKS };

static const MgOptionSpec options[] = {
    MG_LOWER_OPTION_SPECS,
    {"target", MG_OPTION_STRING, "sm_90",
     "GPU target (sm_80, sm_86, sm_89, sm_90)", 0, 0},
    {"remarks", MG_OPTION_BOOL, "false",
     "explain per function what was done (also MIRAGE_REMARKS=1)", 0, 0},
};

static bool check(const MgOptionValue *values, char *error, size_t size) {
  return mg_lower_pass_check(&values[OPT_PTX], error, size) &&
         mg_pass_check_target(values[OPT_TARGET].s, error, size);
}

static bool extend(MlirOpPassManager pm, const MgOptionValue *values,
                   char *error, size_t size) {
  return mg_lower_pass_extend(pm, &values[OPT_PTX], values[OPT_TARGET].s,
                              values[OPT_REMARKS].b, error, size);
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  if (!mg_lower_pass_run_on(module, mg_target_lookup(values[OPT_TARGET].s),
                            &values[OPT_PTX],
                            mg_pass_remarks_enabled(values[OPT_REMARKS].b)))
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_lower = {
    "mirage-lower",
    "Lower μGraph kernel graphs to GPU kernels with host launch code, then "
    "to PTX (lib/lower)",
    options, sizeof options / sizeof options[0], check, run, extend};
