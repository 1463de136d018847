//===- host.c - Host code launching the kernels ---------------------------===//
//
// The kernel graph's function, same name and tensor signature, as one
// chain of asynchronous GPU ops (the form upstream's gpu-to-llvm lowers to
// runtime calls on one stream): device buffers for every kernel tensor
// (a free view's result is a view of its operand's), inputs copied in,
// one launch per kernel op (grid, threads, dynamic shared memory), outputs
// copied back, buffers freed, then a wait.
//
//===----------------------------------------------------------------------===//
#include "lower_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t mg_lower_predefined_blocks(const MgProgram *program, MgOpId op) {
  const MgOp *o = &program->graphs[0].ops[op];
  int64_t n = mg_tensor_numel(&program->graphs[0].tensors[o->outputs[0]]);
  if (mg_op_is_view(o, MG_LEVEL_KERNEL)) // a thread per vector it moves
    n /= mg_lower_view_vector_width(&program->graphs[0], o);
  int64_t blocks = (n + MG_LOWER_PREDEFINED_THREADS - 1) /
                   MG_LOWER_PREDEFINED_THREADS;
  return blocks < 1 ? 1 : blocks > 65535 ? 65535 : blocks;
}

void mg_lower_launch(const MgProgram *p, MgOpId op, int64_t grid[3],
                     int64_t *threads) {
  const MgOp *o = &p->graphs[0].ops[op];
  if (o->kind != MG_OP_CUSTOM) {
    grid[1] = grid[2] = 1;
    if (mg_lower_is_gemv(p, op, &grid[0], threads))
      return;
    grid[0] = mg_lower_predefined_blocks(p, op);
    grid[1] = grid[2] = 1;
    *threads = MG_LOWER_PREDEFINED_THREADS;
    return;
  }
  const MgGraph *b = &p->graphs[o->attr];
  for (int a = 0; a < 3; a++)
    grid[a] = b->grid[a];
  *threads = b->block_threads;
}

static void tensor_type(const MgTensor *t, char out[TYPE_LEN]) {
  size_t n = (size_t)snprintf(out, TYPE_LEN, "tensor<");
  for (uint32_t d = 0; d < t->rank; d++)
    n += (size_t)snprintf(out + n, TYPE_LEN - n, "%lldx",
                          (long long)t->dims[d]);
  snprintf(out + n, TYPE_LEN - n, "%s>", mg_lower_elt((MgDType)t->dtype));
}

// The tensor type the caller passes for `t`: its stored shape.
static void stored_tensor_type(const MgGraph *g, MgTensorId t,
                               char out[TYPE_LEN]) {
  MgTensor s = g->tensors[t];
  mg_graph_stored_dims(g, t, s.dims);
  tensor_type(&s, out);
}

// A free view's result (no buffer of its own: a view of its operand's).
static bool is_view_of_buffer(const MgGraph *root, MgTensorId t) {
  return mg_graph_view_is_free(root, &root->ops[root->tensors[t].producer]);
}

// Device buffers for every root tensor, inputs copied in; a free view
// views its operand's buffer (made earlier: operands precede results).
static void host_buffers(Emit *e, const MgGraph *root, Name tok) {
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    const MgTensor *x = &root->tensors[t];
    if (is_view_of_buffer(root, t)) {
      MgTensorId a = root->ops[x->producer].inputs[0];
      mg_lower_reshape_view(e, &root->tensors[a], x, e->val[a], e->type[a],
                            e->val[t], e->type[t]);
      continue;
    }
    mg_lower_stored_type(root, t, e->type[t]);
    mg_lower_fresh(e, e->val[t]);
    Name next;
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s, %s = gpu.alloc async [%s] () : %s", e->val[t], next,
                  tok, e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
    const MgOp *op = &root->ops[x->producer];
    if (op->kind != MG_OP_INPUT)
      continue;
    Name h;
    char tt[TYPE_LEN];
    stored_tensor_type(root, t, tt);
    mg_lower_fresh(e, h);
    mg_lower_line(e, "%s = bufferization.to_buffer %%arg%d : %s to %s", h,
                  op->attr, tt, e->type[t]);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                  e->val[t], h, e->type[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
}

static void host_launch(Emit *e, const MgLowerOptions *o, MgOpId i,
                        Name tok) {
  const MgGraph *root = &e->p->graphs[0];
  const MgOp *op = &root->ops[i];
  int64_t grid[3], threads;
  mg_lower_launch(e->p, i, grid, &threads);
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
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s = gpu.launch_func async [%s] @\"%s\"::@\"%s_k%u\" "
                   "blocks in "
                   "(%s, %s, %s) threads in (%s, %s, %s) "
                   "dynamic_shared_memory_size %s args(%s)", next, tok,
                o->module, o->module, i, g[0], g[1], g[2], th, one, one,
                smem, args.data ? args.data : "");
  snprintf(tok, NAME_LEN, "%s", next);
  mg_text_free(&args);
}

// An output that is an input with a layout comes back as stored; the
// caller gets its logical value: `buf` (type `type`, stored) is copied on
// the host into a new logical buffer through its memref.transpose view,
// freed, and replaced by it.
static void logical_copy(Emit *e, const MgGraph *root, MgTensorId t,
                         Name buf, char type[TYPE_LEN]) {
  const MgTensor *x = &root->tensors[t];
  Name view, out, zero, one;
  char view_type[TYPE_LEN], out_type[TYPE_LEN];
  memcpy(view, buf, NAME_LEN);
  snprintf(view_type, TYPE_LEN, "%s", type);
  mg_lower_layout_view(e, root, t, view, view_type);
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, out_type);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.alloc() : %s", out, out_type);
  mg_lower_index(e, 0, zero);
  mg_lower_index(e, 1, one);
  Index idx;
  for (uint32_t d = 0; d < x->rank; d++) {
    Name hi;
    mg_lower_index(e, x->dims[d], hi);
    mg_lower_fresh(e, idx[d]);
    mg_lower_line(e, "scf.for %s = %s to %s step %s {", idx[d], zero, hi,
                  one);
    e->indent++;
  }
  char list[MG_MAX_DIMS * (NAME_LEN + 2)];
  mg_lower_index_list(idx, x->rank, list, sizeof list);
  Name v;
  mg_lower_fresh(e, v);
  mg_lower_line(e, "%s = memref.load %s[%s] : %s", v, view, list, view_type);
  mg_lower_line(e, "memref.store %s, %s[%s] : %s", v, out, list, out_type);
  for (uint32_t d = 0; d < x->rank; d++) {
    e->indent--;
    mg_lower_line(e, "}");
  }
  mg_lower_line(e, "memref.dealloc %s : %s", buf, type);
  snprintf(buf, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", out_type);
}

void mg_lower_host_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  if (!mg_lower_alloc_tables(e, root)) {
    e->error = "out of memory";
    return;
  }
  MgText sig = {0}, results = {0};
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind == MG_OP_INPUT) {
      char tt[TYPE_LEN];
      stored_tensor_type(root, root->ops[i].outputs[0], tt);
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
    if (mg_lower_is_kernel(e->p, i))
      host_launch(e, o, i, tok);
  MgText rets = {0};
  Name host[64];
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    mg_lower_fresh(e, host[k]);
    mg_lower_line(e, "%s = memref.alloc() : %s", host[k], e->type[t]);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                  host[k], e->val[t], e->type[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  // After the last kernel and the copies out: every view is dead by then.
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    if (is_view_of_buffer(root, t))
      continue; // freed with the buffer it views
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.dealloc async [%s] %s : %s", next, tok,
                  e->val[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  mg_lower_line(e, "gpu.wait [%s]", tok);
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    char tt[TYPE_LEN], mt[TYPE_LEN];
    tensor_type(&root->tensors[t], tt);
    snprintf(mt, TYPE_LEN, "%s", e->type[t]);
    if (mg_lower_has_layout(root, t))
      logical_copy(e, root, t, host[k], mt);
    Name r;
    mg_lower_fresh(e, r);
    mg_lower_line(e, "%s = bufferization.to_tensor %s restrict writable : "
                     "%s to %s", r, host[k], mt, tt);
    mg_text_printf(&rets, "%s%s", k ? ", " : "", r);
  }
  mg_lower_line(e, "return %s : %s", rets.data ? rets.data : "",
                results.data ? results.data : "");
  e->indent--;
  mg_lower_line(e, "}");
  mg_text_free(&sig);
  mg_text_free(&results);
  mg_text_free(&rets);
  mg_lower_free_tables(e);
}
