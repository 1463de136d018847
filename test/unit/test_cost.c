//===- test_cost.c - Unit tests for lib/cost ------------------------------===//
//
// Every expectation is worked out by hand from the formulas documented in
// lib/cost/kernel.c, program.c and emitted.c, with the H100 (sm_90) figures
// of gpu.c and the sustained fractions of cost_internal.h written out
// below, never by asking the model. The emitted model's tests also check
// the plan facts their numbers rest on (lib/lower/plan.c). Nothing is
// executed, so shapes may be large.
//
//===----------------------------------------------------------------------===//
#include "mirage/cost.h"
#include "mirage/lower.h"
#include "mirage/samples.h"
#include "test.h"

#include <string.h>

#define NONE MG_MAP_NONE
#define MIB (1024.0 * 1024.0)
// Relative comparison: the model may sum in another order.
#define CHECK_REL(a, b) CHECK_NEAR((a), (b), 1e-12 * fabs((double)(b)))

// H100 SXM5 figures (gpu.c) and sustained fractions (cost_internal.h:
// DRAM 0.85, L2 0.7, SMEM 0.8, TENSOR 0.7, SIMT 0.8, SFU 0.8).
#define H_SMS 132.0
#define H_CLK (132.0 * 1.98e9) // SMs x clock
#define R_DRAM (3.35e12 * 0.85)
#define R_L2 (7.0e12 * 0.7)
#define R_SMEM (H_CLK * 128 * 0.8)
#define R_TENSOR (989.4e12 * 0.7)
#define R_SIMT (H_CLK * 128 * 0.8)
#define R_SFU (H_CLK * 16 * 0.8)
#define H_LAUNCH 2e-6
// The emitted model's H100 figures (gpu.c): 1.98e9 cycles/s; latencies in
// cycles: DRAM 480, L2 260, shared memory 30, FP32 4, SFU 20, shuffle 30,
// barrier 20; 64 registers per thread, 65536 per SM, 2048 threads, 32
// blocks and 228 KiB of shared memory per SM, 1 KiB reserved per block.
#define H_HZ 1.98e9

static double max2(double a, double b) { return a > b ? a : b; }

// launch + max(amount / rate) / utilization on the H100 (kernel.c finish).
static double h100_time(const MgKernelCost *c) {
  double t = max2(max2(c->dram_bytes / R_DRAM, c->l2_bytes / R_L2),
                  max2(c->smem_bytes / R_SMEM, c->tensor_flops / R_TENSOR));
  t = max2(t, max2(c->simt_ops / R_SIMT, c->sfu_ops / R_SFU));
  return H_LAUNCH + t / c->utilization;
}

static const int64_t *dims2(int64_t a, int64_t b) {
  static int64_t d[4][2];
  static int k;
  k = (k + 1) % 4;
  d[k][0] = a;
  d[k][1] = b;
  return d[k];
}

// Kernel graph: inputs A(m,k), B(k,n) of `dt`, Y = A·B marked as output.
static MgProgram *matmul_program(MgDType dt, int64_t m, int64_t k, int64_t n) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId a = mg_graph_add_input(p, 0, dt, 2, dims2(m, k), &d);
  MgTensorId b = mg_graph_add_input(p, 0, dt, 2, dims2(k, n), &d);
  MgTensorId y = mg_graph_matmul(p, 0, a, b, &d);
  CHECK(y != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, y, &d), MG_STATUS_OK);
  return p;
}

// The GPU table: lookup by target name, default for NULL/unknown; names.
static void test_cost_gpu_and_names(void) {
  const MgGpu *a100 = mg_cost_gpu(mg_target_lookup("sm_80"));
  const MgGpu *h100 = mg_cost_gpu(mg_target_lookup("sm_90"));
  CHECK(strcmp(a100->target, "sm_80") == 0);
  CHECK_EQ_INT(a100->sms, 108);
  CHECK_NEAR(a100->l2_bytes, 40 * MIB, 0);
  CHECK(strcmp(h100->target, "sm_90") == 0);
  CHECK_EQ_INT(h100->sms, 132);
  CHECK_EQ_INT(mg_cost_gpu(mg_target_lookup("sm_86"))->sms, 84);
  CHECK(mg_cost_gpu(NULL) == h100);
  CHECK(mg_cost_gpu(mg_target_default()) == h100);
  MgTarget unknown = *mg_target_default();
  unknown.name = "sm_999";
  CHECK(mg_cost_gpu(&unknown) == h100);
  unknown.name = NULL;
  CHECK(mg_cost_gpu(&unknown) == h100);
  const char *names[] = {"launch", "dram", "l2",  "smem",   "tensor",
                         "simt",   "sfu",  "issue", "latency"};
  for (int i = 0; i < MG_COST_BOUND_COUNT; i++) {
    const char *got = mg_cost_bound_name((MgCostBound)i);
    CHECK(got && strcmp(got, names[i]) == 0);
  }
  CHECK(mg_cost_bound_name(MG_COST_BOUND_COUNT) == NULL);
  CHECK(mg_cost_bound_name((MgCostBound)-1) == NULL);
}

// A predefined f16 matmul: compulsory bytes, 2MNK flops, DRAM bound.
static void test_cost_predefined_matmul_f16(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F16, 64, 128, 256);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  // A 64*128*2 = 16384, B 128*256*2 = 65536, Y 64*256*2 = 32768.
  CHECK_NEAR(c.dram_bytes, 114688, 0);
  CHECK_NEAR(c.l2_bytes, 114688, 0);
  CHECK_NEAR(c.smem_bytes, 0, 0);
  CHECK_NEAR(c.tensor_flops, 4194304, 0); // 2*64*256*128
  CHECK_NEAR(c.simt_ops + c.sfu_ops, 0, 0);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK_NEAR(c.utilization, 1, 0);
  // DRAM 114688/2.8475e12 = 4.03e-8 s beats L2 2.34e-8, tensor 6.06e-9.
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.body_s, 114688 / R_DRAM);
  CHECK_REL(c.time_s, 2e-6 + 114688 / (3.35e12 * 0.85));
  // A100: 114688 / (2.039e12*0.85) = 6.62e-8 s.
  CHECK(mg_cost_kernel(p, 2, mg_cost_gpu(mg_target_lookup("sm_80")), &c));
  CHECK_REL(c.time_s, 2e-6 + 114688 / (2.039e12 * 0.85));
  mg_program_destroy(p);
}

// f32 operands run as TF32: flops count twice; a large one is tensor-bound.
static void test_cost_predefined_matmul_f32(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F32, 64, 128, 256);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.dram_bytes, 229376, 0);    // 4*(8192+32768+16384)
  CHECK_NEAR(c.tensor_flops, 8388608, 0); // 2 * 2*64*256*128
  mg_program_destroy(p);
  p = matmul_program(MG_DTYPE_F32, 2048, 2048, 2048);
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  // flops 2*2*2048^3 = 3.44e10 -> 4.96e-5 s; DRAM 3*16 MiB -> 1.77e-5 s.
  double flops = 2.0 * 2 * 2048.0 * 2048 * 2048;
  CHECK_NEAR(c.tensor_flops, flops, 0);
  CHECK_NEAR(c.dram_bytes, 3 * 16 * MIB, 0);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_TENSOR);
  CHECK_REL(c.time_s, 2e-6 + flops / (989.4e12 * 0.7));
  mg_program_destroy(p);
}

// Element-wise exp: one SFU evaluation per element, no SIMT or tensor work.
static void test_cost_predefined_exp(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(1024, 1024), &d);
  MgTensorId e = mg_graph_unary(p, 0, MG_OP_EXP, x, &d);
  CHECK(e != MG_NO_ID);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.sfu_ops, 1048576, 0); // 1024*1024
  CHECK_NEAR(c.simt_ops, 0, 0);
  CHECK_NEAR(c.tensor_flops, 0, 0);
  CHECK_NEAR(c.dram_bytes, 4194304, 0); // 2 * 1024*1024*2
  // DRAM 4194304/2.8475e12 = 1.47e-6 s > SFU 1048576/3.345e12 = 3.1e-7 s.
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, 2e-6 + 4194304 / (3.35e12 * 0.85));
  mg_program_destroy(p);
}

// X (rows, cols) of `dt` through one custom kernel: grid (g,1,1) of
// `threads`, for-loop range `forloop`; an iterator with imap x->0 and fmap
// `fmap`, with `sum` a SUM_LAST accumulator, a saver with omap x->0.
static MgProgram *one_block_kernel(MgDType dt, int64_t rows, int64_t cols,
                                   int32_t g, int32_t threads, int32_t forloop,
                                   int8_t fmap, bool sum) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgTensorId X = mg_graph_add_input(p, 0, dt, 2, dims2(rows, cols), &d);
  const int32_t grid[3] = {g, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, grid, threads, forloop, &d),
               MG_STATUS_OK);
  MgTensorId bx = mg_graph_add_input(p, b, dt, 2, dims2(rows, cols), &d);
  const int8_t x_to_0[3] = {0, NONE, NONE};
  MgTensorId t = mg_graph_iterator(p, b, bx, x_to_0, fmap, &d);
  if (sum)
    t = mg_graph_accum(p, b, t, MG_ACCUM_SUM_LAST, &d);
  MgTensorId o = mg_graph_saver(p, b, t, x_to_0, &d);
  CHECK(o != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, b, o, &d), MG_STATUS_OK);
  MgTensorId Y;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 1, &X}, &Y, &d) == 1);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, Y, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  return p;
}

// Row sums X(792,1024) f16 in one custom kernel: grid (g,1,1), F = 4,
// iterator imap x->0 fmap `fmap`, SUM_LAST accumulator, saver omap x->0.
static MgProgram *row_sum_kernel(int32_t g, int8_t fmap) {
  return one_block_kernel(MG_DTYPE_F16, 792, 1024, g, 128, 4, fmap, true);
}

// Wave quantization below, at and above 132 SMs; traffic independent of g.
static void test_cost_custom_row_sum(void) {
  const int32_t grids[4] = {66, 132, 198, 264};
  // util = B / (132 * ceil(B/132)): 66/132, 132/132, 198/264, 264/264.
  const double util[4] = {0.5, 1.0, 0.75, 1.0};
  for (int i = 0; i < 4; i++) {
    MgProgram *p = row_sum_kernel(grids[i], 1);
    MgKernelCost c;
    CHECK(mg_cost_kernel(p, 1, NULL, &c));
    CHECK_EQ_INT(c.blocks, grids[i]);
    CHECK_NEAR(c.utilization, util[i], 1e-15);
    // Iterator: tile (792/g)*256*2 B, loaded F=4 times by g blocks = the
    // whole 792*1024*2 = 1622016 B (not re-read: DRAM = L2). Saver: tile
    // (792/g,1)*2 B * g blocks = 1584 B.
    CHECK_NEAR(c.l2_bytes, 1622016 + 1584, 0);
    CHECK_NEAR(c.dram_bytes, 1622016 + 1584, 0);
    // Accumulator in the loop, g*4 times: reads tile, writes (792/g,1):
    // 4*792*(512+2) = 1628352 B of SMEM; SIMT 4*g*(792/g)*256 = 811008.
    CHECK_NEAR(c.smem_bytes, 1622016 + 1628352 + 1584, 0);
    CHECK_NEAR(c.simt_ops, 811008, 0);
    CHECK_NEAR(c.tensor_flops + c.sfu_ops, 0, 0);
    // DRAM 1623600/2.8475e12 = 5.7e-7 s is the busiest resource.
    CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
    CHECK_REL(c.time_s, 2e-6 + 1623600 / R_DRAM / util[i]);
    CHECK_REL(c.time_s, h100_time(&c));
    mg_program_destroy(p);
  }
  // fmap φ: the (12,1024) tile is loaded once per block, not F times, so
  // L2 is again 1622016 + 1584; the accumulator still runs 4*66 times:
  // SMEM 1622016 + 4*792*(2048+2) + 1584, SIMT 4*792*1024.
  MgProgram *p = row_sum_kernel(66, NONE);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.l2_bytes, 1622016 + 1584, 0);
  CHECK_NEAR(c.smem_bytes, 1622016 + 6494400 + 1584, 0);
  CHECK_NEAR(c.simt_ops, 3244032, 0);
  mg_program_destroy(p);
}

// A thread op running silu(a) * b on (64,256) f16 tiles, grid 4, F 1: per
// element one SFU evaluation (silu) and one lane op (mul); the thread
// graph's inputs are not work. Tiles: 64*256 = 16384 elements per block.
static void test_cost_thread_op(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(256, 256), &d);
  MgTensorId y = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(256, 256), &d);
  MgGraphId t = mg_program_add_graph(p, MG_LEVEL_THREAD);
  MgTensorId ta = mg_graph_add_input(p, t, MG_DTYPE_F16, 2, dims2(64, 256), &d);
  MgTensorId tb = mg_graph_add_input(p, t, MG_DTYPE_F16, 2, dims2(64, 256), &d);
  MgTensorId ts = mg_graph_unary(p, t, MG_OP_SILU, ta, &d);
  CHECK_EQ_INT(mg_graph_mark_output(
                   p, t, mg_graph_binary(p, t, MG_OP_MUL, ts, tb, &d), &d),
               MG_STATUS_OK);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  const int32_t grid[3] = {4, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, grid, 128, 1, &d), MG_STATUS_OK);
  MgTensorId bx = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(256, 256), &d);
  MgTensorId by = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(256, 256), &d);
  const int8_t x_to_0[3] = {0, NONE, NONE};
  MgTensorId in[2] = {mg_graph_iterator(p, b, bx, x_to_0, NONE, &d),
                      mg_graph_iterator(p, b, by, x_to_0, NONE, &d)};
  MgTensorId r;
  CHECK(mg_graph_thread(p, b, (MgCall){t, 2, in}, &r, &d) != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, b, mg_graph_saver(p, b, r, x_to_0, &d),
                                    &d), MG_STATUS_OK);
  MgTensorId xy[2] = {x, y}, o;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 2, xy}, &o, &d) != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, o, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.sfu_ops, 4 * 16384, 0);
  CHECK_NEAR(c.simt_ops, 4 * 16384, 0);
  // SMEM: iterators 2 * 256*256*2 B, thread op reads two tiles and writes
  // one (3 * 32768 B) per block, saver 131072 B.
  CHECK_NEAR(c.smem_bytes, 262144 + 4 * 98304 + 131072, 0);
  mg_program_destroy(p);
}

// Tiled matmul X(m,1024)·W(1024,2048), grid (16,1,1), F = 8: X replicated
// (imap φ, fmap 1), W split (imap x->1, fmap 0), SUM accumulator, saver x->1.
static MgProgram *tiled_matmul_kernel(int64_t m) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgTensorId X = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(m, 1024), &d);
  MgTensorId W = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(1024, 2048), &d);
  const int32_t grid[3] = {16, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, grid, 128, 8, &d), MG_STATUS_OK);
  MgTensorId bx = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(m, 1024), &d);
  MgTensorId bw = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(1024, 2048), &d);
  const int8_t rep[3] = {NONE, NONE, NONE}, x_to_1[3] = {1, NONE, NONE};
  MgTensorId xt = mg_graph_iterator(p, b, bx, rep, 1, &d);
  MgTensorId wt = mg_graph_iterator(p, b, bw, x_to_1, 0, &d);
  MgTensorId acc = mg_graph_accum(p, b, mg_graph_matmul(p, b, xt, wt, &d),
                                  MG_ACCUM_SUM, &d);
  MgTensorId o = mg_graph_saver(p, b, acc, x_to_1, &d);
  CHECK(o != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, b, o, &d), MG_STATUS_OK);
  MgTensorId ins[2] = {X, W}, Y;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 2, ins}, &Y, &d) == 2);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, Y, &d), MG_STATUS_OK);
  return p;
}

// L2 re-reads vs DRAM: a replicated input that fits in half the L2 comes
// from DRAM once, a larger one every time; in-loop ops count F per block.
static void test_cost_custom_tiled_matmul(void) {
  MgProgram *p = tiled_matmul_kernel(64);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_EQ_INT(c.blocks, 16);
  CHECK_NEAR(c.utilization, 16.0 / 132, 1e-15);
  // Tiles: xt (64,128) 16384 B, wt (128,128) 32768 B, mm/acc (64,128)
  // 16384 B. Loads F*blocks = 128: xt 2097152 B (16x the 131072 B of X),
  // wt 4194304 B (= W); saver 16384*16 = 262144 B.
  CHECK_NEAR(c.l2_bytes, 2097152 + 4194304 + 262144, 0);
  // X fits in 25 MiB: read from DRAM once.
  CHECK_NEAR(c.dram_bytes, 131072 + 4194304 + 262144, 0);
  // matmul 128 times: 2*64*128*128 each = 2*64*2048*1024 in all.
  CHECK_NEAR(c.tensor_flops, 268435456, 0);
  CHECK_NEAR(c.simt_ops, 1048576, 0); // accumulator: 128 * 64*128
  // SMEM: iterators 2097152 + 4194304; matmul 128*(16384+32768+16384);
  // accumulator 128*(16384+16384); saver 262144.
  CHECK_NEAR(c.smem_bytes,
             2097152 + 4194304 + 8388608 + 4194304 + 262144, 0);
  // DRAM 4587520/2.8475e12 = 1.61e-6 s beats L2 6553600/4.9e12 =
  // 1.34e-6 s and SMEM 19136512/2.676e13 = 7.2e-7 s.
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, 2e-6 + 4587520 / R_DRAM / (16.0 / 132));
  CHECK_REL(c.time_s, h100_time(&c));
  mg_program_destroy(p);

  // X(16384,1024) f16 = 32 MiB > 25 MiB: all 128 loads of its
  // (16384,128) tile, 4 MiB each, go to DRAM; saver 16384*128*2*16 B.
  p = tiled_matmul_kernel(16384);
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.dram_bytes, 128 * 4 * MIB + 4194304 + 67108864, 0);
  mg_program_destroy(p);

  // X(12288,1024) = 24 MiB: fits half the H100's 50 MiB L2 but not half
  // the A100's 40 MiB. Tile 3 MiB; saver 12288*128*2*16 = 48 MiB.
  p = tiled_matmul_kernel(12288);
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.dram_bytes, 24 * MIB + 4194304 + 48 * MIB, 0);
  CHECK(mg_cost_kernel(p, 2, mg_cost_gpu(mg_target_lookup("sm_80")), &c));
  CHECK_NEAR(c.dram_bytes, 128 * 3 * MIB + 4194304 + 48 * MIB, 0);
  CHECK_EQ_INT(c.blocks, 16);
  CHECK_NEAR(c.utilization, 16.0 / 108, 1e-15);
  mg_program_destroy(p);
}

// The program is the sum of its kernels; inputs and bad ids are no kernels.
static void test_cost_program_sum(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F16, 64, 128, 256);
  MgDiag d;
  MgTensorId e = mg_graph_unary(p, 0, MG_OP_EXP, 2, &d); // exp(Y)
  CHECK(e != MG_NO_ID);
  // matmul: 2e-6 + 114688/R_DRAM; exp of Y(64,256): DRAM 2*32768 B =
  // 2.3e-8 s > SFU 16384/3.345e12 = 4.9e-9 s.
  double mm = 2e-6 + 114688 / R_DRAM, ex = 2e-6 + 65536 / R_DRAM;
  CHECK_REL(mg_cost_program(p, NULL), mm + ex);
  CHECK_REL(mg_cost_program(p, mg_cost_gpu(NULL)), mm + ex);
  MgKernelCost c;
  memset(&c, 0x55, sizeof c);
  CHECK(!mg_cost_kernel(p, 0, NULL, &c)); // INPUT
  CHECK_NEAR(c.time_s, 0, 0);
  CHECK_EQ_INT(c.blocks, 0);
  memset(&c, 0x55, sizeof c);
  CHECK(!mg_cost_kernel(p, 4, NULL, &c)); // past the last op
  CHECK_NEAR(c.time_s + c.dram_bytes, 0, 0);
  CHECK(!mg_cost_kernel(p, MG_NO_ID, NULL, &c));
  CHECK(!mg_cost_kernel(NULL, 0, NULL, &c));
  CHECK_NEAR(mg_cost_program(NULL, NULL), 0, 0);
  mg_program_destroy(p);
  MgProgram *empty = mg_program_create();
  CHECK_NEAR(mg_cost_program(empty, NULL), 0, 0);
  mg_program_add_graph(empty, MG_LEVEL_KERNEL);
  CHECK_NEAR(mg_cost_program(empty, NULL), 0, 0);
  mg_program_destroy(empty);
}

// Lower bound: launches + (read inputs + outputs) at sustained DRAM rate.
static void test_cost_lower_bound_formula(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F16, 64, 128, 256);
  // 3 * 2e-6 + (16384 + 65536 + 32768) / (3.35e12 * 0.85).
  CHECK_REL(mg_cost_lower_bound(p, 3, NULL), 6e-6 + 114688 / R_DRAM);
  CHECK_REL(mg_cost_lower_bound(p, 0, NULL), 114688 / R_DRAM);
  CHECK_REL(mg_cost_lower_bound(p, 1, mg_cost_gpu(mg_target_lookup("sm_80"))),
            2e-6 + 114688 / (2.039e12 * 0.85));
  // The single-kernel program is its own bound's witness: equal here.
  CHECK_REL(mg_cost_program(p, NULL), mg_cost_lower_bound(p, 1, NULL));
  // An unused 4096x4096 f16 input adds nothing.
  MgDiag d;
  CHECK(mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(4096, 4096), &d) !=
        MG_NO_ID);
  CHECK_REL(mg_cost_lower_bound(p, 1, NULL), 2e-6 + 114688 / R_DRAM);
  CHECK_REL(mg_cost_lower_bound(NULL, 2, NULL), 4e-6);
  mg_program_destroy(p);
  // An input returned as an output costs no write. Input A (64x64 f16,
  // 8192 B); outputs A and E = exp(A): read A + write E = 16384 B.
  MgProgram *q = mg_program_create();
  mg_program_add_graph(q, MG_LEVEL_KERNEL);
  MgTensorId a = mg_graph_add_input(q, 0, MG_DTYPE_F16, 2, dims2(64, 64), &d);
  MgTensorId e = mg_graph_unary(q, 0, MG_OP_EXP, a, &d);
  CHECK_EQ_INT(mg_graph_mark_output(q, 0, a, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(q, 0, e, &d), MG_STATUS_OK);
  CHECK_REL(mg_cost_lower_bound(q, 1, NULL), 2e-6 + 16384 / R_DRAM);
  CHECK(mg_cost_lower_bound(q, 1, NULL) <= mg_cost_program(q, NULL));
  mg_program_destroy(q);
}

static uint32_t kernels(const MgProgram *p) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < p->graphs[0].num_ops; i++)
    k += p->graphs[0].ops[i].kind != MG_OP_INPUT;
  return k;
}

// The bound never exceeds the estimate: for each reference program with
// its own kernel count, and for the fused form against the reference.
static void test_cost_lower_bound_samples(void) {
  MgProgram *pairs[][2] = {
      {mg_sample_rmsnorm_matmul(16, 256, 512),
       mg_sample_rmsnorm_matmul_fused(16, 256, 512, 8, 4)},
      {mg_sample_attention(2, 16, 64, 256),
       mg_sample_attention_split_kv(2, 16, 64, 256, 4, 2)},
      {mg_sample_qknorm(2, 16, 64, 256), NULL},
      {mg_sample_lora(16, 256, 512, 16),
       mg_sample_lora_fused(16, 256, 512, 16, 8)},
      {mg_sample_gated_mlp(16, 256, 512),
       mg_sample_gated_mlp_fused(16, 256, 512, 8, 4)},
      {mg_sample_ntrans(64, 256), mg_sample_ntrans_fused(64, 256, 8)},
      {mg_sample_sum_last(64, 256), mg_sample_sum_last_fused(64, 256, 8, 4)},
  };
  const MgGpu *gpus[2] = {mg_cost_gpu(NULL),
                          mg_cost_gpu(mg_target_lookup("sm_80"))};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    MgProgram *ref = pairs[i][0], *fused = pairs[i][1];
    CHECK(ref != NULL);
    if (!ref)
      continue;
    uint32_t k = kernels(ref);
    CHECK(k >= 1);
    for (int g = 0; g < 2; g++) {
      double cost = mg_cost_program(ref, gpus[g]);
      CHECK(mg_cost_lower_bound(ref, k, gpus[g]) <= cost);
      // Each kernel's body is positive, so the bound is strictly below
      // unless there is a single kernel.
      CHECK(k == 1 || mg_cost_lower_bound(ref, k, gpus[g]) < cost);
      if (fused)
        CHECK(mg_cost_lower_bound(ref, kernels(fused), gpus[g]) <=
              mg_cost_program(fused, gpus[g]));
    }
    mg_program_destroy(ref);
    mg_program_destroy(fused);
  }
}

//===--- Kernel-level view ops (views.c) -----------------------------------===//

// Kernel graph: input X of `dt` and `rank` dims, nothing else yet.
static MgProgram *view_program(MgDType dt, uint32_t rank, const int64_t *dims,
                               MgTensorId *x) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  *x = mg_graph_add_input(p, 0, dt, rank, dims, &d);
  CHECK(*x != MG_NO_ID);
  return p;
}

// A reshape of a contiguous tensor is a view: no kernel, no cost; the
// same reshape of a transposed input is a copy kernel. The lowering agrees
// on which is which.
static void test_cost_free_reshape(void) {
  MgDiag d;
  MgTensorId x;
  MgProgram *p = view_program(MG_DTYPE_F16, 2, dims2(64, 128), &x);
  int64_t flat[1] = {8192};
  MgTensorId r = mg_graph_reshape(p, 0, x, 1, flat, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, r, &d), MG_STATUS_OK);
  MgKernelCost c;
  CHECK(!mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.time_s, 0, 0);
  CHECK_NEAR(mg_cost_program(p, NULL), 0, 0);
  CHECK(!mg_lower_is_kernel(p, 1));
  // The output is the input's buffer: nothing to read or write.
  CHECK_NEAR(mg_cost_lower_bound(p, 0, NULL), 0, 0);
  int8_t swap[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, x, swap, &d), MG_STATUS_OK);
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK(mg_lower_is_kernel(p, 1));
  // X stored 128x64 read in logical order: stride 64 halves = 128 B, a
  // sector per element (8192 x 32 B); written contiguously (16384 B).
  CHECK_NEAR(c.l2_bytes, 8192 * 32.0 + 16384, 0);
  CHECK_NEAR(c.dram_bytes, 16384 + 16384, 0); // X fits in L2: once
  mg_program_destroy(p);
}

// Transposes: moving the innermost dim reads a sector per element (L2
// traffic 16x the data for f16), keeping it reads whole rows.
static void test_cost_transpose(void) {
  MgDiag d;
  MgTensorId x;
  MgProgram *p = view_program(MG_DTYPE_F16, 2, dims2(64, 128), &x);
  int8_t swap[2] = {1, 0};
  MgTensorId t = mg_graph_transpose(p, 0, x, swap, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, t, &d), MG_STATUS_OK);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  // Reads: 8192 elements 128 x 2 = 256 B apart, 32 B each = 262144; the
  // 16384 B of X reach DRAM once. Writes 16384 B in order.
  CHECK_NEAR(c.l2_bytes, 262144 + 16384, 0);
  CHECK_NEAR(c.dram_bytes, 16384 + 16384, 0);
  CHECK_NEAR(c.simt_ops + c.sfu_ops + c.tensor_flops + c.smem_bytes, 0, 0);
  CHECK_NEAR(c.utilization, 1, 0);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_L2); // 5.7e-8 s vs DRAM 1.2e-8
  CHECK_REL(c.time_s, 2e-6 + 278528 / R_L2);
  CHECK(c.time_s > 2e-6);
  CHECK_REL(mg_cost_program(p, NULL), c.time_s);
  CHECK(mg_cost_lower_bound(p, 1, NULL) <= mg_cost_program(p, NULL));
  mg_program_destroy(p);
  // Head split (2,16,4,64) -> (2,4,16,64) in f16: rows of 64 halves
  // (128 B, 4 sectors, aligned) in both: 16384 B each way.
  int64_t hd[4] = {2, 16, 4, 64};
  p = view_program(MG_DTYPE_F16, 4, hd, &x);
  int8_t heads[4] = {0, 2, 1, 3};
  t = mg_graph_transpose(p, 0, x, heads, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, t, &d), MG_STATUS_OK);
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.l2_bytes, 32768, 0);
  CHECK_NEAR(c.dram_bytes, 32768, 0);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, 2e-6 + 32768 / R_DRAM);
  // The bound: X read once, the result written once, one launch.
  CHECK_REL(mg_cost_lower_bound(p, 1, NULL), c.time_s);
  mg_program_destroy(p);
}

// Slices read their part in sectors: a run that starts off a sector
// boundary costs one more. Concat writes each operand's part.
static void test_cost_slice_concat(void) {
  MgDiag d;
  MgTensorId x;
  MgProgram *p = view_program(MG_DTYPE_F16, 2, dims2(4, 64), &x);
  // Columns [8, 32) of each 128-byte row: 48 B at byte 16, 3 sectors.
  MgTensorId s = mg_graph_slice(p, 0, x, (MgSlice){1, 8, 24}, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, s, &d), MG_STATUS_OK);
  MgKernelCost c;
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.l2_bytes, 4 * 96 + 192, 0); // result 4x24x2 = 192 B
  CHECK_NEAR(c.dram_bytes, 4 * 96 + 192, 0);
  // Only the slice's 192 B of X need reading, and 192 B writing.
  CHECK_REL(mg_cost_lower_bound(p, 1, NULL), 2e-6 + 384 / R_DRAM);
  CHECK(mg_cost_lower_bound(p, 1, NULL) <= mg_cost_program(p, NULL));
  mg_program_destroy(p);
  // Columns [32, 64): 64 B at byte 64 of each row, 2 aligned sectors.
  p = view_program(MG_DTYPE_F16, 2, dims2(4, 64), &x);
  s = mg_graph_slice(p, 0, x, (MgSlice){1, 32, 32}, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, s, &d), MG_STATUS_OK);
  CHECK(mg_cost_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.l2_bytes, 4 * 64 + 256, 0);
  mg_program_destroy(p);
  // Concat of 4x16 and 4x8 halves along dim 1: reads 128 + 64 B; the
  // parts' rows in the 48-byte rows of the result are 32 and 16 B runs
  // off sector boundaries (the row stride is not a multiple of 32): 2
  // sectors each, 4 rows each: 256 + 256 B.
  p = view_program(MG_DTYPE_F16, 2, dims2(4, 16), &x);
  MgTensorId y = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(4, 8), &d);
  MgTensorId cc = mg_graph_concat(p, 0, x, y, 1, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, cc, &d), MG_STATUS_OK);
  CHECK(mg_cost_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.l2_bytes, 128 + 64 + 256 + 256, 0);
  CHECK_NEAR(c.dram_bytes, 128 + 64 + 256 + 256, 0);
  CHECK(mg_cost_lower_bound(p, 1, NULL) <= mg_cost_program(p, NULL));
  mg_program_destroy(p);
}

// Which view ops are kernels: one rule (mg_graph_view_is_free and
// mg_graph_view_folds), read by the model and the lowering alike; each
// case below is checked through both.
static void test_cost_views_match_lowering(void) {
  MgDiag d;
  int64_t kd[4] = {2, 7, 1, 16};
  MgTensorId k;
  MgProgram *p = view_program(MG_DTYPE_F16, 4, kd, &k);
  MgTensorId w = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(16, 7), &d);
  int8_t swap[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, w, swap, &d), MG_STATUS_OK);
  int8_t heads[4] = {0, 2, 1, 3}, moved[4] = {0, 2, 3, 1};
  int64_t flat[2] = {14, 16}, wflat[1] = {112};
  MgTensorId kt = mg_graph_transpose(p, 0, k, heads, &d);
  mg_graph_slice(p, 0, kt, (MgSlice){2, 0, 7}, &d); // whole dim: a view
  MgSlice inner = {2, 1, 6};
  MgTensorId part = mg_graph_slice(p, 0, kt, inner, &d);  // returned: a copy
  MgTensorId km = mg_graph_transpose(p, 0, k, moved, &d);  // returned: a copy
  mg_graph_slice(p, 0, k, (MgSlice){3, 0, 8}, &d);        // folded: no kernel
  mg_graph_reshape(p, 0, k, 2, flat, &d);      // a view
  mg_graph_reshape(p, 0, w, 1, wflat, &d);     // transposed input: a copy
  mg_graph_concat(p, 0, kt, kt, 2, &d);        // a copy
  MgTensorId c = mg_graph_reshape(p, 0, k, 2, flat, &d);
  CHECK_EQ_INT(mg_graph_set_dtype(p, 0, c, MG_DTYPE_F32, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, part, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, km, &d), MG_STATUS_OK);
  const MgGraph *g = &p->graphs[0];
  CHECK_EQ_INT(g->num_ops, 11);
  int kernels = 0;
  for (MgOpId i = 0; i < g->num_ops; i++) {
    MgKernelCost cost;
    bool costed = mg_cost_kernel(p, i, NULL, &cost);
    CHECK_EQ_INT(costed, mg_lower_is_kernel(p, i));
    CHECK(!costed || cost.time_s > 2e-6);
    kernels += costed;
  }
  CHECK_EQ_INT(kernels, 5);
  mg_program_destroy(p);
}

//===--- The model of the emitted code -----------------------------------===//

// Y = X through one tile per block: X (rows, cols) of `dt`, grid g over
// rows, `threads` threads, F = 1.
static MgProgram *copy_kernel(MgDType dt, int64_t rows, int64_t cols,
                              int32_t g, int32_t threads) {
  return one_block_kernel(dt, rows, cols, g, threads, 1, NONE, false);
}

// A pure copy: X (2048, 1002) f16 through (4, 1002) tiles, 512 blocks of
// 128 threads. 1002 is no multiple of 8 halves: element-by-element copies,
// their loop unrolled: 4 2-byte loads in flight per thread (Little's law:
// bytes / (bytes in flight per SM x SMs / latency)).
static void test_cost_emitted_copy(void) {
  MgProgram *p = copy_kernel(MG_DTYPE_F16, 2048, 1002, 512, 128);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK_EQ_INT(pl.form, MG_LOWER_FORM_BLOCKS);
  CHECK_EQ_INT(pl.threads, 128);
  CHECK_EQ_INT(pl.num_steps, 2);
  // The tile does not depend on the (one) iteration: loaded before the
  // loop, then a barrier; the saver after it, no barrier needed.
  CHECK_EQ_INT(pl.steps[0].phase, MG_LOWER_PHASE_BEFORE);
  CHECK_EQ_INT(pl.steps[0].vector, 1);
  CHECK(!pl.steps[0].async);
  CHECK_EQ_INT(pl.steps[1].phase, MG_LOWER_PHASE_AFTER);
  CHECK_EQ_INT(pl.steps[1].vector, 1);
  CHECK_EQ_INT(pl.barriers_before, 1);
  CHECK_EQ_INT(pl.barriers_per_iteration + pl.barriers_after, 0);
  // Tile 4*1002*2 = 8016 B + the reduction scratch, 4 warps x 4 B.
  CHECK_EQ_INT(pl.smem_bytes, 8016 + 16);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  CHECK(c.planned);
  // Resident: threads 2048/128 = 16, registers 65536/(64*128) = 8, shared
  // memory 233472/(8032+1024) = 25, blocks 32: 8, by registers. The
  // busiest SM has ceil(512/132) = 4 blocks: one round.
  CHECK_EQ_INT(c.resident, 8);
  CHECK_EQ_INT(c.limit, 'r');
  CHECK_EQ_INT(c.rounds, 1);
  // In flight per SM: 4 blocks x 128 threads x 4 loads x 2 B = 4096 B.
  CHECK_NEAR(c.inflight_bytes, 4096, 0);
  // A block: 4008 loads, ceil(4008/128) = 32 per thread, 4 per round trip:
  // 8 round trips of DRAM latency (X is read once: all DRAM) = 3840
  // cycles; the barrier 20; the saver's 32 shared loads of 30 = 960: 4820
  // cycles. Little's law gives the same load time: the SM's 4 x 8016 B at
  // 4096 B per 480 cycles = 7.8 trips.
  CHECK_REL(c.block_s, 4820 / H_HZ);
  CHECK_REL(c.path_memory_s, 3840 / H_HZ);
  CHECK_REL(c.path_barrier_s, 20 / H_HZ);
  // DRAM 2 x 2048*1002*2 = 2 x 4104192 B / 2.8475e12 = 2.88e-6 s > 2.43e-6:
  // DRAM-bound.
  CHECK_NEAR(c.dram_bytes, 2 * 4104192, 0);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, H_LAUNCH + 2 * 4104192 / R_DRAM);
  CHECK_REL(c.time_s, mg_cost_emitted_program(p, NULL));
  // The same kernel with 16-byte vectors (1000 columns): 500 loads per
  // block, 4 per thread, one round trip: 480 + 20 + 4*30 = 620 cycles =
  // 3.1e-7 s, below DRAM: 2 x 4096000 B / 2.8475e12 s.
  mg_program_destroy(p);
  p = copy_kernel(MG_DTYPE_F16, 2048, 1000, 512, 128);
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK_EQ_INT(pl.steps[0].vector, 8);
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  CHECK_REL(c.block_s, 620 / H_HZ);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, H_LAUNCH + 2 * 4096000 / R_DRAM);
  mg_program_destroy(p);
}

// Y = X through one tile per block, X (rows, cols) f16 stored transposed,
// as (cols, rows): grid g over rows, 128 threads, F = 1.
static MgProgram *transposed_copy_kernel(int64_t rows, int64_t cols,
                                         int32_t g) {
  MgProgram *p = copy_kernel(MG_DTYPE_F16, rows, cols, g, 128);
  MgDiag d;
  int8_t swap[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, 0, swap, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 1, 0, swap, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  return p;
}

// A tile read in stored order (lib/lower move_stored_vectors): X (2048,
// 64) stored as (64, 2048), tiles (8, 64) in 256 blocks. Dim 0 is
// contiguous in memory and the tile holds 8 of it, one 16-byte vector per
// stored row: 64 vector loads per block, each scattered into the tile by 8
// shared stores (a column of the tile). With tiles (4, 64) (512 blocks)
// the rows are half vectors: 256 element loads and stores.
static void test_cost_emitted_stored_order(void) {
  MgProgram *p = transposed_copy_kernel(2048, 64, 256);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK_EQ_INT(pl.num_steps, 2);
  CHECK(pl.steps[0].stored_order);
  CHECK(pl.steps[0].scattered);
  CHECK_EQ_INT(pl.steps[0].vector, 8);
  CHECK_EQ_INT(pl.steps[1].vector, 8); // the saver: Y is dense
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  // LSU per block: the iterator's 64 loads of 16 B (a warp access 512 B: 4
  // cycles, so 64 / 32 x 4 = 8) and 512 stores of 2 B (16); the saver's
  // 64 shared loads and 64 global stores of 16 B (8 + 8): 40 cycles.
  // Instructions: 64 x (1 + 8) + 2 x 64 = 704.
  CHECK_NEAR(c.lsu_cycles, 40.0 * 256, 0);
  CHECK_NEAR(c.instructions, 704.0 * 256, 0);
  // Path: 64 loads on 128 threads, one DRAM round trip (480); the barrier
  // (20); the saver's shared loads, one trip (30): 530 cycles.
  CHECK_REL(c.block_s, 530 / H_HZ);
  CHECK_REL(c.path_memory_s, 480 / H_HZ);
  mg_program_destroy(p);

  p = transposed_copy_kernel(2048, 64, 512);
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK(pl.steps[0].stored_order);
  CHECK(pl.steps[0].scattered);
  CHECK_EQ_INT(pl.steps[0].vector, 1);
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  // Iterator: 256 loads and 256 stores of 2 B (8 + 8); saver: 32 vectors
  // (4 + 4): 24 cycles; 2 x 256 + 2 x 32 = 576 instructions. Path: two
  // loads per thread, one round trip of 480, the barrier, one shared load:
  // 530 cycles.
  CHECK_NEAR(c.lsu_cycles, 24.0 * 512, 0);
  CHECK_NEAR(c.instructions, 576.0 * 512, 0);
  CHECK_REL(c.block_s, 530 / H_HZ);
  mg_program_destroy(p);

  // X (2048, 1) stored as (1, 2048), tiles (8, 1): a vector's elements
  // are contiguous in the tile too, one vector store each. Per block one
  // load and one store of 16 B; the saver too (the trailing unit dims of
  // the tile and Y fold away): 4 instructions.
  p = transposed_copy_kernel(2048, 1, 256);
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK(pl.steps[0].stored_order);
  CHECK(!pl.steps[0].scattered);
  CHECK_EQ_INT(pl.steps[0].vector, 8);
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  CHECK_NEAR(c.instructions, 4.0 * 256, 0);
  mg_program_destroy(p);
}

// Y = A·B: A (64,k) whole in each of 64 blocks, B (k,4096) cut into (k,64)
// tiles, f16, 128 threads, F = 1.
static MgProgram *matmul_kernel(int64_t k) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgTensorId A = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(64, k), &d);
  MgTensorId B = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(k, 4096), &d);
  const int32_t grid[3] = {64, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, grid, 128, 1, &d), MG_STATUS_OK);
  MgTensorId ba = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(64, k), &d);
  MgTensorId bb = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(k, 4096), &d);
  const int8_t rep[3] = {NONE, NONE, NONE}, x_to_1[3] = {1, NONE, NONE};
  MgTensorId ta = mg_graph_iterator(p, b, ba, rep, NONE, &d);
  MgTensorId tb = mg_graph_iterator(p, b, bb, x_to_1, NONE, &d);
  MgTensorId o = mg_graph_saver(p, b, mg_graph_matmul(p, b, ta, tb, &d),
                                x_to_1, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, b, o, &d), MG_STATUS_OK);
  MgTensorId in[2] = {A, B}, Y;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 2, in}, &Y, &d) == 2);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, Y, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  return p;
}

// A block matmul as the FMA loop ops.c writes (k = 120 is no multiple of
// the mma shape's 16: no tensor cores): each of the 128 threads computes
// 32 of the 64x64 results in turn, 120 terms each, every term two shared
// loads (A, B), two f16 conversions and an FMA. Two loads per multiply-add
// at one warp-wide access per cycle make the load/store unit, not the FP32
// pipe, the bound.
static void test_cost_emitted_fma_matmul(void) {
  MgProgram *p = matmul_kernel(120);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 2, NULL, &pl));
  CHECK_EQ_INT(pl.num_steps, 4);
  const MgLowerStep *mm = &pl.steps[2];
  CHECK_EQ_INT(mm->terms, 120);
  CHECK_EQ_INT(mm->warps, 0); // 4096 results >= 128 threads: sequential
  CHECK(!mm->mma);
  CHECK(!mg_lower_uses_mma(&p->graphs[1], &p->graphs[1].ops[mm->op], NULL));
  CHECK_EQ_INT(pl.steps[0].vector, 8);
  CHECK_EQ_INT(pl.steps[1].vector, 8);
  CHECK_EQ_INT(pl.steps[3].vector, 8);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &c));
  // FMAs: 64*64*120 per block, 64 blocks.
  CHECK_NEAR(c.fma, 64.0 * 64 * 120 * 64, 0);
  // FP32 ops per block: 491520 terms x 3 + 4096 result conversions.
  CHECK_NEAR(c.fp32_ops, (491520.0 * 3 + 4096) * 64, 0);
  // LSU cycles per block: the matmul's 2 x 491520 loads / 32 = 30720, its
  // 4096 stores / 32 = 128; the copies in 16-byte vectors (4 cycles per
  // warp access): A and B (loop-invariant, cp.async: one instruction from
  // global to shared) 960 each = 2 x 120, the saver 512 loads + 512
  // stores = 128. 31216 in all.
  CHECK(pl.steps[0].async && pl.steps[1].async);
  CHECK_NEAR(c.lsu_cycles, 31216.0 * 64, 0);
  // One block per SM: LSU 31216 cycles = 1.58e-5 s beats issue, the
  // block's path and FP32.
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_SMEM);
  CHECK_REL(c.t[MG_COST_BOUND_SIMT], (491520.0 * 3 + 4096) / (128 * H_HZ));
  CHECK_REL(c.time_s, H_LAUNCH + 31216 / H_HZ);
  mg_program_destroy(p);
}

// The same with k = 128 runs on tensor cores (lib/lower/write/mma.c): 256
// m16n8k16 mma.sync per block in 32 warp-tile k-steps of 8, 8 per warp,
// each a shared load and an mma latency on the path (30 + 32 cycles); the
// 32 results per thread then stored (a conversion each, 4 cycles). LSU: 4
// ldmatrix.x4 of 4 cycles per step (512), the result stores 128, copies
// 2 x 128 (cp.async) + 128 (the saver): 1024 cycles.
static void test_cost_emitted_mma_matmul(void) {
  MgProgram *p = matmul_kernel(128);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 2, NULL, &pl));
  const MgLowerStep *mm = &pl.steps[2];
  CHECK(mm->mma);
  CHECK(mg_lower_uses_mma(&p->graphs[1], &p->graphs[1].ops[mm->op],
                          mg_target_lookup("sm_80")));
  MgTarget turing = *mg_target_lookup("sm_80"); // no such row: by hand
  turing.sm = 75;
  CHECK(!mg_lower_uses_mma(&p->graphs[1], &p->graphs[1].ops[mm->op],
                           &turing));
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &c));
  CHECK_NEAR(c.fma, 0, 0);
  CHECK_NEAR(c.tensor_flops, 2.0 * 64 * 64 * 128 * 64, 0);
  CHECK_NEAR(c.lsu_cycles, 1024.0 * 64, 0);
  // Far below the FMA form's 31456 LSU cycles per block.
  CHECK(c.time_s < H_LAUNCH + 31456 / H_HZ / 4);
  mg_program_destroy(p);
}

// Row sums of X (64, 8192) f32: a block per row, 128 threads, the columns
// over F = 64 iterations of (1,128) tiles, a sum_last accumulator.
static MgProgram *loop_sum_kernel(void) {
  return one_block_kernel(MG_DTYPE_F32, 64, 8192, 64, 128, 64, 1, true);
}

// A pipelined for-loop bound by its per-iteration compute: the stages
// ahead in flight (cp.async) while one warp reduces the row's 128 terms (4
// per lane, a butterfly of 5 shuffles) and the stage's barrier takes its
// share.
static void test_cost_emitted_pipelined_loop(void) {
  MgProgram *p = loop_sum_kernel();
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK(pl.pipelined);
  CHECK_EQ_INT(pl.forloop, 64);
  // A stage is one (1,128) f32 tile, 512 B: 15 stages ahead would hold
  // 7.5 KiB of the 16 KiB asked (emit.c), so the cap of 16 stages decides.
  CHECK_EQ_INT(pl.stages, 16);
  CHECK_EQ_INT(pl.smem_bytes, 16 * 512 + 4 * 4 + 4 * 4);
  CHECK(pl.steps[0].async);
  CHECK_EQ_INT(pl.steps[0].phase, MG_LOWER_PHASE_LOOP);
  CHECK_EQ_INT(pl.steps[1].terms, 128);
  CHECK_EQ_INT(pl.steps[1].warps, 1); // in the loop: one warp per result
  // None before (each iteration opens with one, after its stage arrives;
  // the next stage is fetched after it, so none ends the iteration); one
  // after the loop for the ops that read the accumulator.
  CHECK_EQ_INT(pl.barriers_before, 0);
  CHECK_EQ_INT(pl.barriers_per_iteration, 1);
  CHECK_EQ_INT(pl.barriers_after, 1);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  // One iteration: compute C = 4 lane terms x 30 (shared loads, f32: no
  // conversion) + 4 (the last add) + 5 x (30 + 4) (butterfly) + 30 + 4
  // (lane 0 adds into the accumulator) = 328; barrier B = 20; the stage's
  // latency L = 480 (X streamed once). max(C + B, (L + B) / (S - 1)) =
  // max(348, 500 / 15) = 348: the loads are hidden. Before the loop the
  // first stage, 480; after it the barrier, 20, and the saver's one shared
  // load, 30. (Two stages would give max(348, 500): one latency each.)
  double path = 480 + 64 * 348.0 + 20 + 30;
  CHECK_REL(c.block_s, path / H_HZ);
  CHECK_REL(c.path_barrier_s, (64 * 20.0 + 20) / H_HZ);
  CHECK_REL(c.path_memory_s, 480 / H_HZ);
  // 64 blocks: one per SM, one round; DRAM 2 MiB + 256 B = 7.4e-7 s.
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_LATENCY);
  CHECK_REL(c.time_s, H_LAUNCH + path / H_HZ);
  mg_program_destroy(p);
}

// Split-KV attention's first kernel (mg_sample_attention_split_kv: b 2,
// s 16, d 64, l 1024, 4 chunks, for-loop 2): grid (4, 2) of 128 threads;
// per iteration a 64x128 tile of K and a 128x64 tile of V, S = Q·K on
// tensor cores heading exp's chain, P·V on tensor cores into its sum
// accumulator, and the row sums of P (sum_last). Not pipelined: the K and
// V tiles twice would pass the 48 KiB of static shared memory.
static void test_cost_emitted_split_kv_attention(void) {
  MgProgram *p = mg_sample_attention_split_kv(2, 16, 64, 1024, 4, 2);
  CHECK(p != NULL);
  if (!p)
    return;
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 3, NULL, &pl));
  CHECK_EQ_INT(pl.grid[0], 4);
  CHECK_EQ_INT(pl.grid[1], 2);
  CHECK_EQ_INT(pl.threads, 128);
  CHECK_EQ_INT(pl.forloop, 2);
  CHECK(!pl.pipelined);
  CHECK_EQ_INT(pl.num_steps, 10);
  // The facts the numbers rest on: which results stay in registers, which
  // matmuls run on tensor cores, the row sums' one warp per row.
  CHECK(pl.steps[3].mma && pl.steps[3].registers);
  CHECK_EQ_INT(pl.steps[3].terms, 64);
  CHECK(!pl.steps[4].registers);
  CHECK(pl.steps[5].mma && pl.steps[5].registers);
  CHECK_EQ_INT(pl.steps[5].terms, 128);
  CHECK_EQ_INT(pl.steps[7].terms, 128);
  CHECK_EQ_INT(pl.steps[7].warps, 1);
  CHECK_EQ_INT(pl.barriers_before, 1);
  CHECK_EQ_INT(pl.barriers_per_iteration, 2);
  CHECK_EQ_INT(pl.barriers_after, 1);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 3, NULL, &c));
  // Before the loop: Q's tile (1024 halves, 128 vectors: one cp.async per
  // thread), read by the 4 blocks of its batch, once from DRAM: latency
  // 0.25 x 480 + 0.75 x 260 = 315; the accumulators' fills wait for
  // nothing; a barrier, 20: 335.
  // An iteration: K's and V's tiles, 1024 vectors each, by cp.async in two
  // batches (K before S = Q·K reads it, V before P·V), each one round trip
  // to DRAM (streamed once) with all 8 of a thread's copies in flight:
  // 2 x 480 (synchronous copies took 2 x 960: 4 loads per wait). S = Q·K:
  // 2048 results x 64 terms = 64 m16n8k16 mmas, 8 warp-tile k-steps over 4
  // warps: 2 x (30 + 32) = 124, its results left in registers for exp.
  // exp: 2048 elements, 16 per thread, each 6 dependent FP32 (24), the
  // SFU (20) and its conversion for the f16 store (4), 48; the loop is
  // unrolled and a thread's elements overlap 4 at a time: 4 x 48 = 192
  // (one after the other, 768). P·V: 1024 x
  // 128 = 64 mmas again, 124, then 8 results per thread added into the
  // accumulator (a shared load and an add, 34): 396. The row sums: 16
  // rows, one warp each, 4 warps in turn (4 rounds); a lane's 4 terms, a
  // shared load and a conversion each (4 x 34), the last add (4), 5
  // shuffle stages (5 x 34), the accumulator's load and add (34): 344 a
  // round, 1376. Two barriers, 40: 3088 an iteration, 2 iterations.
  // After: the savers' shared loads and conversions, 8 x 34 for the
  // numerators and 34 for the sums, a barrier: 326.
  CHECK_EQ_INT(pl.async_batches, 2);
  double path = 335 + 2 * 3088.0 + 326;
  CHECK_REL(c.block_s, path / H_HZ);
  CHECK_REL(c.path_memory_s, (315 + 2 * 960.0) / H_HZ);
  CHECK_REL(c.path_barrier_s, (1 + 2 * 2 + 1) * 20.0 / H_HZ);
  // Residency by shared memory: 228 KiB / (46672 B + 1 KiB reserved) = 4;
  // 8 blocks on 132 SMs, one round; per SM one block with one batch in
  // flight: 128 threads x 8 copies of 16 bytes.
  CHECK_EQ_INT(pl.smem_bytes, 46672);
  CHECK_EQ_INT(c.resident, 4);
  CHECK_EQ_INT(c.limit, 's');
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_NEAR(c.inflight_bytes, 128 * 8 * 16, 0);
  // Q, K and V once from DRAM and the partial numerators and sums once to
  // it; 2 x 64 mmas per block and iteration on tensor cores.
  CHECK_NEAR(c.dram_bytes, 2 * 16 * 64 * 2 + 2 * 2 * 64 * 1024 * 2.0 +
                               2 * 64 * 64 * 2 + 2 * 64 * 2, 0);
  CHECK_NEAR(c.tensor_flops, 8 * 2 * (2.0 * 2048 * 64 + 2.0 * 1024 * 128), 0);
  // A few microseconds of latency with 8 blocks: the kernel is bound by
  // its critical path, far from its 0.55 MB of DRAM traffic (0.19 us).
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_LATENCY);
  CHECK_REL(c.time_s, H_LAUNCH + path / H_HZ);
  mg_program_destroy(p);
}

// A predefined exp over (1024,1024) f16: the grid-stride kernel of 4096
// blocks of 256 threads, one element per thread: a DRAM round trip (480),
// __nv_expf's chain (6 FP32 + 1 SFU = 44) and two conversions (8): 532
// cycles. Resident 65536/(64*256) = 4 blocks per SM; the busiest SM runs
// ceil(4096/132) = 32 blocks: 8 rounds, 4256 cycles = 2.15e-6 s, above
// DRAM 4194304 B / 2.8475e12 = 1.47e-6 s.
// RMSNorm's kernel-level GEMV: A (2, 4096) · B (4096, 6144) f16
// (gemv.c). 768 column groups of 8: 8 per block would be 96 blocks, so 4:
// 192 blocks of 128 threads, each thread 128 rows of B. Its ring: 4
// stages of 8 rows would take 64 KiB, so 4 stages of 4 rows (4 x 4 x 128
// x 16 B = 32 KiB): 32 groups, no rows one at a time.
static void test_cost_emitted_gemv(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F16, 2, 4096, 6144);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 2, NULL, &pl));
  CHECK_EQ_INT(pl.form, MG_LOWER_FORM_GEMV);
  CHECK_EQ_INT(pl.grid[0], 192);
  CHECK_EQ_INT(pl.threads, 128);
  CHECK_EQ_INT(pl.unroll, 4);
  CHECK_EQ_INT(pl.stages, 4);
  CHECK_EQ_INT(pl.vector, 8);
  // Warps x rows x cols f32 partial sums, and the ring.
  CHECK_EQ_INT(pl.smem_bytes, 4 * 2 * 32 * 4 + 4 * 4 * 128 * 16);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &c));
  // Resident 6, by shared memory: 228 KiB / (33 KiB + 1 KiB reserved);
  // the busiest SM runs ceil(192 / 132) = 2 blocks: one round, each with
  // 4 stages x 4 rows x 16 B x 128 threads in flight at a wait.
  CHECK_EQ_INT(c.resident, 6);
  CHECK_EQ_INT(c.limit, 's');
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_NEAR(c.inflight_bytes, 2 * 4 * 4 * 16 * 128, 0);
  // A thread: the prologue's first group, a DRAM round trip (480); then
  // 32 iterations of max(C, 480 / 3 = 160), C = A's scalars from L2 (260,
  // issued with the ring's shared reads), the conversion (4) and 4
  // dependent FMAs (16): 280, so 480 + 32 x 280 = 9440 cycles; the warp's
  // 8 slices meet in 3 shuffle stages (offsets 16, 8, 4: a shuffle 30 and
  // an add 4 each, 102), the shared store 30, the barrier 20; its 64
  // outputs' 4 warp sums (one per thread of the first 64): a shared load
  // (30) and 4 adds (16): 46. 9638 cycles, of which memory 480 + 32 x
  // (280 - 20).
  CHECK_REL(c.block_s, 9638 / H_HZ);
  CHECK_REL(c.path_memory_s, (480 + 32 * 260) / H_HZ);
  // B's 4096 x 6144 x 2 B dominate: DRAM-bound, as the roofline.
  CHECK_NEAR(c.dram_bytes, 2 * 4096 * 2 + 4096 * 6144 * 2 + 2 * 6144 * 2, 0);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, H_LAUNCH + c.dram_bytes / R_DRAM);
  mg_program_destroy(p);
}

// nn.Linear's projection at the 7B decoder's shapes: A (16, 4096) · Wᵀ,
// W (4096, 4096) f16 stored as is (an input layout): gemv.c's
// transposed-B form. 16 rows: two columns per warp (32 sums, partial
// accumulators 2 wide), 8 warps, 256 blocks of 256 threads; A staged 256
// columns (32 vectors of 8) at a time: 16 chunks, 16 x 256 halves of
// shared memory.
static void test_cost_emitted_gemv_dot(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId a = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(16, 4096), &d);
  MgTensorId b = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(4096, 4096), &d);
  const int8_t perm[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, b, perm, &d), MG_STATUS_OK);
  MgTensorId y = mg_graph_matmul(p, 0, a, b, &d);
  CHECK(y != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, y, &d), MG_STATUS_OK);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 2, NULL, &pl));
  CHECK_EQ_INT(pl.form, MG_LOWER_FORM_GEMV);
  CHECK_EQ_INT(pl.cols, 2);
  CHECK_EQ_INT(pl.acc_lanes, 2);
  CHECK_EQ_INT(pl.rows, 16);
  CHECK_EQ_INT(pl.grid[0], 256);
  CHECK_EQ_INT(pl.threads, 256);
  CHECK_EQ_INT(pl.forloop, 16);
  CHECK_EQ_INT(pl.barriers_per_iteration, 2);
  CHECK_EQ_INT(pl.smem_bytes, 16 * 256 * 2);
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &c));
  // A chunk: A's copy from L2 (260) and its shared store (30), a barrier
  // (20), W's vectors from DRAM (480), A's vectors from shared memory
  // (30), the conversion (4) and the 4 dependent 2-wide FMAs of a row and
  // column (16), a barrier (20): 860 cycles, 16 chunks. Then the partial
  // sums' reduction (one add, 4), 5 halving shuffle stages (30 + 4 each)
  // and a store (30): 13964 cycles.
  CHECK_REL(c.block_s, 13964 / H_HZ);
  CHECK_REL(c.path_memory_s, 16 * (260 + 480) / H_HZ);
  CHECK_REL(c.path_barrier_s, 16 * 2 * 20 / H_HZ);
  // Registers bound residency: 65536 / (64 x 256) = 4 blocks; the busiest
  // SM runs ceil(256 / 132) = 2: one round, 2 x 256 x 2 x 16 B in flight.
  CHECK_EQ_INT(c.resident, 4);
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_NEAR(c.inflight_bytes, 16384, 0);
  // W once from DRAM; every block reads A (128 KiB) from L2, the other
  // 255 blocks' reads on top of the roofline's traffic.
  double bytes_a = 16 * 4096 * 2, bytes_w = 4096.0 * 4096 * 2;
  CHECK_NEAR(c.dram_bytes, bytes_a + bytes_w + bytes_a, 0);
  CHECK_NEAR(c.l2_bytes, bytes_a + bytes_w + bytes_a + 255 * bytes_a, 0);
  // FP32 ops per thread: per chunk W's 2 vectors and A's 16 converted
  // (144) and 16 rows x 2 columns x 8 FMAs (256): 400, x 16 = 6400; the
  // partial sums' reduction (32 adds); the shuffle stages' 62 selects and
  // 31 adds: 6525; x 256 threads, and the 32 sums of each warp converted
  // once stored: 1670656 a block, 256 x 16 x 256 FMAs of them.
  CHECK_NEAR(c.fp32_ops, 1670656.0 * 256, 0);
  CHECK_NEAR(c.fma, 256.0 * 16 * 256 * 256, 0);
  CHECK(c.time_s > H_LAUNCH + c.dram_bytes / R_DRAM);
  mg_program_destroy(p);
}

static void test_cost_emitted_grid_exp(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(1024, 1024), &d);
  CHECK(mg_graph_unary(p, 0, MG_OP_EXP, x, &d) != MG_NO_ID);
  MgLowerKernelPlan pl;
  CHECK(mg_lower_kernel_plan(p, 1, NULL, &pl));
  CHECK_EQ_INT(pl.form, MG_LOWER_FORM_GRID);
  CHECK_EQ_INT(pl.grid[0], 4096);
  CHECK_EQ_INT(pl.threads, 256);
  CHECK(!mg_lower_kernel_plan(p, 0, NULL, &pl)); // an input: no kernel
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel(p, 1, NULL, &c));
  CHECK_EQ_INT(c.resident, 4);
  CHECK_EQ_INT(c.rounds, 8);
  CHECK_REL(c.block_s, 532 / H_HZ);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_LATENCY);
  CHECK_REL(c.time_s, H_LAUNCH + 8 * 532 / H_HZ);
  // Per element 8 + 2 FP32 ops, 1 SFU op.
  CHECK_NEAR(c.fp32_ops, 10.0 * 1048576, 0);
  CHECK_NEAR(c.sfu_ops, 1048576, 0);
  CHECK(!mg_cost_emitted_kernel(p, 0, NULL, &c)); // an input
  mg_program_destroy(p);
}

//===--- Facts from ptxas (facts.c, emitted.c) -----------------------------===//

// ptxas -v as CUDA 13.0's prints it for two kernels of module "f_gpu" and
// one of another module; the PTX's cp.async depth of the first.
static void test_cost_facts_parse(void) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'f_gpu_k2' for 'sm_90'\n"
      "ptxas info    : Function properties for f_gpu_k2\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 114 registers, used 1 barriers, 33792 bytes smem, "
      "400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'f_gpu_k3' for 'sm_90'\n"
      "ptxas info    : Function properties for f_gpu_k3\n"
      "    24 bytes stack frame, 16 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 0 barriers, 400 bytes cmem[0]\n"
      "ptxas info    : Compiling entry function 'g_gpu_k1' for 'sm_90'\n"
      "ptxas info    : Used 9 registers\n"
      "ptxas info    : Compiling entry function 'f_gpu_k9' for 'sm_90'\n"
      "ptxas info    : Used 7 registers\n";
  const char *ptx = ".visible .entry f_gpu_k2(\n\tcp.async.commit_group;\n"
                    "\tcp.async.wait_group \t3;\n\tcp.async.wait_group 0;\n"
                    "}\n.visible .entry f_gpu_k3(\n\tret;\n}\n";
  MgKernelFacts f[4];
  memset(f, 0, sizeof f);
  CHECK_EQ_INT(mg_cost_facts_parse(log, ptx, "f_gpu", f, 4), 2);
  CHECK(!f[0].known && !f[1].known); // k9 is beyond the 4 ops: ignored
  CHECK(f[2].known);
  CHECK_EQ_INT(f[2].registers, 114);
  CHECK_EQ_INT(f[2].smem_static, 33792);
  CHECK_EQ_INT(f[2].spill_stores, 0);
  CHECK_EQ_INT(f[2].async_wait, 3);
  CHECK(f[3].known);
  CHECK_EQ_INT(f[3].registers, 255);
  CHECK_EQ_INT(f[3].smem_static, 0); // no smem figure: none
  CHECK_EQ_INT(f[3].stack_bytes, 24);
  CHECK_EQ_INT(f[3].spill_stores, 16);
  CHECK_EQ_INT(f[3].spill_loads, 8);
  CHECK_EQ_INT(f[3].async_wait, -1);
  // No facts, or facts not known: the model as it is.
  MgProgram *p = matmul_program(MG_DTYPE_F16, 2, 4096, 6144);
  MgEmittedCost a, b;
  MgKernelFacts none = {false, 99, 0, 0, 0, 0, -1};
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &a));
  CHECK(mg_cost_emitted_kernel_facts(p, 2, NULL, &none, &b));
  CHECK(!b.facts);
  CHECK_EQ_INT(b.regs_thread, 64);
  CHECK_NEAR(a.time_s, b.time_s, 0);
  mg_program_destroy(p);
}

// The GEMV of test_cost_emitted_gemv (2 x 4096 · 4096 x 6144 f16: 192
// blocks of 128 threads, the ring 4 stages of 4 rows) as ptxas compiled
// it, given: 114 registers (the gated MLP's fused GEMV on sm_90), its
// 33792 bytes of static shared memory (2 rows x 32 columns x 4 warps of
// f32 partial sums, 1024, and the ring, 32768) and a PTX that waits with
// 1 group in flight (wait_group S - 1: 2 stages, not the plan's 4).
static void test_cost_facts_gemv(void) {
  MgProgram *p = matmul_program(MG_DTYPE_F16, 2, 4096, 6144);
  MgKernelFacts f[3] = {{0}, {0}, {true, 114, 33792, 0, 0, 0, 1}};
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel_facts(p, 2, NULL, &f[2], &c));
  CHECK(c.facts);
  CHECK_EQ_INT(c.regs_thread, 114);
  CHECK_EQ_INT(c.smem_bytes, 33792);
  CHECK_EQ_INT(c.stages, 2);
  // Residency: threads 2048 / 128 = 16; registers, allocated per 8:
  // 65536 / (120 x 128) = 4.27 -> 4; shared memory 233472 / (33792 +
  // 1024) = 6.7 -> 6; so 4, by registers (the model's guess of 64 said 6,
  // by shared memory). The busiest SM runs ceil(192 / 132) = 2: one
  // round, 2 blocks x 2 stages x 4 rows x 16 B x 128 threads in flight.
  CHECK_EQ_INT(c.resident, 4);
  CHECK_EQ_INT(c.limit, 'r');
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_NEAR(c.inflight_bytes, 2 * 2 * 4 * 16 * 128, 0);
  // A thread: the first group, 480; 32 iterations of max(C = 280,
  // 480 / (2 - 1) = 480): the load latency is no longer hidden: 480 + 32
  // x 480 = 15840; then the warp's 3 shuffle stages (102), the store (30),
  // the barrier (20), the 4 warp sums (46): 16038 cycles (the 4 stages'
  // 9638), of which memory 480 + 32 x (480 - 20).
  CHECK_REL(c.block_s, 16038 / H_HZ);
  CHECK_REL(c.path_memory_s, (480 + 32 * 460.0) / H_HZ);
  // 8.1 us of path, one round, under B's 17.7 us of DRAM: the estimate
  // stays DRAM-bound, as without the facts.
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_DRAM);
  CHECK_REL(c.time_s, H_LAUNCH + c.dram_bytes / R_DRAM);
  // The program: the inputs are no kernels; its one kernel, the same.
  CHECK_REL(mg_cost_emitted_program_facts(p, NULL, f), c.time_s);
  mg_program_destroy(p);
}

// The transposed-B GEMV of test_cost_emitted_gemv_dot (16 x 4096 · Wᵀ,
// 256 blocks of 256 threads, 13964 cycles a block) with 168 registers:
// 65536 / (168 x 256) = 1.5 -> 1 block per SM where the guess of 64 gave
// 4. The busiest SM's 2 blocks now take 2 rounds: 2 x 13964 cycles =
// 14.10 us, above its L2 time (67239936 B / 4.9e12 = 13.72 us) and its
// FP32 time (2 x 1670656 / (128 x 1.98e9) = 13.18 us): latency-bound.
static void test_cost_facts_gemv_dot(void) {
  MgDiag d;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId a = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(16, 4096), &d);
  MgTensorId b = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(4096, 4096), &d);
  const int8_t perm[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(p, 0, b, perm, &d), MG_STATUS_OK);
  MgTensorId y = mg_graph_matmul(p, 0, a, b, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, y, &d), MG_STATUS_OK);
  MgKernelFacts f = {true, 168, 8192, 0, 0, 0, -1};
  MgEmittedCost c, guess;
  CHECK(mg_cost_emitted_kernel(p, 2, NULL, &guess));
  CHECK(mg_cost_emitted_kernel_facts(p, 2, NULL, &f, &c));
  CHECK_EQ_INT(guess.resident, 4);
  CHECK_EQ_INT(c.resident, 1);
  CHECK_EQ_INT(c.limit, 'r');
  CHECK_EQ_INT(c.rounds, 2);
  CHECK_REL(c.block_s, 13964 / H_HZ);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_LATENCY);
  CHECK_REL(c.time_s, H_LAUNCH + 2 * 13964 / H_HZ);
  CHECK(c.time_s > guess.time_s);
  mg_program_destroy(p);
}

// Split-KV attention's partials kernel (test_cost_emitted_split_kv_attention:
// 8 blocks of 128 threads, 46672 B of shared memory, not pipelined) as
// ptxas compiled it, given: 168 registers, 46672 B static. Residency:
// 65536 / (168 x 128) = 3.05 -> 3, by registers (shared memory allows 4).
// 8 blocks on 132 SMs: still one round, the path unchanged: 335 + 2 x
// 3664 + 326 = 7989 cycles. Then a hypothetical 12 registers: its tiles
// move by cp.async, which holds nothing in registers, so all 8 of a
// thread's copies of a batch stay in flight and the path is the same (a
// synchronous copy would keep 48 bytes, 3 loads, in flight).
static void test_cost_facts_attention(void) {
  MgProgram *p = mg_sample_attention_split_kv(2, 16, 64, 1024, 4, 2);
  CHECK(p != NULL);
  if (!p)
    return;
  MgKernelFacts f = {true, 168, 46672, 0, 0, 0, -1};
  MgEmittedCost c;
  CHECK(mg_cost_emitted_kernel_facts(p, 3, NULL, &f, &c));
  CHECK_EQ_INT(c.resident, 3);
  CHECK_EQ_INT(c.limit, 'r');
  CHECK_EQ_INT(c.rounds, 1);
  CHECK_EQ_INT(c.stages, 0);
  double path = 335 + 2 * 3088.0 + 326;
  CHECK_REL(c.block_s, path / H_HZ);
  CHECK_EQ_INT(c.bound, MG_COST_BOUND_LATENCY);
  CHECK_REL(c.time_s, H_LAUNCH + path / H_HZ);
  // 12 registers: registers allow 65536 / (16 x 128) = 32, threads 16,
  // shared memory 4: 4, by shared memory.
  MgKernelFacts few = {true, 12, 46672, 0, 0, 0, -1};
  CHECK(mg_cost_emitted_kernel_facts(p, 3, NULL, &few, &c));
  CHECK_EQ_INT(c.resident, 4);
  CHECK_EQ_INT(c.limit, 's');
  CHECK_REL(c.block_s, path / H_HZ);
  CHECK_REL(c.path_memory_s, (315 + 2 * 960.0) / H_HZ);
  CHECK_NEAR(c.inflight_bytes, 128 * 8 * 16, 0);
  CHECK_REL(c.time_s, H_LAUNCH + path / H_HZ);
  mg_program_destroy(p);
}

int main(void) {
  RUN_TEST(test_cost_gpu_and_names);
  RUN_TEST(test_cost_predefined_matmul_f16);
  RUN_TEST(test_cost_predefined_matmul_f32);
  RUN_TEST(test_cost_predefined_exp);
  RUN_TEST(test_cost_custom_row_sum);
  RUN_TEST(test_cost_thread_op);
  RUN_TEST(test_cost_custom_tiled_matmul);
  RUN_TEST(test_cost_program_sum);
  RUN_TEST(test_cost_lower_bound_formula);
  RUN_TEST(test_cost_lower_bound_samples);
  RUN_TEST(test_cost_free_reshape);
  RUN_TEST(test_cost_transpose);
  RUN_TEST(test_cost_slice_concat);
  RUN_TEST(test_cost_views_match_lowering);
  RUN_TEST(test_cost_emitted_copy);
  RUN_TEST(test_cost_emitted_stored_order);
  RUN_TEST(test_cost_emitted_fma_matmul);
  RUN_TEST(test_cost_emitted_mma_matmul);
  RUN_TEST(test_cost_emitted_pipelined_loop);
  RUN_TEST(test_cost_emitted_grid_exp);
  RUN_TEST(test_cost_emitted_gemv);
  RUN_TEST(test_cost_emitted_gemv_dot);
  RUN_TEST(test_cost_emitted_split_kv_attention);
  RUN_TEST(test_cost_facts_parse);
  RUN_TEST(test_cost_facts_gemv);
  RUN_TEST(test_cost_facts_gemv_dot);
  RUN_TEST(test_cost_facts_attention);
  return TEST_SUMMARY();
}
