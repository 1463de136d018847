//===- emit.c - Programs and kernels as MLIR text -------------------------===//
//
// GPU: `gpu.module @<name>` holding `gpu.func @<name>_k<op>` per kernel op
// of the root graph. A graph-defined kernel's function takes the kernel
// tensors it reads, then those it writes, as memrefs; the block index comes
// from gpu.block_id, the elements of each op are split over block_threads
// threads; tiles are workgroup buffers, or views of the dynamic shared
// memory above the static limit (mg_lower_smem_bytes gives the size to
// launch with). A predefined op is a kernel over whole tensors striding
// over every thread of the grid.
//
// CPU: `func.func @<name>(inputs..., outputs...)` on memrefs running the
// whole program: predefined ops over whole tensors, graph-defined kernels
// as loops over the grid (z, y, x) with tiles in buffers allocated once.
//
// Both: in a block graph, accumulators are zeroed, then the for-loop runs
// the ops that depend on an iterator through no accumulator
// (mg_graph_ops_in_loop), then the others run once, savers included.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMEM_ALIGN 16
#define WORKGROUP "#gpu.address_space<workgroup>"

void mg_lower_fresh(Emit *e, Name out) {
  snprintf(out, NAME_LEN, "%%v%u", (*e->counter)++);
}

void mg_lower_line(Emit *e, const char *fmt, ...) {
  mg_text_printf(e->t, "%*s", 2 * e->indent, "");
  va_list ap;
  va_start(ap, fmt);
  mg_text_vprintf(e->t, fmt, ap);
  va_end(ap);
  mg_text_printf(e->t, "\n");
}

void mg_lower_index(Emit *e, int64_t v, Name out) {
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = arith.constant %lld : index", out, (long long)v);
}

const char *mg_lower_elt(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16: return "f16";
  case MG_DTYPE_BF16: return "bf16";
  default: return "f32";
  }
}

void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]) {
  size_t n = (size_t)snprintf(out, TYPE_LEN, "memref<");
  for (uint32_t d = 0; d < t->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)t->dims[d]);
  snprintf(out + n, TYPE_LEN - n, "%s%s%s>", mg_lower_elt(dtype),
           space ? ", " : "", space ? space : "");
}

// A block-graph tensor kept in shared memory (not a kernel tensor).
static bool is_tile(const MgGraph *b, MgTensorId t) {
  MgOpKind k = (MgOpKind)b->ops[b->tensors[t].producer].kind;
  return k != MG_OP_INPUT && k != MG_OP_SAVER;
}

// The element type a tensor is kept in: accumulators in f32.
static MgDType kept_dtype(const MgGraph *g, MgTensorId t) {
  if (g->ops[g->tensors[t].producer].kind == MG_OP_ACCUM)
    return MG_DTYPE_F32;
  return (MgDType)g->tensors[t].dtype;
}

static int64_t tile_bytes(const MgGraph *b, MgTensorId t) {
  int64_t bytes = mg_tensor_numel(&b->tensors[t]) *
                  (int64_t)mg_dtype_bytes(kept_dtype(b, t));
  return (bytes + SMEM_ALIGN - 1) / SMEM_ALIGN * SMEM_ALIGN;
}

int64_t mg_lower_tile_bytes(const MgProgram *program, MgOpId op) {
  const MgOp *o = &program->graphs[0].ops[op];
  if (o->kind != MG_OP_CUSTOM)
    return 0;
  const MgGraph *b = &program->graphs[o->attr];
  int64_t bytes = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (is_tile(b, t))
      bytes += tile_bytes(b, t);
  return bytes;
}

int64_t mg_lower_smem_bytes(const MgProgram *program, MgOpId op) {
  int64_t bytes = mg_lower_tile_bytes(program, op);
  return bytes > MG_LOWER_STATIC_SMEM ? bytes : 0;
}

// Per-tensor names and types of graph `g`, freed by the caller.
static bool alloc_tables(Emit *e, const MgGraph *g) {
  e->g = g;
  e->val = calloc(g->num_tensors + 1, sizeof *e->val);
  e->type = calloc(g->num_tensors + 1, sizeof *e->type);
  e->dtype = calloc(g->num_tensors + 1, sizeof *e->dtype);
  if (!e->val || !e->type || !e->dtype)
    return false;
  for (MgTensorId t = 0; t < g->num_tensors; t++)
    e->dtype[t] = (uint8_t)kept_dtype(g, t);
  return true;
}

static void free_tables(Emit *e) {
  free(e->val);
  free(e->type);
  free(e->dtype);
  e->val = NULL;
  e->type = NULL;
  e->dtype = NULL;
}

// The block graph's body: accumulator zero fill, the for-loop, the rest.
static void block_body(Emit *e, const bool *in_loop) {
  const MgGraph *b = e->g;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (b->ops[i].kind == MG_OP_ACCUM)
      mg_lower_accum_init(e, &b->ops[i]);
  Name lo, hi, one;
  mg_lower_index(e, 0, lo);
  mg_lower_index(e, b->forloop, hi);
  mg_lower_index(e, 1, one);
  mg_lower_fresh(e, e->iter);
  mg_lower_line(e, "scf.for %s = %s to %s step %s {", e->iter, lo, hi, one);
  e->indent++;
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (in_loop[i])
      mg_lower_op(e, &b->ops[i]);
  e->indent--;
  mg_lower_line(e, "}");
  for (uint32_t i = 0; i < b->num_ops; i++)
    if (!in_loop[i] && b->ops[i].kind != MG_OP_INPUT)
      mg_lower_op(e, &b->ops[i]);
}

// Names the block graph's kernel tensors after the kernel op's operands
// and results (`kval`/`ktype`: per root tensor).
static void bind_dram(Emit *e, const MgOp *op, Name *kval,
                      char (*ktype)[TYPE_LEN]) {
  const MgGraph *b = e->g;
  for (uint32_t i = 0; i < b->num_ops; i++) {
    const MgOp *o = &b->ops[i];
    if (o->kind == MG_OP_INPUT) {
      MgTensorId k = op->inputs[o->attr];
      snprintf(e->val[o->outputs[0]], NAME_LEN, "%s", kval[k]);
      snprintf(e->type[o->outputs[0]], TYPE_LEN, "%s", ktype[k]);
    }
  }
  for (uint32_t k = 0; k < b->num_outputs; k++) {
    MgTensorId t = b->outputs[k];
    snprintf(e->val[t], NAME_LEN, "%s", kval[op->outputs[k]]);
    snprintf(e->type[t], TYPE_LEN, "%s", ktype[op->outputs[k]]);
  }
}

static bool loop_flags(const MgGraph *b, bool **in_loop) {
  *in_loop = calloc(b->num_ops + 1, sizeof **in_loop);
  return *in_loop && mg_graph_ops_in_loop(b, *in_loop);
}

//===--- GPU --------------------------------------------------------------===//

static void gpu_kernel(Emit *e, const char *name, MgOpId opi) {
  const MgGraph *root = &e->p->graphs[0];
  const MgOp *op = &root->ops[opi];
  // Names of the kernel's own tensors; the rest stay empty.
  Name *kval = calloc(root->num_tensors + 1, sizeof *kval);
  char (*ktype)[TYPE_LEN] = calloc(root->num_tensors + 1, sizeof *ktype);
  if (!kval || !ktype) {
    e->error = "out of memory";
    free(kval);
    free(ktype);
    return;
  }
  // Arguments: operands, then results.
  MgText args = {0};
  uint32_t n = 0;
  for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; k++) {
    MgTensorId t = k < op->num_inputs ? op->inputs[k]
                                      : op->outputs[k - op->num_inputs];
    snprintf(kval[t], NAME_LEN, "%%arg%u", n++);
    mg_lower_memref_type(&root->tensors[t], (MgDType)root->tensors[t].dtype,
                         NULL, ktype[t]);
    mg_text_printf(&args, "%s%s: %s", k ? ", " : "", kval[t], ktype[t]);
  }
  // Tiles: static workgroup attributions when they fit the static limit,
  // else views of the dynamic shared memory the launch sizes.
  bool dynamic = mg_lower_smem_bytes(e->p, opi) > 0;
  MgText wg = {0};
  if (op->kind == MG_OP_CUSTOM && !dynamic) {
    const MgGraph *b = &e->p->graphs[op->attr];
    for (MgTensorId t = 0; t < b->num_tensors; t++) {
      if (!is_tile(b, t))
        continue;
      char type[TYPE_LEN];
      mg_lower_memref_type(&b->tensors[t], kept_dtype(b, t), WORKGROUP, type);
      mg_text_printf(&wg, "%s%%wg%u : %s", wg.len ? ", " : "", t, type);
    }
  }
  mg_lower_line(e, "gpu.func @\"%s_k%u\"(%s)%s%s%s kernel {", name, opi,
                args.data ? args.data : "", wg.len ? " workgroup(" : "",
                wg.len ? wg.data : "", wg.len ? ")" : "");
  mg_text_free(&args);
  mg_text_free(&wg);
  e->indent++;
  e->barrier = true;
  if (op->kind != MG_OP_CUSTOM) {
    // Whole tensors, every thread of the grid striding over the elements.
    if (alloc_tables(e, root)) {
      for (uint32_t t = 0; t < root->num_tensors; t++) {
        snprintf(e->val[t], NAME_LEN, "%s", kval[t]);
        snprintf(e->type[t], TYPE_LEN, "%s", ktype[t]);
      }
      Name bid, bdim, tid, gdim, base;
      mg_lower_fresh(e, bid);
      mg_lower_line(e, "%s = gpu.block_id x", bid);
      mg_lower_fresh(e, bdim);
      mg_lower_line(e, "%s = gpu.block_dim x", bdim);
      mg_lower_fresh(e, tid);
      mg_lower_line(e, "%s = gpu.thread_id x", tid);
      mg_lower_fresh(e, gdim);
      mg_lower_line(e, "%s = gpu.grid_dim x", gdim);
      mg_lower_fresh(e, base);
      mg_lower_line(e, "%s = arith.muli %s, %s : index", base, bid, bdim);
      mg_lower_fresh(e, e->lo);
      mg_lower_line(e, "%s = arith.addi %s, %s : index", e->lo, base, tid);
      mg_lower_fresh(e, e->step);
      mg_lower_line(e, "%s = arith.muli %s, %s : index", e->step, gdim, bdim);
      e->barrier = false; // no tile is shared
      mg_lower_op(e, op);
    } else {
      e->error = "out of memory";
    }
    free_tables(e);
  } else {
    const MgGraph *b = &e->p->graphs[op->attr];
    bool *in_loop = NULL;
    if (!alloc_tables(e, b) || !loop_flags(b, &in_loop)) {
      e->error = "out of memory";
    } else {
      bind_dram(e, op, kval, ktype);
      static const char axes[3] = {'x', 'y', 'z'};
      for (int a = 0; a < 3; a++) {
        mg_lower_fresh(e, e->block[a]);
        mg_lower_line(e, "%s = gpu.block_id %c", e->block[a], axes[a]);
      }
      mg_lower_fresh(e, e->lo);
      mg_lower_line(e, "%s = gpu.thread_id x", e->lo);
      mg_lower_index(e, b->block_threads, e->step);
      Name smem;
      if (dynamic) {
        mg_lower_fresh(e, smem);
        mg_lower_line(e, "%s = gpu.dynamic_shared_memory : memref<?xi8, %s>",
                      smem, WORKGROUP);
      }
      int64_t offset = 0;
      for (MgTensorId t = 0; t < b->num_tensors; t++) {
        if (!is_tile(b, t))
          continue;
        mg_lower_memref_type(&b->tensors[t], kept_dtype(b, t), WORKGROUP,
                             e->type[t]);
        if (!dynamic) {
          snprintf(e->val[t], NAME_LEN, "%%wg%u", t);
          continue;
        }
        Name off;
        mg_lower_index(e, offset, off);
        mg_lower_fresh(e, e->val[t]);
        mg_lower_line(e, "%s = memref.view %s[%s][] : memref<?xi8, %s> to %s",
                      e->val[t], smem, off, WORKGROUP, e->type[t]);
        offset += tile_bytes(b, t);
      }
      block_body(e, in_loop);
    }
    free(in_loop);
    free_tables(e);
  }
  mg_lower_line(e, "gpu.return");
  e->indent--;
  mg_lower_line(e, "}");
  free(kval);
  free(ktype);
}

//===--- CPU --------------------------------------------------------------===//

static void cpu_custom(Emit *e, const MgOp *op, Name *kval,
                       char (*ktype)[TYPE_LEN]) {
  const MgGraph *b = &e->p->graphs[op->attr];
  bool *in_loop = NULL;
  Emit inner = *e;
  if (!alloc_tables(&inner, b) || !loop_flags(b, &in_loop)) {
    e->error = "out of memory";
    free(in_loop);
    free_tables(&inner);
    return;
  }
  bind_dram(&inner, op, kval, ktype);
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!is_tile(b, t))
      continue;
    mg_lower_memref_type(&b->tensors[t], kept_dtype(b, t), NULL,
                         inner.type[t]);
    mg_lower_fresh(&inner, inner.val[t]);
    mg_lower_line(&inner, "%s = memref.alloc() : %s", inner.val[t],
                  inner.type[t]);
  }
  Name lo, one;
  mg_lower_index(&inner, 0, lo);
  mg_lower_index(&inner, 1, one);
  for (int a = 2; a >= 0; a--) {
    Name hi;
    mg_lower_index(&inner, b->grid[a], hi);
    mg_lower_fresh(&inner, inner.block[a]);
    mg_lower_line(&inner, "scf.for %s = %s to %s step %s {", inner.block[a],
                  lo, hi, one);
    inner.indent++;
  }
  block_body(&inner, in_loop);
  for (int a = 0; a < 3; a++) {
    inner.indent--;
    mg_lower_line(&inner, "}");
  }
  // Free this kernel's tiles right after it.
  for (MgTensorId t = 0; t < b->num_tensors; t++)
    if (is_tile(b, t))
      mg_lower_line(&inner, "memref.dealloc %s : %s", inner.val[t],
                    inner.type[t]);
  if (inner.error)
    e->error = inner.error;
  free(in_loop);
  free_tables(&inner);
}

static void cpu_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  if (!alloc_tables(e, root)) {
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
    mg_lower_memref_type(&root->tensors[t], (MgDType)root->tensors[t].dtype,
                         NULL, e->type[t]);
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
  bool *alloc_of = calloc(root->num_tensors + 1, sizeof *alloc_of);
  if (!alloc_of)
    e->error = "out of memory";
  for (MgTensorId t = 0; alloc_of && t < root->num_tensors; t++) {
    if (e->val[t][0])
      continue;
    mg_lower_memref_type(&root->tensors[t], (MgDType)root->tensors[t].dtype,
                         NULL, e->type[t]);
    mg_lower_fresh(e, e->val[t]);
    mg_lower_line(e, "%s = memref.alloc() : %s", e->val[t], e->type[t]);
    alloc_of[t] = true;
  }
  mg_lower_index(e, 0, e->lo);
  mg_lower_index(e, 1, e->step);
  e->barrier = false;
  for (uint32_t i = 0; !e->error && i < root->num_ops; i++) {
    const MgOp *op = &root->ops[i];
    if (op->kind == MG_OP_INPUT)
      continue;
    if (op->kind == MG_OP_CUSTOM) {
      cpu_custom(e, op, e->val, e->type);
    } else {
      mg_lower_op(e, op);
    }
  }
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++)
    if (copy_out[k]) {
      char type[TYPE_LEN];
      const MgTensor *ot = &root->tensors[root->outputs[k]];
      mg_lower_memref_type(ot, (MgDType)ot->dtype, NULL, type);
      mg_lower_line(e, "memref.copy %s, %s : %s to %s",
                    e->val[root->outputs[k]], out_val[k],
                    e->type[root->outputs[k]], type);
    }
  for (MgTensorId t = 0; alloc_of && t < root->num_tensors; t++)
    if (alloc_of[t])
      mg_lower_line(e, "memref.dealloc %s : %s", e->val[t], e->type[t]);
  mg_lower_line(e, "return");
  e->indent--;
  mg_lower_line(e, "}");
  free(alloc_of);
  free_tables(e);
}

//===--- Host -------------------------------------------------------------===//

int64_t mg_lower_predefined_blocks(const MgProgram *program, MgOpId op) {
  const MgOp *o = &program->graphs[0].ops[op];
  int64_t n = mg_tensor_numel(&program->graphs[0].tensors[o->outputs[0]]);
  int64_t blocks = (n + MG_LOWER_PREDEFINED_THREADS - 1) /
                   MG_LOWER_PREDEFINED_THREADS;
  return blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks;
}

static void tensor_type(const MgTensor *t, char out[TYPE_LEN]) {
  size_t n = (size_t)snprintf(out, TYPE_LEN, "tensor<");
  for (uint32_t d = 0; d < t->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)t->dims[d]);
  snprintf(out + n, TYPE_LEN - n, "%s>", mg_lower_elt((MgDType)t->dtype));
}

// Host code is one chain of asynchronous GPU ops (the form upstream's
// gpu-to-llvm lowers to runtime calls on one stream); `tok` is its end.
static void chain(Emit *e, Name tok, Name next) {
  mg_lower_fresh(e, next);
  (void)tok;
}

// Device buffers for every root tensor, inputs copied in.
static void host_buffers(Emit *e, const MgGraph *root, Name tok) {
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    const MgTensor *x = &root->tensors[t];
    mg_lower_memref_type(x, (MgDType)x->dtype, NULL, e->type[t]);
    mg_lower_fresh(e, e->val[t]);
    Name next;
    chain(e, tok, next);
    mg_lower_line(e, "%s, %s = gpu.alloc async [%s] () : %s", e->val[t], next,
                  tok, e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
    const MgOp *op = &root->ops[x->producer];
    if (op->kind != MG_OP_INPUT)
      continue;
    Name h;
    char tt[TYPE_LEN];
    tensor_type(x, tt);
    mg_lower_fresh(e, h);
    mg_lower_line(e, "%s = bufferization.to_buffer %%arg%d : %s to %s", h,
                  op->attr, tt, e->type[t]);
    chain(e, tok, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                  e->val[t], h, e->type[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
}

static void host_launch(Emit *e, const MgLowerOptions *o, MgOpId i,
                        Name tok) {
  const MgGraph *root = &e->p->graphs[0];
  const MgOp *op = &root->ops[i];
  int64_t grid[3] = {mg_lower_predefined_blocks(e->p, i), 1, 1};
  int64_t threads = MG_LOWER_PREDEFINED_THREADS;
  if (op->kind == MG_OP_CUSTOM) {
    const MgGraph *b = &e->p->graphs[op->attr];
    for (int a = 0; a < 3; a++)
      grid[a] = b->grid[a];
    threads = b->block_threads;
  }
  Name g[3], th, one, smem;
  for (int a = 0; a < 3; a++)
    mg_lower_index(e, grid[a], g[a]);
  mg_lower_index(e, threads, th);
  mg_lower_index(e, 1, one);
  mg_lower_fresh(e, smem);
  mg_lower_line(e, "%s = arith.constant %lld : i32", smem,
                (long long)mg_lower_smem_bytes(e->p, i));
  MgText args = {0};
  for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; k++) {
    MgTensorId t = k < op->num_inputs ? op->inputs[k]
                                      : op->outputs[k - op->num_inputs];
    mg_text_printf(&args, "%s%s : %s", k ? ", " : "", e->val[t], e->type[t]);
  }
  Name next;
  chain(e, tok, next);
  mg_lower_line(e, "%s = gpu.launch_func async [%s] @\"%s\"::@\"%s_k%u\" blocks in "
                   "(%s, %s, %s) threads in (%s, %s, %s) "
                   "dynamic_shared_memory_size %s args(%s)", next, tok,
                o->module, o->module, i, g[0], g[1], g[2], th, one, one,
                smem, args.data ? args.data : "");
  snprintf(tok, NAME_LEN, "%s", next);
  mg_text_free(&args);
}

static void host_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  if (!alloc_tables(e, root)) {
    e->error = "out of memory";
    return;
  }
  MgText sig = {0}, results = {0};
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind == MG_OP_INPUT) {
      char tt[TYPE_LEN];
      tensor_type(&root->tensors[root->ops[i].outputs[0]], tt);
      mg_text_printf(&sig, "%s%%arg%u: %s", n++ ? ", " : "", root->ops[i].attr,
                     tt);
    }
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    char tt[TYPE_LEN];
    tensor_type(&root->tensors[root->outputs[k]], tt);
    mg_text_printf(&results, "%s%s", k ? ", " : "", tt);
  }
  mg_lower_line(e, "func.func @\"%s\"(%s) -> (%s) {", o->name,
                sig.data ? sig.data : "", results.data ? results.data : "");
  e->indent++;
  Name tok, next;
  mg_lower_fresh(e, tok);
  mg_lower_line(e, "%s = gpu.wait async", tok);
  host_buffers(e, root, tok);
  for (MgOpId i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind != MG_OP_INPUT)
      host_launch(e, o, i, tok);
  MgText rets = {0};
  Name host[64];
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    mg_lower_fresh(e, host[k]);
    mg_lower_line(e, "%s = memref.alloc() : %s", host[k], e->type[t]);
    chain(e, tok, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                  host[k], e->val[t], e->type[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    chain(e, tok, next);
    mg_lower_line(e, "%s = gpu.dealloc async [%s] %s : %s", next, tok,
                  e->val[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  mg_lower_line(e, "gpu.wait [%s]", tok);
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    char tt[TYPE_LEN];
    tensor_type(&root->tensors[t], tt);
    Name r;
    mg_lower_fresh(e, r);
    mg_lower_line(e, "%s = bufferization.to_tensor %s restrict writable : "
                     "%s to %s", r, host[k], e->type[t], tt);
    mg_text_printf(&rets, "%s%s", k ? ", " : "", r);
  }
  mg_lower_line(e, "return %s : %s", rets.data ? rets.data : "",
                results.data ? results.data : "");
  e->indent--;
  mg_lower_line(e, "}");
  mg_text_free(&sig);
  mg_text_free(&results);
  mg_text_free(&rets);
  free_tables(e);
}

//===--- Entry ------------------------------------------------------------===//

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

MgStatus mg_lower_emit(const MgProgram *program, const MgLowerOptions *o,
                       MgText *out, MgDiag *diag) {
  if (!program || program->num_graphs == 0 || !o || !o->name ||
      o->mode >= MG_LOWER_MODE_COUNT)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no program, name or mode to lower");
  // Symbols are written quoted (@"name"), so any name without a quote,
  // backslash or control character is fine.
  const char *names[2] = {o->name, o->module ? o->module : ""};
  for (int k = 0; k < 2; k++)
    for (const char *n = names[k]; *n; n++)
      if (*n == '"' || *n == '\\' || (unsigned char)*n < 0x20)
        return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                           "cannot lower into a symbol named '%s'", names[k]);
  const char *why = unsupported(program);
  if (why)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot lower %s", why);
  uint32_t counter = 0;
  Emit e;
  memset(&e, 0, sizeof e);
  e.t = out;
  e.mode = o->mode;
  e.p = program;
  e.counter = &counter;
  if (o->mode == MG_LOWER_HOST && !o->module)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "no GPU module named for the host code");
  if (o->mode == MG_LOWER_CPU) {
    cpu_program(&e, o);
  } else if (o->mode == MG_LOWER_HOST) {
    host_program(&e, o);
  } else {
    mg_lower_line(&e, "gpu.module @\"%s\" {", o->name);
    e.indent++;
    const MgGraph *root = &program->graphs[0];
    for (MgOpId i = 0; i < root->num_ops && !e.error; i++)
      if (root->ops[i].kind != MG_OP_INPUT)
        gpu_kernel(&e, o->name, i);
    e.indent--;
    mg_lower_line(&e, "}");
  }
  if (e.error)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1, "cannot lower %s",
                       e.error);
  if (out->failed)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  return MG_STATUS_OK;
}
