//===- text.h - The text/SSA toolbox: the lowering's bottom layer ---------===//
//
// Lines, fresh SSA names, index constants and ops, element and memref
// types: what every layer above writes its MLIR text with. It decides
// nothing and calls no other part of lib/lower (docs/lower.md, "Layers":
// driver -> form/ -> write/ -> decide/ -> text/, each layer calling only
// the ones below it).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_LIB_LOWER_TEXT_H
#define MIRAGE_LIB_LOWER_TEXT_H

#include "emit_state.h"

#define MG_LOWER_WORKGROUP "#gpu.address_space<workgroup>"

/// A fresh SSA name.
void mg_lower_fresh(Emit *e, Name out);
/// One indented line.
void mg_lower_line(Emit *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/// `out = op a, b : index` ("arith.addi", "arith.cmpi ult," ...).
void mg_lower_index_op(Emit *e, const char *op, const char *a, const char *b,
                       Name out);
/// An index constant.
void mg_lower_index(Emit *e, int64_t v, Name out);
/// "f16", "bf16", "f32".
const char *mg_lower_elt(MgDType dtype);
/// "memref<2x16xf16>" (element type `dtype`) plus an address space when
/// `space` is not NULL; a symbolic dim is `?`.
/// "tensor<2x?x16xf16>": `t`'s shape and element type.
void mg_lower_tensor_type(const MgTensor *t, char out[TYPE_LEN]);
void mg_lower_memref_type(const MgTensor *t, MgDType dtype, const char *space,
                          char out[TYPE_LEN]);

#endif // MIRAGE_LIB_LOWER_TEXT_H
