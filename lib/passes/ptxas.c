//===- ptxas.c - --mirage-ptxas: the CUDA assembler checks the PTX --------===//
//
// Every gpu.binary of the module whose object holds PTX text (format=isa)
// goes through `<toolkit>/bin/ptxas -arch=<chip> -v` (the chip its NVVM
// target names; run directly, no shell): rejected PTX is an
// error at the binary, accepted PTX a remark with what ptxas reports
// (kernels, registers, shared memory, spills). `--mirage-lower` and
// `--mirage-superopt` append it after the PTX passes with `ptxas=true`.
//
//===----------------------------------------------------------------------===//
#define _XOPEN_SOURCE 700 // access
#include "lower_pass.h"
#include "ptxas_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/Dialect/GPU.h"

enum { OPT_TARGET, OPT_TOOLKIT, OPT_REMARKS };

static const MgOptionSpec options[] = {
    {"target", MG_OPTION_STRING, "sm_90",
     "architecture for binaries whose target names no chip (sm_80, sm_86, "
     "sm_89, sm_90)", 0, 0},
    {"toolkit", MG_OPTION_STRING, "/usr/local/cuda",
     "CUDA toolkit whose bin/ptxas is run", 0, 0},
    {"remarks", MG_OPTION_BOOL, "false",
     "report what ptxas says of accepted PTX (also MIRAGE_REMARKS=1)", 0, 0},
};

bool mg_ptxas_path(const char *toolkit, char *out, size_t size) {
  snprintf(out, size, "%s/bin/ptxas", toolkit);
  return access(out, X_OK) == 0;
}

static bool check(const MgOptionValue *v, char *error, size_t size) {
  char path[4200];
  if (!mg_ptxas_path(v[OPT_TOOLKIT].s, path, sizeof path)) {
    snprintf(error, size, "no ptxas at '%s' (set toolkit=...)", path);
    return false;
  }
  return mg_pass_check_target(v[OPT_TARGET].s, error, size);
}

// What ptxas -v says, summed over the kernels of one PTX file.
typedef struct Report {
  int kernels, max_registers, spills;
  long max_smem;
  char first_error[512];
} Report;

static void scan(const char *line, Report *r) {
  const char *p;
  if (strstr(line, "Compiling entry function"))
    r->kernels++;
  if ((p = strstr(line, "Used "))) {
    int regs = atoi(p + 5);
    if (regs > r->max_registers)
      r->max_registers = regs;
  }
  if ((p = strstr(line, " bytes smem"))) {
    const char *q = p;
    while (q > line && q[-1] >= '0' && q[-1] <= '9')
      q--;
    long smem = atol(q);
    if (smem > r->max_smem)
      r->max_smem = smem;
  }
  if ((p = strstr(line, "bytes spill stores"))) {
    const char *q = strstr(line, "stack frame, ");
    if (q)
      r->spills += atoi(q + 13);
  }
  if (!r->first_error[0] && (strstr(line, "error") || strstr(line, "fatal")))
    snprintf(r->first_error, sizeof r->first_error, "%.500s", line);
}

// Assembles `ptx` (ptxas_run.c: a private temporary directory, a
// deadline) and scans what ptxas says; false when it rejects it (or
// cannot run).
static bool assemble(const char *ptxas, const char *arch, MlirStringRef ptx,
                     Report *r) {
  MgText log = {NULL, 0, 0, false};
  MgPtxasJob job = {ptxas, arch, 600};
  bool ok = mg_ptxas_assemble(&job, ptx.data, ptx.length, &log,
                              r->first_error, sizeof r->first_error);
  for (const char *s = log.data; s && *s;) {
    char line[1024];
    size_t n = strcspn(s, "\n");
    snprintf(line, sizeof line, "%.*s", (int)(n < 1023 ? n : 1023), s);
    scan(line, r);
    s += n + (s[n] != 0);
  }
  mg_text_free(&log);
  return ok;
}

typedef struct Printed {
  char text[512];
  size_t len;
} Printed;

static void print_into(MlirStringRef s, void *ud) {
  Printed *p = ud;
  size_t n = s.length < sizeof p->text - 1 - p->len
                 ? s.length : sizeof p->text - 1 - p->len;
  memcpy(p->text + p->len, s.data, n);
  p->len += n;
  p->text[p->len] = 0;
}

// The chip the object was compiled for (`chip = "sm_90"` in its NVVM
// target), else `fallback`.
static void object_chip(MlirAttribute obj, const char *fallback, char *out,
                        size_t size) {
  Printed p = {"", 0};
  mlirAttributePrint(mlirGPUObjectAttrGetTarget(obj), print_into, &p);
  const char *c = strstr(p.text, "chip = \"");
  if (c) {
    c += 8;
    size_t n = strcspn(c, "\"");
    if (n > 0 && n < size) {
      memcpy(out, c, n);
      out[n] = 0;
      return;
    }
  }
  snprintf(out, size, "%s", fallback);
}

static void run(MlirOperation module, MlirExternalPass pass,
                const MgOptionValue *values) {
  char ptxas[4200];
  mg_ptxas_path(values[OPT_TOOLKIT].s, ptxas, sizeof ptxas);
  bool remarks = mg_pass_remarks_enabled(values[OPT_REMARKS].b);
  bool ok = true;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!mg_bridge_op_is(op, "gpu.binary"))
      continue;
    MlirAttribute objects = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("objects"));
    MlirStringRef name = mlirStringAttrGetValue(mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name")));
    intptr_t n = mlirAttributeIsNull(objects)
                     ? 0 : mlirArrayAttrGetNumElements(objects);
    for (intptr_t i = 0; i < n; i++) {
      MlirAttribute obj = mlirArrayAttrGetElement(objects, i);
      if (!mlirAttributeIsAGPUObjectAttr(obj) ||
          mlirGPUObjectAttrGetFormat(obj) != 2 /* isa: PTX text */)
        continue;
      Report r = {0, 0, 0, 0, ""};
      char chip[320];
      object_chip(obj, values[OPT_TARGET].s, chip, sizeof chip);
      if (!assemble(ptxas, chip, mlirGPUObjectAttrGetObject(obj), &r)) {
        mg_pass_error(mlirOperationGetLocation(op),
                      "mirage-ptxas: ptxas rejects the PTX of '@%.*s': %s",
                      (int)name.length, name.data, r.first_error);
        ok = false;
      } else if (remarks) {
        mg_pass_remark(mlirOperationGetLocation(op),
                       "mirage-ptxas: '@%.*s': ptxas accepts %d kernel(s) "
                       "for %s: at most %d registers, %ld bytes of static "
                       "shared memory, %d bytes spilled",
                       (int)name.length, name.data, r.kernels, chip,
                       r.max_registers, r.max_smem, r.spills);
      }
    }
  }
  if (!ok)
    mlirExternalPassSignalFailure(pass);
}

const MgPassDef mg_pass_ptxas = {
    "mirage-ptxas",
    "Run the CUDA assembler (ptxas) on the PTX of every gpu.binary",
    options, sizeof options / sizeof options[0], check, run, NULL};
