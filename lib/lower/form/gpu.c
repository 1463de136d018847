//===- gpu.c - A kernel op as a gpu.func ----------------------------------===//
//
// A graph-defined kernel's function takes the kernel tensors it reads,
// then those it writes, as memrefs; the block index comes from
// gpu.block_id, the elements of each op are split over block_threads
// threads; tiles are workgroup buffers, or views of the dynamic shared
// memory above the static limit (mg_lower_smem_bytes gives the size to
// launch with). A predefined op is a kernel over whole tensors striding
// over every thread of the grid, and so is a view op's copy (views.c; a
// free view has no kernel).
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Kernel tensor k of op: its operands, then its results.
static MgTensorId kernel_tensor(const MgOp *op, uint32_t k) {
  return k < op->num_inputs ? op->inputs[k] : op->outputs[k - op->num_inputs];
}

// Names each kernel tensor %argN and prints the parameter list into args.
static void kernel_args(const MgProgram *p, const MgOp *op, Name *kval,
                        char (*ktype)[TYPE_LEN], MgText *args) {
  const MgGraph *root = &p->graphs[0];
  uint32_t n = 0;
  for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; k++) {
    MgTensorId t = kernel_tensor(op, k);
    snprintf(kval[t], NAME_LEN, "%%arg%u", n++);
    mg_lower_stored_type(root, t, ktype[t]);
    // Kernel tensors are whole gpu.alloc buffers (256-byte aligned): saying
    // so makes the pointer parameters .align 16, so LLVM keeps 128-bit
    // vector accesses whole.
    mg_text_printf(args, "%s%s: %s {llvm.align = 16 : i64}", k ? ", " : "",
                   kval[t], ktype[t]);
  }
  // A for-loop over a symbol needs its size, which the buffers (padded to
  // whole iterations) do not say: the launch passes it (host.c).
  unsigned s = mg_lower_loop_sym(p, op);
  if (s)
    mg_text_printf(args, ", %%sym%u: index", s);
}

// Static workgroup attributions for a block graph's tiles and auxiliary
// buffers, used when they fit the static limit; values a fused chain
// keeps in registers get none.
static void static_tile_attributions(const MgGraph *b, const bool *reg,
                                     MgText *wg) {
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!mg_lower_is_tile(b, t) || reg[t])
      continue;
    char type[TYPE_LEN];
    mg_lower_tile_type(b, t, MG_LOWER_WORKGROUP, type);
    // 16-byte aligned, as the vector copies into tiles assume.
    mg_text_printf(wg, "%s%%wg%u : %s {llvm.align = 16 : i64}",
                   wg->len ? ", " : "", t, type);
  }
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!mg_lower_aux_bytes(b, t))
      continue;
    char type[TYPE_LEN];
    mg_lower_aux_type(b, t, MG_LOWER_WORKGROUP, type);
    mg_text_printf(wg, "%s%%aux%u : %s {llvm.align = 16 : i64}",
                   wg->len ? ", " : "", t, type);
  }
}

// The same fact as the parameters' llvm.align for the accesses inside
// (vector.load of a memref whose alignment is unknown is split into element
// loads); renames each kernel tensor to its aligned (and laid out) view.
static void assume_kernel_alignment(Emit *e, const MgGraph *root,
                                    const MgOp *op, Name *kval,
                                    char (*ktype)[TYPE_LEN]) {
  for (uint32_t k = 0; k < op->num_inputs + op->num_outputs; k++) {
    MgTensorId t = kernel_tensor(op, k);
    Name aligned;
    mg_lower_fresh(e, aligned);
    mg_lower_line(e, "%s = memref.assume_alignment %s, 16 : %s", aligned,
                  kval[t], ktype[t]);
    snprintf(kval[t], NAME_LEN, "%s", aligned);
    mg_lower_layout_view(e, root, t, kval[t], ktype[t]);
  }
}

// Sets e->lo and e->step so that every thread of the grid strides over
// the elements: lo = block_id * block_dim + thread_id, step = grid_dim *
// block_dim.
static void grid_stride(Emit *e) {
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
  e->step_value = 0; // the grid's size, known only at run time here
}

// A predefined op's body: whole tensors, every thread of the grid striding
// over the elements (or a split-K GEMV).
static void predefined_body(Emit *e, const MgOp *op, Name *kval,
                            char (*ktype)[TYPE_LEN], bool gemv) {
  const MgGraph *root = &e->p->graphs[0];
  if (mg_lower_alloc_tables(e, root)) {
    for (uint32_t t = 0; t < root->num_tensors; t++) {
      snprintf(e->val[t], NAME_LEN, "%s", kval[t]);
      snprintf(e->type[t], TYPE_LEN, "%s", ktype[t]);
    }
  } else {
    e->error = "out of memory";
  }
  if (!e->error && gemv) {
    // A split-K GEMV (gemv.c), or a block graph of that shape (fused.c).
    mg_lower_gemv(e, op, "%part", "%ring", "%stat");
  } else if (!e->error) {
    grid_stride(e);
    e->barrier = false; // no tile is shared
    mg_lower_op(e, op);
  }
  mg_lower_free_tables(e);
}

// Names a buffer of the dynamic shared memory `smem` at *offset, which it
// then moves past `bytes`.
static void dynamic_view(Emit *e, const char *smem, int64_t *offset,
                         int64_t bytes, Name out, const char *type) {
  Name off;
  mg_lower_index(e, *offset, off);
  mg_lower_fresh(e, out);
  mg_lower_line(e, "%s = memref.view %s[%s][] : memref<?xi8, %s> to %s", out,
                smem, off, MG_LOWER_WORKGROUP, type);
  *offset += bytes;
}

// Binds each tile and auxiliary buffer of block graph b to its workgroup
// attribution, or (dynamic) to a view of the dynamic shared memory laid
// out in tensor order, tiles first.
static void bind_shared_buffers(Emit *e, const MgGraph *b, const bool *reg,
                                bool dynamic) {
  Name smem;
  if (dynamic) {
    mg_lower_fresh(e, smem);
    mg_lower_line(e, "%s = gpu.dynamic_shared_memory : memref<?xi8, %s>",
                  smem, MG_LOWER_WORKGROUP);
  }
  int64_t offset = 0;
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    if (!mg_lower_is_tile(b, t) || reg[t])
      continue;
    mg_lower_tile_type(b, t, MG_LOWER_WORKGROUP, e->type[t]);
    snprintf(e->stage_type[t], TYPE_LEN, "%s", e->type[t]);
    if (!dynamic) {
      snprintf(e->val[t], NAME_LEN, "%%wg%u", t);
      snprintf(e->stage_buf[t], NAME_LEN, "%s", e->val[t]);
      continue;
    }
    dynamic_view(e, smem, &offset, mg_lower_tile_bytes_of(b, t), e->val[t],
                 e->type[t]);
    snprintf(e->stage_buf[t], NAME_LEN, "%s", e->val[t]);
  }
  for (MgTensorId t = 0; t < b->num_tensors; t++) {
    int64_t aux = mg_lower_aux_bytes(b, t);
    if (!aux)
      continue;
    mg_lower_aux_type(b, t, MG_LOWER_WORKGROUP, e->aux_type[t]);
    if (!dynamic) {
      snprintf(e->aux_buf[t], NAME_LEN, "%%aux%u", t);
      continue;
    }
    dynamic_view(e, smem, &offset, aux, e->aux_buf[t], e->aux_type[t]);
  }
}

// How a kernel runs its block graph: the tensors kept in registers, the
// tiles in dynamic shared memory or not, the threads reductions cooperate
// over (0: none).
typedef struct BlockLayout {
  const bool *reg;
  bool dynamic;
  int64_t coop;
} BlockLayout;

// A graph-defined op's body: the block graph run by one thread block per
// grid point, its block_threads threads splitting each op's elements.
static void custom_body(Emit *e, const MgOp *op, Name *kval,
                        char (*ktype)[TYPE_LEN], BlockLayout l) {
  const MgGraph *b = &e->p->graphs[op->attr];
  if (!mg_lower_alloc_tables(e, b)) {
    e->error = "out of memory";
  } else {
    mg_lower_bind_dram(e, op, kval, ktype);
    static const char axes[3] = {'x', 'y', 'z'};
    for (int a = 0; a < 3; a++) {
      mg_lower_fresh(e, e->block[a]);
      mg_lower_line(e, "%s = gpu.block_id %c", e->block[a], axes[a]);
    }
    mg_lower_fresh(e, e->lo);
    mg_lower_line(e, "%s = gpu.thread_id x", e->lo);
    mg_lower_index(e, b->block_threads, e->step);
    e->step_value = b->block_threads;
    e->coop_threads = l.coop;
    snprintf(e->tid, NAME_LEN, "%s", e->lo);
    snprintf(e->scratch, NAME_LEN, "%%red");
    bind_shared_buffers(e, b, l.reg, l.dynamic);
    mg_lower_block_body(e, l.reg);
  }
  mg_lower_free_tables(e);
}

void mg_lower_gpu_kernel(Emit *e, const char *name, MgOpId opi) {
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
  MgText args = {0};
  kernel_args(e->p, op, kval, ktype, &args);
  // Tiles: static workgroup attributions when they fit the static limit,
  // else views of the dynamic shared memory the launch sizes.
  bool *reg = NULL;
  char gemv_type[TYPE_LEN];
  bool gemv = mg_lower_gemv_smem(e->p, opi, gemv_type, sizeof gemv_type) > 0;
  bool blocks = op->kind == MG_OP_CUSTOM && !gemv; // else fused.c's form
  if (blocks) {
    const MgGraph *b = &e->p->graphs[op->attr];
    reg = calloc(b->num_tensors + 1, sizeof *reg);
    if (!reg || !mg_lower_register_values(b, reg)) {
      e->error = "out of memory";
      free(reg);
      free(kval);
      free(ktype);
      mg_text_free(&args);
      return;
    }
  }
  bool dynamic = mg_lower_smem_bytes(e->p, opi) > 0;
  MgText wg = {0};
  if (gemv)
    mg_text_printf(&wg, "%%part : %s {llvm.align = 16 : i64}", gemv_type);
  int64_t stages;
  if (gemv && mg_lower_gemv_ring(e->p, opi, &stages, gemv_type,
                                 sizeof gemv_type) > 0)
    mg_text_printf(&wg, ", %%ring : %s {llvm.align = 16 : i64}", gemv_type);
  if (gemv && mg_lower_gemv_stats(e->p, opi, gemv_type, sizeof gemv_type) > 0)
    mg_text_printf(&wg, ", %%stat : %s {llvm.align = 16 : i64}", gemv_type);
  if (blocks && !dynamic)
    static_tile_attributions(&e->p->graphs[op->attr], reg, &wg);
  // One f32 per warp for reductions that span several warps (ops.c).
  int64_t coop = blocks
                     ? mg_lower_coop_threads(&e->p->graphs[op->attr]) : 0;
  if (coop)
    mg_text_printf(&wg, "%s%%red : memref<%lldxf32, %s> {llvm.align = 16 : "
                   "i64}", wg.len ? ", " : "", (long long)(coop / 32),
                   MG_LOWER_WORKGROUP);
  // The launch is fixed (decide/launch.c): telling the kernel lets LLVM bound the
  // thread and block ids, and the GPU dialect check launches against it.
  // A symbol's axis has the size of the call: no grid size is known then.
  int64_t grid[3], threads;
  mg_lower_launch(e->p, opi, grid, &threads);
  const MgGraph *bg = op->kind == MG_OP_CUSTOM ? &e->p->graphs[op->attr] : NULL;
  bool sized = !bg || !(bg->grid_sym[0] || bg->grid_sym[1] || bg->grid_sym[2]);
  char known_grid[96] = "";
  if (sized)
    snprintf(known_grid, sizeof known_grid,
             ", known_grid_size = array<i32: %lld, %lld, %lld>",
             (long long)grid[0], (long long)grid[1], (long long)grid[2]);
  mg_lower_line(e, "gpu.func @\"%s_k%u\"(%s)%s%s%s kernel attributes "
                   "{known_block_size = array<i32: %lld, 1, 1>%s} {",
                name, opi, args.data ? args.data : "",
                wg.len ? " workgroup(" : "", wg.len ? wg.data : "",
                wg.len ? ")" : "", (long long)threads, known_grid);
  mg_text_free(&args);
  mg_text_free(&wg);
  e->indent++;
  e->barrier = true;
  unsigned loop_sym = mg_lower_loop_sym(e->p, op);
  Name outer_sym = "";
  if (loop_sym) { // the kernel's argument (kernel_args)
    memcpy(outer_sym, e->sym[loop_sym], NAME_LEN);
    snprintf(e->sym[loop_sym], NAME_LEN, "%%sym%u", loop_sym);
  }
  assume_kernel_alignment(e, root, op, kval, ktype);
  if (!blocks)
    predefined_body(e, op, kval, ktype, gemv);
  else
    custom_body(e, op, kval, ktype, (BlockLayout){reg, dynamic, coop});
  e->coop_threads = 0;
  if (loop_sym)
    memcpy(e->sym[loop_sym], outer_sym, NAME_LEN);
  mg_lower_line(e, "gpu.return");
  e->indent--;
  mg_lower_line(e, "}");
  free(reg);
  free(kval);
  free(ktype);
}
