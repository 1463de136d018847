//===- driver.c - mg_lower_emit: checks, folded layouts, the form --------===//
//
// The entry point checks the program and the symbols, derives the layouts
// of folded views on a copy of the program, resolves the target once
// (NULL: sm_90) and picks a form: form/gpu.c (`gpu.module @<name>` with one
// `gpu.func @<name>_k<op>` per kernel op of the root graph), form/host.c
// (the launching function) or form/cpu.c (the CPU form).
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *unsupported(const MgProgram *p) {
  for (uint32_t g = 0; g < p->num_graphs; g++) {
    const MgGraph *gr = &p->graphs[g];
    if (gr->num_tensors > 4096)
      return "a graph with more than 4096 tensors";
    for (uint32_t t = 0; t < gr->num_tensors; t++)
      if (gr->tensors[t].rank == 0)
        return "a rank-0 tensor";
  }
  if (p->graphs[0].num_outputs > 64)
    return "more than 64 outputs";
  return NULL;
}

static MgStatus emit_program(const MgProgram *program, const MgLowerOptions *o,
                             const MgTarget *target, MgText *out,
                             MgDiag *diag);

MgStatus mg_lower_emit(const MgProgram *program, const MgLowerOptions *o,
                       MgText *out, MgDiag *diag) {
  return mg_lower_emit_for(program, o, NULL, out, diag);
}

MgStatus mg_lower_emit_for(const MgProgram *program, const MgLowerOptions *o,
                           const MgTarget *target, MgText *out,
                           MgDiag *diag) {
  if (!program || program->num_graphs == 0 || !o || !o->name ||
      o->mode >= MG_LOWER_MODE_COUNT || o->host >= MG_LOWER_HOST_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no program, name or mode to lower");
  // Symbols are written quoted (@"name"), so any name without a quote,
  // backslash or control character is fine.
  const char *names[3] = {o->name, o->module ? o->module : "",
                          o->tensor_adapter ? o->tensor_adapter : ""};
  for (int k = 0; k < 3; k++)
    for (const char *n = names[k]; *n; n++)
      if (*n == '"' || *n == '\\' || (unsigned char)*n < 0x20)
        return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "cannot lower into a symbol named '%s'", names[k]);
  const char *why = unsupported(program);
  if (why)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot lower %s", why);
  // Block graphs see which of their inputs arrive through folded views
  // (fold.c): a copy of the program with those layouts derived.
  MgProgram *folded = mg_program_clone(program);
  if (!folded)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MgStatus st = mg_program_fold_layouts(folded, diag);
  if (st == MG_STATUS_OK)
    st = emit_program(folded, o, target ? target : mg_target_default(), out,
                      diag);
  mg_program_destroy(folded);
  return st;
}

static MgStatus emit_program(const MgProgram *program, const MgLowerOptions *o,
                             const MgTarget *target, MgText *out,
                             MgDiag *diag) {
  uint32_t counter = 0;
  Emit e;
  memset(&e, 0, sizeof e);
  e.t = out;
  e.mode = o->mode;
  e.p = program;
  e.counter = &counter;
  e.target = target;
  if (o->mode == MG_LOWER_HOST && !o->module)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no GPU module named for the host code");
  const char *why = mg_lower_symbols_unsupported(program, o->mode, o->host);
  if (why)
    return mg_diag_set(diag, MG_STATUS_UNSUPPORTED, -1, -1,
                       "cannot lower %s yet", why);
  if (o->mode == MG_LOWER_CPU) {
    mg_lower_cpu_program(&e, o);
  } else if (o->mode == MG_LOWER_HOST) {
    mg_lower_host_program(&e, o);
  } else {
    mg_lower_line(&e, "gpu.module @\"%s\" {", o->name);
    e.indent++;
    const MgGraph *root = &program->graphs[0];
    for (MgOpId i = 0; i < root->num_ops && !e.error; i++)
      if (mg_lower_is_kernel(program, i))
        mg_lower_gpu_kernel(&e, o->name, i);
    e.indent--;
    mg_lower_line(&e, "}");
  }
  // A writer that finishes closes every region it opened.
  MG_ASSERT(e.error || e.indent == 0);
  if (e.error)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cannot lower %s",
                       e.error);
  if (out->failed)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return MG_STATUS_OK;
}
