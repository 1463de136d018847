//===- host.c - Host code launching the kernels ---------------------------===//
//
// The kernel graph's function as one chain of asynchronous GPU ops (the
// form upstream's gpu-to-llvm lowers to runtime calls on one stream), one
// launch per kernel op (grid, threads, dynamic shared memory), then a wait.
// Two calling conventions (MgLowerHost):
//  - copy: same name and tensor signature; device buffers for every kernel
//    tensor (a free view's result is a view of its operand's), inputs
//    copied in, outputs copied back, buffers freed.
//  - device: @F(inputs, outputs) -> () on device-resident memrefs; inputs
//    are read where they are, each computed output is written by its
//    kernel straight into the caller's buffer, only intermediates get a
//    gpu.alloc of this call (freed before the wait), outputs that are
//    inputs or views are copied device to device. Each argument comes as
//    any strided view and is checked at entry to be what the kernels
//    read (device_args.c).
// Invariant: every gpu.alloc of a call has its gpu.dealloc after the last
// launch and copy on the same chain, so no view outlives its buffer.
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The tensor type the caller passes for `t`: its stored shape.
static void stored_tensor_type(const MgGraph *g, MgTensorId t,
                               char out[TYPE_LEN]) {
  MgTensor s = mg_graph_stored_tensor(g, t);
  mg_lower_tensor_type(&s, out);
}

// The kernel graph's tensor signature: "%arg<i>: <stored tensor type>" per
// input in op order, and the result types.
static void tensor_signature(const MgGraph *root, MgText *sig,
                             MgText *results) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind == MG_OP_INPUT) {
      char tt[TYPE_LEN];
      stored_tensor_type(root, root->ops[i].outputs[0], tt);
      mg_text_printf(sig, "%s%%arg%u: %s", n++ ? ", " : "", root->ops[i].attr,
                     tt);
    }
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    char tt[TYPE_LEN];
    mg_lower_tensor_type(&root->tensors[root->outputs[k]], tt);
    mg_text_printf(results, "%s%s", k ? ", " : "", tt);
  }
}

// A free view's result (no buffer of its own: a view of its operand's).
static bool is_view_of_buffer(const MgGraph *root, MgTensorId t) {
  return mg_graph_view_is_free(root, &root->ops[root->tensors[t].producer]);
}

// The caller's rows of input t (buffer `h`, as stored: `stored`) into a
// padded device buffer whose strides depend on the padded size: through a
// padded host buffer (a strided memref.copy), since gpu.memcpy copies
// contiguous buffers only (and MLIR 22's lowering of it drops a view's
// offset). Synchronous: the host buffer is freed once it has arrived.
static void strided_copy_in(Emit *e, const MgTensor *stored, MgTensorId t,
                            const char *h, Name tok) {
  char sizes[TYPE_LEN], vtype[TYPE_LEN];
  Name staged, view, next;
  mg_lower_alloc_sizes(e, stored, sizes);
  mg_lower_fresh(e, staged);
  mg_lower_line(e, "%s = memref.alloc(%s) : %s", staged, sizes, e->type[t]);
  mg_lower_caller_rows(e, stored, staged, e->type[t], view, vtype);
  mg_lower_copy_rows(e, stored, h, e->type[t], view, vtype);
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                e->val[t], staged, e->type[t], e->type[t]);
  mg_lower_line(e, "gpu.wait [%s]", next);
  mg_lower_line(e, "memref.dealloc %s : %s", staged, e->type[t]);
  mg_lower_fresh(e, tok);
  mg_lower_line(e, "%s = gpu.wait async", tok);
}

// Device buffers for root tensor t (host=copy), an input copied in; a
// free view views its operand's buffer (made earlier: operands precede
// results); a folded view's tensor has no buffer of its own but the one
// it views (made here when it comes later: a transpose's result that its
// operand's kernel writes through strides); kernels make the strided
// view themselves.
static void host_buffer(Emit *e, const MgGraph *root, MgTensorId t,
                        Name tok) {
  const MgTensor *x = &root->tensors[t];
  MgStridedView v;
  if (e->val[t][0])
    return;
  if (is_view_of_buffer(root, t)) {
    MgTensorId a = root->ops[x->producer].inputs[0];
    Memref m = mg_lower_tensor_memref(e, a);
    mg_lower_reshape_view(e, &root->tensors[a], x, &m);
    mg_lower_bind_memref(e, t, &m);
    return;
  }
  const MgOp *im = mg_graph_folded_im2col(root, t);
  if (im) { // its readers gather from the input (implicit GEMM)
    MgTensorId from = im->inputs[0];
    host_buffer(e, root, from, tok);
    memcpy(e->val[t], e->val[from], NAME_LEN);
    memcpy(e->type[t], e->type[from], TYPE_LEN);
    return;
  }
  if (mg_graph_folded_view(root, t, &v)) {
    host_buffer(e, root, v.base, tok);
    memcpy(e->val[t], e->val[v.base], NAME_LEN); // v.base != t
    memcpy(e->type[t], e->type[v.base], TYPE_LEN);
    return;
  }
  mg_lower_stored_type(root, t, e->type[t]);
  mg_lower_fresh(e, e->val[t]);
  Name next;
  char sizes[TYPE_LEN];
  MgTensor stored = mg_graph_stored_tensor(root, t); // an input's layout
  mg_lower_alloc_sizes(e, &stored, sizes);
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s, %s = gpu.alloc async [%s] (%s) : %s", e->val[t], next,
                tok, sizes, e->type[t]);
  snprintf(tok, NAME_LEN, "%s", next);
  const MgOp *op = &root->ops[x->producer];
  if (op->kind != MG_OP_INPUT)
    return;
  Name h;
  char tt[TYPE_LEN];
  stored_tensor_type(root, t, tt);
  mg_lower_fresh(e, h);
  mg_lower_line(e, "%s = bufferization.to_buffer %%arg%d : %s to %s", h,
                op->attr, tt, e->type[t]);
  Name dst; // the caller's rows of a buffer padded to whole blocks
  char dtype[TYPE_LEN];
  if (mg_lower_rows_strided(e, &stored)) {
    strided_copy_in(e, &stored, t, h, tok);
    return;
  }
  mg_lower_caller_rows(e, &stored, e->val[t], e->type[t], dst, dtype);
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                dst, h, e->type[t], e->type[t]);
  snprintf(tok, NAME_LEN, "%s", next);
}

static void host_buffers(Emit *e, const MgGraph *root, Name tok) {
  for (MgTensorId t = 0; t < root->num_tensors; t++)
    host_buffer(e, root, t, tok);
}

// A tensor with no buffer of its own: it views another's.
static bool has_no_buffer(const MgGraph *root, MgTensorId t) {
  MgStridedView v;
  return is_view_of_buffer(root, t) || mg_graph_folded_view(root, t, &v) ||
         mg_graph_folded_im2col(root, t);
}

static void host_launch(Emit *e, const MgLowerOptions *o, MgOpId i,
                        Name tok) {
  const MgGraph *root = &e->p->graphs[0];
  const MgOp *op = &root->ops[i];
  int64_t grid[3], threads;
  mg_lower_launch(e->p, i, grid, &threads);
  Name g[3], th, one, smem;
  const MgGraph *b =
      op->kind == MG_OP_CUSTOM ? &e->p->graphs[op->attr] : NULL;
  for (int a = 0; a < 3; a++)
    if (b && b->grid_sym[a]) // ceil(size / rows a block) blocks
      mg_lower_grid_extent(e, b, a, g[a]);
    else
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
  unsigned s = mg_lower_loop_sym(e->p, op); // gpu.c's kernel_args
  if (s)
    mg_text_printf(&args, ", %s : index", e->sym[s]);
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
  Name view, out;
  char view_type[TYPE_LEN], out_type[TYPE_LEN];
  memcpy(view, buf, NAME_LEN);
  snprintf(view_type, TYPE_LEN, "%s", type);
  mg_lower_layout_view(e, root, t, view, view_type);
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, out_type);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.alloc() : %s", out, out_type);
  mg_lower_copy_rows(e, x, view, view_type, out, out_type);
  mg_lower_line(e, "memref.dealloc %s : %s", buf, type);
  snprintf(buf, NAME_LEN, "%s", out);
  snprintf(type, TYPE_LEN, "%s", out_type);
}

// host=copy: the kernel graph's own signature and value semantics.
// Appends to `rets` the tensor (type `tt`) that buffer `buf` (type `mt`)
// holds: the function's result k.
static void append_result(Emit *e, const char *buf, const char *mt,
                          const char *tt, uint32_t k, MgText *rets) {
  Name r;
  mg_lower_fresh(e, r);
  mg_lower_line(e, "%s = bufferization.to_tensor %s restrict writable : "
                   "%s to %s", r, buf, mt, tt);
  mg_text_printf(rets, "%s%s", k ? ", " : "", r);
}

static void return_results(Emit *e, const MgText *rets,
                           const MgText *types) {
  mg_lower_line(e, "return %s : %s", rets->data ? rets->data : "",
                types->data ? types->data : "");
}

static void host_copy_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  MgText sig = {0}, results = {0};
  tensor_signature(root, &sig, &results);
  mg_lower_line(e, "func.func @\"%s\"(%s) -> (%s) {", o->name,
                sig.data ? sig.data : "", results.data ? results.data : "");
  e->indent++;
  MgLowerArgErrors errs = {o->name, {0}, 0};
  mg_lower_bind_symbols(e, &errs, true);
  Name tok, next;
  mg_lower_fresh(e, tok);
  mg_lower_line(e, "%s = gpu.wait async", tok);
  host_buffers(e, root, tok);
  for (MgOpId i = 0; i < root->num_ops; i++)
    if (mg_lower_is_kernel(e->p, i))
      host_launch(e, o, i, tok);
  MgText rets = {0};
  Name host[64], staged[64];
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    char sizes[TYPE_LEN];
    Name src;
    mg_lower_caller_sizes(e, &root->tensors[t], sizes);
    char stype[TYPE_LEN];
    mg_lower_fresh(e, host[k]);
    mg_lower_line(e, "%s = memref.alloc(%s) : %s", host[k], sizes,
                  e->type[t]);
    staged[k][0] = '\0';
    if (mg_lower_rows_strided(e, &root->tensors[t])) {
      // Whole, into a padded host buffer; the caller's rows are copied out
      // of it after the wait (strided_copy_in's reason).
      mg_lower_alloc_sizes(e, &root->tensors[t], sizes);
      mg_lower_fresh(e, staged[k]);
      mg_lower_line(e, "%s = memref.alloc(%s) : %s", staged[k], sizes,
                    e->type[t]);
      snprintf(src, NAME_LEN, "%s", e->val[t]);
    } else {
      mg_lower_caller_rows(e, &root->tensors[t], e->val[t], e->type[t], src,
                           stype);
    }
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %s, %s : %s, %s", next, tok,
                  staged[k][0] ? staged[k] : host[k], src, e->type[t],
                  e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  // After the last kernel and the copies out: every view is dead by then.
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    if (has_no_buffer(root, t))
      continue; // freed with the buffer it views
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.dealloc async [%s] %s : %s", next, tok,
                  e->val[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  mg_lower_line(e, "gpu.wait [%s]", tok);
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    if (!staged[k][0])
      continue;
    Name view;
    char vtype[TYPE_LEN];
    mg_lower_caller_rows(e, &root->tensors[t], staged[k], e->type[t], view,
                         vtype);
    mg_lower_copy_rows(e, &root->tensors[t], view, vtype, host[k],
                       e->type[t]);
    mg_lower_line(e, "memref.dealloc %s : %s", staged[k], e->type[t]);
  }
  for (uint32_t k = 0; k < root->num_outputs && k < 64; k++) {
    MgTensorId t = root->outputs[k];
    char tt[TYPE_LEN], mt[TYPE_LEN];
    mg_lower_tensor_type(&root->tensors[t], tt);
    snprintf(mt, TYPE_LEN, "%s", e->type[t]);
    if (mg_lower_has_layout(root, t))
      logical_copy(e, root, t, host[k], mt);
    append_result(e, host[k], mt, tt, k, &rets);
  }
  return_results(e, &rets, &results);
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_arg_errors_finish(e, &errs);
  mg_text_free(&sig);
  mg_text_free(&results);
  mg_text_free(&rets);
}

//===--- host=device ------------------------------------------------------===//

// The memref type of output k's out-param: the logical shape, identity
// layout (what the caller's tensor bufferizes to).
static void out_param_type(const MgGraph *root, uint32_t k,
                           char out[TYPE_LEN]) {
  const MgTensor *x = &root->tensors[root->outputs[k]];
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, out);
}

// The tensor whose buffer `t` is: t, or what the free views it is made by
// view.
static MgTensorId buffer_of(const MgGraph *root, MgTensorId t) {
  while (is_view_of_buffer(root, t))
    t = root->ops[root->tensors[t].producer].inputs[0];
  return t;
}

// out[t] = k when output k's buffer is where t is computed: t is made by a
// kernel and output k is t, or a free view of t (a rank-3 wrapper's
// reshape: t's buffer is then a view of the out-param); the first such k
// (another output of the same buffer gets a copy); -1 otherwise.
// t's buffer is written by a kernel: t is made by one, or is a
// transpose that its operand's kernel writes through strides.
static bool written_by_kernel(const MgProgram *p, MgTensorId t) {
  const MgGraph *root = &p->graphs[0];
  MgOpId made = root->tensors[t].producer;
  MgStridedView v;
  return mg_lower_is_kernel(p, made) ||
         (mg_graph_view_folds(root, &root->ops[made]) &&
          !mg_graph_folded_view(root, t, &v));
}

static void bind_out_params(const MgProgram *p, int64_t *out) {
  const MgGraph *root = &p->graphs[0];
  for (MgTensorId t = 0; t < root->num_tensors; t++)
    out[t] = -1;
  // Outputs that are the computed tensor itself first: they need no view.
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t k = 0; k < root->num_outputs; k++) {
      MgTensorId t = buffer_of(root, root->outputs[k]);
      if ((t == root->outputs[k]) == (pass == 0) && out[t] < 0 &&
          written_by_kernel(p, t))
        out[t] = k;
    }
}

// Buffers of every root tensor: an input is the caller's argument, a
// computed output the caller's out-param (or a view of it), a free view a
// view of its operand's buffer, anything else an intermediate of this call
// (owned[t]).
static void device_buffer(Emit *e, const MgGraph *root, const int64_t *out,
                          bool *owned, MgTensorId t, Name tok) {
  const MgTensor *x = &root->tensors[t];
  const MgOp *op = &root->ops[x->producer];
  MgStridedView v;
  if (e->val[t][0])
    return; // bound already (host_buffer says when)
  if (is_view_of_buffer(root, t)) {
    MgTensorId a = op->inputs[0];
    Memref m = mg_lower_tensor_memref(e, a);
    mg_lower_reshape_view(e, &root->tensors[a], x, &m);
    mg_lower_bind_memref(e, t, &m);
    return;
  }
  const MgOp *im = mg_graph_folded_im2col(root, t);
  if (im) { // its readers gather from the input (implicit GEMM)
    device_buffer(e, root, out, owned, im->inputs[0], tok);
    memcpy(e->val[t], e->val[im->inputs[0]], NAME_LEN);
    memcpy(e->type[t], e->type[im->inputs[0]], TYPE_LEN);
    return;
  }
  if (mg_graph_folded_view(root, t, &v)) {
    device_buffer(e, root, out, owned, v.base, tok);
    memcpy(e->val[t], e->val[v.base], NAME_LEN); // v.base != t
    memcpy(e->type[t], e->type[v.base], TYPE_LEN);
    return;
  }
  mg_lower_stored_type(root, t, e->type[t]);
  if (op->kind == MG_OP_INPUT) {
    snprintf(e->val[t], NAME_LEN, "%%arg%u", op->attr);
    return;
  }
  if (out[t] >= 0) {
    Memref m;
    out_param_type(root, (uint32_t)out[t], m.type);
    snprintf(m.val, NAME_LEN, "%%out%lld", (long long)out[t]);
    mg_lower_reshape_view(e, &root->tensors[root->outputs[out[t]]], x, &m);
    mg_lower_bind_memref(e, t, &m);
    return;
  }
  Name next;
  mg_lower_fresh(e, e->val[t]);
  mg_lower_fresh(e, next);
  mg_lower_line(e, "%s, %s = gpu.alloc async [%s] () : %s", e->val[t], next,
                tok, e->type[t]);
  snprintf(tok, NAME_LEN, "%s", next);
  owned[t] = true;
}

static void device_buffers(Emit *e, const MgGraph *root, const int64_t *out,
                           bool *owned, Name tok) {
  for (MgTensorId t = 0; t < root->num_tensors; t++)
    owned[t] = false;
  for (MgTensorId t = 0; t < root->num_tensors; t++)
    device_buffer(e, root, out, owned, t, tok);
}

// The shape and element type of the buffer the caller passes for input
// t (mg_lower_stored_type's memref type).
static void stored_tensor(const MgGraph *root, MgTensorId t, MgTensor *s) {
  MgStridedView v;
  *s = root->tensors[t];
  if (mg_graph_folded_view(root, t, &v)) {
    *s = root->tensors[v.base];
    s->dtype = root->tensors[t].dtype;
    return;
  }
  *s = mg_graph_stored_tensor(root, t);
}

// @F's entry: every argument %given<n> checked against what the kernels
// read (device_args.c) and cast to the identity type the body uses:
// %arg<i> for input i, %out<k> for output k.
static void check_args(Emit *e, MgLowerArgErrors *errs) {
  const MgGraph *root = &e->p->graphs[0];
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++) {
    if (root->ops[i].kind != MG_OP_INPUT)
      continue;
    MgTensor s;
    Name given, val;
    stored_tensor(root, root->ops[i].outputs[0], &s);
    snprintf(given, NAME_LEN, "%%given%u", n);
    snprintf(val, NAME_LEN, "%%arg%u", root->ops[i].attr);
    mg_lower_check_arg(e, errs, n++, given, &s, val);
  }
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    Name given, val;
    snprintf(given, NAME_LEN, "%%given%u", n);
    snprintf(val, NAME_LEN, "%%out%u", k);
    mg_lower_check_arg(e, errs, n++, given, &root->tensors[root->outputs[k]],
                       val);
  }
}

// host=device: @F(input memrefs, output memrefs) -> (), all on the device.
// Destination passing, as upstream's buffer-results-to-out-params, XLA's
// custom calls and PyTorch's out= variants do: the caller (its allocator,
// its buffer reuse) owns every buffer, nothing crosses the boundary that
// the callee would have to free (docs/lower.md, "Host code").
static void host_device_program(Emit *e, const MgLowerOptions *o,
                                int64_t *out, bool *owned) {
  const MgGraph *root = &e->p->graphs[0];
  for (uint32_t k = 0; k < root->num_outputs; k++)
    if (mg_lower_has_layout(root, root->outputs[k])) {
      // Copy mode transposes it on the host; here it would need a kernel.
      e->error = "an output that is an input stored transposed with "
                 "host=device (host=copy returns it)";
      return;
    }
  MgText sig = {0};
  uint32_t n = 0;
  for (uint32_t i = 0; i < root->num_ops; i++)
    if (root->ops[i].kind == MG_OP_INPUT) {
      MgTensor s;
      char mt[TYPE_LEN], ct[TYPE_LEN];
      stored_tensor(root, root->ops[i].outputs[0], &s);
      mg_lower_memref_type(&s, (MgDType)s.dtype, NULL, mt);
      mg_lower_caller_type(mt, s.rank, ct);
      mg_text_printf(&sig, "%s%%given%u: %s", n ? ", " : "", n, ct);
      n++;
    }
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    char mt[TYPE_LEN], ct[TYPE_LEN];
    out_param_type(root, k, mt);
    mg_lower_caller_type(mt, root->tensors[root->outputs[k]].rank, ct);
    mg_text_printf(&sig, "%s%%given%u: %s", n ? ", " : "", n, ct);
    n++;
  }
  // The C interface (_mlir_ciface_F, memref descriptors by pointer) is how
  // a runtime written in C or C++ calls it.
  mg_lower_line(e, "func.func @\"%s\"(%s) attributes "
                   "{llvm.emit_c_interface} {", o->name,
                sig.data ? sig.data : "");
  mg_text_free(&sig);
  e->indent++;
  MgLowerArgErrors errs = {o->name, {0}, 0};
  check_args(e, &errs);
  Name tok, next;
  mg_lower_fresh(e, tok);
  mg_lower_line(e, "%s = gpu.wait async", tok);
  bind_out_params(e->p, out);
  device_buffers(e, root, out, owned, tok);
  for (MgOpId i = 0; i < root->num_ops; i++)
    if (mg_lower_is_kernel(e->p, i))
      host_launch(e, o, i, tok);
  // Outputs no kernel wrote in place: inputs, views, a tensor returned
  // twice (device to device: cuMemcpy follows unified addresses).
  for (uint32_t k = 0; k < root->num_outputs; k++) {
    MgTensorId t = root->outputs[k];
    if (out[buffer_of(root, t)] == (int64_t)k)
      continue; // written in place
    char mt[TYPE_LEN];
    out_param_type(root, k, mt);
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.memcpy async [%s] %%out%u, %s : %s, %s", next,
                  tok, k, e->val[t], mt, e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  for (MgTensorId t = 0; t < root->num_tensors; t++) {
    if (!owned[t])
      continue;
    mg_lower_fresh(e, next);
    mg_lower_line(e, "%s = gpu.dealloc async [%s] %s : %s", next, tok,
                  e->val[t], e->type[t]);
    snprintf(tok, NAME_LEN, "%s", next);
  }
  // Synchronous: upstream's gpu-to-llvm makes its own stream per chain
  // and cannot take the caller's, so the results are ready on return.
  mg_lower_line(e, "gpu.wait [%s]", tok);
  mg_lower_line(e, "return");
  e->indent--;
  mg_lower_line(e, "}");
  mg_lower_arg_errors_finish(e, &errs);
}

// The operands of a call being built and their types.
typedef struct ArgList {
  MgText vals, types;
  uint32_t n;
} ArgList;

// Buffer `b` (identity type `mt`) as @F's next argument: cast to the
// caller's type @F takes.
static void pass_arg(Emit *e, const char *b, const char *mt, uint32_t rank,
                     ArgList *a) {
  char ct[TYPE_LEN];
  Name c;
  mg_lower_caller_type(mt, rank, ct);
  mg_lower_fresh(e, c);
  mg_lower_line(e, "%s = memref.cast %s : %s to %s", c, b, mt, ct);
  mg_text_printf(&a->vals, "%s%s", a->n ? ", " : "", c);
  mg_text_printf(&a->types, "%s%s", a->n ? ", " : "", ct);
  a->n++;
}

// host=device, callers inside the module (mirage-superopt's lifted
// subprograms are called from the original function with tensors): a
// private function with the tensor signature passing its operands'
// buffers and fresh result buffers to @F. It moves no data, so the
// caller's tensors must bufferize to device-accessible memory.
static void device_adapter(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  MgText sig = {0}, results = {0}, rets = {0};
  ArgList args = {{0}, {0}, 0};
  tensor_signature(root, &sig, &results);
  mg_lower_line(e, "func.func private @\"%s\"(%s) -> (%s) {",
                o->tensor_adapter, sig.data ? sig.data : "",
                results.data ? results.data : "");
  e->indent++;
  for (uint32_t i = 0; i < root->num_ops; i++) {
    if (root->ops[i].kind != MG_OP_INPUT)
      continue;
    char tt[TYPE_LEN], mt[TYPE_LEN];
    Name b;
    stored_tensor_type(root, root->ops[i].outputs[0], tt);
    mg_lower_stored_type(root, root->ops[i].outputs[0], mt);
    mg_lower_fresh(e, b);
    // read_only: @F never writes its inputs, so bufferization need not
    // copy the caller's tensor.
    mg_lower_line(e, "%s = bufferization.to_buffer %%arg%u read_only : %s to "
                     "%s", b, root->ops[i].attr, tt, mt);
    MgTensor s;
    stored_tensor(root, root->ops[i].outputs[0], &s);
    pass_arg(e, b, mt, s.rank, &args);
  }
  Name *outs = calloc(root->num_outputs ? root->num_outputs : 1, sizeof *outs);
  if (!outs) {
    e->error = "out of memory";
  } else {
    for (uint32_t k = 0; k < root->num_outputs; k++) {
      char mt[TYPE_LEN];
      out_param_type(root, k, mt);
      mg_lower_fresh(e, outs[k]);
      // 16 bytes: the kernels' vector accesses assume it.
      mg_lower_line(e, "%s = memref.alloc() {alignment = 16 : i64} : %s",
                    outs[k], mt);
      pass_arg(e, outs[k], mt, root->tensors[root->outputs[k]].rank, &args);
    }
    mg_lower_line(e, "func.call @\"%s\"(%s) : (%s) -> ()", o->name,
                  args.vals.data ? args.vals.data : "",
                  args.types.data ? args.types.data : "");
    for (uint32_t k = 0; k < root->num_outputs; k++) {
      char mt[TYPE_LEN], tt[TYPE_LEN];
      out_param_type(root, k, mt);
      mg_lower_tensor_type(&root->tensors[root->outputs[k]], tt);
      append_result(e, outs[k], mt, tt, k, &rets);
    }
    return_results(e, &rets, &results);
  }
  free(outs);
  e->indent--;
  mg_lower_line(e, "}");
  MgText *all[] = {&sig, &results, &args.vals, &args.types, &rets};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    mg_text_free(all[i]);
}

void mg_lower_host_program(Emit *e, const MgLowerOptions *o) {
  const MgGraph *root = &e->p->graphs[0];
  if (!mg_lower_alloc_tables(e, root)) {
    e->error = "out of memory";
    return;
  }
  if (o->host == MG_LOWER_HOST_DEVICE) {
    size_t nt = root->num_tensors ? root->num_tensors : 1;
    int64_t *out = malloc(nt * sizeof *out);
    bool *owned = malloc(nt * sizeof *owned);
    if (!out || !owned)
      e->error = "out of memory";
    else
      host_device_program(e, o, out, owned);
    free(out);
    free(owned);
    if (!e->error && o->tensor_adapter)
      device_adapter(e, o);
  } else {
    host_copy_program(e, o);
  }
  mg_lower_free_tables(e);
}
