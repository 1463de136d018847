//===- device_args.c - host=device: the caller's memrefs checked at entry -===//
//
// The kernels read every kernel tensor through its aligned pointer alone,
// as a dense row-major array ({llvm.align = 16}, `.ptr .align 16`, 16-byte
// vector accesses); they take none of the descriptor's offset or strides.
// With host=copy that holds by construction (fresh gpu.alloc buffers).
// With host=device the caller's memrefs are used where they are, so @F
// takes each one with a fully dynamic strided layout (any view converts
// to it with a memref.cast; the C interface's descriptor is the same) and
// checks at entry what a static identity type would only assume: offset
// 0, the dense strides (dims of size 1 excepted: only index 0 is read),
// a 16-byte aligned pointer. A violation writes one line naming @F, the
// argument and the rule to stderr and aborts (write(2) and abort(): the
// message survives a pipe, unlike cf.assert's puts on stdout, which
// abort() discards); then a memref.reinterpret_cast to the identity type
// (offset 0, the dense strides: what was just checked) gives the kernels
// what they assume.
//
//===----------------------------------------------------------------------===//
#include "form/form.h"

#include <stdio.h>
#include <string.h>

void mg_lower_caller_type(const char *dense, uint32_t rank,
                          char out[TYPE_LEN]) {
  size_t n = strlen(dense); // "memref<...>": the layout goes before '>'
  size_t k = (size_t)snprintf(out, TYPE_LEN, "%.*s, strided<[",
                              (int)(n ? n - 1 : 0), dense);
  for (uint32_t d = 0; d < rank && k < TYPE_LEN; d++)
    k += (size_t)snprintf(out + k, TYPE_LEN - k, "%s?", d ? ", " : "");
  if (k < TYPE_LEN)
    snprintf(out + k, TYPE_LEN - k, "], offset: ?>>");
}

// `message` as an llvm.mlir.global string initializer: printable ASCII
// as it is, '"' and '\\' escaped, a newline at the end.
static void global_string(MgText *t, const char *message) {
  for (const char *c = message; *c; c++)
    if (*c == '"' || *c == '\\')
      mg_text_printf(t, "\\%02X", (unsigned char)*c);
    else
      mg_text_printf(t, "%c", *c);
  mg_text_printf(t, "\\0A");
}

void mg_lower_fail_if(Emit *e, MgLowerArgErrors *errs, const char *bad,
                      const char *message) {
  uint32_t id = errs->count++;
  size_t len = strlen(message) + 1;
  mg_text_printf(&errs->globals, "llvm.mlir.global private constant "
                 "@\"%s.arg_error%u\"(\"", errs->func, id);
  global_string(&errs->globals, message);
  mg_text_printf(&errs->globals, "\") {addr_space = 0 : i32} : "
                 "!llvm.array<%zu x i8>\n", len);
  Name p, fd, n, w;
  mg_lower_line(e, "scf.if %s {", bad);
  e->indent++;
  mg_lower_fresh(e, p);
  mg_lower_line(e, "%s = llvm.mlir.addressof @\"%s.arg_error%u\" : !llvm.ptr",
                p, errs->func, id);
  mg_lower_fresh(e, fd);
  mg_lower_line(e, "%s = arith.constant 2 : i32", fd);
  mg_lower_fresh(e, n);
  mg_lower_line(e, "%s = arith.constant %zu : i64", n, len);
  mg_lower_fresh(e, w);
  mg_lower_line(e, "%s = func.call @write(%s, %s, %s) : (i32, !llvm.ptr, "
                   "i64) -> i64", w, fd, p, n);
  mg_lower_line(e, "func.call @abort() : () -> ()");
  e->indent--;
  mg_lower_line(e, "}");
}

// bad = (value != constant), as an i1.
static void differs(Emit *e, const char *value, int64_t constant, Name bad) {
  Name c;
  mg_lower_index(e, constant, c);
  mg_lower_index_op(e, "arith.cmpi ne,", value, c, bad);
}

// The dense row-major strides of `x`.
static void dense_strides(const MgTensor *x, int64_t *stride) {
  int64_t n = 1;
  for (uint32_t d = x->rank; d-- > 0;) {
    stride[d] = n;
    n *= x->dims[d];
  }
}

// bad = (some dim of more than one element has a stride other than the
// dense one), as an i1 in `bad`; "" when no dim can be checked. `m`: the
// extract_strided_metadata results.
static void strides_differ(Emit *e, const MgTensor *x, const char *m,
                           const int64_t *stride, Name bad) {
  bad[0] = '\0';
  for (uint32_t d = 0; d < x->rank; d++) {
    if (x->dims[d] <= 1)
      continue;
    char st[NAME_LEN + 8];
    Name ne;
    snprintf(st, sizeof st, "%s#%u", m, 2 + x->rank + d);
    differs(e, st, stride[d], ne);
    if (!bad[0]) {
      memcpy(bad, ne, NAME_LEN);
      continue;
    }
    Name or;
    mg_lower_fresh(e, or);
    mg_lower_line(e, "%s = arith.ori %s, %s : i1", or, bad, ne);
    memcpy(bad, or, NAME_LEN);
  }
}

// "a, b, c".
static void int_list(const int64_t *v, uint32_t n, char *out, size_t size) {
  size_t k = 0;
  out[0] = '\0';
  for (uint32_t i = 0; i < n && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s%lld", i ? ", " : "",
                          (long long)v[i]);
}

void mg_lower_check_arg(Emit *e, MgLowerArgErrors *errs, uint32_t position,
                        const char *given, const MgTensor *x, Name val) {
  char dense[TYPE_LEN], caller[TYPE_LEN], results[TYPE_LEN], message[768];
  char sizes[160], strides[160];
  int64_t stride[MG_MAX_DIMS];
  mg_lower_memref_type(x, (MgDType)x->dtype, NULL, dense);
  mg_lower_caller_type(dense, x->rank, caller);
  dense_strides(x, stride);
  int_list(x->dims, x->rank, sizes, sizeof sizes);
  int_list(stride, x->rank, strides, sizeof strides);
  size_t k = (size_t)snprintf(results, sizeof results, "memref<%s>, index",
                              mg_lower_elt((MgDType)x->dtype));
  for (uint32_t d = 0; d < 2 * x->rank && k < sizeof results; d++)
    k += (size_t)snprintf(results + k, sizeof results - k, ", index");
  Name m, bad;
  mg_lower_fresh(e, m);
  mg_lower_line(e, "%s:%u = memref.extract_strided_metadata %s : %s -> %s", m,
                2 + 2 * x->rank, given, caller, results);
  char offset[NAME_LEN + 8];
  snprintf(offset, sizeof offset, "%s#1", m);
  differs(e, offset, 0, bad);
  snprintf(message, sizeof message, "mirage: @%s: argument %u (%s) has a "
           "non-zero offset; its kernels read from the aligned pointer: "
           "pass offset 0 and the first element's address", errs->func,
           position, dense);
  mg_lower_fail_if(e, errs, bad, message);
  strides_differ(e, x, m, stride, bad);
  if (bad[0]) {
    snprintf(message, sizeof message, "mirage: @%s: argument %u (%s) is not "
             "dense row-major: its kernels need strides [%s] (a dim of size "
             "1 may have any); pass a contiguous copy", errs->func, position,
             dense, strides);
    mg_lower_fail_if(e, errs, bad, message);
  }
  Name p, r, c16;
  mg_lower_fresh(e, p);
  mg_lower_line(e, "%s = memref.extract_aligned_pointer_as_index %s : %s -> "
                   "index", p, given, caller);
  mg_lower_index(e, MG_LOWER_VECTOR_BYTES, c16);
  mg_lower_index_op(e, "arith.remui", p, c16, r);
  differs(e, r, 0, bad);
  snprintf(message, sizeof message, "mirage: @%s: argument %u (%s) is not "
           "16-byte aligned; its kernels use 16-byte vector accesses",
           errs->func, position, dense);
  mg_lower_fail_if(e, errs, bad, message);
  // Not memref.cast: gpu.memcpy's folder would put the strided operand
  // back into an output's device-to-device copy, which gpu-to-llvm
  // cannot lower.
  mg_lower_line(e, "%s = memref.reinterpret_cast %s to offset: [0], sizes: "
                   "[%s], strides: [%s] : %s to %s", val, given, sizes,
                strides, caller, dense);
}

void mg_lower_arg_errors_finish(Emit *e, MgLowerArgErrors *errs) {
  if (errs->globals.failed)
    e->error = "out of memory";
  else if (errs->count) {
    mg_text_printf(e->t, "%s", errs->globals.data);
    // Declarations the pass does not copy when the module has them.
    mg_lower_line(e, "func.func private @write(i32, !llvm.ptr, i64) -> i64");
    mg_lower_line(e, "func.func private @abort()");
  }
  mg_text_free(&errs->globals);
}
