//===- lower_pass.h - The lowering pass, reusable by mirage-superopt -----===//
#ifndef MIRAGE_PASSES_LOWER_PASS_H
#define MIRAGE_PASSES_LOWER_PASS_H

#include "pass.h"

#include "mirage/lower.h"

/// Options shared by mirage-lower and mirage-superopt, in this order: the
/// values array from its first entry is what the functions below read.
#define MG_LOWER_OPTION_SPECS \
    {"ptx", MG_OPTION_STRING, "auto", \
     "compile the GPU modules to PTX: true, false, or auto (when libdevice " \
     "is found under the toolkit)", 0, 0}, \
    {"toolkit", MG_OPTION_STRING, "/usr/local/cuda", \
     "CUDA toolkit whose libdevice the PTX links", 0, 0}, \
    {"ptxas", MG_OPTION_BOOL, "false", \
     "check the PTX with the toolkit's ptxas (mirage-ptxas)", 0, 0}, \
    {"host", MG_OPTION_STRING, "copy", \
     "host code: copy (tensors in host memory, copied in and out per call) " \
     "or device (device-resident memrefs, outputs as out-params)", 0, 0}, \
    {"dedup-kernels", MG_OPTION_BOOL, "true", \
     "compile identical kernels once: their launches share the first copy " \
     "(false: one kernel per launch)", 0, 0}

/// Where each of MG_LOWER_OPTION_SPECS sits from the first one.
enum { MG_LOWER_OPT_PTX, MG_LOWER_OPT_TOOLKIT, MG_LOWER_OPT_PTXAS,
       MG_LOWER_OPT_HOST, MG_LOWER_OPT_DEDUP, MG_LOWER_OPT_COUNT };

extern const MgOptionSpec mg_lower_pass_options[];
extern const MgPassDef mg_pass_lower;
extern const MgPassDef mg_pass_ptxas;

/// `<toolkit>/bin/ptxas` into `out`; true when it is executable.
bool mg_ptxas_path(const char *toolkit, char *out, size_t size);

/// Whether `<toolkit>/nvvm/libdevice/libdevice.10.bc` is readable (the PTX
/// pipeline links it).
bool mg_lower_has_libdevice(const char *toolkit);
/// The upstream passes from GPU modules to PTX (gpu.binary, format isa) for
/// `target`, as a pipeline of builtin.module's passes, into `out`.
void mg_lower_ptx_pipeline(const char *target, const char *toolkit, char *out,
                           size_t size);

/// Checks the ptx and host modes (`values` starts at the ptx option).
bool mg_lower_pass_check(const MgOptionValue *values, char *error,
                         size_t size);
/// Appends the upstream PTX pipeline for `target` after the lowering when
/// the options ask for it; false with a message when they ask for PTX and
/// no libdevice is there.
bool mg_lower_pass_extend(MlirOpPassManager pm, const MgOptionValue *values,
                          const char *target, bool remarks, char *error,
                          size_t size);
/// Lowers every kernel-level μGraph function of `module` (kernels + host
/// code in the convention the options ask for, identical kernels kept once
/// unless dedup-kernels=false; `values` starts at the ptx option) and marks
/// the module gpu.container_module; false after reporting an error.
bool mg_lower_pass_run_on(MlirOperation module, const MgTarget *target,
                          const MgOptionValue *values, bool remarks);

#endif // MIRAGE_PASSES_LOWER_PASS_H
