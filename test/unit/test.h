//===- test.h - Minimal assertion helpers for the C unit tests ------------===//
//
// A failing check prints file:line and the compared values, and the test
// executable exits non-zero at the end (all checks still run).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TEST_H
#define MIRAGE_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mg_test_failures;
static int mg_test_checks;

// Which tests RUN_TEST runs (TEST_SELECT): all when no names are given;
// `exe A B` only A and B; `exe --except A B` all but A and B. ctest runs
// slow cases as entries of their own so they spread over the cores
// (test/CMakeLists.txt); a name that matches no test fails the run, so a
// renamed test cannot drop out of ctest unnoticed.
static char **mg_test_names;
static int mg_test_num_names;
static bool mg_test_except;
static unsigned mg_test_matched; // bit i: mg_test_names[i] named a test

#define TEST_SELECT(argc, argv)                                                \
  do {                                                                         \
    int first_ = (argc) > 1 && strcmp((argv)[1], "--except") == 0 ? 2 : 1;    \
    mg_test_except = first_ == 2;                                              \
    mg_test_names = (argv) + first_;                                           \
    mg_test_num_names = (argc) - first_;                                       \
  } while (0)

static inline bool mg_test_selected(const char *name) {
  bool named = false;
  for (int i = 0; i < mg_test_num_names && i < 32; i++)
    if (strcmp(mg_test_names[i], name) == 0) {
      named = true;
      mg_test_matched |= 1u << i;
    }
  if (mg_test_num_names == 0)
    return true;
  return mg_test_except ? !named : named;
}

#define CHECK(cond)                                                            \
  do {                                                                         \
    mg_test_checks++;                                                          \
    if (!(cond)) {                                                             \
      mg_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                     \
  do {                                                                         \
    long long va_ = (long long)(a), vb_ = (long long)(b);                      \
    mg_test_checks++;                                                          \
    if (va_ != vb_) {                                                          \
      mg_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,      \
              __LINE__, #a, #b, va_, vb_);                                     \
    }                                                                          \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
  do {                                                                         \
    double va_ = (double)(a), vb_ = (double)(b);                               \
    mg_test_checks++;                                                          \
    if (!(fabs(va_ - vb_) <= (tol))) {                                         \
      mg_test_failures++;                                                      \
      fprintf(stderr, "%s:%d: %s ~= %s failed: %.17g vs %.17g\n", __FILE__,    \
              __LINE__, #a, #b, va_, vb_);                                     \
    }                                                                          \
  } while (0)

#define RUN_TEST(fn)                                                           \
  do {                                                                         \
    if (!mg_test_selected(#fn))                                                \
      break;                                                                   \
    int before_ = mg_test_failures;                                            \
    fn();                                                                      \
    printf("%s %s\n", mg_test_failures == before_ ? "PASS" : "FAIL", #fn);     \
  } while (0)

// Fails for a name given to TEST_SELECT that matched no test.
static inline int mg_test_summary(void) {
  for (int i = 0; i < mg_test_num_names; i++)
    if (i >= 32 || !(mg_test_matched & (1u << i))) {
      fprintf(stderr, "no test named '%s'\n", mg_test_names[i]);
      mg_test_failures++;
    }
  printf("%d checks, %d failed\n", mg_test_checks, mg_test_failures);
  return mg_test_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}

#define TEST_SUMMARY() mg_test_summary()

#endif // MIRAGE_TEST_H
