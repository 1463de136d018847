//===- test_graph.c - Unit tests for lib/graph ----------------------------===//
//
// Builders accept and reject each rule (messages checked by substring),
// clones are equal and hash equal, one changed attribute changes the hash,
// and validation catches each invariant when a valid program is corrupted
// by hand. The fused RMSNorm kernel from the paper is the running example.
//
//===----------------------------------------------------------------------===//
#include "mirage/graph.h"
#include "mirage/samples.h"
#include "test.h"

#include <string.h>

#define NONE MG_MAP_NONE

// Checks that `diag` mentions `sub`; prints the message when it does not.
#define CHECK_MSG(diag, sub)                                                   \
  do {                                                                         \
    bool found_ = strstr((diag).message, (sub)) != NULL;                       \
    CHECK(found_);                                                             \
    if (!found_)                                                               \
      fprintf(stderr, "  message was: \"%s\"\n  expected: \"%s\"\n",           \
              (diag).message, (sub));                                          \
  } while (0)

static const int64_t *dims2(int64_t a, int64_t b) {
  static int64_t d[4][2];
  static int k;
  k = (k + 1) % 4; // a few calls may be live in one expression
  d[k][0] = a;
  d[k][1] = b;
  return d[k];
}

static const MgTensor *tensor(const MgProgram *p, MgGraphId g, MgTensorId t) {
  return &p->graphs[g].tensors[t];
}

static bool has_dims2(const MgProgram *p, MgGraphId g, MgTensorId t, int64_t a,
                      int64_t b) {
  const MgTensor *x = tensor(p, g, t);
  return x->rank == 2 && x->dims[0] == a && x->dims[1] == b;
}

//===--- The paper's RMSNorm + matmul as one custom kernel ----------------===//

typedef struct Rms {
  MgProgram *p;
  MgGraphId k, b;
  MgTensorId xt, wt, mm, acc, ss, ms, rms, y, out; // block tensors
  MgOpId custom;
  MgTensorId Y;
} Rms;

// X(2,4096), W(4096,6144), grid (256,1,1), F = 32.
static Rms build_rmsnorm(void) {
  Rms r;
  MgDiag d;
  r.p = mg_program_create();
  r.k = mg_program_add_graph(r.p, MG_LEVEL_KERNEL);
  r.b = mg_program_add_graph(r.p, MG_LEVEL_BLOCK);
  MgTensorId X =
      mg_graph_add_input(r.p, r.k, MG_DTYPE_F16, 2, dims2(2, 4096), &d);
  MgTensorId W =
      mg_graph_add_input(r.p, r.k, MG_DTYPE_F16, 2, dims2(4096, 6144), &d);
  const int32_t grid[3] = {256, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(r.p, r.b, grid, 128, 32, &d), MG_STATUS_OK);
  MgTensorId bx =
      mg_graph_add_input(r.p, r.b, MG_DTYPE_F16, 2, dims2(2, 4096), &d);
  MgTensorId bw =
      mg_graph_add_input(r.p, r.b, MG_DTYPE_F16, 2, dims2(4096, 6144), &d);
  const int8_t rep[3] = {NONE, NONE, NONE}, x_to_1[3] = {1, NONE, NONE};
  r.xt = mg_graph_iterator(r.p, r.b, bx, rep, 1, &d);
  r.wt = mg_graph_iterator(r.p, r.b, bw, x_to_1, 0, &d);
  r.mm = mg_graph_matmul(r.p, r.b, r.xt, r.wt, &d);
  r.acc = mg_graph_accum(r.p, r.b, r.mm, MG_ACCUM_SUM, &d);
  r.ss = mg_graph_accum(r.p, r.b, r.xt, MG_ACCUM_SUM_SQ_LAST, &d);
  r.ms = mg_graph_scalar(r.p, r.b, MG_OP_DIV_SCALAR, r.ss, 4096.0, &d);
  r.rms = mg_graph_unary(r.p, r.b, MG_OP_SQRT, r.ms, &d);
  r.y = mg_graph_binary(r.p, r.b, MG_OP_DIV, r.acc, r.rms, &d);
  r.out = mg_graph_saver(r.p, r.b, r.y, x_to_1, &d);
  CHECK_EQ_INT(mg_graph_mark_output(r.p, r.b, r.out, &d), MG_STATUS_OK);
  MgTensorId ins[2] = {X, W};
  r.custom = mg_graph_custom(r.p, r.k, (MgCall){r.b, 2, ins}, &r.Y, &d);
  CHECK(r.custom != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(r.p, r.k, r.Y, &d), MG_STATUS_OK);
  return r;
}

static void test_graph_rmsnorm_shapes(void) {
  Rms r = build_rmsnorm();
  MgProgram *p = r.p;
  CHECK(has_dims2(p, r.b, r.xt, 2, 128));
  CHECK(has_dims2(p, r.b, r.wt, 128, 24));
  CHECK(has_dims2(p, r.b, r.mm, 2, 24));
  CHECK(has_dims2(p, r.b, r.acc, 2, 24));
  CHECK(has_dims2(p, r.b, r.ss, 2, 1));
  CHECK(has_dims2(p, r.b, r.y, 2, 24));
  CHECK(has_dims2(p, r.b, r.out, 2, 6144));
  CHECK(has_dims2(p, r.k, r.Y, 2, 6144));
  CHECK_EQ_INT(p->graphs[r.k].ops[r.custom].num_outputs, 1);
  CHECK_EQ_INT(tensor(p, r.k, r.Y)->dtype, MG_DTYPE_F16);
  CHECK_EQ_INT(p->graphs[r.b].num_inputs, 2);
  CHECK_EQ_INT(p->graphs[r.b].ops[1].attr, 1); // input positions
  MgDiag d;
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  mg_program_destroy(p);
}

static void test_graph_smem_rmsnorm(void) {
  Rms r = build_rmsnorm();
  // xt 2*128 + wt 128*24 + mm, acc, y 2*24 each + ss, ms, rms 2 each, f16.
  int64_t expect = 2 * (256 + 3072 + 3 * 48 + 3 * 2);
  CHECK_EQ_INT(mg_graph_smem_bytes(r.p, r.b), expect);
  CHECK_EQ_INT(expect, 6956);
  CHECK_EQ_INT(mg_graph_smem_bytes(r.p, r.k), 0); // kernel graphs keep none
  CHECK_EQ_INT(mg_graph_smem_bytes(r.p, 99), 0);
  MgTarget tiny = *mg_target_default();
  tiny.smem_bytes = 6955;
  MgDiag d;
  CHECK_EQ_INT(mg_program_validate(r.p, &tiny, &d), MG_STATUS_INVALID);
  CHECK_MSG(d, "needs 6956 bytes of shared memory");
  CHECK_EQ_INT(d.graph, (int)r.b);
  tiny.smem_bytes = 6956;
  CHECK_EQ_INT(mg_program_validate(r.p, &tiny, &d), MG_STATUS_OK);
  mg_program_destroy(r.p);
}

static void test_graph_op_in_loop(void) {
  Rms r = build_rmsnorm();
  const MgGraph *b = &r.p->graphs[r.b];
  // ops: 0,1 input; 2,3 iterator; 4 matmul; 5,6 accum; 7 div_scalar;
  // 8 sqrt; 9 div; 10 saver.
  bool expect[11] = {false, false, true, true, true, true, true,
                     false, false, false, false};
  CHECK_EQ_INT(b->num_ops, 11);
  for (MgOpId i = 0; i < 11; i++)
    CHECK_EQ_INT(mg_graph_op_in_loop(r.p, r.b, i), expect[i]);
  CHECK(!mg_graph_op_in_loop(r.p, r.k, r.custom)); // kernel graph
  CHECK(!mg_graph_op_in_loop(r.p, r.b, 99));
  mg_program_destroy(r.p);
}

//===--- Op metadata ------------------------------------------------------===//

static void test_graph_op_info_names(void) {
  for (int k = 0; k < MG_OP_COUNT; k++) {
    const char *n = mg_op_kind_name((MgOpKind)k);
    CHECK(n != NULL);
    CHECK_EQ_INT(mg_op_kind_from_name(n, strlen(n)), k);
  }
  CHECK(strcmp(mg_op_kind_name(MG_OP_DIV_SCALAR), "div_scalar") == 0);
  CHECK(strcmp(mg_op_kind_name(MG_OP_THREAD), "thread") == 0);
  CHECK(mg_op_kind_name(MG_OP_COUNT) == NULL);
  CHECK_EQ_INT(mg_op_kind_from_name("matmulx", 7), MG_OP_COUNT);
  CHECK_EQ_INT(mg_op_kind_from_name("matmulx", 6), MG_OP_MATMUL);
  CHECK_EQ_INT(mg_op_kind_from_name(NULL, 0), MG_OP_COUNT);
  for (int k = 0; k < MG_ACCUM_COUNT; k++) {
    const char *n = mg_accum_kind_name((MgAccumKind)k);
    CHECK_EQ_INT(mg_accum_kind_from_name(n, strlen(n)), k);
  }
  CHECK(strcmp(mg_accum_kind_name(MG_ACCUM_SUM_SQ_LAST), "sum_sq_last") == 0);
  CHECK_EQ_INT(mg_dtype_from_name("bf16", 4), MG_DTYPE_BF16);
  CHECK_EQ_INT(mg_dtype_from_name("f64", 3), MG_DTYPE_COUNT);
  CHECK_EQ_INT(mg_dtype_bytes(MG_DTYPE_F16), 2);
  CHECK_EQ_INT(mg_dtype_bytes(MG_DTYPE_F32), 4);
  CHECK_EQ_INT(mg_dtype_bytes(MG_DTYPE_COUNT), 0);
  CHECK_EQ_INT(mg_level_from_name("block", 5), MG_LEVEL_BLOCK);
  CHECK(strcmp(mg_level_name(MG_LEVEL_THREAD), "thread") == 0);
  CHECK(mg_level_name(MG_LEVEL_COUNT) == NULL);
}

static void test_graph_op_info_properties(void) {
  CHECK(mg_op_kind_is_elementwise(MG_OP_ADD));
  CHECK(mg_op_kind_is_elementwise(MG_OP_MUL_SCALAR));
  CHECK(mg_op_kind_is_elementwise(MG_OP_RELU));
  CHECK(!mg_op_kind_is_elementwise(MG_OP_MATMUL));
  CHECK(!mg_op_kind_is_elementwise(MG_OP_SUM));
  CHECK(mg_op_kind_is_lax(MG_OP_EXP));
  CHECK(mg_op_kind_is_lax(MG_OP_DIV));
  CHECK(mg_op_kind_is_lax(MG_OP_ACCUM));
  CHECK(!mg_op_kind_is_lax(MG_OP_SQRT));
  CHECK(!mg_op_kind_is_lax(MG_OP_SILU));
  CHECK(!mg_op_kind_is_lax(MG_OP_COUNT));
  CHECK(mg_op_kind_allowed_at(MG_OP_CUSTOM, MG_LEVEL_KERNEL));
  CHECK(!mg_op_kind_allowed_at(MG_OP_CUSTOM, MG_LEVEL_BLOCK));
  CHECK(!mg_op_kind_allowed_at(MG_OP_ITERATOR, MG_LEVEL_KERNEL));
  CHECK(mg_op_kind_allowed_at(MG_OP_CONCAT, MG_LEVEL_KERNEL));
  CHECK(mg_op_kind_allowed_at(MG_OP_TRANSPOSE, MG_LEVEL_KERNEL));
  CHECK(!mg_op_kind_allowed_at(MG_OP_TRANSPOSE, MG_LEVEL_BLOCK));
  CHECK(!mg_op_kind_allowed_at(MG_OP_SLICE, MG_LEVEL_THREAD));
  CHECK(mg_op_kind_allowed_at(MG_OP_CONCAT, MG_LEVEL_BLOCK));
  CHECK(mg_op_kind_allowed_at(MG_OP_THREAD, MG_LEVEL_BLOCK));
  CHECK(mg_op_kind_allowed_at(MG_OP_SILU, MG_LEVEL_THREAD));
  CHECK(mg_op_kind_allowed_at(MG_OP_DIV_SCALAR, MG_LEVEL_THREAD));
  CHECK(!mg_op_kind_allowed_at(MG_OP_MATMUL, MG_LEVEL_THREAD));
  CHECK(!mg_op_kind_allowed_at(MG_OP_SUM, MG_LEVEL_THREAD));
  CHECK(mg_op_kind_allowed_at(MG_OP_INPUT, MG_LEVEL_THREAD));
  CHECK(!mg_op_kind_allowed_at(MG_OP_ADD, MG_LEVEL_COUNT));
}

static void test_graph_targets(void) {
  const MgTarget *t = mg_target_default();
  CHECK(strcmp(t->name, "sm_90") == 0);
  CHECK_EQ_INT(t->smem_bytes, 232448);
  CHECK(mg_target_lookup("sm_90") == t);
  CHECK_EQ_INT(mg_target_lookup("sm_80")->smem_bytes, 166912);
  CHECK_EQ_INT(mg_target_lookup("sm_86")->smem_bytes, 101376);
  CHECK_EQ_INT(mg_target_lookup("sm_89")->smem_bytes, 101376);
  CHECK_EQ_INT(mg_target_lookup("sm_80")->max_threads, 1024);
  CHECK_EQ_INT(t->max_grid[0], 2147483647);
  CHECK_EQ_INT(t->max_grid[1], 65535);
  CHECK(mg_target_lookup("sm_70") == NULL);
  CHECK(mg_target_lookup(NULL) == NULL);
  // The compute capability the lowering reads is the one its name and its
  // GPU's figures state.
  CHECK_EQ_INT(t->sm, 90);
  CHECK_EQ_INT(mg_target_lookup("sm_86")->sm, 86);
  for (size_t i = 0; i < mg_target_count(); i++)
    CHECK_EQ_INT(mg_target_at(i)->sm, mg_target_at(i)->gpu->sm);
}

//===--- Builders: kernel-level rules -------------------------------------===//

static void test_graph_input_rules(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgDiag d;
  int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(mg_graph_add_input(p, k, MG_DTYPE_F16, 0, nine, &d) == MG_NO_ID);
  CHECK_MSG(d, "rank 0, expected 1..8");
  CHECK(mg_graph_add_input(p, k, MG_DTYPE_F16, 9, nine, &d) == MG_NO_ID);
  CHECK_MSG(d, "rank 9");
  CHECK(mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(4, 0), &d) == MG_NO_ID);
  CHECK_MSG(d, "input dim 1 is 0, expected >= 1");
  CHECK(mg_graph_add_input(p, k, MG_DTYPE_COUNT, 2, dims2(4, 4), &d) ==
        MG_NO_ID);
  CHECK_MSG(d, "unknown dtype");
  CHECK(mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(1 << 30, 1 << 30),
                           &d) == MG_NO_ID);
  CHECK_MSG(d, "more than");
  CHECK(mg_graph_add_input(p, 5, MG_DTYPE_F16, 2, dims2(4, 4), &d) == MG_NO_ID);
  CHECK_MSG(d, "graph 5 does not exist");
  CHECK_EQ_INT(p->graphs[k].num_ops, 0); // rejections leave no trace
  MgTensorId a = mg_graph_add_input(p, k, MG_DTYPE_F32, 2, dims2(4, 8), &d);
  MgTensorId b = mg_graph_add_input(p, k, MG_DTYPE_F16, 1, dims2(3, 0), &d);
  CHECK_EQ_INT(a, 0);
  CHECK_EQ_INT(b, 1);
  CHECK_EQ_INT(p->graphs[k].ops[1].attr, 1);
  CHECK_EQ_INT(p->graphs[k].num_inputs, 2);
  CHECK_EQ_INT(tensor(p, k, b)->dims[1], 0); // dims past the rank are zero
  CHECK_EQ_INT(mg_program_add_graph(p, MG_LEVEL_COUNT), MG_NO_ID);
  mg_program_destroy(p);
}

static void test_graph_binary_rules(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgDiag d;
  MgTensorId col = mg_graph_add_input(p, k, MG_DTYPE_F32, 2, dims2(4, 1), &d);
  MgTensorId row = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(1, 8), &d);
  MgTensorId big = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(4, 6), &d);
  MgTensorId vec = mg_graph_add_input(p, k, MG_DTYPE_F16, 1, dims2(8, 0), &d);
  MgTensorId s = mg_graph_binary(p, k, MG_OP_ADD, col, row, &d);
  CHECK(has_dims2(p, k, s, 4, 8)); // both sides broadcast
  CHECK_EQ_INT(tensor(p, k, s)->dtype, MG_DTYPE_F32); // lhs dtype
  CHECK(has_dims2(p, k, mg_graph_binary(p, k, MG_OP_DIV, big, col, &d), 4, 6));
  uint32_t before = p->graphs[k].num_ops;
  CHECK(mg_graph_binary(p, k, MG_OP_MUL, big, row, &d) == MG_NO_ID);
  CHECK_MSG(d, "'mul' shape mismatch: 'lhs' dim 1 is 6 but 'rhs' dim 1 is 8");
  CHECK_EQ_INT(d.graph, (int)k);
  CHECK_EQ_INT(d.op, (int)before); // the index the op would have had
  CHECK(mg_graph_binary(p, k, MG_OP_SUB, big, vec, &d) == MG_NO_ID);
  CHECK_MSG(d, "'sub' rank mismatch: 'lhs' has rank 2 but 'rhs' has rank 1");
  CHECK(mg_graph_binary(p, k, MG_OP_EXP, big, big, &d) == MG_NO_ID);
  CHECK_MSG(d, "'exp' is not a binary op");
  CHECK(mg_graph_binary(p, k, MG_OP_ADD, big, 77, &d) == MG_NO_ID);
  CHECK_MSG(d, "'add' operand 'rhs' names tensor 77 but the graph has 6 "
               "tensors");
  CHECK_EQ_INT(p->graphs[k].num_ops, before);
  mg_program_destroy(p);
}

static void test_graph_matmul_rules(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgDiag d;
  int64_t a3[3] = {2, 3, 4}, b3[3] = {2, 4, 5}, c3[3] = {3, 4, 5};
  MgTensorId a = mg_graph_add_input(p, k, MG_DTYPE_F16, 3, a3, &d);
  MgTensorId b = mg_graph_add_input(p, k, MG_DTYPE_F16, 3, b3, &d);
  MgTensorId c = mg_graph_add_input(p, k, MG_DTYPE_F16, 3, c3, &d);
  MgTensorId m = mg_graph_matmul(p, k, a, b, &d);
  const MgTensor *t = tensor(p, k, m);
  CHECK(t->rank == 3 && t->dims[0] == 2 && t->dims[1] == 3 && t->dims[2] == 5);
  CHECK(mg_graph_matmul(p, k, a, c, &d) == MG_NO_ID);
  CHECK_MSG(d, "matmul batch mismatch: 'lhs' dim 0 is 2 but 'rhs' dim 0 is 3");
  MgTensorId x = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(8, 64), &d);
  MgTensorId w = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(32, 16), &d);
  MgTensorId v = mg_graph_add_input(p, k, MG_DTYPE_F16, 1, dims2(64, 0), &d);
  CHECK(mg_graph_matmul(p, k, x, w, &d) == MG_NO_ID);
  CHECK_MSG(d, "matmul contraction mismatch: 'lhs' dim 1 is 64 but 'rhs' dim "
               "0 is 32");
  CHECK(mg_graph_matmul(p, k, x, v, &d) == MG_NO_ID);
  CHECK_MSG(d, "matmul needs rank >= 2 but 'rhs' has rank 1");
  CHECK(mg_graph_matmul(p, k, x, a, &d) == MG_NO_ID);
  CHECK_MSG(d, "matmul rank mismatch");
  mg_program_destroy(p);
}

static void test_graph_unary_scalar_sum(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgDiag d;
  MgTensorId x = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(8, 64), &d);
  CHECK(has_dims2(p, k, mg_graph_unary(p, k, MG_OP_SILU, x, &d), 8, 64));
  CHECK(mg_graph_unary(p, k, MG_OP_ADD, x, &d) == MG_NO_ID);
  CHECK_MSG(d, "'add' is not a unary op");
  MgTensorId s = mg_graph_scalar(p, k, MG_OP_MUL_SCALAR, x, 0.5, &d);
  CHECK(has_dims2(p, k, s, 8, 64));
  CHECK(p->graphs[k].ops[p->graphs[k].num_ops - 1].scalar == 0.5);
  CHECK(mg_graph_scalar(p, k, MG_OP_DIV_SCALAR, x, 0.0, &d) == MG_NO_ID);
  CHECK_MSG(d, "divides by zero");
  CHECK(mg_graph_scalar(p, k, MG_OP_MUL_SCALAR, x, 1.0 / 0.0, &d) == MG_NO_ID);
  CHECK_MSG(d, "scalar must be finite");
  CHECK(mg_graph_scalar(p, k, MG_OP_EXP, x, 1.0, &d) == MG_NO_ID);
  CHECK_MSG(d, "not a scalar op");
  CHECK(has_dims2(p, k, mg_graph_sum(p, k, x, 1, &d), 8, 1));
  CHECK(has_dims2(p, k, mg_graph_sum(p, k, x, 0, &d), 1, 64));
  CHECK(mg_graph_sum(p, k, x, 2, &d) == MG_NO_ID);
  CHECK_MSG(d, "sum dim 2 is out of range for rank 2");
  CHECK(mg_graph_sum(p, k, x, -1, &d) == MG_NO_ID);
  CHECK_MSG(d, "sum dim -1");
  // Block-level ops are not kernel ops.
  const int8_t rep[3] = {NONE, NONE, NONE};
  CHECK(mg_graph_iterator(p, k, x, rep, NONE, &d) == MG_NO_ID);
  CHECK_MSG(d, "'iterator' is not allowed in a kernel graph");
  // The generic builder rejects INPUT (inputs carry a type).
  MgOp op;
  memset(&op, 0, sizeof op);
  op.kind = MG_OP_INPUT;
  CHECK(mg_graph_add_op(p, k, &op, NULL, &d) == MG_NO_ID);
  CHECK_MSG(d, "mg_graph_add_input");
  op.kind = MG_OP_COUNT;
  CHECK(mg_graph_add_op(p, k, &op, NULL, &d) == MG_NO_ID);
  CHECK_MSG(d, "unknown op kind");
  op.kind = MG_OP_EXP;
  op.num_inputs = 2;
  op.inputs[0] = op.inputs[1] = x;
  CHECK(mg_graph_add_op(p, k, &op, NULL, &d) == MG_NO_ID);
  CHECK_MSG(d, "'exp' takes 1 operands but got 2");
  mg_program_destroy(p);
}

//===--- Builders: block-level rules --------------------------------------===//

typedef struct Blk {
  MgProgram *p;
  MgGraphId b;
  MgTensorId in; // block input (64,32) f16
} Blk;

static Blk block(int32_t gx, int32_t gy, int32_t forloop) {
  Blk s;
  MgDiag d;
  s.p = mg_program_create();
  mg_program_add_graph(s.p, MG_LEVEL_KERNEL);
  s.b = mg_program_add_graph(s.p, MG_LEVEL_BLOCK);
  const int32_t grid[3] = {gx, gy, 1};
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 128, forloop, &d),
               MG_STATUS_OK);
  s.in = mg_graph_add_input(s.p, s.b, MG_DTYPE_F16, 2, dims2(64, 32), &d);
  return s;
}

static void test_graph_iterator_rules(void) {
  Blk s = block(4, 2, 4);
  MgDiag d;
  const int8_t xy[3] = {0, 1, NONE}, xx[3] = {0, 0, NONE};
  const int8_t yx[3] = {1, 0, NONE}, bad[3] = {2, NONE, NONE};
  const int8_t rep[3] = {NONE, NONE, NONE};
  CHECK(has_dims2(s.p, s.b, mg_graph_iterator(s.p, s.b, s.in, xy, NONE, &d),
                  16, 16));
  CHECK(has_dims2(s.p, s.b, mg_graph_iterator(s.p, s.b, s.in, xy, 1, &d), 16,
                  4)); // fmap cuts the tile, not the tensor
  CHECK(has_dims2(s.p, s.b, mg_graph_iterator(s.p, s.b, s.in, rep, 0, &d), 16,
                  32)); // replicas along x and y
  CHECK(mg_graph_iterator(s.p, s.b, s.in, xx, NONE, &d) == MG_NO_ID);
  CHECK_MSG(d, "imap axes 'x' and 'y' both map to dim 0");
  CHECK(mg_graph_iterator(s.p, s.b, s.in, bad, NONE, &d) == MG_NO_ID);
  CHECK_MSG(d, "imap axis 'x' names dim 2 but the input has rank 2");
  CHECK(mg_graph_iterator(s.p, s.b, s.in, xy, 3, &d) == MG_NO_ID);
  CHECK_MSG(d, "fmap names dim 3");
  // yx: dim 1 (32) / 4 = 8, dim 0 (64) / 2 = 32; fmap dim 1: 8 / 4 = 2.
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, yx, 1, &d);
  CHECK(has_dims2(s.p, s.b, t, 32, 2));
  // An iterator reads block inputs only.
  CHECK(mg_graph_iterator(s.p, s.b, t, rep, NONE, &d) == MG_NO_ID);
  CHECK_MSG(d, "iterator input must be a block-graph input");
  mg_program_destroy(s.p);

  s = block(3, 1, 1); // 3 does not divide 64
  const int8_t x0[3] = {0, NONE, NONE};
  CHECK(mg_graph_iterator(s.p, s.b, s.in, x0, NONE, &d) == MG_NO_ID);
  CHECK_MSG(d, "imap axis 'x' of size 3 does not divide dim 0 of size 64");
  mg_program_destroy(s.p);

  s = block(1, 1, 5); // 5 does not divide 32
  CHECK(mg_graph_iterator(s.p, s.b, s.in, rep, 1, &d) == MG_NO_ID);
  CHECK_MSG(d, "for-loop range 5 does not divide tile dim 1 of size 32");
  mg_program_destroy(s.p);

  s = block(1, 1, 1); // fmap with F = 1 is a no-op cut
  CHECK(has_dims2(s.p, s.b, mg_graph_iterator(s.p, s.b, s.in, x0, 1, &d), 64,
                  32));
  mg_program_destroy(s.p);
}

static void test_graph_block_dram_rules(void) {
  Blk s = block(1, 1, 1);
  MgDiag d;
  const int8_t rep[3] = {NONE, NONE, NONE};
  CHECK(mg_graph_unary(s.p, s.b, MG_OP_EXP, s.in, &d) == MG_NO_ID);
  CHECK_MSG(d, "'exp' reads block-graph input tensor 0 directly");
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, rep, NONE, &d);
  MgTensorId o = mg_graph_saver(s.p, s.b, t, rep, &d);
  CHECK(has_dims2(s.p, s.b, o, 64, 32));
  CHECK(mg_graph_unary(s.p, s.b, MG_OP_EXP, o, &d) == MG_NO_ID);
  CHECK_MSG(d, "reads saver result tensor");
  // Custom ops live in kernel graphs only.
  CHECK(mg_graph_custom(s.p, s.b, (MgCall){s.b, 1, &t}, NULL, &d) == MG_NO_ID);
  CHECK_MSG(d, "'custom' is not allowed in a block graph");
  mg_program_destroy(s.p);
}

static void test_graph_accum_rules(void) {
  Blk s = block(1, 1, 4);
  MgDiag d;
  const int8_t rep[3] = {NONE, NONE, NONE};
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, rep, 0, &d); // (16,32)
  MgTensorId a = mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM, &d);
  CHECK(has_dims2(s.p, s.b, a, 16, 32));
  CHECK(has_dims2(s.p, s.b, mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM_LAST, &d),
                  16, 1));
  CHECK(has_dims2(s.p, s.b,
                  mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM_SQ_LAST, &d), 16,
                  1));
  CHECK(mg_graph_accum(s.p, s.b, a, MG_ACCUM_SUM, &d) == MG_NO_ID);
  CHECK_MSG(d, "accumulator input is already post-loop");
  MgTensorId post = mg_graph_unary(s.p, s.b, MG_OP_EXP, a, &d);
  CHECK(post != MG_NO_ID);
  CHECK(mg_graph_accum(s.p, s.b, post, MG_ACCUM_SUM, &d) == MG_NO_ID);
  CHECK_MSG(d, "already post-loop");
  CHECK(mg_graph_accum(s.p, s.b, t, MG_ACCUM_COUNT, &d) == MG_NO_ID);
  CHECK_MSG(d, "unknown accumulator kind 5");
  mg_program_destroy(s.p);

  s = block(1, 1, 1); // with F = 1 an accumulator is still allowed
  t = mg_graph_iterator(s.p, s.b, s.in, rep, NONE, &d);
  CHECK(mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM, &d) != MG_NO_ID);
  mg_program_destroy(s.p);
}

static void test_graph_saver_rules(void) {
  Blk s = block(4, 2, 4);
  MgDiag d;
  const int8_t xy[3] = {0, 1, NONE}, yx[3] = {1, 0, NONE};
  const int8_t x0[3] = {0, NONE, NONE}, xx[3] = {0, 0, NONE};
  const int8_t bad[3] = {0, 5, NONE};
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, xy, 0, &d); // (4,16)
  MgTensorId a = mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM, &d);
  CHECK(mg_graph_saver(s.p, s.b, a, x0, &d) == MG_NO_ID);
  CHECK_MSG(d, "grid axis 'y' of size 2 is not mapped by omap");
  CHECK(mg_graph_saver(s.p, s.b, a, xx, &d) == MG_NO_ID);
  CHECK_MSG(d, "omap axes 'x' and 'y' both map to dim 0");
  CHECK(mg_graph_saver(s.p, s.b, a, bad, &d) == MG_NO_ID);
  CHECK_MSG(d, "omap axis 'y' names dim 5 but the tile has rank 2");
  CHECK(mg_graph_saver(s.p, s.b, t, xy, &d) == MG_NO_ID);
  CHECK_MSG(d, "saver input is in-loop but the for-loop range is 4");
  CHECK(has_dims2(s.p, s.b, mg_graph_saver(s.p, s.b, a, yx, &d), 8, 64));
  MgTensorId o = mg_graph_saver(s.p, s.b, a, xy, &d);
  CHECK(has_dims2(s.p, s.b, o, 16, 32));
  mg_program_destroy(s.p);

  s = block(4, 1, 1);
  const int8_t rep[3] = {NONE, NONE, NONE};
  t = mg_graph_iterator(s.p, s.b, s.in, x0, NONE, &d);
  CHECK(mg_graph_saver(s.p, s.b, t, rep, &d) == MG_NO_ID);
  CHECK_MSG(d, "grid axis 'x' of size 4 is not mapped by omap");
  // F = 1: a tile may be saved without an accumulator; a grid-1 axis may map
  // a dim (a factor of 1).
  const int8_t x0y1[3] = {0, 1, NONE};
  CHECK(has_dims2(s.p, s.b, mg_graph_saver(s.p, s.b, t, x0y1, &d), 64, 32));
  mg_program_destroy(s.p);
}

static void test_graph_mixing_rule(void) {
  Blk s = block(1, 1, 4);
  MgDiag d;
  const int8_t rep[3] = {NONE, NONE, NONE};
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, rep, 0, &d); // (16,32)
  MgTensorId a = mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM_LAST, &d);
  CHECK(mg_graph_binary(s.p, s.b, MG_OP_DIV, t, a, &d) == MG_NO_ID);
  CHECK_MSG(d, "'div' mixes in-loop and post-loop values");
  mg_program_destroy(s.p);

  s = block(1, 1, 1); // one iteration: mixing is harmless
  t = mg_graph_iterator(s.p, s.b, s.in, rep, 0, &d);
  a = mg_graph_accum(s.p, s.b, t, MG_ACCUM_SUM_LAST, &d);
  MgTensorId q = mg_graph_binary(s.p, s.b, MG_OP_DIV, t, a, &d);
  CHECK(has_dims2(s.p, s.b, q, 64, 32));
  // The division reads an accumulator, so it runs after the loop.
  CHECK(!mg_graph_op_in_loop(s.p, s.b, s.p->graphs[s.b].tensors[q].producer));
  mg_program_destroy(s.p);
}

static void test_graph_concat_rules(void) {
  Blk s = block(1, 1, 1);
  MgDiag d;
  const int8_t rep[3] = {NONE, NONE, NONE};
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, rep, NONE, &d); // (64,32)
  MgTensorId u = mg_graph_sum(s.p, s.b, t, 1, &d);                  // (64,1)
  MgTensorId c = mg_graph_concat(s.p, s.b, t, u, 1, &d);
  CHECK(has_dims2(s.p, s.b, c, 64, 33));
  CHECK(mg_graph_concat(s.p, s.b, t, u, 0, &d) == MG_NO_ID);
  CHECK_MSG(d, "concat shape mismatch: 'lhs' dim 1 is 32 but 'rhs' dim 1 is 1");
  CHECK(mg_graph_concat(s.p, s.b, t, u, 2, &d) == MG_NO_ID);
  CHECK_MSG(d, "concat dim 2 is out of range for rank 2");
  // The generic builder takes more than two operands.
  MgOp op;
  memset(&op, 0, sizeof op);
  op.kind = MG_OP_CONCAT;
  op.num_inputs = 3;
  op.inputs[0] = op.inputs[1] = op.inputs[2] = t;
  op.attr = 0;
  MgTensorId out = MG_NO_ID;
  CHECK(mg_graph_add_op(s.p, s.b, &op, &out, &d) != MG_NO_ID);
  CHECK(has_dims2(s.p, s.b, out, 192, 32));
  mg_program_destroy(s.p);
}

static void test_graph_set_launch_rules(void) {
  Blk s = block(1, 1, 1);
  MgDiag d;
  int32_t grid[3] = {2, 0, 1};
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 128, 1, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "grid axis 'y' has size 0, expected >= 1");
  grid[1] = 1;
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 2048, 1, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "block_threads is 2048, expected 1..1024");
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 128, 0, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "for-loop range is 0");
  CHECK_EQ_INT(mg_graph_set_launch(s.p, 0, grid, 128, 1, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "graph 0 is a kernel graph");
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 256, 2, &d), MG_STATUS_OK);
  CHECK_EQ_INT(s.p->graphs[s.b].grid[0], 2);
  CHECK_EQ_INT(s.p->graphs[s.b].block_threads, 256);
  CHECK_EQ_INT(s.p->graphs[s.b].forloop, 2);
  const int8_t rep[3] = {NONE, NONE, NONE};
  CHECK(mg_graph_iterator(s.p, s.b, s.in, rep, NONE, &d) != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_set_launch(s.p, s.b, grid, 128, 1, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "must be set before adding iterators");
  // Defaults of a fresh block graph.
  MgGraphId b2 = mg_program_add_graph(s.p, MG_LEVEL_BLOCK);
  const MgGraph *g2 = &s.p->graphs[b2];
  CHECK(g2->grid[0] == 1 && g2->grid[1] == 1 && g2->grid[2] == 1);
  CHECK_EQ_INT(g2->block_threads, 128);
  CHECK_EQ_INT(g2->forloop, 1);
  mg_program_destroy(s.p);
}

static void test_graph_mark_output_rules(void) {
  Blk s = block(1, 1, 1);
  MgDiag d;
  const int8_t rep[3] = {NONE, NONE, NONE};
  MgTensorId t = mg_graph_iterator(s.p, s.b, s.in, rep, NONE, &d);
  CHECK_EQ_INT(mg_graph_mark_output(s.p, s.b, t, &d), MG_STATUS_INVALID);
  CHECK_MSG(d, "block-graph outputs must be saver results, but tensor 1 comes "
               "from 'iterator'");
  MgTensorId o = mg_graph_saver(s.p, s.b, t, rep, &d);
  CHECK_EQ_INT(mg_graph_mark_output(s.p, s.b, o, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(s.p, s.b, o, &d), MG_STATUS_INVALID);
  CHECK_MSG(d, "already output 0");
  CHECK_EQ_INT(mg_graph_mark_output(s.p, s.b, 40, &d), MG_STATUS_INVALID);
  CHECK_MSG(d, "output tensor 40 does not exist");
  // Kernel graphs may output any tensor.
  MgTensorId x = mg_graph_add_input(s.p, 0, MG_DTYPE_F16, 1, dims2(4, 0), &d);
  CHECK_EQ_INT(mg_graph_mark_output(s.p, 0, x, &d), MG_STATUS_OK);
  CHECK_EQ_INT(s.p->graphs[0].num_outputs, 1);
  mg_program_destroy(s.p);
}

//===--- Custom and thread ops --------------------------------------------===//

static void test_graph_custom_rules(void) {
  Rms r = build_rmsnorm();
  MgDiag d;
  MgProgram *p = r.p;
  MgTensorId X = 0, W = 1, outs[4];
  MgTensorId wrong[2] = {W, X};
  uint32_t before = p->graphs[r.k].num_ops;
  CHECK(mg_graph_custom(p, r.k, (MgCall){r.b, 2, wrong}, outs, &d) == MG_NO_ID);
  CHECK_MSG(d, "'custom' operand 0 has type f16[4096,6144] but graph 1 "
               "expects f16[2,4096]");
  CHECK_EQ_INT(d.op, (int)before);
  CHECK(mg_graph_custom(p, r.k, (MgCall){r.b, 1, &X}, outs, &d) == MG_NO_ID);
  CHECK_MSG(d, "'custom' passes 1 operands but graph 1 takes 2 inputs");
  MgTensorId ins[2] = {X, W};
  CHECK(mg_graph_custom(p, r.k, (MgCall){0, 2, ins}, outs, &d) == MG_NO_ID);
  CHECK_MSG(d, "'custom' body graph 0 is a kernel graph, expected a block "
               "graph");
  CHECK(mg_graph_custom(p, r.k, (MgCall){9, 2, ins}, outs, &d) == MG_NO_ID);
  CHECK_MSG(d, "'custom' names graph 9 but the program has 2 graphs");
  CHECK(mg_graph_custom(p, r.k, (MgCall){r.b, 9, ins}, outs, &d) == MG_NO_ID);
  CHECK_MSG(d, "takes 0 to 8 operands but got 9");
  // A body without outputs.
  MgGraphId empty = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  CHECK(mg_graph_custom(p, r.k, (MgCall){empty, 0, NULL}, outs, &d) ==
        MG_NO_ID);
  CHECK_MSG(d, "body graph 2 has no outputs");
  // Calling the same body twice is fine: one result per body output.
  MgOpId again = mg_graph_custom(p, r.k, (MgCall){r.b, 2, ins}, outs, &d);
  CHECK(again != MG_NO_ID);
  CHECK(has_dims2(p, r.k, outs[0], 2, 6144));
  mg_program_destroy(p);
}

typedef struct Mlp {
  MgProgram *p;
  MgGraphId k, b, t;
  MgOpId thread_op;
} Mlp;

// Gated MLP: silu(X*W1) * (X*W2), X(8,64), W(64,64), grid 4, F 4, with the
// element-wise tail in a thread graph.
static Mlp build_mlp(void) {
  Mlp m;
  MgDiag d;
  m.p = mg_program_create();
  m.k = mg_program_add_graph(m.p, MG_LEVEL_KERNEL);
  m.b = mg_program_add_graph(m.p, MG_LEVEL_BLOCK);
  m.t = mg_program_add_graph(m.p, MG_LEVEL_THREAD);
  MgTensorId ta =
      mg_graph_add_input(m.p, m.t, MG_DTYPE_F16, 2, dims2(8, 16), &d);
  MgTensorId tb =
      mg_graph_add_input(m.p, m.t, MG_DTYPE_F16, 2, dims2(8, 16), &d);
  MgTensorId ts = mg_graph_unary(m.p, m.t, MG_OP_SILU, ta, &d);
  MgTensorId tm = mg_graph_binary(m.p, m.t, MG_OP_MUL, ts, tb, &d);
  CHECK_EQ_INT(mg_graph_mark_output(m.p, m.t, tm, &d), MG_STATUS_OK);

  const int32_t grid[3] = {4, 1, 1};
  mg_graph_set_launch(m.p, m.b, grid, 128, 4, &d);
  MgTensorId bx =
      mg_graph_add_input(m.p, m.b, MG_DTYPE_F16, 2, dims2(8, 64), &d);
  MgTensorId b1 =
      mg_graph_add_input(m.p, m.b, MG_DTYPE_F16, 2, dims2(64, 64), &d);
  MgTensorId b2 =
      mg_graph_add_input(m.p, m.b, MG_DTYPE_F16, 2, dims2(64, 64), &d);
  const int8_t rep[3] = {NONE, NONE, NONE}, x1[3] = {1, NONE, NONE};
  MgTensorId xt = mg_graph_iterator(m.p, m.b, bx, rep, 1, &d);
  MgTensorId w1 = mg_graph_iterator(m.p, m.b, b1, x1, 0, &d);
  MgTensorId w2 = mg_graph_iterator(m.p, m.b, b2, x1, 0, &d);
  MgTensorId a1 = mg_graph_accum(
      m.p, m.b, mg_graph_matmul(m.p, m.b, xt, w1, &d), MG_ACCUM_SUM, &d);
  MgTensorId a2 = mg_graph_accum(
      m.p, m.b, mg_graph_matmul(m.p, m.b, xt, w2, &d), MG_ACCUM_SUM, &d);
  MgTensorId ins[2] = {a1, a2}, fused;
  m.thread_op = mg_graph_thread(m.p, m.b, (MgCall){m.t, 2, ins}, &fused, &d);
  CHECK(m.thread_op != MG_NO_ID);
  MgTensorId o = mg_graph_saver(m.p, m.b, fused, x1, &d);
  CHECK(has_dims2(m.p, m.b, o, 8, 64));
  mg_graph_mark_output(m.p, m.b, o, &d);

  MgTensorId X =
      mg_graph_add_input(m.p, m.k, MG_DTYPE_F16, 2, dims2(8, 64), &d);
  MgTensorId W1 =
      mg_graph_add_input(m.p, m.k, MG_DTYPE_F16, 2, dims2(64, 64), &d);
  MgTensorId W2 =
      mg_graph_add_input(m.p, m.k, MG_DTYPE_F16, 2, dims2(64, 64), &d);
  MgTensorId kin[3] = {X, W1, W2}, Y;
  CHECK(mg_graph_custom(m.p, m.k, (MgCall){m.b, 3, kin}, &Y, &d) != MG_NO_ID);
  mg_graph_mark_output(m.p, m.k, Y, &d);
  return m;
}

static void test_graph_thread_rules(void) {
  Mlp m = build_mlp();
  MgDiag d;
  CHECK_EQ_INT(mg_program_validate(m.p, NULL, &d), MG_STATUS_OK);
  CHECK(mg_graph_op_in_loop(m.p, m.b, 6));   // matmul
  CHECK(!mg_graph_op_in_loop(m.p, m.b, m.thread_op)); // reads accumulators
  // Thread graphs hold element-wise ops only.
  MgTensorId tin = 0;
  CHECK(mg_graph_matmul(m.p, m.t, tin, tin, &d) == MG_NO_ID);
  CHECK_MSG(d, "'matmul' is not allowed in a thread graph");
  CHECK(mg_graph_sum(m.p, m.t, tin, 0, &d) == MG_NO_ID);
  CHECK_MSG(d, "'sum' is not allowed in a thread graph");
  // Operands must match the thread graph's inputs exactly.
  const MgGraph *b = &m.p->graphs[m.b];
  MgTensorId xt = b->ops[3].outputs[0]; // x tile (8,16) in-loop
  MgTensorId w1 = b->ops[4].outputs[0]; // w1 tile (16,16)
  MgTensorId ins[2] = {w1, w1}, out;
  CHECK(mg_graph_thread(m.p, m.b, (MgCall){m.t, 2, ins}, &out, &d) == MG_NO_ID);
  CHECK_MSG(d, "'thread' operand 0 has type f16[16,16] but graph 2 expects "
               "f16[8,16]");
  CHECK(mg_graph_thread(m.p, m.b, (MgCall){m.b, 2, ins}, &out, &d) == MG_NO_ID);
  CHECK_MSG(d, "expected a thread graph");
  CHECK(mg_graph_thread(m.p, m.k, (MgCall){m.t, 2, ins}, &out, &d) == MG_NO_ID);
  CHECK_MSG(d, "'thread' is not allowed in a kernel graph");
  // In-loop thread op: fine on two in-loop tiles (xt, xt).
  MgTensorId loop_ins[2] = {xt, xt};
  MgOpId op = mg_graph_thread(m.p, m.b, (MgCall){m.t, 2, loop_ins}, &out, &d);
  CHECK(op != MG_NO_ID);
  CHECK(mg_graph_op_in_loop(m.p, m.b, op));
  mg_program_destroy(m.p);
}

//===--- Clone, hash, equality --------------------------------------------===//

static void test_graph_clone_equal_hash(void) {
  Rms r = build_rmsnorm();
  MgProgram *c = mg_program_clone(r.p);
  CHECK(c != NULL);
  CHECK(mg_program_equal(r.p, c));
  CHECK(mg_program_hash(r.p) == mg_program_hash(c));
  CHECK(c->arena != r.p->arena);
  CHECK(c->graphs[1].ops != r.p->graphs[1].ops);
  // Packed: capacities equal counts, and it takes less memory.
  CHECK_EQ_INT(c->graphs[1].cap_ops, c->graphs[1].num_ops);
  CHECK(mg_arena_bytes_used(c->arena) < mg_arena_bytes_used(r.p->arena));
  MgDiag d;
  CHECK_EQ_INT(mg_program_validate(c, NULL, &d), MG_STATUS_OK);
  // A clone of a clone is still equal; growing a packed clone works.
  MgProgram *cc = mg_program_clone(c);
  CHECK(mg_program_equal(r.p, cc));
  MgTensorId e = mg_graph_unary(cc, 0, MG_OP_EXP, 2, &d);
  CHECK(e != MG_NO_ID);
  CHECK(has_dims2(cc, 0, e, 2, 6144));
  CHECK(!mg_program_equal(c, cc));
  CHECK(mg_program_hash(c) != mg_program_hash(cc));
  CHECK(mg_program_equal(c, r.p)); // the source is untouched
  mg_program_destroy(cc);
  // Fields an op kind does not use are not part of its identity.
  c->graphs[1].ops[4].imap[0] = 1; // matmul
  c->graphs[1].ops[4].scalar = 3.0;
  CHECK(mg_program_equal(r.p, c));
  CHECK(mg_program_hash(r.p) == mg_program_hash(c));
  mg_program_destroy(c);
  CHECK(mg_program_clone(NULL) == NULL);
  CHECK(mg_program_equal(NULL, NULL));
  CHECK(!mg_program_equal(r.p, NULL));
  mg_program_destroy(r.p);
}

typedef void (*Mutate)(MgProgram *p);
static void m_scalar(MgProgram *p) { p->graphs[1].ops[7].scalar = 4095.0; }
static void m_imap(MgProgram *p) { p->graphs[1].ops[3].imap[1] = 0; }
static void m_fmap(MgProgram *p) { p->graphs[1].ops[2].fmap = NONE; }
static void m_omap(MgProgram *p) { p->graphs[1].ops[10].omap[2] = 0; }
static void m_acc(MgProgram *p) { p->graphs[1].ops[6].acc = MG_ACCUM_SUM_LAST; }
static void m_kind(MgProgram *p) { p->graphs[1].ops[8].kind = MG_OP_RSQRT; }
static void m_input(MgProgram *p) { p->graphs[1].ops[9].inputs[1] = 7; }
static void m_forloop(MgProgram *p) { p->graphs[1].forloop = 16; }
static void m_grid(MgProgram *p) { p->graphs[1].grid[2] = 2; }
static void m_threads(MgProgram *p) { p->graphs[1].block_threads = 256; }
static void m_dtype(MgProgram *p) {
  p->graphs[0].tensors[0].dtype = MG_DTYPE_F32;
}
static void m_dim(MgProgram *p) { p->graphs[0].tensors[1].dims[0] = 4097; }
static void m_attr(MgProgram *p) { p->graphs[0].ops[1].attr = 0; }
static void m_output(MgProgram *p) { p->graphs[0].outputs[0] = 1; }
static void m_level(MgProgram *p) { p->graphs[1].level = MG_LEVEL_THREAD; }

static void test_graph_hash_detects_each_field(void) {
  Rms r = build_rmsnorm();
  uint64_t h = mg_program_hash(r.p);
  Mutate muts[] = {m_scalar, m_imap,    m_fmap, m_omap, m_acc,
                   m_kind,   m_input,   m_forloop, m_grid, m_threads,
                   m_dtype,  m_dim,     m_attr, m_output, m_level};
  for (size_t i = 0; i < sizeof muts / sizeof muts[0]; i++) {
    MgProgram *c = mg_program_clone(r.p);
    muts[i](c);
    bool differs = mg_program_hash(c) != h && !mg_program_equal(c, r.p);
    CHECK(differs);
    if (!differs)
      fprintf(stderr, "  mutation %zu not detected\n", i);
    mg_program_destroy(c);
  }
  // Launch fields of kernel graphs carry no meaning and are not hashed.
  MgProgram *c = mg_program_clone(r.p);
  c->graphs[0].forloop = 7;
  CHECK(mg_program_hash(c) == h);
  CHECK(mg_program_equal(c, r.p));
  mg_program_destroy(c);
  // Independently built equal programs hash equal.
  Rms r2 = build_rmsnorm();
  CHECK(mg_program_equal(r.p, r2.p));
  CHECK(mg_program_hash(r2.p) == h);
  mg_program_destroy(r2.p);
  mg_program_destroy(r.p);
}

static void test_graph_growth(void) {
  MgProgram *p = mg_program_create();
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgDiag d;
  MgTensorId t = mg_graph_add_input(p, k, MG_DTYPE_F32, 2, dims2(3, 5), &d);
  for (int i = 0; i < 2000; i++) {
    MgTensorId n = mg_graph_scalar(p, k, MG_OP_MUL_SCALAR, t, (double)i, &d);
    CHECK_EQ_INT(n, (MgTensorId)(i + 1));
    t = n;
  }
  const MgGraph *g = &p->graphs[k];
  CHECK_EQ_INT(g->num_ops, 2001);
  CHECK(g->cap_ops >= 2001);
  int bad = 0;
  for (uint32_t i = 1; i < g->num_ops; i++)
    bad += g->ops[i].scalar != (double)(i - 1) ||
           g->ops[i].inputs[0] != i - 1 || g->tensors[i].producer != i ||
           g->tensors[i].dims[1] != 5;
  CHECK_EQ_INT(bad, 0);
  for (int i = 0; i < 40; i++) // many graphs: the graph array grows too
    CHECK(mg_program_add_graph(p, MG_LEVEL_THREAD) != MG_NO_ID);
  CHECK_EQ_INT(p->num_graphs, 41);
  CHECK_EQ_INT(p->graphs[0].num_ops, 2001);
  mg_graph_mark_output(p, k, t, &d);
  for (MgGraphId i = 1; i < 41; i++) { // each thread graph: one output
    MgTensorId x = mg_graph_add_input(p, i, MG_DTYPE_F16, 1, dims2(2, 0), &d);
    mg_graph_mark_output(p, i, x, &d);
  }
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  mg_program_destroy(p);
}

//===--- Validation catches each corruption -------------------------------===//

typedef struct Corruption {
  Mutate mutate;
  const char *message;
  int graph; // expected diag.graph
} Corruption;

static void c_topo(MgProgram *p) { p->graphs[1].ops[4].inputs[0] = 9; }
static void c_dims(MgProgram *p) { p->graphs[1].tensors[4].dims[1] = 48; }
static void c_root(MgProgram *p) { p->graphs[0].level = MG_LEVEL_BLOCK; }
static void c_no_out(MgProgram *p) { p->graphs[0].num_outputs = 0; }
static void c_dup_pos(MgProgram *p) { p->graphs[1].ops[1].attr = 0; }
static void c_num_inputs(MgProgram *p) { p->graphs[1].num_inputs = 3; }
static void c_custom_ref(MgProgram *p) { p->graphs[0].ops[2].attr = 0; }
static void c_threads32(MgProgram *p) { p->graphs[1].block_threads = 100; }
static void c_threads_max(MgProgram *p) { p->graphs[1].block_threads = 2048; }
static void c_grid_max(MgProgram *p) { p->graphs[1].grid[1] = 70000; }
static void c_forloop(MgProgram *p) { p->graphs[1].forloop = 3; }
static void c_imap_dup(MgProgram *p) {
  p->graphs[1].ops[3].imap[1] = 1; // y -> dim 1, like x
}
static void c_omap(MgProgram *p) { p->graphs[1].ops[10].omap[0] = NONE; }
static void c_producer(MgProgram *p) { p->graphs[1].tensors[5].producer = 4; }
static void c_out_range(MgProgram *p) { p->graphs[0].outputs[0] = 50; }
static void c_out_dup(MgProgram *p) {
  p->graphs[0].outputs[1] = p->graphs[0].outputs[0];
  p->graphs[0].num_outputs = 2; // the outputs array has room (cap >= 8)
}
static void c_block_out(MgProgram *p) { p->graphs[1].outputs[0] = 9; }
static void c_mixing(MgProgram *p) { p->graphs[1].ops[9].inputs[1] = 4; }
static void c_accum_post(MgProgram *p) {
  p->graphs[1].ops[7].kind = MG_OP_ACCUM; // accum of an accumulator result
  p->graphs[1].ops[7].acc = MG_ACCUM_SUM;
}
static void c_saver_loop(MgProgram *p) { p->graphs[1].ops[10].inputs[0] = 4; }
static void c_not_allowed(MgProgram *p) {
  p->graphs[1].ops[8].kind = MG_OP_CUSTOM;
}
static void c_unlisted(MgProgram *p) {
  p->graphs[1].ops[8].num_outputs = 0; // sqrt's result loses its producer
}
static void c_results(MgProgram *p) {
  p->graphs[1].ops[10].omap[0] = 0;    // saver now scales dim 0 by 256
}
static void c_no_graphs(MgProgram *p) { p->num_graphs = 0; }
static void c_dtype(MgProgram *p) { p->graphs[1].tensors[0].dtype = 9; }
static void c_reads_input(MgProgram *p) { p->graphs[1].ops[4].inputs[0] = 0; }
static void c_operands(MgProgram *p) { p->graphs[1].ops[8].num_inputs = 2; }
static void c_saver_unlisted(MgProgram *p) { p->graphs[1].num_outputs = 0; }

static void test_graph_validate_catches(void) {
  const Corruption cases[] = {
      {c_topo, "reads tensor 9 before it is made", 1},
      {c_dims, "'matmul' result 0 has type f16[2,48] but f16[2,24] was "
               "inferred", 1},
      {c_root, "graph 0 must be a kernel graph", 0},
      {c_no_out, "graph 0 has no outputs", 0},
      {c_dup_pos, "input position 0 is used twice", 1},
      {c_num_inputs, "graph has 2 input ops but num_inputs is 3", 1},
      {c_custom_ref, "'custom' body graph 0 is a kernel graph", 0},
      {c_threads32, "block_threads is 100, expected a multiple of 32", 1},
      {c_threads_max, "block_threads is 2048 but target 'sm_90' allows 1..1024",
       1},
      {c_grid_max, "grid axis 'y' has size 70000 but target 'sm_90' allows at "
                   "most 65535", 1},
      {c_forloop, "for-loop range 3 does not divide tile dim 1 of size 4096",
       1},
      {c_imap_dup, "imap axes 'x' and 'y' both map to dim 1", 1},
      {c_omap, "grid axis 'x' of size 256 is not mapped by omap", 1},
      {c_producer, "whose producer is op 4", 1},
      {c_out_range, "output 0 names tensor 50", 0},
      {c_out_dup, "outputs 0 and 1 are both tensor 2", 0},
      {c_block_out, "block-graph output 0 (tensor 9) is not a saver result", 1},
      {c_mixing, "'div' mixes in-loop and post-loop values", 1},
      {c_accum_post, "accumulator input is already post-loop", 1},
      {c_saver_loop, "saver input is in-loop but the for-loop range is 32", 1},
      {c_not_allowed, "'custom' is not allowed in a block graph", 1},
      {c_unlisted, "tensor 8 is not made by any op", 1},
      {c_results, "'saver' result 0 has type f16[2,6144] but f16[512,24] was "
                  "inferred", 1},
      {c_no_graphs, "program has no graphs", -1},
      {c_dtype, "input has unknown dtype 9", 1},
      {c_reads_input, "'matmul' reads block-graph input tensor 0 directly", 1},
      {c_operands, "'sqrt' takes 1 operands but got 2", 1},
      {c_saver_unlisted, "graph 1 has no outputs", 1},
  };
  Rms r = build_rmsnorm();
  MgDiag d;
  CHECK_EQ_INT(mg_program_validate(r.p, NULL, &d), MG_STATUS_OK);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    MgProgram *c = mg_program_clone(r.p);
    // Clones are packed; give outputs room for c_out_dup.
    MgTensorId *outs = mg_arena_alloc(c->arena, 8, sizeof(MgTensorId));
    memcpy(outs, c->graphs[0].outputs, sizeof(MgTensorId));
    c->graphs[0].outputs = outs;
    c->graphs[0].cap_outputs = 8;
    cases[i].mutate(c);
    memset(&d, 0, sizeof d);
    MgStatus st = mg_program_validate(c, NULL, &d);
    CHECK_EQ_INT(st, MG_STATUS_INVALID);
    CHECK_MSG(d, cases[i].message);
    CHECK_EQ_INT(d.graph, cases[i].graph);
    mg_program_destroy(c);
  }
  CHECK_EQ_INT(mg_program_validate(NULL, NULL, &d), MG_STATUS_INVALID);
  mg_program_destroy(r.p);
}

static void test_graph_validate_sm80_smem(void) {
  // A block graph whose tiles fit sm_90 (227 KiB) but not sm_86 (99 KiB).
  MgProgram *p = mg_program_create();
  MgDiag d;
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgTensorId bx =
      mg_graph_add_input(p, b, MG_DTYPE_F32, 2, dims2(128, 128), &d);
  const int8_t rep[3] = {NONE, NONE, NONE};
  MgTensorId t = mg_graph_iterator(p, b, bx, rep, NONE, &d); // 64 KiB
  MgTensorId e = mg_graph_unary(p, b, MG_OP_EXP, t, &d);     // 64 KiB
  MgTensorId o = mg_graph_saver(p, b, e, rep, &d);
  mg_graph_mark_output(p, b, o, &d);
  MgTensorId X = mg_graph_add_input(p, k, MG_DTYPE_F32, 2, dims2(128, 128), &d);
  MgTensorId Y;
  mg_graph_custom(p, k, (MgCall){b, 1, &X}, &Y, &d);
  mg_graph_mark_output(p, k, Y, &d);
  CHECK_EQ_INT(mg_graph_smem_bytes(p, b), 2 * 65536);
  CHECK_EQ_INT(mg_program_validate(p, mg_target_lookup("sm_90"), &d),
               MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, mg_target_lookup("sm_80"), &d),
               MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, mg_target_lookup("sm_86"), &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "block graph 1 needs 131072 bytes of shared memory but target "
               "'sm_86' has 101376");
  mg_program_destroy(p);
}

static void test_graph_numel(void) {
  MgTensor t;
  memset(&t, 0, sizeof t);
  t.rank = 3;
  t.dims[0] = 2;
  t.dims[1] = 3;
  t.dims[2] = 7;
  CHECK_EQ_INT(mg_tensor_numel(&t), 42);
  t.rank = 1;
  CHECK_EQ_INT(mg_tensor_numel(&t), 2);
  CHECK_EQ_INT(mg_tensor_numel(NULL), 0);
}

// Copying through the builders: appending the split-KV program's root graph
// (which copies its two block graphs) into an empty program rebuilds the
// same program; binding the inputs to existing tensors adds none.
static void test_graph_copy(void) {
  MgProgram *src = mg_sample_attention_split_kv(2, 4, 8, 64, 4, 2);
  const MgGraph *g = &src->graphs[0];
  MgProgram *dst = mg_program_create();
  mg_program_add_graph(dst, MG_LEVEL_KERNEL);
  MgTensorId map[64];
  for (uint32_t t = 0; t < 64; t++)
    map[t] = MG_NO_ID;
  MgDiag d;
  CHECK_EQ_INT(mg_graph_append(dst, 0, src, 0, map, &d), MG_STATUS_OK);
  for (uint32_t k = 0; k < g->num_outputs; k++)
    CHECK_EQ_INT(mg_graph_mark_output(dst, 0, map[g->outputs[k]], &d),
                 MG_STATUS_OK);
  CHECK(mg_program_equal(src, dst));
  CHECK_EQ_INT(mg_program_hash(src), mg_program_hash(dst));
  // Again, with the inputs bound to the copy's inputs: two more kernels.
  MgTensorId again[64];
  for (uint32_t t = 0; t < 64; t++)
    again[t] = t < g->num_inputs ? map[t] : MG_NO_ID;
  CHECK_EQ_INT(mg_graph_append(dst, 0, src, 0, again, &d), MG_STATUS_OK);
  CHECK_EQ_INT(dst->graphs[0].num_inputs, g->num_inputs);
  CHECK_EQ_INT(dst->graphs[0].num_ops, g->num_ops + (g->num_ops - g->num_inputs));
  CHECK_EQ_INT(dst->num_graphs, 5);
  // A missing graph is an error, not a crash.
  CHECK(mg_program_copy_graph(dst, src, 9, &d) == MG_NO_ID);
  mg_program_destroy(dst);
  mg_program_destroy(src);
}

// Inputs with a layout (a transposed view of the caller's array): the
// layout is part of identity and signature, must reach the block graph the
// custom op calls, and is copied with the graph.
static void test_graph_input_layouts(void) {
  Rms r = build_rmsnorm();
  MgDiag d;
  MgProgram *plain = mg_program_clone(r.p);
  MgTensorId W = 1;
  const int8_t swap[2] = {1, 0}, same[2] = {0, 1}, bad[2] = {0, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(r.p, r.k, W, same, &d), MG_STATUS_OK);
  CHECK(mg_program_equal(r.p, plain)); // the identity is no layout
  CHECK(mg_graph_set_input_perm(r.p, r.k, W, bad, &d) != MG_STATUS_OK);
  CHECK_MSG(d, "input layout is not a permutation of 0..1");
  CHECK(mg_graph_set_input_perm(r.p, r.k, r.Y, swap, &d) != MG_STATUS_OK);
  CHECK_MSG(d, "only a graph input has a layout");
  CHECK_EQ_INT(mg_graph_set_input_perm(r.p, r.k, W, swap, &d), MG_STATUS_OK);
  int64_t stored[MG_MAX_DIMS];
  mg_graph_stored_dims(&r.p->graphs[r.k], W, stored);
  CHECK_EQ_INT(stored[0], 6144);
  CHECK_EQ_INT(stored[1], 4096);
  CHECK(has_dims2(r.p, r.k, W, 4096, 6144)); // the logical shape stays
  CHECK(!mg_program_equal(r.p, plain));
  CHECK(mg_program_hash(r.p) != mg_program_hash(plain));
  CHECK(!mg_program_same_signature(r.p, plain));
  CHECK(mg_program_has_layouts(r.p));
  // The block graph still reads W as contiguous: rejected until it agrees.
  CHECK(mg_program_validate(r.p, NULL, &d) != MG_STATUS_OK);
  CHECK_MSG(d, "'custom' operand 1 is stored in another layout than graph 1's "
               "input says");
  CHECK_EQ_INT(mg_program_copy_layouts(r.p, r.p, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(r.p, NULL, &d), MG_STATUS_OK);
  int8_t perm[MG_MAX_DIMS];
  const MgGraph *b = &r.p->graphs[r.b];
  CHECK(mg_op_input_perm(&b->ops[b->tensors[1].producer], 2, perm));
  CHECK(perm[0] == 1 && perm[1] == 0);
  // A thread graph's inputs are tiles: no layout.
  MgGraphId t = mg_program_add_graph(r.p, MG_LEVEL_THREAD);
  MgTensorId ti = mg_graph_add_input(r.p, t, MG_DTYPE_F16, 2, dims2(2, 2), &d);
  CHECK(mg_graph_set_input_perm(r.p, t, ti, swap, &d) != MG_STATUS_OK);
  CHECK_MSG(d, "thread-graph inputs are tiles");
  // Copies keep the layout; clearing gives the logical program back.
  MgProgram *c = mg_program_create();
  MgGraphId cg = mg_program_add_graph(c, MG_LEVEL_KERNEL);
  MgTensorId map[64];
  for (int i = 0; i < 64; i++)
    map[i] = MG_NO_ID;
  CHECK_EQ_INT(mg_graph_append(c, cg, r.p, r.k, map, &d), MG_STATUS_OK);
  CHECK(mg_op_input_perm(&c->graphs[0].ops[c->graphs[0].tensors[map[W]].producer],
                         2, perm));
  mg_program_clear_layouts(r.p);
  CHECK(!mg_program_has_layouts(r.p));
  mg_program_destroy(c);
  mg_program_destroy(plain);
  mg_program_destroy(r.p);
}

// Kernel-level views: shapes, checks, identity under copy and hashing.
static void test_graph_views(void) {
  MgProgram *p = mg_program_create();
  MgDiag d;
  CHECK(mg_program_add_graph(p, MG_LEVEL_KERNEL) == 0);
  int64_t dims[2] = {16, 4096}, heads[3] = {16, 32, 128};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims, &d);
  MgTensorId r = mg_graph_reshape(p, 0, x, 3, heads, &d);
  int8_t perm[3] = {1, 0, 2};
  MgTensorId t = mg_graph_transpose(p, 0, r, perm, &d);
  MgTensorId s = mg_graph_slice(p, 0, t, (MgSlice){2, 64, 64}, &d);
  MgTensorId c = mg_graph_concat(p, 0, s, s, 2, &d);
  CHECK(c != MG_NO_ID);
  const MgTensor *tt = &p->graphs[0].tensors[t];
  CHECK(tt->dims[0] == 32 && tt->dims[1] == 16 && tt->dims[2] == 128);
  CHECK(p->graphs[0].tensors[s].dims[2] == 64);
  CHECK(p->graphs[0].tensors[c].dims[2] == 128);
  CHECK(mg_op_is_view(&p->graphs[0].ops[p->graphs[0].tensors[c].producer],
                      MG_LEVEL_KERNEL));
  CHECK(mg_graph_mark_output(p, 0, c, &d) == MG_STATUS_OK);
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  MgProgram *q = mg_program_clone(p);
  CHECK(q && mg_program_equal(p, q) && mg_program_hash(p) == mg_program_hash(q));
  // Another slice start is another program.
  p->graphs[0].ops[p->graphs[0].tensors[s].producer].shape[0] = 0;
  CHECK(!mg_program_equal(p, q) && mg_program_hash(p) != mg_program_hash(q));
  CHECK(mg_graph_slice(p, 0, t, (MgSlice){2, 100, 64}, &d) == MG_NO_ID);
  int64_t wrong[2] = {16, 4095};
  CHECK(mg_graph_reshape(p, 0, x, 2, wrong, &d) == MG_NO_ID);
  int8_t twice[3] = {0, 0, 1};
  CHECK(mg_graph_transpose(p, 0, r, twice, &d) == MG_NO_ID);
  // Clearing input layouts leaves the transpose view's permutation.
  mg_program_clear_layouts(q);
  CHECK(q->graphs[0].ops[q->graphs[0].tensors[t].producer].perm[0] == 1);
  mg_program_destroy(q);
  mg_program_destroy(p);
}

// Folded views (fold.c): a head split of a computed tensor, its Kᵀ and a
// RoPE half compose into strided views of the buffer before them; a view
// that is returned, or read by a free view, is a copy (a dense buffer),
// and the views after it start from that buffer.
static void test_graph_folded_views(void) {
  MgProgram *p = mg_program_create();
  MgDiag d;
  CHECK(mg_program_add_graph(p, MG_LEVEL_KERNEL) == 0);
  int64_t xd[3] = {1, 8, 64}, hd[4] = {1, 8, 4, 16}, fd[2] = {32, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F16, 3, xd, &d);
  MgTensorId e = mg_graph_unary(p, 0, MG_OP_EXP, x, &d);
  MgTensorId h = mg_graph_reshape(p, 0, e, 4, hd, &d); // free
  int8_t split[4] = {0, 2, 1, 3}, swap[4] = {0, 1, 3, 2};
  MgTensorId t = mg_graph_transpose(p, 0, h, split, &d); // 1x4x8x16
  MgTensorId k = mg_graph_transpose(p, 0, t, swap, &d);  // 1x4x16x8
  MgTensorId s = mg_graph_slice(p, 0, t, (MgSlice){3, 8, 8}, &d);   // 1x4x8x8
  MgTensorId u = mg_graph_unary(p, 0, MG_OP_EXP, k, &d);
  MgTensorId v = mg_graph_unary(p, 0, MG_OP_EXP, s, &d);
  CHECK(mg_graph_mark_output(p, 0, u, &d) == MG_STATUS_OK);
  CHECK(mg_graph_mark_output(p, 0, v, &d) == MG_STATUS_OK);
  const MgGraph *g = &p->graphs[0];
  MgStridedView w;
  CHECK(!mg_graph_folded_view(g, h, &w) && !mg_graph_is_strided(g, h));
  CHECK(mg_graph_folded_view(g, k, &w) && mg_graph_is_strided(g, k));
  // h is 1x8x4x16, strides 512, 64, 16, 1; k walks dims 0, 2, 3, 1.
  CHECK(w.base == h && w.offset == 0 && w.rank == 4);
  CHECK(w.stride[0] == 512 && w.stride[1] == 16 && w.stride[2] == 1 &&
        w.stride[3] == 64);
  CHECK(w.perm[0] == 0 && w.perm[1] == 2 && w.perm[2] == 3 && w.perm[3] == 1);
  CHECK(w.stored[1] == 8 && w.stored[2] == 4 && w.stored[3] == 16);
  CHECK(mg_graph_folded_view(g, s, &w));
  CHECK(w.base == h && w.offset == 8 && w.stride[1] == 16 &&
        w.stride[2] == 64 && w.stride[3] == 1);
  // Returned: t is a copy; k and s then view its buffer (1x4x8x16).
  CHECK(mg_graph_mark_output(p, 0, t, &d) == MG_STATUS_OK);
  CHECK(!mg_graph_view_folds(g, &g->ops[g->tensors[t].producer]));
  CHECK(mg_graph_folded_view(g, k, &w) && w.base == t);
  CHECK(w.stride[1] == 128 && w.stride[2] == 1 && w.stride[3] == 16);
  // A reshape reads s: s needs a dense buffer of its own.
  CHECK(mg_graph_reshape(p, 0, s, 2, fd, &d) != MG_NO_ID);
  g = &p->graphs[0];
  CHECK(!mg_graph_view_folds(g, &g->ops[g->tensors[s].producer]));
  CHECK(!mg_graph_is_strided(g, s));
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  mg_program_destroy(p);
}

// The write side: a transpose that is the only reader of a custom op's
// result is written by that kernel in place (its saver is marked); a
// second reader of the result makes the transpose a copy again.
static void test_graph_written_views(void) {
  MgProgram *p = mg_program_create();
  MgDiag d;
  MgGraphId k = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgTensorId X = mg_graph_add_input(p, k, MG_DTYPE_F16, 2, dims2(8, 16), &d);
  const int32_t grid[3] = {2, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b, grid, 128, 1, &d), MG_STATUS_OK);
  MgTensorId bx = mg_graph_add_input(p, b, MG_DTYPE_F16, 2, dims2(8, 16), &d);
  const int8_t rows[3] = {0, NONE, NONE};
  MgTensorId it = mg_graph_iterator(p, b, bx, rows, NONE, &d);
  MgTensorId e = mg_graph_unary(p, b, MG_OP_EXP, it, &d);
  MgTensorId out = mg_graph_saver(p, b, e, rows, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, b, out, &d), MG_STATUS_OK);
  MgTensorId Y;
  CHECK(mg_graph_custom(p, k, (MgCall){b, 1, &X}, &Y, &d) != MG_NO_ID);
  int8_t swap[2] = {1, 0};
  MgTensorId T = mg_graph_transpose(p, k, Y, swap, &d); // 16x8
  CHECK_EQ_INT(mg_graph_mark_output(p, k, T, &d), MG_STATUS_OK);
  const MgGraph *g = &p->graphs[k];
  MgStridedView v;
  CHECK(mg_graph_view_folds(g, &g->ops[g->tensors[T].producer]));
  CHECK(mg_graph_folded_view(g, Y, &v) && v.base == T);
  CHECK(v.stride[0] == 1 && v.stride[1] == 8 && v.offset == 0);
  CHECK(!mg_graph_folded_view(g, T, &v) && mg_graph_is_strided(g, Y));
  CHECK_EQ_INT(mg_program_fold_layouts(p, &d), MG_STATUS_OK);
  const MgGraph *bg = &p->graphs[b];
  CHECK(bg->ops[bg->tensors[out].producer].folded == 1);
  CHECK(mg_graph_is_strided(bg, out) && !mg_graph_is_strided(bg, bx));
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  // A second reader: Y needs its own buffer, T is a copy.
  CHECK(mg_graph_unary(p, k, MG_OP_EXP, Y, &d) != MG_NO_ID);
  g = &p->graphs[k];
  CHECK(!mg_graph_view_folds(g, &g->ops[g->tensors[T].producer]));
  CHECK_EQ_INT(mg_program_fold_layouts(p, &d), MG_STATUS_OK);
  bg = &p->graphs[b];
  CHECK(bg->ops[bg->tensors[out].producer].folded == 0);
  mg_program_destroy(p);
}

// Checks that `text` contains `sub`; prints both when it does not.
#define CHECK_HAS(text, sub)                                                   \
  do {                                                                         \
    bool found_ = (text) && strstr((text), (sub)) != NULL;                     \
    CHECK(found_);                                                             \
    if (!found_)                                                               \
      fprintf(stderr, "  missing: \"%s\"\n", (sub));                           \
  } while (0)

static void test_graph_dot(void) {
  Rms r = build_rmsnorm();
  MgDiag d;
  const int8_t swap[2] = {1, 0};
  CHECK_EQ_INT(mg_graph_set_input_perm(r.p, r.k, 1, swap, &d), MG_STATUS_OK);
  MgText a = {NULL, 0, 0, false}, b = {NULL, 0, 0, false};
  // A quote, a backslash, a line break and a byte that is not UTF-8.
  const char *name = "rms\"x\\y\nz\xff";
  CHECK_EQ_INT(mg_program_write_dot(r.p, name, "two\nlines", &a, &d),
               MG_STATUS_OK);
  CHECK_HAS(a.data, "digraph \"rms\\\"x\\\\y\\nz?\" {\n");
  CHECK_HAS(a.data, "label=\"@rms\\\"x\\\\y\\nz?\\ntwo\\nlines\"");
  CHECK_HAS(a.data, "[label=\"input 1\\nlayout [1, 0]\"");
  CHECK_HAS(a.data, "\"block graph 1 (kernel op 2)\\ngrid [256, 1, 1], 128 "
                    "threads, forloop 32\"");
  CHECK_HAS(a.data, "subgraph cluster_1_loop {\n");
  CHECK_HAS(a.data, "label=\"for-loop i in [0, 32)\"");
  CHECK_HAS(a.data, "n1_2 [label=\"iterator\\nimap [φ, φ, φ]\\nfmap 1\"");
  CHECK_HAS(a.data, "n1_3 [label=\"iterator\\nimap [1, φ, φ]\\nfmap 0\"");
  CHECK_HAS(a.data, "[label=\"accum sum_sq_last\"");
  CHECK_HAS(a.data, "[label=\"div_scalar\\n4096\"");
  CHECK_HAS(a.data, "[label=\"saver\\nomap [1, φ, φ]\"");
  // Kernel tensors into the iterators, tiles inside, the saver's kernel
  // tensor out; the block graph's INPUT ops are not drawn.
  CHECK_HAS(a.data, "n0_0 -> n1_2 [label=\"2x4096xf16\"];\n");
  CHECK_HAS(a.data, "n1_2 -> n1_4 [label=\"2x128xf16\"];\n");
  CHECK_HAS(a.data, "n1_10 -> n0_3 [label=\"2x6144xf16\"];\n");
  CHECK(!strstr(a.data, "n1_0 "));
  // The loop cluster closes before the accumulators.
  CHECK(strstr(a.data, "accum sum\"") > strstr(a.data, "[label=\"matmul\""));
  CHECK_EQ_INT(mg_program_write_dot(r.p, name, "two\nlines", &b, &d),
               MG_STATUS_OK);
  CHECK(b.len == a.len && memcmp(a.data, b.data, a.len) == 0);
  // A custom op naming no block graph is refused, not followed.
  r.p->graphs[r.k].ops[r.custom].attr = 7;
  mg_text_free(&b);
  CHECK_EQ_INT(mg_program_write_dot(r.p, "bad", NULL, &b, &d),
               MG_STATUS_INVALID);
  CHECK_MSG(d, "names no graph of the next level");
  CHECK_EQ_INT(d.op, (int)r.custom);
  mg_text_free(&a);
  mg_text_free(&b);
  mg_program_destroy(r.p);
}

// Rank 6, the limit: views, reductions, an input layout and a block graph
// whose maps address dims 4 and 5 build, validate, clone and hash; the
// perm and shape entries past dim 3 count in the hash; rank 7 is refused.
static void test_graph_rank6(void) {
  MgProgram *p = mg_program_create();
  MgDiag d;
  CHECK(mg_program_add_graph(p, MG_LEVEL_KERNEL) == 0);
  int64_t dims[6] = {2, 3, 2, 2, 4, 64};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 6, dims, &d);
  MgTensorId w = mg_graph_add_input(p, 0, MG_DTYPE_F32, 6, dims, &d);
  int8_t swap45[6] = {0, 1, 2, 3, 5, 4};
  CHECK(mg_graph_set_input_perm(p, 0, w, swap45, &d) == MG_STATUS_OK);
  int64_t stored[MG_MAX_DIMS];
  mg_graph_stored_dims(&p->graphs[0], w, stored);
  CHECK(stored[4] == 64 && stored[5] == 4);
  MgTensorId a = mg_graph_binary(p, 0, MG_OP_ADD, x, w, &d);
  MgTensorId t = mg_graph_transpose(p, 0, a, swap45, &d);
  int64_t three[3] = {6, 4, 256};
  MgTensorId r = mg_graph_reshape(p, 0, t, 3, three, &d);
  MgTensorId s5 = mg_graph_slice(p, 0, t, (MgSlice){5, 1, 2}, &d);
  MgTensorId m = mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, a, 5, &d);
  CHECK(r != MG_NO_ID && s5 != MG_NO_ID && m != MG_NO_ID);
  CHECK(p->graphs[0].tensors[t].dims[4] == 64);
  CHECK(p->graphs[0].tensors[s5].dims[5] == 2);
  CHECK(p->graphs[0].tensors[m].dims[5] == 1);
  // A block graph: grid x over dim 4, y over dim 1, the loop over dim 5.
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int32_t grid[3] = {4, 3, 1};
  CHECK(mg_graph_set_launch(p, b, grid, 64, 4, &d) == MG_STATUS_OK);
  MgTensorId bx = mg_graph_add_input(p, b, MG_DTYPE_F32, 6, dims, &d);
  int8_t imap[3] = {4, 1, MG_MAP_NONE}, omap[3] = {4, 1, MG_MAP_NONE};
  MgTensorId it = mg_graph_iterator(p, b, bx, imap, 5, &d);
  CHECK(it != MG_NO_ID && p->graphs[b].tensors[it].dims[5] == 16);
  MgTensorId acc = mg_graph_accum(p, b, it, MG_ACCUM_SUM_LAST, &d);
  MgTensorId sv = mg_graph_saver(p, b, acc, omap, &d);
  CHECK(sv != MG_NO_ID && mg_graph_mark_output(p, b, sv, &d) == MG_STATUS_OK);
  MgTensorId out;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 1, &x}, &out, &d) != MG_NO_ID);
  CHECK(p->graphs[0].tensors[out].dims[4] == 4 &&
        p->graphs[0].tensors[out].dims[5] == 1);
  CHECK(mg_graph_mark_output(p, 0, r, &d) == MG_STATUS_OK);
  CHECK(mg_graph_mark_output(p, 0, s5, &d) == MG_STATUS_OK);
  CHECK(mg_graph_mark_output(p, 0, m, &d) == MG_STATUS_OK);
  CHECK(mg_graph_mark_output(p, 0, out, &d) == MG_STATUS_OK);
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  MgProgram *q = mg_program_clone(p);
  CHECK(q && mg_program_equal(p, q) && mg_program_hash(p) == mg_program_hash(q));
  MgOp *top = &p->graphs[0].ops[p->graphs[0].tensors[t].producer];
  top->perm[5] = 5, top->perm[4] = 4; // dims 4 and 5 of the perm count
  CHECK(!mg_program_equal(p, q) && mg_program_hash(p) != mg_program_hash(q));
  top->perm[5] = 4, top->perm[4] = 5;
  CHECK(mg_program_equal(p, q));
  int64_t nine[9] = {2, 3, 2, 2, 4, 2, 4, 1, 8};
  CHECK(mg_graph_reshape(p, 0, a, 9, nine, &d) == MG_NO_ID);
  CHECK_MSG(d, "1..8");
  mg_program_destroy(q);
  mg_program_destroy(p);
}

//===--- Partial sums kept in f32 (precision.c) ----------------------------===//

// True when every result of an op of `kind` in graph g has dtype `dt`
// (and there is at least one).
static bool kind_dtype(const MgProgram *p, MgGraphId g, MgOpKind kind,
                       MgDType dt) {
  const MgGraph *gr = &p->graphs[g];
  uint32_t n = 0;
  for (uint32_t i = 0; i < gr->num_ops; i++)
    for (uint32_t k = 0; gr->ops[i].kind == kind && k < gr->ops[i].num_outputs;
         k++, n++)
      if (gr->tensors[gr->ops[i].outputs[k]].dtype != dt)
        return false;
  return n > 0;
}

// Flash-decoding: kernel 1's partials (Σ P·V, Σ P, the max) go to kernel 2
// in f32, which reads them as f32; the program's output stays f16.
static void test_graph_widen_split_kv(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *p = mg_sample_stable_attention_split_kv(2, 4, 8, 32, 2, 2);
  CHECK(p != NULL);
  CHECK_EQ_INT(mg_program_widen_partials(p, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  const MgGraph *k = &p->graphs[0];
  const MgOp *k1 = &k->ops[3], *k2 = &k->ops[4];
  CHECK_EQ_INT(k1->kind, MG_OP_CUSTOM);
  CHECK_EQ_INT(k2->kind, MG_OP_CUSTOM);
  for (uint32_t i = 0; i < k1->num_outputs; i++)
    CHECK_EQ_INT(tensor(p, 0, k1->outputs[i])->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, 0, k2->outputs[0])->dtype, MG_DTYPE_F16);
  MgGraphId g1 = (MgGraphId)k1->attr, g2 = (MgGraphId)k2->attr;
  CHECK(kind_dtype(p, g1, MG_OP_ACCUM, MG_DTYPE_F32));
  CHECK(kind_dtype(p, g1, MG_OP_SAVER, MG_DTYPE_F32));
  CHECK(kind_dtype(p, g1, MG_OP_MATMUL, MG_DTYPE_F16)); // complete scores
  CHECK(kind_dtype(p, g2, MG_OP_INPUT, MG_DTYPE_F32));
  CHECK(kind_dtype(p, g2, MG_OP_ITERATOR, MG_DTYPE_F32));
  CHECK(kind_dtype(p, g2, MG_OP_ACCUM, MG_DTYPE_F32));
  CHECK(kind_dtype(p, g2, MG_OP_SAVER, MG_DTYPE_F16));
  mg_program_destroy(p);
}

// nTrans unfused: both sums of squares and the scales after them (div by
// n, sqrt: unary ops keep their operand's type) are f32; the divisions
// x / rms keep x's f16, and so does the output.
static void test_graph_widen_kernel_sums(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *p = mg_sample_ntrans(8, 64);
  CHECK_EQ_INT(mg_program_widen_partials(p, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  CHECK(kind_dtype(p, 0, MG_OP_SUM, MG_DTYPE_F32));
  CHECK(kind_dtype(p, 0, MG_OP_DIV_SCALAR, MG_DTYPE_F32));
  CHECK(kind_dtype(p, 0, MG_OP_SQRT, MG_DTYPE_F32));
  CHECK(kind_dtype(p, 0, MG_OP_SQUARE, MG_DTYPE_F16));
  CHECK(kind_dtype(p, 0, MG_OP_DIV, MG_DTYPE_F16));
  CHECK_EQ_INT(tensor(p, 0, p->graphs[0].outputs[0])->dtype, MG_DTYPE_F16);
  mg_program_destroy(p);
}

// Kept: a sum the program narrowed itself (f32 operand, f16 result), and a
// sum whose unary reader is the program's output (it would change the
// output's type).
static void test_graph_widen_keeps(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims2(4, 64), &d);
  MgTensorId h = mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(4, 64), &d);
  MgTensorId narrowed = mg_graph_sum(p, 0, x, 1, &d);
  CHECK_EQ_INT(mg_graph_set_dtype(p, 0, narrowed, MG_DTYPE_F16, &d),
               MG_STATUS_OK);
  MgTensorId e = mg_graph_unary(p, 0, MG_OP_EXP, narrowed, &d);
  MgTensorId hs = mg_graph_sum(p, 0, h, 1, &d);
  MgTensorId r = mg_graph_unary(p, 0, MG_OP_SQRT, hs, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, e, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, r, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_widen_partials(p, &d), MG_STATUS_OK);
  CHECK_EQ_INT(tensor(p, 0, narrowed)->dtype, MG_DTYPE_F16);
  CHECK_EQ_INT(tensor(p, 0, hs)->dtype, MG_DTYPE_F16);
  CHECK_EQ_INT(tensor(p, 0, r)->dtype, MG_DTYPE_F16);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  mg_program_destroy(p);
}

// Split-K: kernel 1's blocks each multiply a quarter of K and save their
// matmul tile; kernel 2 adds the four partials over its for-loop. The
// partials are f32 from the tile on, unless the program returns them.
static void test_graph_widen_split_k(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgTensorId in[2] = {
      mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(8, 64), &d),
      mg_graph_add_input(p, 0, MG_DTYPE_F16, 2, dims2(64, 16), &d)};
  MgGraphId b1 = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int32_t grid4[3] = {4, 1, 1}, grid1[3] = {1, 1, 1};
  CHECK_EQ_INT(mg_graph_set_launch(p, b1, grid4, 128, 1, &d), MG_STATUS_OK);
  MgTensorId x = mg_graph_add_input(p, b1, MG_DTYPE_F16, 2, dims2(8, 64), &d);
  MgTensorId w = mg_graph_add_input(p, b1, MG_DTYPE_F16, 2, dims2(64, 16), &d);
  const int8_t x_k[3] = {1, NONE, NONE}, w_k[3] = {0, NONE, NONE};
  MgTensorId xt = mg_graph_iterator(p, b1, x, x_k, NONE, &d);
  MgTensorId wt = mg_graph_iterator(p, b1, w, w_k, NONE, &d);
  MgTensorId mm = mg_graph_matmul(p, b1, xt, wt, &d);
  const int8_t rows[3] = {0, NONE, NONE};
  MgTensorId saved = mg_graph_saver(p, b1, mm, rows, &d); // (32,16)
  CHECK_EQ_INT(mg_graph_mark_output(p, b1, saved, &d), MG_STATUS_OK);
  MgTensorId part;
  CHECK(mg_graph_custom(p, 0, (MgCall){b1, 2, in}, &part, &d) != MG_NO_ID);
  MgGraphId b2 = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  CHECK_EQ_INT(mg_graph_set_launch(p, b2, grid1, 128, 4, &d), MG_STATUS_OK);
  MgTensorId pin = mg_graph_add_input(p, b2, MG_DTYPE_F16, 2, dims2(32, 16),
                                      &d);
  const int8_t none[3] = {NONE, NONE, NONE};
  MgTensorId pt = mg_graph_iterator(p, b2, pin, none, 0, &d);
  MgTensorId acc = mg_graph_accum(p, b2, pt, MG_ACCUM_SUM, &d);
  MgTensorId out = mg_graph_saver(p, b2, acc, none, &d);
  CHECK_EQ_INT(mg_graph_mark_output(p, b2, out, &d), MG_STATUS_OK);
  MgTensorId y;
  CHECK(mg_graph_custom(p, 0, (MgCall){b2, 1, &part}, &y, &d) != MG_NO_ID);
  CHECK_EQ_INT(mg_graph_mark_output(p, 0, y, &d), MG_STATUS_OK);
  MgProgram *unread = mg_program_clone(p);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_widen_partials(p, &d), MG_STATUS_OK);
  CHECK_EQ_INT(mg_program_validate(p, NULL, &d), MG_STATUS_OK);
  CHECK_EQ_INT(tensor(p, b1, mm)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, b1, saved)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, 0, part)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, b2, pin)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, b2, pt)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, b2, acc)->dtype, MG_DTYPE_F32);
  CHECK_EQ_INT(tensor(p, 0, y)->dtype, MG_DTYPE_F16);
  // The partials as an output of the program too: their type is its own,
  // so neither they nor the tile change.
  unread->graphs[0].outputs[0] = part;
  CHECK_EQ_INT(mg_program_widen_partials(unread, &d), MG_STATUS_OK);
  CHECK_EQ_INT(tensor(unread, b1, mm)->dtype, MG_DTYPE_F16);
  CHECK_EQ_INT(tensor(unread, 0, part)->dtype, MG_DTYPE_F16);
  mg_program_destroy(unread);
  mg_program_destroy(p);
}

int main(void) {
  RUN_TEST(test_graph_op_info_names);
  RUN_TEST(test_graph_op_info_properties);
  RUN_TEST(test_graph_targets);
  RUN_TEST(test_graph_copy);
  RUN_TEST(test_graph_rmsnorm_shapes);
  RUN_TEST(test_graph_smem_rmsnorm);
  RUN_TEST(test_graph_op_in_loop);
  RUN_TEST(test_graph_input_rules);
  RUN_TEST(test_graph_binary_rules);
  RUN_TEST(test_graph_matmul_rules);
  RUN_TEST(test_graph_unary_scalar_sum);
  RUN_TEST(test_graph_iterator_rules);
  RUN_TEST(test_graph_block_dram_rules);
  RUN_TEST(test_graph_accum_rules);
  RUN_TEST(test_graph_saver_rules);
  RUN_TEST(test_graph_mixing_rule);
  RUN_TEST(test_graph_concat_rules);
  RUN_TEST(test_graph_set_launch_rules);
  RUN_TEST(test_graph_mark_output_rules);
  RUN_TEST(test_graph_custom_rules);
  RUN_TEST(test_graph_thread_rules);
  RUN_TEST(test_graph_clone_equal_hash);
  RUN_TEST(test_graph_hash_detects_each_field);
  RUN_TEST(test_graph_growth);
  RUN_TEST(test_graph_validate_catches);
  RUN_TEST(test_graph_validate_sm80_smem);
  RUN_TEST(test_graph_numel);
  RUN_TEST(test_graph_input_layouts);
  RUN_TEST(test_graph_views);
  RUN_TEST(test_graph_folded_views);
  RUN_TEST(test_graph_written_views);
  RUN_TEST(test_graph_dot);
  RUN_TEST(test_graph_rank6);
  RUN_TEST(test_graph_widen_split_kv);
  RUN_TEST(test_graph_widen_kernel_sums);
  RUN_TEST(test_graph_widen_keeps);
  RUN_TEST(test_graph_widen_split_k);
  return TEST_SUMMARY();
}
