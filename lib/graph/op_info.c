//===- op_info.c - Names and properties of op kinds, dtypes, levels ------===//
//
// Pure lookup tables, indexed by the enums in mirage/graph.h. Every table is
// sized by the enum's _COUNT sentinel, so adding an enumerator without a name
// fails to compile (the initializer is checked by the static asserts below).
//
//===----------------------------------------------------------------------===//
#include "mirage/graph.h"

#include <math.h>
#include <string.h>

// ORDER MG_OP: one name per MgOpKind, in enum order. The dialect op is
// "ug.<name>" (dialects/ugraph.irdl.mlir).
static const char *const op_names[] = {
    "input",      "matmul",     "add",  "sub",    "mul",      "div",
    "exp",        "square",     "sqrt", "rsqrt",  "silu",     "gelu",
    "relu",       "log",        "tanh", "erf",
    "mul_scalar", "div_scalar",     "sum",      "custom",
    "iterator",   "accum",      "saver",          "concat",   "thread",
    "transpose",  "reshape",    "slice",
    "maximum",    "reduce_max", "max_scalar", "min_scalar",
    "add_scalar", "im2col",
};
_Static_assert(sizeof op_names / sizeof op_names[0] == MG_OP_COUNT,
               "ORDER MG_OP: op_names out of sync with MgOpKind");

static const char *const accum_names[] = {"sum", "sum_last", "sum_sq_last",
                                          "max", "online"};
_Static_assert(sizeof accum_names / sizeof accum_names[0] == MG_ACCUM_COUNT,
               "accum_names out of sync with MgAccumKind");

static const char *const dtype_names[] = {"f16", "bf16", "f32"};
static const size_t dtype_sizes[] = {2, 2, 4};
_Static_assert(sizeof dtype_names / sizeof dtype_names[0] == MG_DTYPE_COUNT,
               "dtype_names out of sync with MgDType");

static const char *const level_names[] = {"kernel", "block", "thread"};
_Static_assert(sizeof level_names / sizeof level_names[0] == MG_LEVEL_COUNT,
               "level_names out of sync with MgLevel");

// Index of the `len`-byte string `name` in `table`, or `count` when absent.
static unsigned find_name(const char *const *table, unsigned count,
                          const char *name, size_t len) {
  if (!name)
    return count;
  for (unsigned i = 0; i < count; i++)
    if (strlen(table[i]) == len && memcmp(table[i], name, len) == 0)
      return i;
  return count;
}

const char *mg_op_kind_name(MgOpKind kind) {
  return (unsigned)kind < MG_OP_COUNT ? op_names[kind] : NULL;
}

MgOpKind mg_op_kind_from_name(const char *name, size_t len) {
  return (MgOpKind)find_name(op_names, MG_OP_COUNT, name, len);
}

bool mg_op_kind_is_elementwise(MgOpKind kind) {
  switch (kind) {
  case MG_OP_ADD: case MG_OP_SUB: case MG_OP_MUL: case MG_OP_DIV:
  case MG_OP_MAX: case MG_OP_EXP: case MG_OP_SQUARE: case MG_OP_SQRT: case MG_OP_RSQRT:
  case MG_OP_SILU: case MG_OP_GELU: case MG_OP_RELU:
  case MG_OP_LOG: case MG_OP_TANH: case MG_OP_ERF:
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR: case MG_OP_ADD_SCALAR:
    return true;
  default:
    return false;
  }
}

bool mg_op_kind_has_scalar(MgOpKind kind) {
  return kind == MG_OP_MUL_SCALAR || kind == MG_OP_DIV_SCALAR ||
         kind == MG_OP_MAX_SCALAR || kind == MG_OP_MIN_SCALAR ||
         kind == MG_OP_ADD_SCALAR;
}

bool mg_op_kind_is_order(MgOpKind kind) {
  return kind == MG_OP_MAX || kind == MG_OP_REDUCE_MAX ||
         kind == MG_OP_MAX_SCALAR || kind == MG_OP_MIN_SCALAR;
}

bool mg_op_kind_is_opaque(MgOpKind kind) {
  switch (kind) {
  case MG_OP_SQRT: case MG_OP_RSQRT: case MG_OP_SILU: case MG_OP_GELU:
  case MG_OP_RELU: case MG_OP_LOG: case MG_OP_TANH: case MG_OP_ERF:
    return true;
  default:
    return false;
  }
}

bool mg_op_kind_is_unary(MgOpKind kind) {
  return kind == MG_OP_EXP || kind == MG_OP_SQUARE ||
         mg_op_kind_has_scalar(kind) || mg_op_kind_is_opaque(kind);
}

bool mg_op_kind_is_lax(MgOpKind kind) {
  if (mg_op_kind_is_opaque(kind) || mg_op_kind_is_order(kind))
    return false;
  // Structural ops (input, iterator, saver, custom, thread) move or group
  // values; whether a custom/thread body is LAX depends on its ops.
  return (unsigned)kind < MG_OP_COUNT;
}

bool mg_op_kind_allowed_at(MgOpKind kind, MgLevel level) {
  if ((unsigned)kind >= MG_OP_COUNT)
    return false;
  if (kind == MG_OP_INPUT || mg_op_kind_is_elementwise(kind))
    return (unsigned)level < MG_LEVEL_COUNT;
  switch (level) {
  case MG_LEVEL_KERNEL:
    return kind == MG_OP_MATMUL || kind == MG_OP_SUM ||
           kind == MG_OP_REDUCE_MAX || kind == MG_OP_CUSTOM ||
           kind == MG_OP_CONCAT || kind == MG_OP_TRANSPOSE ||
           kind == MG_OP_RESHAPE || kind == MG_OP_SLICE ||
           kind == MG_OP_IM2COL;
  case MG_LEVEL_BLOCK:
    return kind == MG_OP_MATMUL || kind == MG_OP_SUM ||
           kind == MG_OP_REDUCE_MAX || kind == MG_OP_ITERATOR || kind == MG_OP_ACCUM ||
           kind == MG_OP_SAVER || kind == MG_OP_CONCAT || kind == MG_OP_THREAD;
  default: // thread graphs hold element-wise chains only
    return false;
  }
}

bool mg_op_is_view(const MgOp *op, MgLevel level) {
  switch ((MgOpKind)op->kind) {
  case MG_OP_TRANSPOSE: case MG_OP_RESHAPE: case MG_OP_SLICE:
  case MG_OP_IM2COL:
    return true;
  case MG_OP_CONCAT:
    return level == MG_LEVEL_KERNEL;
  default:
    return false;
  }
}

const char *mg_accum_kind_name(MgAccumKind kind) {
  return (unsigned)kind < MG_ACCUM_COUNT ? accum_names[kind] : NULL;
}

MgAccumKind mg_accum_kind_from_name(const char *name, size_t len) {
  return (MgAccumKind)find_name(accum_names, MG_ACCUM_COUNT, name, len);
}

const char *mg_dtype_name(MgDType dtype) {
  return (unsigned)dtype < MG_DTYPE_COUNT ? dtype_names[dtype] : NULL;
}

MgDType mg_dtype_from_name(const char *name, size_t len) {
  return (MgDType)find_name(dtype_names, MG_DTYPE_COUNT, name, len);
}

size_t mg_dtype_bytes(MgDType dtype) {
  return (unsigned)dtype < MG_DTYPE_COUNT ? dtype_sizes[dtype] : 0;
}

double mg_dtype_round(MgDType dtype, double x) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return mg_f32_from_bits(
        mg_softfloat_f16_to_f32(mg_softfloat_f64_to_f16(mg_f64_bits(x))));
  case MG_DTYPE_BF16:
    return mg_f32_from_bits(
        mg_softfloat_bf16_to_f32(mg_softfloat_f64_to_bf16(mg_f64_bits(x))));
  default:
    return (float)x;
  }
}

double mg_dtype_max_finite(MgDType dtype) {
  switch (dtype) {
  case MG_DTYPE_F16:
    return 65504.0;
  case MG_DTYPE_BF16:
    return ldexp(255.0, 120); // 0x7f7f
  default:
    return ldexp(16777215.0, 104); // FLT_MAX
  }
}

const char *mg_level_name(MgLevel level) {
  return (unsigned)level < MG_LEVEL_COUNT ? level_names[level] : NULL;
}

MgLevel mg_level_from_name(const char *name, size_t len) {
  return (MgLevel)find_name(level_names, MG_LEVEL_COUNT, name, len);
}
