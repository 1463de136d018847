//===- test_fuzz.c - mirage-fuzz: classes, blame, mutator, corpus ---------===//
//
// The fuzzer's CI slice fails on a crash blamed on our code and passes an
// upstream parser crash, so the blame must be right: canned sanitizer
// reports (the shapes the sanitized build prints) are classified here. The
// mutator must be deterministic and reach every kind of mutation; the
// corpus must split `// -----` files and drop comment lines.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // mkdtemp

#include "fuzz.h"
#include "test.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#define ROOT "/src/mirage"
#define EXITED(code) ((code) << 8) // a wait status, as Linux encodes it
#define SIGNALLED(sig) (sig)

static MgFuzzOutcome classify(int status, const char *err, MgFuzzPhase phase,
                              MgFuzzKill kill) {
  MgFuzzOutcome o;
  MgFuzzEnd end = {status, err, strlen(err), phase, kill};
  mg_fuzz_classify(&end, ROOT, &o);
  return o;
}

// The MLIR 22 parser crash the fuzzer finds first (linalg.transpose).
static const char parser_segv[] =
    "input.mlir:46:114: error: expected ']'\n"
    "AddressSanitizer:DEADLYSIGNAL\n"
    "=================================================================\n"
    "==27058==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000 "
    "(pc 0x7fe0aba83a83 bp 0x7fe0ac06fd58 sp 0x7ffce8e1a308 T0)\n"
    "==27058==The signal is caused by a READ memory access.\n"
    "    #0 0x7fe0aba83a83 in mlir::Attribute::getContext() const "
    "(/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x6083a83)\n"
    "    #1 0x7fe0abb2e81e in mlir::NamedAttrList::set(llvm::StringRef, "
    "mlir::Attribute) (/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x612e81e)\n"
    "    #2 0x7fe0a91b3ee3  (/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x37b3ee3)\n"
    "    #3 0x7fe0a906ae60 in mlir::linalg::TransposeOp::parse(mlir::"
    "OpAsmParser&, mlir::OperationState&) "
    "(/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x366ae60)\n"
    "    #4 0x5653db167be3 in mlirOperationCreateParse "
    "(/build/bin/mirage-fuzz+0x3b6be3)\n"
    "    #5 0x5653dafdbe99 in mg_tool_parse_module " ROOT
    "/lib/passes/tool.c:342\n"
    "    #6 0x5653dafbf893 in child_run " ROOT "/tools/mirage-fuzz/main.c:307\n"
    "    #7 0x7fe09c845249 in __libc_start_call_main "
    "../sysdeps/nptl/libc_start_call_main.h:58\n"
    "\n"
    "SUMMARY: AddressSanitizer: SEGV in mlir::Attribute::getContext() const\n";

static void test_fuzz_blame_parser(void) {
  MgFuzzOutcome o = classify(SIGNALLED(SIGABRT), parser_segv,
                             MG_FUZZ_PHASE_PARSE, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_PARSER);
  CHECK(!strcmp(o.signature,
                "SEGV: mlir::Attribute::getContext() const < "
                "mlir::NamedAttrList::set(llvm::StringRef, mlir::Attribute) < "
                "mlir::linalg::TransposeOp::parse(mlir::OpAsmParser&, "
                "mlir::OperationState&)"));
  // The same stack while the passes run: upstream code, but on our IR.
  o = classify(SIGNALLED(SIGABRT), parser_segv, MG_FUZZ_PHASE_PASSES,
               MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_UPSTREAM);
}

static void test_fuzz_blame_ours(void) {
  // In our text wrapping, called from the harness.
  const char *err =
      "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address "
      "0x602000000011 at pc 0x1 bp 0x2 sp 0x3\n"
      "READ of size 1 at 0x602000000011 thread T0\n"
      "    #0 0x55 in hoist_aliases " ROOT "/lib/passes/tool.c:230:9\n"
      "    #1 0x55 in mg_tool_parse_module " ROOT "/lib/passes/tool.c:330:3\n"
      "    #2 0x55 in child_run " ROOT "/tools/mirage-fuzz/main.c:307:5\n";
  MgFuzzOutcome o =
      classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_PARSE, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  // The signature stops at the way in (mg_tool_parse_module).
  CHECK(!strcmp(o.signature, "heap-buffer-overflow: hoist_aliases"));
  // In upstream code called by a pass of ours: ours.
  err = "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000008\n"
        "    #0 0x7f in mlir::Operation::getName() "
        "(/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x1)\n"
        "    #1 0x55 in mlirOperationGetName (/build/bin/mirage-fuzz+0x2)\n"
        "    #2 0x55 in lift_op " ROOT "/lib/lift/tosa.c:10:3\n"
        "    #3 0x7f in mlir::PassManager::run(mlir::Operation*) "
        "(/usr/lib/llvm-22/lib/libMLIR.so.22.1+0x3)\n";
  o = classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_PASSES,
               MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  // The runtime at the top (an interceptor) is skipped; a crash in the
  // harness itself is ours.
  err = "==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x1\n"
        "    #0 0x7f in __interceptor_memcpy "
        "(/usr/lib/x86_64-linux-gnu/libasan.so.8+0x1)\n"
        "    #1 0x55 in save_input " ROOT "/tools/mirage-fuzz/main.c:10:3\n";
  o = classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_EXIT, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  CHECK(!strcmp(o.signature, "stack-buffer-overflow: save_input"));
}

static void test_fuzz_reports(void) {
  // UndefinedBehaviorSanitizer: numbers are left out of the signature.
  const char *err = ROOT
      "/lib/graph/shape.c:40:12: runtime error: signed integer overflow: "
      "2147483647 * 2 cannot be represented in type 'int'\n"
      "    #0 0x55 in mg_graph_numel " ROOT "/lib/graph/shape.c:40\n"
      "AddressSanitizer:DEADLYSIGNAL\n" // UBSan's abort, under handle_abort
      "==1==ERROR: AddressSanitizer: ABRT on unknown address 0x1\n"
      "    #0 0x7f in __pthread_kill_implementation ./nptl/pthread_kill.c:44\n";
  MgFuzzOutcome o = classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_PASSES,
                             MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  CHECK(!strcmp(o.signature,
                "runtime error: signed integer overflow:  *  cannot be "
                "represented in type 'int': mg_graph_numel"));
  // A leak, blamed on the allocation's stack.
  err = "==1==ERROR: LeakSanitizer: detected memory leaks\n\n"
        "Direct leak of 8 byte(s) in 1 object(s) allocated from:\n"
        "    #0 0x7f in malloc (/usr/lib/x86_64-linux-gnu/libasan.so.8+0x1)\n"
        "    #1 0x55 in mg_arena_create " ROOT "/lib/support/arena.c:12\n";
  o = classify(EXITED(23), err, MG_FUZZ_PHASE_EXIT, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  CHECK(!strcmp(o.signature, "leak: mg_arena_create"));
  // Out of memory in the parser: an upstream memory event.
  err = "LLVM ERROR: out of memory\nAllocation failed\n"
        "==1==ERROR: AddressSanitizer: ABRT on unknown address 0x1\n"
        "    #0 0x7f in abort (/lib/x86_64-linux-gnu/libc.so.6+0x1)\n"
        "    #1 0x7f in llvm::report_bad_alloc_error(char const*, bool) "
        "(/usr/lib/llvm-22/lib/libLLVM.so.22.1+0x2)\n";
  o = classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_PARSE, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_MEMORY);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_PARSER);
  CHECK(!strncmp(o.signature, "LLVM ERROR: out of memory: ", 27));
  // Stopped at the time limit, inside our search: a hang of ours.
  err =
      "==1==ERROR: AddressSanitizer: ABRT on unknown address 0x1\n"
      "    #0 0x7f in __pthread_kill_implementation ./nptl/pthread_kill.c:44\n"
      "    #1 0x55 in mg_search_run " ROOT "/lib/search/search.c:400\n";
  o = classify(SIGNALLED(SIGABRT), err, MG_FUZZ_PHASE_PASSES,
               MG_FUZZ_KILL_TIME);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_HANG);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_OURS);
  CHECK(!strcmp(o.signature, "timeout: mg_search_run"));
  o = classify(SIGNALLED(SIGKILL), "", MG_FUZZ_PHASE_PASSES,
               MG_FUZZ_KILL_MEMORY);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_MEMORY);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_UNKNOWN);
}

static void test_fuzz_exit_classes(void) {
  MgFuzzOutcome o =
      classify(EXITED(0), "", MG_FUZZ_PHASE_EXIT, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CLEAN);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_NONE);
  o = classify(EXITED(1), "input.mlir:3:4: error: expected ':'\n",
               MG_FUZZ_PHASE_PARSE, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_DIAGNOSTIC);
  // A failure without a diagnostic, a signal without a stack.
  o = classify(EXITED(1), "", MG_FUZZ_PHASE_PASSES, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  o = classify(SIGNALLED(SIGSEGV), "", MG_FUZZ_PHASE_PASSES, MG_FUZZ_KILL_NONE);
  CHECK_EQ_INT(o.cls, MG_FUZZ_CLASS_CRASH);
  CHECK_EQ_INT(o.blame, MG_FUZZ_BLAME_UNKNOWN);
  CHECK(!strcmp(o.signature, "signal 11: (no stack)"));
}

static const char seed_text[] =
    "func.func @f(%a: tensor<2x4xf16>, %b: tensor<2x4xf16>) -> "
    "tensor<2x4xf16> {\n"
    "  %0 = tosa.add %a, %b : (tensor<2x4xf16>, tensor<2x4xf16>) -> "
    "tensor<2x4xf16>\n"
    "  %1 = tosa.reduce_sum %0 {axis = 1 : i32} : (tensor<2x4xf16>) -> "
    "tensor<2x1xf16>\n"
    "  %c = arith.constant 1.5 : f16\n"
    "  return %0 : tensor<2x4xf16>\n"
    "}\n";

static size_t count(const char *text, const char *needle) {
  size_t n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p += strlen(needle))
    ++n;
  return n;
}

static void test_fuzz_mutator(void) {
  MgFuzzText seeds[1] = {{0}};
  CHECK(mg_fuzz_text_append(&seeds[0], seed_text, sizeof seed_text - 1));
  char *ops[] = {"arith.constant", "tosa.add", "tosa.reduce_sum", "tosa.sub"};
  MgFuzzCorpus corpus = {
      .seeds = seeds, .num_seeds = 1, .op_names = ops, .num_op_names = 4};
  const char *wanted[] = {
      "shape-dim-all",     "shape-drop-dim", "shape-add-dim",
      "shape-rank-0-all",  "dtype-all",      "dtype",
      "integer",           "axis",           "float",
      "op-neighbour",      "op-unknown",     "operand-drop",
      "operand-duplicate", "line-delete",    "line-duplicate",
      "bit-flip",          "splice",         "keyword"};
  bool seen[sizeof wanted / sizeof *wanted] = {false};
  uint64_t rng_a = 42, rng_b = 42;
  for (int i = 0; i < 4000; ++i) {
    MgFuzzText a = {0}, b = {0};
    char what_a[32], what_b[32];
    mg_fuzz_text_append(&a, seed_text, sizeof seed_text - 1);
    mg_fuzz_text_append(&b, seed_text, sizeof seed_text - 1);
    CHECK(mg_fuzz_mutate(&a, &rng_a, &corpus, what_a, sizeof what_a));
    CHECK(mg_fuzz_mutate(&b, &rng_b, &corpus, what_b, sizeof what_b));
    // Deterministic; the text stays NUL-terminated at its length.
    CHECK(a.len == b.len && !memcmp(a.data, b.data, a.len));
    CHECK(!strcmp(what_a, what_b));
    CHECK(a.data[a.len] == 0);
    for (size_t k = 0; k < sizeof wanted / sizeof *wanted; ++k)
      seen[k] |= !strcmp(what_a, wanted[k]);
    if (!strcmp(what_a, "shape-dim-all")) { // all 8 changed, or none
      size_t n = count(a.data, "tensor<2x4xf16>");
      CHECK(n == 0 || n == 8);
    }
    mg_fuzz_text_free(&a);
    mg_fuzz_text_free(&b);
  }
  for (size_t k = 0; k < sizeof wanted / sizeof *wanted; ++k)
    if (!seen[k]) {
      fprintf(stderr, "mutation '%s' never drawn\n", wanted[k]);
      CHECK(seen[k]);
    }
  mg_fuzz_text_free(&seeds[0]);
}

static void test_fuzz_corpus(void) {
  char dir[] = "/tmp/mirage-fuzz-test-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[64];
  snprintf(path, sizeof path, "%s/a.mlir", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  fputs("// RUN: mirage-opt %s\n"
        "func.func @one() { return }\n"
        "// CHECK: one\n"
        "// -----\n"
        "// a comment only\n"
        "// -----\n"
        "  // indented comment\n"
        "func.func @two(%a: f32) { %b = arith.addf %a, %a : f32 return }\n",
        f);
  fclose(f);
  char *paths[] = {dir};
  MgFuzzCorpus c;
  CHECK(mg_fuzz_corpus_load(&c, paths, 1));
  CHECK_EQ_INT(c.num_files, 1);
  CHECK_EQ_INT(c.num_seeds, 2); // the comment-only chunk is no seed
  if (c.num_seeds == 2) {
    CHECK(!strcmp(c.seeds[0].data, "func.func @one() { return }\n"));
    CHECK(strstr(c.origins[0], "a.mlir:2") != NULL);
    CHECK(strstr(c.origins[1], "a.mlir:8") != NULL);
    CHECK(!strstr(c.seeds[1].data, "comment"));
  }
  CHECK_EQ_INT(c.num_op_names, 2); // arith.addf, func.func
  if (c.num_op_names == 2) {
    CHECK(!strcmp(c.op_names[0], "arith.addf"));
    CHECK(!strcmp(c.op_names[1], "func.func"));
  }
  mg_fuzz_corpus_free(&c);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  RUN_TEST(test_fuzz_blame_parser);
  RUN_TEST(test_fuzz_blame_ours);
  RUN_TEST(test_fuzz_reports);
  RUN_TEST(test_fuzz_exit_classes);
  RUN_TEST(test_fuzz_mutator);
  RUN_TEST(test_fuzz_corpus);
  return TEST_SUMMARY();
}
