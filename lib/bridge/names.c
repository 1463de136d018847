//===- names.c - Op names and function lookup, for every MLIR-facing layer -===//
#include "mirage/bridge.h"
#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

#include <stdio.h>
#include <string.h>

bool mg_bridge_op_is(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

bool mg_bridge_i64s(MlirAttribute a, intptr_t n, int64_t *out) {
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a) ||
      mlirDenseArrayGetNumElements(a) != n)
    return false;
  for (intptr_t i = 0; i < n; ++i)
    out[i] = mlirDenseI64ArrayGetElement(a, i);
  return true;
}

void mg_bridge_op_name(MlirOperation op, char *buf, size_t size) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  snprintf(buf, size, "%.*s", (int)n.length, n.data);
}

typedef struct TypeText {
  char *buf;
  size_t size, used;
} TypeText;

static void append_text(MlirStringRef s, void *ud) {
  TypeText *t = ud;
  size_t room = t->size - 1 - t->used, n = s.length < room ? s.length : room;
  memcpy(t->buf + t->used, s.data, n);
  t->used += n;
  t->buf[t->used] = 0;
}

void mg_bridge_type_text(MlirType type, char *buf, size_t size) {
  TypeText t = {buf, size, 0};
  buf[0] = 0;
  mlirTypePrint(type, append_text, &t);
}

bool mg_bridge_dtype(MlirType element, MgDType *dtype) {
  if (mlirTypeIsAF16(element))
    *dtype = MG_DTYPE_F16;
  else if (mlirTypeIsABF16(element))
    *dtype = MG_DTYPE_BF16;
  else if (mlirTypeIsAF32(element))
    *dtype = MG_DTYPE_F32;
  else
    return false;
  return true;
}

MlirOperation mg_bridge_lookup_func_in(MlirSymbolTable symbols,
                                       const char *name) {
  MlirOperation op =
      mlirSymbolTableLookup(symbols, mlirStringRefCreateFromCString(name));
  if (!mlirOperationIsNull(op) && !mg_bridge_op_is(op, "func.func"))
    op.ptr = NULL;
  return op;
}

MlirOperation mg_bridge_lookup_func(MlirOperation module, const char *name) {
  MlirSymbolTable table = mlirSymbolTableCreate(module);
  MlirOperation op = mg_bridge_lookup_func_in(table, name);
  mlirSymbolTableDestroy(table);
  return op;
}
