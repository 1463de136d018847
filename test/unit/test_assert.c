//===- test_assert.c - MG_ASSERT and the checked id lookups ---------------===//
//
// In the asserting builds (sanitized, Debug) an out-of-range id aborts with
// file:line and the expression; each case runs in a forked child so the
// parent can check how it died. In release builds MG_ASSERT must not even
// evaluate its argument.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // fork, pipe, waitpid in strict C11
#include "mirage/graph.h"
#include "test.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

// A kernel graph with one input tensor: graph 0, op 0, tensor 0.
static MgProgram *one_input(void) {
  MgProgram *p = mg_program_create();
  MgGraphId g = mg_program_add_graph(p, MG_LEVEL_KERNEL);
  int64_t dims[2] = {2, 8};
  mg_graph_add_input(p, g, MG_DTYPE_F16, 2, dims, NULL);
  return p;
}

static void test_assert_lookups_in_range(void) {
  MgProgram *p = one_input();
  MgGraph *gr = mg_program_graph(p, 0);
  CHECK(gr == &p->graphs[0]);
  CHECK(mg_graph_op(gr, 0) == &gr->ops[0]);
  CHECK(mg_graph_tensor(gr, 0) == &gr->tensors[0]);
  CHECK_EQ_INT(mg_graph_producer(gr, 0)->kind, MG_OP_INPUT);
  CHECK_EQ_INT(mg_graph_tensor(gr, 0)->dims[1], 8);
  mg_program_destroy(p);
}

static void test_assert_evaluation(void) {
  int n = 0;
  MG_ASSERT(++n == 1);
#if defined(MG_ENABLE_ASSERT)
  CHECK_EQ_INT(n, 1);
#else
  CHECK_EQ_INT(n, 0); // compiled out: no side effects, no cost
#endif
}

#if defined(MG_ENABLE_ASSERT)
// Runs `fn` in a child; true when it died of SIGABRT having written `want`
// on stderr.
static bool child_aborts(void (*fn)(void), const char *want) {
  int fds[2];
  if (pipe(fds) != 0)
    return false;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    fn();
    _exit(0); // the assertion did not fire
  }
  close(fds[1]);
  char buf[1024];
  size_t len = 0;
  ssize_t r;
  while (len < sizeof buf - 1 &&
         (r = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t)r;
  buf[len] = '\0';
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid)
    return false;
  bool ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
            strstr(buf, want) && strstr(buf, "graph.h:");
  if (!ok)
    fprintf(stderr, "child status %d, stderr: %s\n", status, buf);
  return ok;
}

static void graph_out_of_range(void) { mg_program_graph(one_input(), 1); }
static void op_out_of_range(void) {
  mg_graph_op(mg_program_graph(one_input(), 0), 1);
}
static void tensor_out_of_range(void) {
  mg_graph_tensor(mg_program_graph(one_input(), 0), 7);
}
static void pop_from_missing_graph(void) { mg_graph_pop_op(one_input(), 3); }

static void test_assert_out_of_range_aborts(void) {
  CHECK(child_aborts(graph_out_of_range,
                     "mg_program_graph: assertion failed: g < p->num_graphs"));
  CHECK(child_aborts(op_out_of_range, "assertion failed: op < gr->num_ops"));
  CHECK(child_aborts(tensor_out_of_range,
                     "assertion failed: t < gr->num_tensors"));
  CHECK(child_aborts(pop_from_missing_graph,
                     "assertion failed: g < p->num_graphs"));
}
#endif

int main(void) {
#if defined(MG_ENABLE_ASSERT)
  printf("MG_ASSERT enabled\n");
#else
  printf("MG_ASSERT compiled out\n");
#endif
  RUN_TEST(test_assert_lookups_in_range);
  RUN_TEST(test_assert_evaluation);
#if defined(MG_ENABLE_ASSERT)
  RUN_TEST(test_assert_out_of_range_aborts);
#endif
  return TEST_SUMMARY();
}
