//===- clock.c - The monotonic clock budgets are measured on --------------===//
#define _POSIX_C_SOURCE 200809L // clock_gettime
#include "mirage/support.h"

#include <time.h>

double mg_clock_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
