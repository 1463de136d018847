//===- cpu.c - The whole program as one CPU function ---------------------===//
//
// `func.func @<name>(inputs..., outputs...)` on memrefs: predefined ops
// over whole tensors, graph-defined kernels as loops over the grid (z, y,
// x) with tiles in buffers allocated per kernel; outputs are written in
// place (an output that is an input or an earlier output is copied). A
// free view's result is a view of its operand's buffer; when it is an
// output (a buffer of its own) the view is copied into it.
// mirage-run JIT-compiles it to check the lowering against the
// interpreter.
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cpu_custom(Emit *e, const MgOp *op, Name *kval,
                       char (*ktype)[TYPE_LEN]) {
  const MgGraph *b = &e->p->graphs[op->attr];
  Emit inner = *e;
  // Values a fused chain keeps in registers get no buffer.
  bool *reg = calloc(b->num_tensors + 1, sizeof *reg);
  if (!reg || !mg_lower_register_values(b, reg) ||
      !mg_lower_alloc_tables(&inner, b)) {
    e->error = "out of memory";
    free(reg);
    mg_lower_free_tables(&inner);
    return;
  }
  mg_lower_bind_dram(&inner, op, kval, ktype);
  // The GPU kernel's reduction choices, its lanes emulated (ops.c), and
  // its threads run in turn with the GPU's element split.
  inner.coop_threads = mg_lower_coop_threads(b);
  inner.step_value = b->block_threads;
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!mg_lower_is_tile(b, t) || reg[t])
      continue;
    mg_lower_tile_type(b, t, NULL, inner.type[t]);
    mg_lower_fresh(&inner, inner.val[t]);
    mg_lower_line(&inner, "%s = memref.alloc() : %s", inner.val[t],
                  inner.type[t]);
    snprintf(inner.stage_buf[t], NAME_LEN, "%s", inner.val[t]);
    snprintf(inner.stage_type[t], TYPE_LEN, "%s", inner.type[t]);
  }
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!mg_lower_aux_bytes(b, t))
      continue;
    mg_lower_aux_type(b, t, NULL, inner.aux_type[t]);
    mg_lower_fresh(&inner, inner.aux_buf[t]);
    mg_lower_line(&inner, "%s = memref.alloc() : %s", inner.aux_buf[t],
                  inner.aux_type[t]);
  }
  Name lo, one;
  mg_lower_index(&inner, 0, lo);
  mg_lower_index(&inner, 1, one);
  for (int a = 2; a >= 0; a--) {
    Name hi;
    if (b->grid_sym[a]) // ceil(size / rows a block) blocks
      mg_lower_grid_extent(&inner, b, a, hi);
    else
      mg_lower_index(&inner, b->grid[a], hi);
    mg_lower_fresh(&inner, inner.block[a]);
    mg_lower_line(&inner, "scf.for %s = %s to %s step %s {", inner.block[a],
                  lo, hi, one);
    inner.indent++;
  }
  mg_lower_block_body(&inner, reg);
  for (int a = 0; a < 3; a++) {
    inner.indent--;
    mg_lower_line(&inner, "}");
  }
  // Free this kernel's tiles right after it.
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (mg_lower_is_tile(b, t) && !reg[t])
      mg_lower_line(&inner, "memref.dealloc %s : %s", inner.stage_buf[t],
                    inner.stage_type[t]);
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (inner.aux_buf[t][0])
      mg_lower_line(&inner, "memref.dealloc %s : %s", inner.aux_buf[t],
                    inner.aux_type[t]);
  if (inner.error)
    e->error = inner.error;
  free(reg);
  mg_lower_free_tables(&inner);
}

// A free view whose result is an output has the output's buffer: the
// view of its operand (complete by now) is copied into it.
static void free_view_into_output(Emit *e, const MgOp *op) {
  const MgGraph *root = e->g;
  MgTensorId a = op->inputs[0], t = op->outputs[0];
  Memref view = mg_lower_tensor_memref(e, a);
  mg_lower_reshape_view(e, &root->tensors[a], &root->tensors[t], &view);
  mg_lower_line(e, "memref.copy %s, %s : %s to %s", view.val, e->val[t],
                view.type, e->type[t]);
}

// A buffer of t's own (freed at the end).
static void alloc_buffer(Emit *e, const MgGraph *root, MgTensorId t) {
  mg_lower_memref_type(&root->tensors[t], (MgDType)root->tensors[t].dtype,
                       NULL, e->type[t]);
  char sizes[TYPE_LEN];
  mg_lower_alloc_sizes(e, &root->tensors[t], sizes);
  mg_lower_fresh(e, e->val[t]);
  mg_lower_line(e, "%s = memref.alloc(%s) : %s", e->val[t], sizes,
                e->type[t]);
}

void mg_lower_cpu_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  if (!mg_lower_alloc_tables(e, root)) {
    e->error = "out of memory";
    return;
  }
  MgText args = {0};
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind != MG_OP_INPUT)
      continue;
    MgTensorId t = op->outputs[0];
    snprintf(e->val[t], NAME_LEN, "%%in%d", op->attr);
    mg_lower_stored_type(root, t, e->type[t]);
    mg_text_printf(&args, "%s%s: %s", n++ ? ", " : "", e->val[t], e->type[t]);
  }
  // Outputs are written in place; a tensor that is an input or an earlier
  // output is copied at the end.
  bool copy_out[MG_MAX_OP_OUTPUTS * 16] = {false};
  Name out_val[MG_MAX_OP_OUTPUTS * 16];
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    snprintf(out_val[k], NAME_LEN, "%%out%u", k);
    char type[TYPE_LEN];
    mg_lower_memref_type(&root->tensors[t], (MgDType)root->tensors[t].dtype,
                         NULL, type);
    mg_text_printf(&args, "%s%s: %s", n++ ? ", " : "", out_val[k], type);
    if (e->val[t][0])
      copy_out[k] = true;
    else {
      memcpy(e->val[t], out_val[k], NAME_LEN);
      snprintf(e->type[t], TYPE_LEN, "%s", type);
    }
  }
  mg_lower_line(e, "func.func @\"%s\"(%s)%s {", o->name,
                args.data ? args.data : "",
                o->c_interface ? " attributes {llvm.emit_c_interface}" : "");
  mg_text_free(&args);
  e->indent++;
  MgLowerArgErrors errs = {o->name, {0}, 0};
  mg_lower_bind_symbols(e, &errs, false);
  // Buffers of whole blocks of rows (symbols.c): the caller's inputs are
  // copied into padded ones, padded outputs copied back at the end.
  bool *padded_in = calloc(root->num_tensors + 1, sizeof *padded_in);
  if (!padded_in)
    e->error = "out of memory";
  for (MgTensorId t = 0; padded_in && t < root->num_tensors; t++) {
    if (root->ops[root->tensors[t].producer].kind != MG_OP_INPUT ||
        !mg_lower_is_padded(e, &root->tensors[t]))
      continue;
    char sizes[TYPE_LEN];
    Name buf, view;
    MgTensor stored = mg_graph_stored_tensor(root, t); // the caller's
    mg_lower_alloc_sizes(e, &stored, sizes);
    mg_lower_fresh(e, buf);
    mg_lower_line(e, "%s = memref.alloc(%s) : %s", buf, sizes, e->type[t]);
    char vtype[TYPE_LEN];
    mg_lower_caller_rows(e, &stored, buf, e->type[t], view, vtype);
    if (mg_lower_rows_strided(e, &stored))
      mg_lower_copy_rows(e, &stored, e->val[t], e->type[t], view, vtype);
    else
      mg_lower_line(e, "memref.copy %s, %s : %s to %s", e->val[t], view,
                    e->type[t], vtype);
    memcpy(e->val[t], buf, NAME_LEN);
    padded_in[t] = true;
  }
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    if (!copy_out[k] && mg_lower_is_padded(e, &root->tensors[t])) {
      e->val[t][0] = '\0'; // allocated padded below, copied back
      copy_out[k] = true;
    }
  }
  for (MgTensorId t = 0; t < root->num_tensors; t++)
    if (root->ops[root->tensors[t].producer].kind == MG_OP_INPUT)
      mg_lower_layout_view(e, root, t, e->val[t], e->type[t]);
  // Per tensor: allocated here (freed at the end), or a view of another.
  bool *alloc_of = calloc(2 * (root->num_tensors + 1), sizeof *alloc_of);
  bool *view_of = alloc_of ? alloc_of + root->num_tensors + 1 : NULL;
  if (!alloc_of)
    e->error = "out of memory";
  for (MgTensorId t = 0; alloc_of && t < root->num_tensors; t++) {
    if (e->val[t][0])
      continue;
    MgOpId made = root->tensors[t].producer;
    // Operands precede results.
    if (mg_graph_view_is_free(root, &root->ops[made])) {
      MgTensorId a = root->ops[made].inputs[0];
      Memref m = mg_lower_tensor_memref(e, a);
      mg_lower_reshape_view(e, &root->tensors[a], &root->tensors[t], &m);
      mg_lower_bind_memref(e, t, &m);
      view_of[t] = true;
      continue;
    }
    const MgOp *im = mg_graph_folded_im2col(root, t);
    if (im) { // its readers gather from the input (implicit GEMM)
      memcpy(e->val[t], e->val[im->inputs[0]], NAME_LEN);
      memcpy(e->type[t], e->type[im->inputs[0]], TYPE_LEN);
      continue;
    }
    MgStridedView v;
    if (mg_graph_folded_view(root, t, &v)) { // strides over its buffer
      if (!e->val[v.base][0]) { // written through a transpose: comes later
        alloc_buffer(e, root, v.base);
        alloc_of[v.base] = true;
      }
      memcpy(e->val[t], e->val[v.base], NAME_LEN); // v.base != t
      memcpy(e->type[t], e->type[v.base], TYPE_LEN);
      mg_lower_layout_view(e, root, t, e->val[t], e->type[t]);
      continue;
    }
    alloc_buffer(e, root, t);
    alloc_of[t] = true;
  }
  mg_lower_index(e, 0, e->lo);
  mg_lower_index(e, 1, e->step);
  e->step_value = 1;
  e->barrier = false;
  for (uint32_t i = 0; !e->error && i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind == MG_OP_INPUT || mg_graph_view_folds(root, op) ||
        mg_graph_im2col_folds(root, op))
      continue;
    int64_t blocks, threads;
    if (mg_graph_view_is_free(root, op)) {
      if (!view_of[op->outputs[0]])
        free_view_into_output(e, op);
    } else if (mg_lower_is_gemv(e->p, i, &blocks, &threads))
      mg_lower_gemv(e, op, NULL, NULL, NULL); // the GPU's split, in turn
    else if (op->kind == MG_OP_CUSTOM)
      cpu_custom(e, op, e->val, e->type);
    else
      mg_lower_op(e, op);
  }
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++)
    if (copy_out[k]) {
      char type[TYPE_LEN];
      const MgTensor *ot = &root->tensors[root->outputs[k]];
      mg_lower_memref_type(ot, (MgDType)ot->dtype, NULL, type);
      Name src; // the caller's rows of a padded buffer
      char stype[TYPE_LEN];
      mg_lower_caller_rows(e, ot, e->val[root->outputs[k]],
                           e->type[root->outputs[k]], src, stype);
      if (mg_lower_rows_strided(e, ot))
        mg_lower_copy_rows(e, ot, src, stype, out_val[k], type);
      else
        mg_lower_line(e, "memref.copy %s, %s : %s to %s", src, out_val[k],
                      stype, type);
    }
  for (MgTensorId t = 0; alloc_of && t < root->num_tensors; t++)
    if (alloc_of[t] || (padded_in && padded_in[t]))
      mg_lower_line(e, "memref.dealloc %s : %s", e->val[t], e->type[t]);
  free(padded_in);
  mg_lower_line(e, "return");
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_arg_errors_finish(e, &errs);
  free(alloc_of);
  mg_lower_free_tables(e);
}
