//===- intmath.c - Integer helpers shared by the libraries ----------------===//
#include "mirage/support.h"

int64_t mg_gcd_i64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}
