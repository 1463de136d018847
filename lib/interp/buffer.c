//===- buffer.c - Host buffers, executor values and scratch ---------------===//
//
// Storage for the executor. An MgExecValue owns its cells or borrows them
// (graph inputs, kernel tensors seen from a block graph); only owned storage
// is ever written, grown or freed. Values are reshaped in place so block
// graphs reuse one allocation per tensor for every block and iteration.
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mg_interp_numel(uint32_t rank, const int64_t *dims, size_t *out) {
  if (rank > MG_MAX_DIMS)
    return false;
  size_t n = 1;
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] < 0)
      return false;
    uint64_t dim = (uint64_t)dims[d];
    if (dim != 0 && n > (SIZE_MAX / sizeof(MgCell)) / dim)
      return false;
    n *= (size_t)dim;
  }
  *out = n;
  return true;
}

bool mg_buffer_alloc(MgBuffer *buf, uint32_t rank, const int64_t *dims) {
  if (!buf)
    return false;
  memset(buf, 0, sizeof *buf);
  size_t n;
  if (!mg_interp_numel(rank, dims, &n))
    return false;
  // calloc(0) may return NULL; one spare cell keeps "NULL = no memory".
  MgCell *data = calloc(n ? n : 1, sizeof(MgCell));
  if (!data)
    return false;
  buf->rank = rank;
  for (uint32_t d = 0; d < rank; ++d)
    buf->dims[d] = dims[d];
  buf->data = data;
  return true;
}

void mg_buffer_free(MgBuffer *buf) {
  if (!buf)
    return;
  free(buf->data);
  buf->data = NULL;
}

int64_t mg_buffer_numel(const MgBuffer *buf) {
  int64_t n = 1;
  for (uint32_t d = 0; d < buf->rank && d < MG_MAX_DIMS; ++d)
    n *= buf->dims[d];
  return n;
}

bool mg_buffer_same_shape(const MgBuffer *a, const MgBuffer *b) {
  if (a->rank != b->rank)
    return false;
  for (uint32_t d = 0; d < a->rank; ++d)
    if (a->dims[d] != b->dims[d])
      return false;
  return true;
}

MgStatus mg_interp_fail(MgExec *ex, MgStatus status, const char *fmt, ...) {
  char msg[sizeof ex->diag->message];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n < 0)
    msg[0] = '\0';
  return mg_diag_set(ex->diag, status, ex->cur_graph, ex->cur_op, "%s", msg);
}

MgStatus mg_interp_domain_fail(MgExec *ex, MgStatus status, const char *what) {
  return mg_interp_fail(ex, status, "domain %s failed (%s)", what,
                        mg_status_name(status));
}

MgStatus mg_interp_domain_check(MgExec *ex, MgStatus status, const char *what) {
  return status == MG_STATUS_OK ? status
                                : mg_interp_domain_fail(ex, status, what);
}

MgStatus mg_interp_value_shape(MgExec *ex, MgExecValue *v, uint32_t rank,
                               const int64_t *dims) {
  size_t n;
  if (!mg_interp_numel(rank, dims, &n))
    return mg_interp_fail(ex, MG_STATUS_INVALID,
                          "tensor shape too large or malformed (rank %u)",
                          rank);
  if (v->borrowed) {
    v->buf.data = NULL;
    v->borrowed = false;
    v->cap = 0;
  }
  if (n > v->cap || !v->buf.data) {
    free(v->buf.data);
    v->cap = 0;
    v->buf.data = malloc((n ? n : 1) * sizeof(MgCell));
    if (!v->buf.data)
      return mg_interp_fail(ex, MG_STATUS_NOMEM,
                            "out of memory for a tensor of %zu cells", n);
    v->cap = n ? n : 1;
  }
  v->buf.rank = rank;
  for (uint32_t d = 0; d < MG_MAX_DIMS; ++d)
    v->buf.dims[d] = d < rank ? dims[d] : 0;
  return MG_STATUS_OK;
}

void mg_interp_value_borrow(MgExecValue *v, const MgBuffer *buf) {
  mg_interp_value_release(v);
  v->buf = *buf;
  v->borrowed = true;
}

void mg_interp_value_release(MgExecValue *v) {
  if (!v->borrowed)
    free(v->buf.data);
  memset(v, 0, sizeof *v);
}

MgStatus mg_interp_value_copy(MgExec *ex, MgExecValue *dst,
                              const MgBuffer *src) {
  MgStatus st = mg_interp_value_shape(ex, dst, src->rank, src->dims);
  if (st != MG_STATUS_OK)
    return st;
  size_t n = 0;
  (void)mg_interp_numel(src->rank, src->dims, &n); // checked by value_shape
  if (n)
    memcpy(dst->buf.data, src->data, n * sizeof(MgCell));
  return MG_STATUS_OK;
}

MgStatus mg_interp_value_take(MgExec *ex, MgExecValue *v, MgBuffer *out) {
  if (!v->buf.data)
    return mg_interp_fail(ex, MG_STATUS_INVALID, "output was never computed");
  if (v->borrowed) {
    MgExecValue copy = {0};
    MgStatus st = mg_interp_value_copy(ex, &copy, &v->buf);
    if (st != MG_STATUS_OK)
      return st;
    *out = copy.buf;
    return MG_STATUS_OK;
  }
  *out = v->buf;
  memset(v, 0, sizeof *v);
  return MG_STATUS_OK;
}

MgCell *mg_interp_scratch(MgExec *ex, MgExecScratch slot, size_t n) {
  if (n == 0)
    n = 1;
  if (ex->scratch_cap[slot] >= n)
    return ex->scratch[slot];
  free(ex->scratch[slot]);
  ex->scratch_cap[slot] = 0;
  ex->scratch[slot] = NULL;
  if (n > SIZE_MAX / sizeof(MgCell))
    return NULL;
  ex->scratch[slot] = malloc(n * sizeof(MgCell));
  if (ex->scratch[slot])
    ex->scratch_cap[slot] = n;
  return ex->scratch[slot];
}

void mg_interp_exec_dispose(MgExec *ex) {
  for (int s = 0; s < MG_EXEC_SCRATCH_COUNT; ++s) {
    free(ex->scratch[s]);
    ex->scratch[s] = NULL;
    ex->scratch_cap[s] = 0;
  }
}
