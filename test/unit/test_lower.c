//===- test_lower.c - Unit tests for lib/lower (the MLIR text) -----------===//
//
// The text is parsed and run by the lit tests (test/lower); here: what the
// emitter promises without MLIR: kernels per op, barriers, the static /
// dynamic shared-memory split, launch sizes, symbol quoting, errors.
//
//===----------------------------------------------------------------------===//
#include "mirage/lower.h"
#include "mirage/samples.h"
#include "test.h"

#include <stdio.h>
#include <string.h>

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what))
    n++;
  return n;
}

// The fused RMSNorm sample (grid 4, F 4): one kernel, a GEMV with a row
// statistic (lib/lower/decide/fused_plan.c: static partial sums, ring, statistics),
// its launch (a block per 24 columns: 3 vectors, 4 column groups, 128
// threads) in the host.
static void test_lower_gpu_and_host(void) {
  MgProgram *p = mg_sample_rmsnorm_matmul_fused(2, 64, 96, 4, 4);
  MgText t = {0};
  MgDiag d;
  MgLowerOptions gpu = {MG_LOWER_GPU, "rms_gpu", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions host = {MG_LOWER_HOST, "rms", "rms_gpu", false,
                         MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &gpu, &t, &d), MG_STATUS_OK);
  CHECK(t.data && strstr(t.data, "gpu.module @\"rms_gpu\" {"));
  CHECK_EQ_INT(count(t.data, " kernel attributes {"), 1);
  // The launch the host uses, known to the kernel.
  CHECK(strstr(t.data, "known_block_size = array<i32: 128, 1, 1>, "
                       "known_grid_size = array<i32: 4, 1, 1>") != NULL);
  CHECK(strstr(t.data, ") workgroup(") != NULL);
  CHECK_EQ_INT(count(t.data, "gpu.dynamic_shared_memory"), 0);
  // One barrier: the warps' partial sums and the slices' statistics meet
  // in shared memory (the ring needs none: a thread reads what it copied).
  CHECK_EQ_INT(count(t.data, "gpu.barrier"), 1);
  CHECK_EQ_INT(count(t.data, "nvvm.cp.async.wait.group 3"), 1);
  CHECK_EQ_INT(count(t.data, "math.sqrt"), 1);
  size_t gpu_len = t.len;
  CHECK_EQ_INT(mg_lower_emit(p, &host, &t, &d), MG_STATUS_OK);
  const char *h = t.data + gpu_len;
  CHECK(strstr(h, "func.func @\"rms\"(%arg0: tensor<2x64xf16>, %arg1: "
                  "tensor<64x96xf16>) -> (tensor<2x96xf16>)") != NULL);
  CHECK_EQ_INT(count(h, "gpu.launch_func async"), 1);
  CHECK(strstr(h, "@\"rms_gpu\"::@\"rms_gpu_k2\"") != NULL);
  CHECK_EQ_INT(count(h, "gpu.alloc async"), 3);
  CHECK_EQ_INT(count(h, "gpu.dealloc async"), 3);
  CHECK_EQ_INT(count(h, "gpu.memcpy async"), 3); // 2 in, 1 out
  CHECK(strstr(h, "arith.constant 0 : i32") != NULL); // no dynamic smem
  mg_text_free(&t);
  mg_program_destroy(p);
}

// host=device: the same launch on the caller's device buffers (inputs,
// then the output), nothing allocated or copied; the tensor adapter when
// asked for; an unknown convention and a bad adapter symbol are errors.
static void test_lower_host_device(void) {
  MgProgram *p = mg_sample_rmsnorm_matmul_fused(2, 64, 96, 4, 4);
  MgText t = {0};
  MgDiag d;
  MgLowerOptions host = {MG_LOWER_HOST, "rms", "rms_gpu", false,
                         MG_LOWER_HOST_DEVICE, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &host, &t, &d), MG_STATUS_OK);
  // Any strided view in; checked (offset, strides, alignment: 3 per
  // argument, each dim over 1 element) and cast to the kernels' types.
  CHECK(strstr(t.data, "func.func @\"rms\"(%given0: memref<2x64xf16, "
                       "strided<[?, ?], offset: ?>>, %given1: "
                       "memref<64x96xf16, strided<[?, ?], offset: ?>>, "
                       "%given2: memref<2x96xf16, "
                       "strided<[?, ?], offset: ?>>) attributes "
                       "{llvm.emit_c_interface} {") != NULL);
  CHECK(strstr(t.data, "%arg1 = memref.reinterpret_cast %given1 to offset: "
                       "[0], sizes: [64, 96], strides: [96, 1] : "
                       "memref<64x96xf16, strided<[?, ?], offset: ?>> to "
                       "memref<64x96xf16>"));
  CHECK(strstr(t.data, "need strides [96, 1]"));
  CHECK_EQ_INT(count(t.data, "func.call @abort()"), 9);
  CHECK_EQ_INT(count(t.data, "llvm.mlir.global private constant "
                             "@\"rms.arg_error"), 9);
  CHECK(strstr(t.data, "args(%arg0 : memref<2x64xf16>, %arg1 : "
                       "memref<64x96xf16>, %out0 : memref<2x96xf16>)") != NULL);
  CHECK_EQ_INT(count(t.data, "gpu.launch_func async"), 1);
  CHECK_EQ_INT(count(t.data, "gpu.alloc"), 0);
  CHECK_EQ_INT(count(t.data, "gpu.memcpy"), 0);
  CHECK_EQ_INT(count(t.data, "bufferization."), 0);
  CHECK_EQ_INT(count(t.data, "func.func"), 3); // @rms, write, abort
  mg_text_free(&t);
  host.tensor_adapter = "rms_tensor";
  CHECK_EQ_INT(mg_lower_emit(p, &host, &t, &d), MG_STATUS_OK);
  CHECK(strstr(t.data, "func.func private @\"rms_tensor\"(%arg0: "
                       "tensor<2x64xf16>, %arg1: tensor<64x96xf16>) -> "
                       "(tensor<2x96xf16>) {") != NULL);
  CHECK_EQ_INT(count(t.data, "read_only"), 2);
  CHECK_EQ_INT(count(t.data, "func.call @\"rms\"("), 1);
  CHECK_EQ_INT(count(t.data, "memref.cast"), 3); // to call @rms
  mg_text_free(&t);
  host.tensor_adapter = "a\"b";
  CHECK_EQ_INT(mg_lower_emit(p, &host, &t, &d), MG_STATUS_INVALID);
  host.tensor_adapter = NULL;
  host.host = MG_LOWER_HOST_COUNT;
  CHECK_EQ_INT(mg_lower_emit(p, &host, &t, &d), MG_STATUS_INVALID);
  mg_text_free(&t);
  mg_program_destroy(p);
}

// Shared memory of the fused RMSNorm f16 (grid 4, F 4), lowered as a GEMV
// with a row statistic (lib/lower/decide/fused_plan.c): the 4 warps' partial sums
// 4x2x32 f32 (1024), the ring of 4 stages x 2 rows (K = 64: 2 per slice)
// x 128 threads x 16 B (16384), the sums of squares 1x32x2 f32 (256):
// 17664, all static.
static void test_lower_smem(void) {
  MgProgram *p = mg_sample_rmsnorm_matmul_fused(2, 64, 96, 4, 4);
  CHECK_EQ_INT(mg_lower_tile_bytes(p, 2), 17664);
  CHECK_EQ_INT(mg_lower_smem_bytes(p, 2), 0); // static
  CHECK_EQ_INT(mg_lower_tile_bytes(p, 0), 0); // an input
  mg_program_destroy(p);
  // 8 rows x 4096 f16 per block: tiles over 48 KiB are dynamic.
  MgProgram *q = mg_sample_rmsnorm_matmul_fused(8, 8192, 256, 2, 1);
  int64_t bytes = mg_lower_tile_bytes(q, 2);
  CHECK(bytes > MG_LOWER_STATIC_SMEM);
  CHECK_EQ_INT(mg_lower_smem_bytes(q, 2), bytes);
  MgText t = {0};
  MgDiag d;
  MgLowerOptions gpu = {MG_LOWER_GPU, "big", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(q, &gpu, &t, &d), MG_STATUS_OK);
  CHECK_EQ_INT(count(t.data, "gpu.dynamic_shared_memory"), 1);
  // The only static attribution is the reductions' per-warp scratch.
  CHECK_EQ_INT(count(t.data, ") workgroup(%red : memref<4xf32, "), 1);
  CHECK_EQ_INT(count(t.data, " workgroup("), 1);
  CHECK(count(t.data, "memref.view") > 0); // the tiles
  mg_text_free(&t);
  mg_program_destroy(q);
}

// The CPU form: one function, the grid as three loops, every buffer it
// allocates freed; predefined ops of the unfused sample run over whole
// tensors.
static void test_lower_cpu(void) {
  MgProgram *p = mg_sample_rmsnorm_matmul_fused(2, 64, 96, 4, 4);
  MgText t = {0};
  MgDiag d;
  MgLowerOptions cpu = {MG_LOWER_CPU, "entry", NULL, true,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &cpu, &t, &d), MG_STATUS_OK);
  CHECK(strstr(t.data, "func.func @\"entry\"(%in0: memref<2x64xf16>, %in1: "
                       "memref<64x96xf16>, %out0: memref<2x96xf16>) "
                       "attributes {llvm.emit_c_interface}") != NULL);
  CHECK_EQ_INT(count(t.data, "memref.alloc()"),
               count(t.data, "memref.dealloc"));
  CHECK_EQ_INT(count(t.data, "gpu."), 0);
  mg_text_free(&t);
  mg_program_destroy(p);
  MgProgram *r = mg_sample_rmsnorm_matmul(2, 64, 96);
  CHECK_EQ_INT(mg_lower_emit(r, &cpu, &t, &d), MG_STATUS_OK);
  // 5 intermediates between the 6 predefined ops, and the matmul's (2
  // rows: a split-K GEMV, gemv.c) partial sums, lane values, exchange
  // buffer, positions, store flags and ring of B's rows, each freed. K =
  // 64 is one group of 2 rows a thread (4 stages of 2 rows), no rows one
  // at a time: 2 x 2 FMAs.
  CHECK_EQ_INT(count(t.data, "memref.alloc()"), 11);
  CHECK_EQ_INT(count(t.data, "memref.dealloc"), 11);
  CHECK_EQ_INT(count(t.data, "vector.fma"), 4);
  mg_text_free(&t);
  // The grid-stride launch of a predefined op: one block per 256 results;
  // the GEMV's: 12 groups of 8 columns, 8 per block would be 2 blocks
  // (fewer than 128), so 2 per block: 6 blocks of 64 threads.
  CHECK_EQ_INT(mg_lower_predefined_blocks(r, 7), 1); // matmul, 192 results
  int64_t grid[3], threads;
  mg_lower_launch(r, 7, grid, &threads);
  CHECK_EQ_INT(grid[0], 6);
  CHECK_EQ_INT(threads, 64);
  mg_program_destroy(r);
}

static void test_lower_errors(void) {
  MgProgram *p = mg_sample_sum_last(4, 8);
  MgText t = {0};
  MgDiag d;
  MgLowerOptions bad = {MG_LOWER_CPU, NULL, NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &bad, &t, &d), MG_STATUS_INVALID);
  MgLowerOptions quote = {MG_LOWER_GPU, "a\"b", NULL, false,
                          MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &quote, &t, &d), MG_STATUS_INVALID);
  CHECK(strstr(d.message, "symbol named") != NULL);
  MgLowerOptions no_module = {MG_LOWER_HOST, "f", NULL, false,
                              MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &no_module, &t, &d), MG_STATUS_INVALID);
  MgLowerOptions mode = {MG_LOWER_MODE_COUNT, "f", NULL, false,
                         MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &mode, &t, &d), MG_STATUS_INVALID);
  CHECK_EQ_INT(mg_lower_emit(NULL, &quote, &t, &d), MG_STATUS_INVALID);
  mg_text_free(&t);
  mg_program_destroy(p);
}

//===--- Kernel-level view ops ---------------------------------------------===//

// Y = X·W (24x16), R = reshape(Y) to 4x6x2x8 (head split), T = R with dims
// 1 and 2 swapped: the reshape is a view of Y's buffer, the transpose one
// copy kernel moving 16-byte vectors (its innermost dim stays in place).
static MgProgram *head_split(MgTensorId *r, MgTensorId *t) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t xd[2] = {24, 8}, wd[2] = {8, 16}, rd[4] = {4, 6, 2, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, xd, &d);
  MgTensorId w = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, wd, &d);
  MgTensorId y = mg_graph_matmul(p, 0, x, w, &d);
  *r = mg_graph_reshape(p, 0, y, 4, rd, &d);
  int8_t perm[4] = {0, 2, 1, 3};
  *t = mg_graph_transpose(p, 0, *r, perm, &d);
  CHECK(*t != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, *t, &d), MG_STATUS_OK);
  return p;
}

static void test_lower_views_gpu(void) {
  MgTensorId r, t;
  MgProgram *p = head_split(&r, &t);
  const MgGraph *g = &p->graphs[0];
  MgOpId reshape = g->tensors[r].producer, transpose = g->tensors[t].producer;
  CHECK(!mg_lower_is_kernel(p, reshape));
  CHECK(mg_lower_is_kernel(p, transpose));
  CHECK(!mg_lower_is_kernel(p, 0)); // an input
  MgText text = {0};
  MgDiag d;
  MgLowerOptions gpu = {MG_LOWER_GPU, "hs_gpu", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions host = {MG_LOWER_HOST, "hs", "hs_gpu", false,
                         MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &gpu, &text, &d), MG_STATUS_OK);
  // The matmul and the transpose; nothing for the reshape.
  CHECK_EQ_INT(count(text.data, " kernel attributes {"), 2);
  char name[32];
  snprintf(name, sizeof name, "@\"hs_gpu_k%u\"", reshape);
  CHECK(strstr(text.data, name) == NULL);
  snprintf(name, sizeof name, "@\"hs_gpu_k%u\"", transpose);
  CHECK(strstr(text.data, name) != NULL);
  // 384 elements, 48 vectors of 8 halves: one block, every thread one
  // vector, read at the transposed position and stored in result order.
  const char *k = strstr(text.data, name);
  CHECK(k && strstr(k, "known_grid_size = array<i32: 1, 1, 1>"));
  CHECK_EQ_INT(count(k, "vector.load"), 1);
  CHECK_EQ_INT(count(k, "{alignment = 16 : i64} : memref<4x6x2x8xf16>, "
                        "vector<8xf16>"), 1);
  CHECK_EQ_INT(count(k, "{alignment = 16 : i64} : memref<4x2x6x8xf16>, "
                        "vector<8xf16>"), 1);
  CHECK_EQ_INT(count(k, "memref.load"), 0);
  size_t gpu_len = text.len;
  CHECK_EQ_INT(mg_lower_emit(p, &host, &text, &d), MG_STATUS_OK);
  const char *h = text.data + gpu_len;
  CHECK_EQ_INT(count(h, "gpu.launch_func async"), 2);
  // X, W, Y, T have buffers; R is Y's, collapsed and expanded.
  CHECK_EQ_INT(count(h, "gpu.alloc async"), 4);
  CHECK_EQ_INT(count(h, "gpu.dealloc async"), 4);
  CHECK_EQ_INT(count(h, "memref.collapse_shape"), 1);
  CHECK(strstr(h, "memref.expand_shape") &&
        strstr(h, "output_shape [4, 6, 2, 8] : memref<384xf16> into "
                  "memref<4x6x2x8xf16>"));
  mg_text_free(&text);
  mg_program_destroy(p);
}

// Slices and kernel-level concats of odd sizes copy element by element;
// along the outer dim of rows of whole vectors they move vectors. A
// reshape of an input with a layout (strided) and one that changes the
// element type are copies too.
static void test_lower_views_copies(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t xd[2] = {3, 10}, yd[2] = {3, 6}, ad[2] = {2, 8}, bd[2] = {3, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, xd, &d);
  MgTensorId y = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, yd, &d);
  MgTensorId a = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, ad, &d);
  MgTensorId b = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, bd, &d);
  int64_t wd[2] = {8, 5}; // stored 5x8: read as its transpose
  MgTensorId w = mg_graph_add_input(p, 0, MG_DTYPE_BF16, 2, wd, &d);
  int8_t swap[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, w, swap, &d), MG_STATUS_OK);
  MgTensorId s = mg_graph_slice(p, 0, x, (MgSlice){1, 3, 5}, &d);    // 3x5 f32
  MgTensorId c1 = mg_graph_concat(p, 0, x, y, 1, &d);     // 3x16 f32
  MgTensorId c0 = mg_graph_concat(p, 0, a, b, 0, &d);     // 5x8 f16
  int64_t flat[1] = {40};
  MgTensorId rw = mg_graph_reshape(p, 0, w, 1, flat, &d); // strided: copy
  int64_t rd[2] = {5, 8};
  MgTensorId rc = mg_graph_reshape(p, 0, c0, 2, rd, &d);  // same shape
  MgTensorId cast = mg_graph_reshape(p, 0, c0, 1, flat, &d);
  CHECK_EQ_INT(mg_graph_set_dtype(p, 0, cast, MG_DTYPE_F32, &d),
               MG_STATUS_OK);
  MgTensorId outs[6] = {s, c1, c0, rw, rc, cast};
  for (int i = 0; i < 6; i++) {
    CHECK(outs[i] != MG_NO_ID);
    CHECK_EQ_INT(mg_graph_mark_output(p, 0, outs[i], &d), MG_STATUS_OK);
  }
  const MgGraph *g = &p->graphs[0];
  CHECK(mg_lower_is_kernel(p, g->tensors[rw].producer));
  CHECK(!mg_lower_is_kernel(p, g->tensors[rc].producer));
  CHECK(mg_lower_is_kernel(p, g->tensors[cast].producer));
  MgText text = {0};
  MgLowerOptions gpu = {MG_LOWER_GPU, "v_gpu", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &gpu, &text, &d), MG_STATUS_OK);
  CHECK_EQ_INT(count(text.data, " kernel attributes {"), 5);
  // Only the f16 concat along dim 0 moves vectors: one loop per operand.
  CHECK_EQ_INT(count(text.data, "vector.load"), 2);
  CHECK_EQ_INT(count(text.data, "vector<8xf16>"), 4);
  // The f32 concat along its last dim (10 + 6: not whole vectors of 4)
  // has two element loops, no branch per element choosing the operand:
  // each loop's one branch is its tail's bounds check (every copy here
  // has fewer elements than the grid has threads).
  CHECK_EQ_INT(count(text.data, "scf.if"), count(text.data, "scf.for"));
  CHECK_EQ_INT(count(text.data, "scf.if"),
               count(text.data, "arith.cmpi ult"));
  // The transposed input is read through its strided view.
  CHECK_EQ_INT(count(text.data, "memref.transpose"), 1);
  CHECK(strstr(text.data, "arith.extf") != NULL); // the f16 -> f32 copy
  mg_text_free(&text);
  // The CPU form: the same-shape reshape is the concat's own buffer, and
  // as an output (a buffer of its own) it is copied there; every buffer
  // the function allocates is freed.
  MgLowerOptions cpu = {MG_LOWER_CPU, "v", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &cpu, &text, &d), MG_STATUS_OK);
  CHECK_EQ_INT(count(text.data, "memref.copy"), 1);
  CHECK_EQ_INT(count(text.data, "memref.alloc()"),
               count(text.data, "memref.dealloc"));
  mg_text_free(&text);
  mg_program_destroy(p);
}

// A program of free views only: no GPU kernel, the host copies the
// input in, views it and copies the view out; on the CPU the view is
// copied into the output. A transpose moving only unit dims and a slice
// of a whole dim are reshapes too.
static void test_lower_views_only(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t xd[3] = {2, 3, 4}, rd[2] = {6, 4};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_BF16, 3, xd, &d);
  MgTensorId r = mg_graph_reshape(p, 0, x, 2, rd, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, r, &d), MG_STATUS_OK);
  CHECK(!mg_lower_is_kernel(p, 1));
  MgProgram *q = mg_program_create();
  mg_program_add_graph(q, MG_LEVEL_KERNEL);
  int64_t kd[4] = {2, 7, 1, 16};
  MgTensorId k = mg_graph_add_input(q, 0, MG_DTYPE_F16, 4, kd, &d);
  int8_t heads[4] = {0, 2, 1, 3}, moved[4] = {0, 2, 3, 1};
  MgTensorId kt = mg_graph_transpose(q, 0, k, heads, &d); // 2x1x7x16
  MgTensorId all = mg_graph_slice(q, 0, kt, (MgSlice){2, 0, 7}, &d);
  MgTensorId km = mg_graph_transpose(q, 0, k, moved, &d); // 2x1x16x7
  MgTensorId part = mg_graph_slice(q, 0, kt, (MgSlice){2, 0, 6}, &d);
  CHECK(all != MG_NO_ID && km != MG_NO_ID && part != MG_NO_ID);
  // Returned, so copies (read by a kernel instead, they would fold).
  CHECK_EQ_INT(mg_graph_mark_output(q, 0, km, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(q, 0, part, &d), MG_STATUS_OK);
  CHECK(!mg_lower_is_kernel(q, q->graphs[0].tensors[kt].producer));
  CHECK(!mg_lower_is_kernel(q, q->graphs[0].tensors[all].producer));
  CHECK(mg_lower_is_kernel(q, q->graphs[0].tensors[km].producer));
  CHECK(mg_lower_is_kernel(q, q->graphs[0].tensors[part].producer));
  mg_program_destroy(q);
  MgText text = {0};
  MgLowerOptions gpu = {MG_LOWER_GPU, "r_gpu", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions host = {MG_LOWER_HOST, "r", "r_gpu", false,
                         MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions cpu = {MG_LOWER_CPU, "r", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  CHECK_EQ_INT(mg_lower_emit(p, &gpu, &text, &d), MG_STATUS_OK);
  CHECK_EQ_INT(count(text.data, "gpu.func"), 0);
  size_t len = text.len;
  CHECK_EQ_INT(mg_lower_emit(p, &host, &text, &d), MG_STATUS_OK);
  const char *h = text.data + len;
  CHECK_EQ_INT(count(h, "gpu.launch_func"), 0);
  CHECK_EQ_INT(count(h, "gpu.alloc async"), 1);
  CHECK_EQ_INT(count(h, "gpu.dealloc async"), 1);
  CHECK(strstr(h, "memref.collapse_shape %") != NULL);
  CHECK_EQ_INT(count(h, "gpu.memcpy async"), 2);
  len = text.len;
  CHECK_EQ_INT(mg_lower_emit(p, &cpu, &text, &d), MG_STATUS_OK);
  const char *c = text.data + len;
  CHECK(strstr(c, "memref.copy %") != NULL);
  CHECK_EQ_INT(count(c, "memref.alloc"), 0);
  mg_text_free(&text);
  mg_program_destroy(p);
}

// MgText grows past its first chunk and keeps everything.
static void test_text(void) {
  MgText t = {0};
  for (int i = 0; i < 1000; i++)
    mg_text_printf(&t, "%d,", i);
  CHECK(!t.failed);
  CHECK(t.len == strlen(t.data));
  CHECK(strncmp(t.data, "0,1,2,", 6) == 0);
  CHECK(strstr(t.data, ",998,999,") != NULL);
  mg_text_free(&t);
  CHECK(t.data == NULL && t.len == 0);
}

// Tensor cores by target: the gated-MLP sample's block matmuls (32x32 f16
// tiles, 4 warps) are ldmatrix + mma.sync from sm_80 on (the default,
// sm_90, too) and dot products on the FP32 lanes below; the CPU form
// follows (its warp emulation keeps a 32-lane fragment buffer). Padding the
// operand tiles does not depend on the target, so the launch's shared
// memory is the same for every target.
static void test_lower_tensor_cores(void) {
  MgProgram *p = mg_sample_gated_mlp_fused(32, 64, 64, 2, 2);
  MgDiag d;
  MgLowerOptions gpu = {MG_LOWER_GPU, "mlp_gpu", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  MgLowerOptions cpu = {MG_LOWER_CPU, "mlp", NULL, false,
                        MG_LOWER_HOST_COPY, NULL};
  // A target without tensor cores (no row of the table): made by hand.
  MgTarget turing = *mg_target_lookup("sm_80");
  turing.sm = 75;
  const MgTarget *targets[4] = {&turing, mg_target_lookup("sm_80"),
                                mg_target_lookup("sm_90"), NULL};
  for (int i = 0; i < 4; i++) {
    bool tc = targets[i] != &turing;
    MgText t = {0};
    CHECK_EQ_INT(mg_lower_emit_for(p, &gpu, targets[i], &t, &d),
                 MG_STATUS_OK);
    // Per matmul (32x32 by 32x32): 4 warp tiles of 2 x 1 mma tiles, two A
    // loads and one B load per k step.
    CHECK_EQ_INT(count(t.data, "nvgpu.mma.sync"), (tc ? 2 * 2 : 0));
    CHECK_EQ_INT(count(t.data, "transpose = false"), (tc ? 2 * 2 : 0));
    CHECK_EQ_INT(count(t.data, "transpose = true"), (tc ? 2 : 0));
    // X's and the W tiles' rows of 32 halves, padded to 40, in two stages.
    CHECK_EQ_INT(count(t.data, "memref<2x32x40xf16, #gpu.address_space"
                               "<workgroup>> {llvm.align"), 3);
    mg_text_free(&t);
    CHECK_EQ_INT(mg_lower_emit_for(p, &cpu, targets[i], &t, &d),
                 MG_STATUS_OK);
    CHECK_EQ_INT(count(t.data, "memref.alloc() : memref<2x32x4x2xf32>"),
                 (tc ? 2 : 0));
    CHECK_EQ_INT(count(t.data, "memref.alloc()"),
                 count(t.data, "memref.dealloc"));
    mg_text_free(&t);
  }
  // The default is sm_90's lowering.
  MgText a = {0}, b = {0};
  CHECK_EQ_INT(mg_lower_emit(p, &gpu, &a, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_lower_emit_for(p, &gpu, mg_target_lookup("sm_90"), &b, &d),
               MG_STATUS_OK);
  CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
  mg_text_free(&a);
  mg_text_free(&b);
  mg_program_destroy(p);
}

int main(void) {
  RUN_TEST(test_lower_gpu_and_host);
  RUN_TEST(test_lower_host_device);
  RUN_TEST(test_lower_smem);
  RUN_TEST(test_lower_cpu);
  RUN_TEST(test_lower_errors);
  RUN_TEST(test_lower_views_gpu);
  RUN_TEST(test_lower_views_copies);
  RUN_TEST(test_lower_views_only);
  RUN_TEST(test_text);
  RUN_TEST(test_lower_tensor_cores);
  return TEST_SUMMARY();
}
