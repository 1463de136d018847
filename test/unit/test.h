//===- test.h - Minimal assertion helpers for the C unit tests ------------===//
//
// A failing check prints file:line and the compared values, and the test
// executable exits non-zero at the end (all checks still run).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_TEST_H
#define MIRAGE_TEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int mg_test_failures;
static int mg_test_checks;

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
    int before_ = mg_test_failures;                                            \
    fn();                                                                      \
    printf("%s %s\n", mg_test_failures == before_ ? "PASS" : "FAIL", #fn);     \
  } while (0)

#define TEST_SUMMARY()                                                         \
  (printf("%d checks, %d failed\n", mg_test_checks, mg_test_failures),         \
   mg_test_failures ? EXIT_FAILURE : EXIT_SUCCESS)

#endif // MIRAGE_TEST_H
