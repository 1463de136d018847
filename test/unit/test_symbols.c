//===- test_symbols.c - Symbolic dims: inference, sizes, generalization ---===//
//
// Issue 29: a dim known only at run time is a symbol. These tests hold the
// rules that make one μGraph valid for every size: shape inference refuses
// what holds at one size only, instantiation re-sizes in place, the
// search's one-row answer generalizes to one block per row and is tested
// at several sizes, and candidates right at one size only are rejected.
//
//===----------------------------------------------------------------------===//
#include "test.h"

#include "mirage/search.h"

// x[n, 16] (n symbol 1, now `rows`) and its row softmax.
static MgProgram *softmax(int64_t rows, MgTensorId *x_out) {
  MgProgram *p = mg_program_create();
  MgDiag d = MG_DIAG_INIT;
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {rows, 16};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims, &d);
  CHECK(mg_graph_set_input_sym(p, 0, x, 0, 1, &d) == MG_STATUS_OK);
  MgTensorId m = mg_graph_reduce(p, 0, MG_OP_REDUCE_MAX, x, 1, &d);
  MgTensorId e = mg_graph_unary(
      p, 0, MG_OP_EXP, mg_graph_binary(p, 0, MG_OP_SUB, x, m, &d), &d);
  MgTensorId y =
      mg_graph_binary(p, 0, MG_OP_DIV, e, mg_graph_sum(p, 0, e, 1, &d), &d);
  CHECK(y != MG_NO_ID);
  CHECK(mg_graph_mark_output(p, 0, y, &d) == MG_STATUS_OK);
  if (x_out)
    *x_out = x;
  return p;
}

static void test_symbols_infer(void) {
  MgTensorId x;
  MgProgram *p = softmax(5, &x);
  MgDiag d = MG_DIAG_INIT;
  const MgGraph *g = &p->graphs[0];
  const MgTensor *y = &g->tensors[g->outputs[0]];
  CHECK_EQ_INT(mg_tensor_sym(y, 0), 1); // carried through every op
  CHECK_EQ_INT(mg_tensor_sym(y, 1), 0);
  CHECK_EQ_INT(mg_program_syms(p), 1);
  CHECK_EQ_INT(mg_program_sym_size(p, 1), 5);
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  // A symbol meets a static size only as a broadcast of 1.
  int64_t five[2] = {5, 16}, one[2] = {1, 16};
  MgTensorId s5 = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, five, &d);
  MgTensorId s1 = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, one, &d);
  CHECK(mg_graph_binary(p, 0, MG_OP_ADD, x, s5, &d) == MG_NO_ID);
  CHECK(strstr(d.message, "is symbol 1 in 'lhs' but 5 in 'rhs'") != NULL);
  MgTensorId b = mg_graph_binary(p, 0, MG_OP_ADD, s1, x, &d);
  CHECK(b != MG_NO_ID && mg_tensor_sym(&p->graphs[0].tensors[b], 0) == 1);
  // A reshape keeps the symbol whole and in order; merged, it is refused.
  int64_t split[3] = {-1, 4, 4}, merged[1] = {80};
  MgTensorId r = mg_graph_reshape(p, 0, x, 3, split, &d);
  CHECK(r != MG_NO_ID && p->graphs[0].tensors[r].dims[0] == 5 &&
        mg_tensor_sym(&p->graphs[0].tensors[r], 0) == 1);
  CHECK(mg_graph_reshape(p, 0, x, 1, merged, &d) == MG_NO_ID);
  CHECK(strstr(d.message, "drops symbol 1") != NULL);
  // Symbols are set before an input is read.
  CHECK(mg_graph_set_input_sym(p, 0, x, 1, 1, &d) != MG_STATUS_OK);
  // Re-sizing is a substitution: still valid, every dim of the symbol.
  const int64_t nine[MG_MAX_SYMS] = {9, 0, 0};
  mg_program_instantiate(p, nine);
  CHECK(mg_program_validate(p, NULL, &d) == MG_STATUS_OK);
  CHECK_EQ_INT(p->graphs[0].tensors[p->graphs[0].outputs[0]].dims[0], 9);
  CHECK_EQ_INT(p->graphs[0].tensors[r].dims[0], 9);
  // The same program with and without its symbol hash apart.
  MgProgram *q = mg_program_clone(p);
  mg_program_clear_syms(q);
  CHECK(!mg_program_syms(q) && mg_program_hash(q) != mg_program_hash(p));
  CHECK(mg_program_validate(q, NULL, &d) == MG_STATUS_OK);
  mg_program_destroy(q);
  mg_program_destroy(p);
}

// The search's answer for one row, generalized: one block per row on a
// grid axis of the symbol, equivalent at every size tested.
static void test_symbols_generalize_softmax(void) {
  MgProgram *full = softmax(1009, NULL);
  MgProgram *one = mg_search_symbolic_at(full, 1);
  CHECK(one && !mg_program_syms(one));
  CHECK_EQ_INT(one->graphs[0].tensors[0].dims[0], 1);
  MgSearchOptions o = mg_search_options_default();
  o.threads = 1;
  o.max_states = 200000; // bounded by work, not time
  MgSearchResult res;
  MgDiag d = MG_DIAG_INIT;
  CHECK(mg_search_run(one, &o, &res, &d) == MG_STATUS_OK);
  const MgProgram *best = mg_search_result_best(&res);
  CHECK(best != NULL);
  MgProgram *g = best ? mg_search_symbolic_generalize(full, best, 1, &d) : NULL;
  CHECK(g != NULL);
  if (g) {
    unsigned axes = 0;
    for (uint32_t k = 1; k < g->num_graphs; k++)
      for (int a = 0; a < 3; a++)
        if (g->graphs[k].level == MG_LEVEL_BLOCK && g->graphs[k].grid_sym[a]) {
          axes++;
          CHECK_EQ_INT(g->graphs[k].grid[a], 1009);
        }
    CHECK(axes >= 1);
    const int64_t sizes[] = {1, 2, 7, 129};
    MgVerifyOptions vo = mg_verify_options_default();
    MgSymbolicCheck check;
    CHECK(mg_search_symbolic_verify(full, g, &(MgSymbolicTest){sizes, 4, vo}, &check, &d) ==
          MG_STATUS_OK);
    CHECK_EQ_INT(check.verdict, MG_VERDICT_EQUIVALENT);
    CHECK(check.log2_bound <= -40);
  }
  mg_program_destroy(g);
  mg_search_result_free(&res);
  mg_program_destroy(one);
  mg_program_destroy(full);
}

// A kernel that holds a tile of 8 rows in one block (as a search at 8 rows
// may find it), generalized to ceil(n / 8) blocks with a tail: equal at
// sizes below, at and past one tile; a grid one block short of the size
// (a tail dropped) is refused by the builders.
static MgProgram *softmax_tile_kernel(int64_t rows) {
  MgProgram *p = mg_program_create();
  MgDiag d = MG_DIAG_INIT;
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int64_t dims[2] = {rows, 16};
  MgTensorId in = mg_graph_add_input(p, b, MG_DTYPE_F32, 2, dims, &d);
  int8_t none[3] = {MG_MAP_NONE, MG_MAP_NONE, MG_MAP_NONE};
  MgTensorId x = mg_graph_iterator(p, b, in, none, MG_MAP_NONE, &d);
  MgTensorId m = mg_graph_reduce(p, b, MG_OP_REDUCE_MAX, x, 1, &d);
  MgTensorId e = mg_graph_unary(
      p, b, MG_OP_EXP, mg_graph_binary(p, b, MG_OP_SUB, x, m, &d), &d);
  MgTensorId y =
      mg_graph_binary(p, b, MG_OP_DIV, e, mg_graph_sum(p, b, e, 1, &d), &d);
  CHECK(mg_graph_mark_output(p, b, mg_graph_saver(p, b, y, none, &d), &d) ==
        MG_STATUS_OK);
  MgTensorId rx = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims, &d), out;
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 1, &rx}, &out, &d) != MG_NO_ID);
  CHECK(mg_graph_mark_output(p, 0, out, &d) == MG_STATUS_OK);
  return p;
}

static void test_symbols_generalize_tiles(void) {
  MgProgram *full = softmax(1009, NULL), *eight = softmax_tile_kernel(8);
  MgDiag d = MG_DIAG_INIT;
  CHECK(mg_program_validate(eight, NULL, &d) == MG_STATUS_OK);
  MgProgram *g = mg_search_symbolic_generalize(full, eight, 8, &d);
  CHECK(g != NULL);
  if (g) {
    const MgGraph *b = &g->graphs[1];
    CHECK_EQ_INT(b->grid_sym[0], 1);
    CHECK_EQ_INT(b->grid_rows[0], 8);
    CHECK_EQ_INT(b->grid[0], (1009 + 7) / 8);
    const int64_t sizes[] = {1, 7, 8, 9, 13, 17};
    MgVerifyOptions vo = mg_verify_options_default();
    MgSymbolicCheck check;
    CHECK(mg_search_symbolic_verify(full, g, &(MgSymbolicTest){sizes, 6, vo}, &check, &d) ==
          MG_STATUS_OK);
    CHECK_EQ_INT(check.verdict, MG_VERDICT_EQUIVALENT);
    g->graphs[1].grid[0]--; // the tail dropped
    CHECK(mg_program_validate(g, NULL, &d) != MG_STATUS_OK);
    CHECK(strstr(d.message, "does not cover symbol 1") != NULL);
  }
  mg_program_destroy(g);
  mg_program_destroy(eight);
  mg_program_destroy(full);
}

// y = Σ_rows x: equal to max over rows at one row only.
static MgProgram *over_rows(MgOpKind kind) {
  MgProgram *p = mg_program_create();
  MgDiag d = MG_DIAG_INIT;
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {4, 8};
  MgTensorId x = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims, &d);
  mg_graph_set_input_sym(p, 0, x, 0, 1, &d);
  MgTensorId y = kind == MG_OP_SUM ? mg_graph_sum(p, 0, x, 0, &d)
                                   : mg_graph_reduce(p, 0, kind, x, 0, &d);
  mg_graph_mark_output(p, 0, y, &d);
  return p;
}

// Mutations that hold at size 1 only, each rejected: by the field tests
// at a size above one, by the generalization's rule, by the builders.
static void test_symbols_mutations_rejected(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *sum = over_rows(MG_OP_SUM), *max = over_rows(MG_OP_REDUCE_MAX);
  // Verifier: a reduction over rows replaced by another one equal at 1.
  const int64_t sizes[] = {1, 2, 7};
  MgVerifyOptions vo = mg_verify_options_default();
  MgSymbolicCheck check;
  CHECK(mg_search_symbolic_verify(sum, max, &(MgSymbolicTest){sizes, 3, vo}, &check, &d) ==
        MG_STATUS_OK);
  CHECK_EQ_INT(check.verdict, MG_VERDICT_NOT_EQUIVALENT);
  CHECK_EQ_INT(check.size, 2); // size 1 passed, 2 did not
  // Generalization: a one-row answer that reduces over the rows.
  MgProgram *one = mg_search_symbolic_at(sum, 1);
  CHECK(mg_search_symbolic_generalize(sum, one, 1, &d) == NULL);
  CHECK(strstr(d.message, "reduces over a symbolic dim") != NULL);
  mg_program_destroy(one);
  // Builders: a block that assumes the rows divide by a static grid, and
  // a symbol's grid axis whose saver writes no row (blocks overwrite).
  MgProgram *p = mg_program_create();
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int32_t grid[3] = {2, 1, 1};
  CHECK(mg_graph_set_launch(p, b, grid, 128, 1, &d) == MG_STATUS_OK);
  int64_t dims[2] = {4, 8};
  MgTensorId in = mg_graph_add_input(p, b, MG_DTYPE_F32, 2, dims, &d);
  mg_graph_set_input_sym(p, b, in, 0, 1, &d);
  int8_t imap[3] = {0, MG_MAP_NONE, MG_MAP_NONE};
  CHECK(mg_graph_iterator(p, b, in, imap, MG_MAP_NONE, &d) == MG_NO_ID);
  CHECK(strstr(d.message, "split only by a grid axis of its own size"));
  p->graphs[b].grid[0] = 4;
  p->graphs[b].grid_sym[0] = 1;
  MgTensorId tile = mg_graph_iterator(p, b, in, imap, MG_MAP_NONE, &d);
  CHECK(tile != MG_NO_ID && p->graphs[b].tensors[tile].dims[0] == 1 &&
        !p->graphs[b].tensors[tile].sym);
  MgTensorId s = mg_graph_sum(p, b, tile, 1, &d);
  int8_t none[3] = {MG_MAP_NONE, MG_MAP_NONE, MG_MAP_NONE};
  CHECK(mg_graph_saver(p, b, s, none, &d) == MG_NO_ID);
  CHECK(strstr(d.message, "is not mapped by omap") != NULL);
  int8_t keep[3] = {MG_MAP_NONE, MG_MAP_NONE, MG_MAP_NONE};
  CHECK(mg_graph_iterator(p, b, in, keep, MG_MAP_NONE, &d) == MG_NO_ID);
  CHECK(strstr(d.message, "the tile keeps a symbolic dim") != NULL);
  mg_program_destroy(p);
  mg_program_destroy(sum);
  mg_program_destroy(max);
}

// y = Σ_rows x for x[rows, 8] as one block looping over the rows, `per`
// an iteration: each iteration's tile summed over its rows, then
// accumulated (`tail_in_acc`: the tiles accumulated element-wise and
// summed after the loop, a rewrite that holds only when every iteration
// is full). `symbolic`: the rows are symbol 1, the loop runs over it.
static MgProgram *loop_sum_kernel(int64_t rows, int32_t per, bool tail_in_acc,
                                  bool symbolic) {
  MgProgram *p = mg_program_create();
  MgDiag d = MG_DIAG_INIT;
  mg_program_add_graph(p, MG_LEVEL_KERNEL);
  MgGraphId b = mg_program_add_graph(p, MG_LEVEL_BLOCK);
  int32_t grid[3] = {1, 1, 1};
  CHECK(mg_graph_set_launch(p, b, grid, 128, (int32_t)((rows + per - 1) / per),
                            &d) == MG_STATUS_OK);
  if (symbolic)
    p->graphs[b].forloop_sym = 1, p->graphs[b].forloop_rows = per;
  int64_t dims[2] = {rows, 8};
  MgTensorId in = mg_graph_add_input(p, b, MG_DTYPE_F32, 2, dims, &d);
  if (symbolic)
    mg_graph_set_input_sym(p, b, in, 0, 1, &d);
  int8_t none[3] = {MG_MAP_NONE, MG_MAP_NONE, MG_MAP_NONE};
  MgTensorId x = mg_graph_iterator(p, b, in, none, 0, &d);
  MgTensorId y =
      tail_in_acc
          ? mg_graph_sum(p, b, mg_graph_accum(p, b, x, MG_ACCUM_SUM, &d), 0, &d)
          : mg_graph_accum(p, b, mg_graph_sum(p, b, x, 0, &d), MG_ACCUM_SUM,
                           &d);
  CHECK(mg_graph_mark_output(p, b, mg_graph_saver(p, b, y, none, &d), &d) ==
        MG_STATUS_OK);
  MgTensorId rx = mg_graph_add_input(p, 0, MG_DTYPE_F32, 2, dims, &d), out;
  if (symbolic)
    mg_graph_set_input_sym(p, 0, rx, 0, 1, &d);
  CHECK(mg_graph_custom(p, 0, (MgCall){b, 1, &rx}, &out, &d) != MG_NO_ID);
  CHECK(mg_graph_mark_output(p, 0, out, &d) == MG_STATUS_OK);
  return p;
}

// A reduction over a symbol in a for-loop over it (docs/verification.md
// §4c): the answer found at 8 rows, 4 an iteration, generalized to
// ceil(n / 4) iterations, equal at sizes below, at and past one iteration;
// and the mutations of such a loop, each rejected, the check saying which.
static void test_symbols_loop_over_rows(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *full = over_rows(MG_OP_SUM);
  const int64_t at1009[MG_MAX_SYMS] = {1009, 0, 0};
  mg_program_instantiate(full, at1009);
  MgProgram *eight = loop_sum_kernel(8, 4, false, false);
  CHECK(mg_program_validate(eight, NULL, &d) == MG_STATUS_OK);
  MgProgram *g = mg_search_symbolic_generalize(full, eight, 8, &d);
  CHECK(g != NULL);
  const int64_t sizes[] = {1, 3, 4, 5, 8, 9, 13};
  MgVerifyOptions vo = mg_verify_options_default();
  MgSymbolicCheck check;
  if (g) {
    const MgGraph *b = &g->graphs[1];
    CHECK_EQ_INT(b->forloop_sym, 1);
    CHECK_EQ_INT(b->forloop_rows, 4);
    CHECK_EQ_INT(b->forloop, (1009 + 3) / 4);
    CHECK(mg_search_symbolic_rowwise(g, &d));
    CHECK(mg_search_symbolic_verify(full, g, &(MgSymbolicTest){sizes, 7, vo},
                                    &check, &d) == MG_STATUS_OK);
    CHECK_EQ_INT(check.verdict, MG_VERDICT_EQUIVALENT);
    int64_t test[8];
    uint32_t n = mg_search_symbolic_test_sizes(g, test, 8);
    CHECK_EQ_INT(n, 5); // 1, 5, 8, 3 and 7
    CHECK(n == 5 && test[1] == 5 && test[2] == 8 && test[3] == 3);
    // The last partial iteration dropped (floor(n / 4) iterations): the
    // builders' rule refuses it at a size that is not a multiple.
    MgProgram *nine = mg_program_clone_at(g, 9);
    CHECK(nine && nine->graphs[1].forloop == 3);
    nine->graphs[1].forloop = 2;
    CHECK(mg_program_validate(nine, NULL, &d) != MG_STATUS_OK);
    CHECK(strstr(d.message, "does not cover symbol 1") != NULL);
    // A for-loop that assumes the rows divide by its range (static over
    // the symbol): refused at every size.
    nine->graphs[1].forloop = 3;
    nine->graphs[1].forloop_sym = 0;
    CHECK(mg_program_validate(nine, NULL, &d) != MG_STATUS_OK);
    CHECK(strstr(d.message, "a symbol is split only by a for-loop over it"));
    mg_program_destroy(nine);
  }
  // A wrong tail: the loop's rows accumulated element-wise (equal at 8
  // rows, full iterations only). The generalization refuses it, and the
  // same kernel built by hand fails the field test at a tail size.
  MgProgram *acc = loop_sum_kernel(8, 4, true, false);
  CHECK(mg_search_symbolic_generalize(full, acc, 8, &d) == NULL);
  CHECK(strstr(d.message, "reach an op other than a reduction over them"));
  MgProgram *hand = loop_sum_kernel(1009, 4, true, true);
  CHECK(!mg_search_symbolic_rowwise(hand, &d));
  const int64_t tail[] = {4, 8, 5};
  MgStatus st = mg_search_symbolic_verify(full, hand,
                                          &(MgSymbolicTest){tail, 3, vo},
                                          &check, &d);
  CHECK(st != MG_STATUS_OK || check.verdict != MG_VERDICT_EQUIVALENT);
  CHECK_EQ_INT(check.size, 5); // the full iterations passed
  mg_program_destroy(hand);
  mg_program_destroy(acc);
  mg_program_destroy(g);
  mg_program_destroy(eight);
  mg_program_destroy(full);
}

// A reshape between kernels: one that passes the symbol through whole
// (x[n, 2, 8] -> [1, n, 16]) gets it back in its shape; one that splits it
// (x[8, 2, 8] -> [2, 4, 16] -> [1, 8, 16], the same elements at 8 rows) is
// refused, since at other sizes the split would not exist.
static void test_symbols_generalize_reshape(void) {
  MgDiag d = MG_DIAG_INIT;
  MgProgram *full = mg_program_create();
  mg_program_add_graph(full, MG_LEVEL_KERNEL);
  int64_t dims[3] = {8, 2, 8}, to[3] = {1, -1, 16};
  MgTensorId x = mg_graph_add_input(full, 0, MG_DTYPE_F32, 3, dims, &d);
  CHECK(mg_graph_set_input_sym(full, 0, x, 0, 1, &d) == MG_STATUS_OK);
  MgTensorId r = mg_graph_reshape(full, 0, x, 3, to, &d);
  MgTensorId y = mg_graph_unary(full, 0, MG_OP_EXP, r, &d);
  CHECK(mg_graph_mark_output(full, 0, y, &d) == MG_STATUS_OK);
  MgProgram *one = mg_search_symbolic_at(full, 8);
  MgProgram *g = mg_search_symbolic_generalize(full, one, 8, &d);
  CHECK(g != NULL);
  if (g) {
    const MgGraph *root = &g->graphs[0];
    CHECK_EQ_INT(mg_tensor_sym(&root->tensors[root->outputs[0]], 1), 1);
    CHECK_EQ_INT(mg_tensor_sym(&root->tensors[root->outputs[0]], 2), 0);
  }
  mg_program_destroy(g);
  mg_program_destroy(one);
  // The split: right at 8 rows only.
  MgProgram *split = mg_program_create();
  mg_program_add_graph(split, MG_LEVEL_KERNEL);
  int64_t mid[3] = {2, 4, 16}, out[3] = {1, 8, 16};
  MgTensorId sx = mg_graph_add_input(split, 0, MG_DTYPE_F32, 3, dims, &d);
  MgTensorId s1 = mg_graph_reshape(split, 0, sx, 3, mid, &d);
  MgTensorId s2 = mg_graph_reshape(split, 0, s1, 3, out, &d);
  MgTensorId sy = mg_graph_unary(split, 0, MG_OP_EXP, s2, &d);
  CHECK(mg_graph_mark_output(split, 0, sy, &d) == MG_STATUS_OK);
  CHECK(mg_search_symbolic_generalize(full, split, 8, &d) == NULL);
  CHECK(strstr(d.message, "splits or merges a symbolic dim") != NULL);
  mg_program_destroy(split);
  mg_program_destroy(full);
}

int main(int argc, char **argv) {
  TEST_SELECT(argc, argv);
  RUN_TEST(test_symbols_infer);
  RUN_TEST(test_symbols_generalize_softmax);
  RUN_TEST(test_symbols_generalize_tiles);
  RUN_TEST(test_symbols_mutations_rejected);
  RUN_TEST(test_symbols_loop_over_rows);
  RUN_TEST(test_symbols_generalize_reshape);
  return TEST_SUMMARY();
}
