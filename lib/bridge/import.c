//===- import.c - Reading `ug` functions into an MgProgram ----------------===//
//
// Each op goes through the checking builders of lib/graph, so a shape or map
// error is reported at the op that caused it. Graphs are imported depth
// first from the root; a graph referenced twice is imported once.
//
//===----------------------------------------------------------------------===//
#include "mirage/bridge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"

typedef struct Importer {
  MlirSymbolTable symbols; // borrowed
  MgProgram *program;
  MgBridgeMap *map;
  MlirLocation *error_loc;
  MgDiag *diag;
  uint32_t cap_graphs;
  int64_t sym_size[MG_MAX_SYMS]; // the root's ug.syms (0: unused)
} Importer;

static bool value_map_put(MgPtrMap *m, MlirValue v, MgTensorId id) {
  return mg_ptrmap_put(m, v.ptr, id);
}

static MgTensorId value_map_get(const MgPtrMap *m, MlirValue v) {
  return mg_ptrmap_get(m, v.ptr); // MG_NO_ID (UINT32_MAX) when absent
}

static MgStatus fail(Importer *im, MlirLocation loc, MgStatus status,
                     const char *fmt, const char *arg) {
  *im->error_loc = loc;
  return mg_diag_set(im->diag, status, -1, -1, fmt, arg);
}

static MlirAttribute attr(MlirOperation op, const char *name) {
  return mlirOperationGetAttributeByName(op,
                                         mlirStringRefCreateFromCString(name));
}

static MlirStringRef str_attr(MlirOperation op, const char *name) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAString(a))
    return mlirStringRefCreate(NULL, 0);
  return mlirStringAttrGetValue(a);
}

bool mg_bridge_func_level(MlirOperation func, MgLevel *level) {
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(func));
  if (name.length != 9 || memcmp(name.data, "func.func", 9))
    return false;
  MlirStringRef l = str_attr(func, "ug.level");
  if (!l.data)
    return false;
  *level = mg_level_from_name(l.data, l.length);
  return true;
}

#define WHY_LEN 96
// The rank limit spelled in messages ("[0, 6)").
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
#define MG_MAX_DIMS_STR STRINGIFY(MG_MAX_DIMS)

// An imap or omap attribute that read_map rejected.
static MgStatus bad_map(Importer *im, MlirLocation loc, const char *name) {
  return fail(im, loc, MG_STATUS_INVALID,
              "'%s' must be array<i64: x, y, z> with entries in "
              "[-1, " MG_MAX_DIMS_STR ")", name);
}

/// A `?` dim as read_type returns it: a symbol, named elsewhere.
#define DIM_SYMBOL (-1)

/// Reads a ranked tensor type of a supported element type; `?` dims read
/// DIM_SYMBOL. On false `why` says what is wrong with it.
static bool read_type(MlirType type, MgDType *dtype, uint32_t *rank,
                      int64_t *dims, char why[WHY_LEN]) {
  if (!mlirTypeIsARankedTensor(type)) {
    snprintf(why, WHY_LEN, "expected a ranked tensor type");
    return false;
  }
  intptr_t r = mlirShapedTypeGetRank(type);
  if (r < 1) {
    snprintf(why, WHY_LEN, "tensor rank must be between 1 and %d",
             MG_MAX_DIMS);
    return false;
  }
  if (r > MG_MAX_DIMS) {
    snprintf(why, WHY_LEN, "rank %lld exceeds the μGraph limit of %d",
             (long long)r, MG_MAX_DIMS);
    return false;
  }
  if (!mg_bridge_dtype(mlirShapedTypeGetElementType(type), dtype)) {
    snprintf(why, WHY_LEN, "element type must be f16, bf16 or f32");
    return false;
  }
  *rank = (uint32_t)r;
  for (intptr_t d = 0; d < r; ++d) {
    dims[d] = mlirShapedTypeGetDimSize(type, d);
    if (mlirShapedTypeIsDynamicDim(type, d)) {
      dims[d] = DIM_SYMBOL;
      continue;
    }
    if (dims[d] <= 0) {
      snprintf(why, WHY_LEN, "tensor dims must be positive");
      return false;
    }
  }
  return true;
}

static bool read_map(MlirOperation op, const char *name, int8_t *map) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a) ||
      mlirDenseArrayGetNumElements(a) != 3)
    return false;
  for (intptr_t i = 0; i < 3; ++i) {
    int64_t v = mlirDenseI64ArrayGetElement(a, i);
    if (v < MG_MAP_NONE || v >= MG_MAX_DIMS)
      return false;
    map[i] = (int8_t)v;
  }
  return true;
}

// Attribute `name` of `op`, exactly `n` i64s, into `out`.
static bool read_i64s(MlirOperation op, const char *name, intptr_t n,
                      int64_t *out) {
  return mg_bridge_i64s(attr(op, name), n, out);
}

// Attribute `name` of `op` as three i64s (x, y, z) into `out`: true when
// it is absent (`out` untouched) or well-formed.
static bool read_axes(MlirOperation op, const char *name, int64_t out[3]) {
  MlirAttribute a = attr(op, name);
  return mlirAttributeIsNull(a) || mg_bridge_i64s(a, 3, out);
}

static bool read_int(MlirOperation op, const char *name, int64_t *out) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAInteger(a))
    return false;
  *out = mlirIntegerAttrGetValueInt(a);
  return true;
}

/// Inputs and outputs of custom/thread ops fill their optional slots from
/// the first one (see dialects/ugraph.irdl.mlir).
static bool segments_are_prefix(MlirOperation op, const char *name,
                                intptr_t count) {
  MlirAttribute a = attr(op, name);
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI32Array(a))
    return false;
  for (intptr_t i = 0; i < mlirDenseArrayGetNumElements(a); ++i)
    if (mlirDenseI32ArrayGetElement(a, i) != (i < count))
      return false;
  return true;
}

static MgStatus import_graph(Importer *im, MlirOperation func, MgLevel level,
                             MgGraphId *out_id);

static MgStatus add_map_entry(Importer *im, MgGraphId g, MlirOperation func) {
  MgBridgeMap *m = im->map;
  if (g >= im->cap_graphs) { // four parallel arrays, one capacity
    uint32_t cap = im->cap_graphs, cap1 = cap, cap2 = cap, cap3 = cap;
    if (!mg_array_reserve(&m->graph_names, &cap, g + 1,
                          sizeof *m->graph_names, 4) ||
        !mg_array_reserve(&m->graph_funcs, &cap1, g + 1,
                          sizeof *m->graph_funcs, 4) ||
        !mg_array_reserve(&m->num_ops, &cap2, g + 1, sizeof *m->num_ops, 4) ||
        !mg_array_reserve(&m->op_locs, &cap3, g + 1, sizeof *m->op_locs, 4))
      return MG_STATUS_NOMEM;
    im->cap_graphs = cap;
  }
  MlirStringRef name = str_attr(func, "sym_name");
  m->graph_names[g] = malloc(name.length + 1);
  if (!m->graph_names[g])
    return MG_STATUS_NOMEM;
  memcpy(m->graph_names[g], name.data, name.length);
  m->graph_names[g][name.length] = 0;
  m->graph_funcs[g] = func;
  m->num_ops[g] = 0;
  m->op_locs[g] = NULL;
  m->num_graphs = g + 1;
  return MG_STATUS_OK;
}

static MgStatus record_loc(Importer *im, MgGraphId g, MgOpId op,
                           MlirLocation loc) {
  MgBridgeMap *m = im->map;
  if (op >= m->num_ops[g]) {
    uint32_t n = op + 1 > 2 * m->num_ops[g] ? op + 1 : 2 * m->num_ops[g];
    MlirLocation *locs = realloc(m->op_locs[g], n * sizeof *locs);
    if (!locs)
      return MG_STATUS_NOMEM;
    for (uint32_t i = m->num_ops[g]; i < n; ++i)
      locs[i] = loc;
    m->op_locs[g] = locs;
    m->num_ops[g] = n;
  }
  m->op_locs[g][op] = loc;
  return MG_STATUS_OK;
}

/// Looks up and imports the graph named by `op`'s `kernel` attribute.
static MgStatus import_callee(Importer *im, MlirOperation op, MgLevel want,
                              MgGraphId *sub) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirAttribute a = attr(op, "kernel");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsAFlatSymbolRef(a))
    return fail(im, loc, MG_STATUS_INVALID, "%s",
                "expected a flat symbol reference 'kernel'");
  MlirStringRef name = mlirFlatSymbolRefAttrGetValue(a);
  for (uint32_t g = 0; g < im->map->num_graphs; ++g) {
    if (strlen(im->map->graph_names[g]) == name.length &&
        !memcmp(im->map->graph_names[g], name.data, name.length)) {
      if (g <= 0 || im->program->graphs[g].level != want)
        return fail(im, loc, MG_STATUS_INVALID, "%s",
                    "'kernel' names a graph of the wrong level");
      *sub = g;
      return MG_STATUS_OK;
    }
  }
  MlirOperation callee = mlirSymbolTableLookup(im->symbols, name);
  MgLevel level;
  if (mlirOperationIsNull(callee) || !mg_bridge_func_level(callee, &level)) {
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)name.length, name.data);
    return fail(im, loc, MG_STATUS_INVALID,
                "'kernel' refers to '@%s', which is not a μGraph function",
                buf);
  }
  if (level != want)
    return fail(im, loc, MG_STATUS_INVALID, "'kernel' must name a %s graph",
                mg_level_name(want));
  return import_graph(im, callee, level, sub);
}

static bool is_op(MlirOperation op, const char *name) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  return n.length == strlen(name) && !memcmp(n.data, name, n.length);
}

/// The ug.transpose reading argument `arg` as a layout, or null when none
/// does. In a kernel graph that is the argument's only use; a transpose of
/// an argument with other uses is a view op (MG_OP_TRANSPOSE). Block graphs
/// have no view ops, so there every ug.transpose is a layout (and must be
/// the only use, read_layout checks).
static MlirOperation layout_view(MlirValue arg, MgLevel level) {
  MlirOpOperand first = mlirValueGetFirstUse(arg);
  if (level == MG_LEVEL_KERNEL &&
      (mlirOpOperandIsNull(first) ||
       !mlirOpOperandIsNull(mlirOpOperandGetNextUse(first))))
    return (MlirOperation){NULL};
  for (MlirOpOperand u = first; !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u))
    if (is_op(mlirOpOperandGetOwner(u), "ug.transpose"))
      return mlirOpOperandGetOwner(u);
  return (MlirOperation){NULL};
}

/// Reads `perm` of a ug.transpose of rank `rank`: false when it is not an
/// i64 array of `rank` entries; an entry out of 0..MG_MAX_DIMS-1 reads -1
/// (the callers' permutation checks reject it).
static bool read_perm(MlirOperation op, uint32_t rank, int8_t *perm) {
  MlirAttribute a = attr(op, "perm");
  if (mlirAttributeIsNull(a) || !mlirAttributeIsADenseI64Array(a) ||
      mlirDenseArrayGetNumElements(a) != (intptr_t)rank)
    return false;
  for (uint32_t d = 0; d < rank; ++d) {
    int64_t v = mlirDenseI64ArrayGetElement(a, d);
    perm[d] = (int8_t)(v < 0 || v >= MG_MAX_DIMS ? -1 : v);
  }
  return true;
}

/// The shape of result 0 of `op` (rank 0 when it is not a μGraph type).
static uint32_t result_dims(MlirOperation op, int64_t *dims) {
  MgDType dt;
  uint32_t rank = 0;
  char why[WHY_LEN];
  if (mlirOperationGetNumResults(op) < 1 ||
      !read_type(mlirValueGetType(mlirOperationGetResult(op, 0)), &dt, &rank,
                 dims, why))
    return 0;
  return rank;
}

/// Checks the ug.transpose `view` of an argument of shape `dims` (rank
/// `rank`): its only use, a permutation `perm`, a result of the permuted
/// shape. `dims` becomes the logical (result) shape.
static MgStatus read_layout(Importer *im, MlirOperation view, uint32_t rank,
                            int64_t *dims, int8_t *perm) {
  MlirLocation loc = mlirOperationGetLocation(view);
  MlirValue arg = mlirOperationGetOperand(view, 0);
  MlirOpOperand first = mlirValueGetFirstUse(arg);
  if (!mlirOpOperandIsNull(mlirOpOperandGetNextUse(first)))
    return fail(im, loc, MG_STATUS_INVALID, "%s",
                "an argument read through 'ug.transpose' has no other use");
  if (!read_perm(view, rank, perm))
    return fail(im, loc, MG_STATUS_INVALID, "%s",
                "'ug.transpose' needs 'perm', one entry per dim");
  int64_t stored[MG_MAX_DIMS];
  memcpy(stored, dims, rank * sizeof *dims);
  bool seen[MG_MAX_DIMS] = {false};
  for (uint32_t d = 0; d < rank; ++d) {
    if (perm[d] < 0 || perm[d] >= (int8_t)rank || seen[perm[d]])
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'ug.transpose' perm is not a permutation");
    seen[perm[d]] = true;
    dims[d] = stored[perm[d]];
  }
  MlirType rt = mlirValueGetType(mlirOperationGetResult(view, 0));
  bool ok = mlirTypeIsARankedTensor(rt) &&
            mlirShapedTypeGetRank(rt) == (intptr_t)rank &&
            mlirTypeEqual(mlirShapedTypeGetElementType(rt),
                          mlirShapedTypeGetElementType(mlirValueGetType(arg)));
  MlirType at = mlirValueGetType(arg);
  for (uint32_t d = 0; ok && d < rank; ++d)
    ok = mlirShapedTypeIsDynamicDim(rt, d)
             ? mlirShapedTypeIsDynamicDim(at, perm[d])
             : mlirShapedTypeGetDimSize(rt, d) == dims[d] &&
                   !mlirShapedTypeIsDynamicDim(at, perm[d]);
  if (!ok)
    return fail(im, loc, MG_STATUS_INVALID, "%s",
                "'ug.transpose' result is not its argument permuted by perm");
  return MG_STATUS_OK;
}

/// Every result of `op` has a μGraph type. Checked before the op is built,
/// so a result of too high a rank (a ug.reshape to rank 7) is reported as
/// such, not as the builder's view of the shape it could read.
static MgStatus check_result_types(Importer *im, MlirOperation op,
                                   MlirLocation loc) {
  for (intptr_t i = 0; i < mlirOperationGetNumResults(op); ++i) {
    MgDType dt;
    uint32_t rank;
    int64_t dims[MG_MAX_DIMS];
    char why[WHY_LEN];
    if (!read_type(mlirValueGetType(mlirOperationGetResult(op, i)), &dt,
                   &rank, dims, why))
      return fail(im, loc, MG_STATUS_INVALID, "result type: %s", why);
  }
  return MG_STATUS_OK;
}

/// Result `r` of an op at `loc` is tensor `out` as built: same shape, its
/// own storage type; then `r` names `out`.
static MgStatus bind_result(Importer *im, MgGraphId g, MlirValue r,
                            MgTensorId out, MlirLocation loc,
                            MgPtrMap *values) {
  const MgTensor *t = &im->program->graphs[g].tensors[out];
  MgDType dt;
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
  char why[WHY_LEN];
  if (!read_type(mlirValueGetType(r), &dt, &rank, dims, why))
    return fail(im, loc, MG_STATUS_INVALID, "result type: %s", why);
  bool same = rank == t->rank;
  for (uint32_t d = 0; same && d < rank; ++d)
    same = mg_tensor_sym(t, d) ? dims[d] == DIM_SYMBOL : dims[d] == t->dims[d];
  if (!same) {
    char want[160];
    int n = snprintf(want, sizeof want, "tensor<");
    for (uint32_t d = 0; d < t->rank; ++d)
      n += mg_tensor_sym(t, d)
               ? snprintf(want + n, sizeof want - (size_t)n, "?x")
               : snprintf(want + n, sizeof want - (size_t)n, "%lldx",
                          (long long)t->dims[d]);
    snprintf(want + n, sizeof want - (size_t)n, "%s>",
             mg_dtype_name((MgDType)t->dtype));
    return fail(im, loc, MG_STATUS_INVALID,
                "result type does not match the inferred type '%s'", want);
  }
  if (dt != t->dtype &&
      mg_graph_set_dtype(im->program, g, out, dt, im->diag) != MG_STATUS_OK) {
    *im->error_loc = loc;
    return MG_STATUS_INVALID;
  }
  if (!value_map_put(values, r, out))
    return fail(im, loc, MG_STATUS_NOMEM, "%s", "out of memory");
  return MG_STATUS_OK;
}

/// The attributes op `name` of graph `g` carries for its kind, into
/// `proto` (kind and operands already set).
static MgStatus read_attrs(Importer *im, MgGraphId g, MlirOperation op,
                           const char *name, MgOp *proto) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MgOpKind kind = (MgOpKind)proto->kind;
  intptr_t nin = mlirOperationGetNumOperands(op);
  intptr_t nout = mlirOperationGetNumResults(op);
  int64_t v;
  switch (kind) {
  case MG_OP_MUL_SCALAR:
  case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR:
  case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR: {
    MlirAttribute a = attr(op, "scalar");
    if (mlirAttributeIsNull(a) || !mlirAttributeIsAFloat(a))
      return fail(im, loc, MG_STATUS_INVALID, "'%s' needs a float 'scalar'",
                  name);
    proto->scalar = mlirFloatAttrGetValueDouble(a);
    break;
  }
  case MG_OP_SUM:
  case MG_OP_REDUCE_MAX:
  case MG_OP_CONCAT:
    if (!read_int(op, "dim", &v) || v < 0 || v >= MG_MAX_DIMS)
      return fail(im, loc, MG_STATUS_INVALID,
                  "'%s' needs an integer 'dim' in [0, " MG_MAX_DIMS_STR ")",
                  name);
    proto->attr = (int32_t)v;
    break;
  case MG_OP_TRANSPOSE: {
    const MgProgram *p = im->program;
    uint32_t rank = p->graphs[g].tensors[proto->inputs[0]].rank;
    if (!read_perm(op, rank, proto->perm))
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'ug.transpose' needs 'perm', one entry per dim");
    break;
  }
  case MG_OP_RESHAPE: {
    // The result type is the new shape; its `?` are the operand's symbols
    // in order (a reshape keeps their order).
    proto->attr = (int32_t)result_dims(op, proto->shape);
    const MgTensor *a = &im->program->graphs[g].tensors[proto->inputs[0]];
    uint32_t next = 0;
    for (int32_t d = 0; d < proto->attr; ++d) {
      if (proto->shape[d] != DIM_SYMBOL)
        continue;
      while (next < a->rank && !mg_tensor_sym(a, next))
        next++;
      if (next == a->rank)
        return fail(im, loc, MG_STATUS_INVALID, "%s",
                    "'ug.reshape' has more '?' dims than its operand");
      proto->shape[d] = -(int64_t)mg_tensor_sym(a, next++);
    }
    break;
  }
  case MG_OP_SLICE: {
    int64_t dims[MG_MAX_DIMS], first;
    uint32_t rank = result_dims(op, dims);
    if (!read_int(op, "dim", &v) || v < 0 || v >= (int64_t)rank)
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'ug.slice' needs an integer 'dim' below the result's rank");
    if (!read_int(op, "offset", &first))
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'ug.slice' needs an integer 'offset'");
    proto->attr = (int32_t)v;
    proto->shape[0] = first;
    proto->shape[1] = dims[v]; // the count is the result's extent
    break;
  }
  case MG_OP_IM2COL: {
    int64_t win[2], str[2], dil[2], pad[4];
    if (!read_i64s(op, "window", 2, win) || !read_i64s(op, "strides", 2, str) ||
        !read_i64s(op, "dilations", 2, dil) || !read_i64s(op, "pad", 4, pad) ||
        !read_int(op, "groups", &v) || v < 1 || v > INT32_MAX)
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'ug.im2col' needs 'window', 'strides', 'dilations' (2 "
                  "integers each), 'pad' (4) and a positive 'groups'");
    MgIm2col c = {(int32_t)v, win[0], win[1], str[0], str[1], dil[0], dil[1],
                  pad[0], pad[1], pad[2], pad[3]};
    for (int i = 0; i < 4; i++)
      if (pad[i] < 0 || pad[i] > 65536)
        return fail(im, loc, MG_STATUS_INVALID, "%s",
                    "'ug.im2col' padding must be 0..65536");
    mg_op_set_im2col(proto, &c);
    break;
  }
  case MG_OP_ITERATOR:
    if (!read_map(op, "imap", proto->imap))
      return bad_map(im, loc, "imap");
    if (!read_int(op, "fmap", &v) || v < MG_MAP_NONE || v >= MG_MAX_DIMS)
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'fmap' must be an integer in [-1, " MG_MAX_DIMS_STR ")");
    proto->fmap = (int8_t)v;
    break;
  case MG_OP_SAVER:
    if (!read_map(op, "omap", proto->omap))
      return bad_map(im, loc, "omap");
    break;
  case MG_OP_ACCUM: {
    MlirStringRef k = str_attr(op, "kind");
    MgAccumKind acc = k.data ? mg_accum_kind_from_name(k.data, k.length)
                             : MG_ACCUM_COUNT;
    if (acc == MG_ACCUM_COUNT)
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "'kind' must be \"sum\", \"sum_last\", \"sum_sq_last\", "
                  "\"max\" or \"online\"");
    proto->acc = (uint8_t)acc;
    break;
  }
  case MG_OP_CUSTOM:
  case MG_OP_THREAD: {
    if (!segments_are_prefix(op, "operandSegmentSizes", nin) ||
        !segments_are_prefix(op, "resultSegmentSizes", nout))
      return fail(im, loc, MG_STATUS_INVALID, "'%s' must use its first "
                  "operand/result slots (segment sizes 1...1, 0...0)", name);
    MgGraphId sub;
    MgStatus s = import_callee(
        im, op, kind == MG_OP_CUSTOM ? MG_LEVEL_BLOCK : MG_LEVEL_THREAD, &sub);
    if (s != MG_STATUS_OK)
      return s;
    proto->attr = (int32_t)sub;
    break;
  }
  default:
    break;
  }
  return MG_STATUS_OK;
}

static MgStatus import_op(Importer *im, MgGraphId g, MlirOperation op,
                          MgPtrMap *values) {
  MlirLocation loc = mlirOperationGetLocation(op);
  MlirStringRef full = mlirIdentifierStr(mlirOperationGetName(op));
  char name[128];
  snprintf(name, sizeof name, "%.*s", (int)full.length, full.data);
  if (is_op(op, "ug.transpose")) {
    // A layout was read with its argument (import_graph); elsewhere it is
    // a kernel-level view op, read below.
    if (value_map_get(values, mlirOperationGetResult(op, 0)) != MG_NO_ID)
      return MG_STATUS_OK;
    if (im->program->graphs[g].level != MG_LEVEL_KERNEL)
      return fail(im, loc, MG_STATUS_UNSUPPORTED, "%s",
                  "'ug.transpose' in a block graph views only a function "
                  "argument (a computed tile has no layout)");
  }
  if (strncmp(name, "ug.", 3) != 0)
    return fail(im, loc, MG_STATUS_UNSUPPORTED,
                "unexpected op '%s' in a μGraph function", name);
  MgStatus ts = check_result_types(im, op, loc);
  if (ts != MG_STATUS_OK)
    return ts;
  MgOp proto;
  memset(&proto, 0, sizeof proto);
  MgOpKind kind = mg_op_kind_from_name(name + 3, strlen(name + 3));
  if (kind == MG_OP_COUNT || kind == MG_OP_INPUT)
    return fail(im, loc, MG_STATUS_INVALID, "unknown μGraph op '%s'", name);
  proto.kind = (uint8_t)kind;
  intptr_t nin = mlirOperationGetNumOperands(op);
  intptr_t nout = mlirOperationGetNumResults(op);
  if (nin > MG_MAX_OP_INPUTS || nout > MG_MAX_OP_OUTPUTS)
    return fail(im, loc, MG_STATUS_UNSUPPORTED, "'%s' has too many operands or results",
                name);
  proto.num_inputs = (uint8_t)nin;
  for (intptr_t i = 0; i < nin; ++i) {
    proto.inputs[i] = value_map_get(values, mlirOperationGetOperand(op, i));
    if (proto.inputs[i] == MG_NO_ID)
      return fail(im, loc, MG_STATUS_INVALID,
                  "operand of '%s' is not a μGraph value", name);
  }
  MgStatus as = read_attrs(im, g, op, name, &proto);
  if (as != MG_STATUS_OK)
    return as;
  MgTensorId outs[MG_MAX_OP_OUTPUTS];
  MgOpId id = mg_graph_add_op(im->program, g, &proto, outs, im->diag);
  if (id == MG_NO_ID) {
    *im->error_loc = loc;
    return MG_STATUS_INVALID;
  }
  MgStatus s = record_loc(im, g, id, loc);
  if (s != MG_STATUS_OK)
    return s;
  const MgOp *made = &im->program->graphs[g].ops[id];
  if (made->num_outputs != nout)
    return fail(im, loc, MG_STATUS_INVALID,
                "'%s' has the wrong number of results", name);
  for (intptr_t i = 0; i < nout; ++i) {
    MgStatus bs = bind_result(im, g, mlirOperationGetResult(op, i), outs[i],
                              loc, values);
    if (bs != MG_STATUS_OK)
      return bs;
  }
  return MG_STATUS_OK;
}

/// The symbols of argument `arg`'s dims from its `ug.sym` attribute (0
/// for a static dim), each `?` of `dims` replaced by its symbol's size.
static MgStatus read_arg_syms(Importer *im, MlirValue arg, uint32_t rank,
                              int64_t *dims, unsigned *syms) {
  MlirLocation loc = mlirValueGetLocation(arg);
  MlirOperation func = mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(arg));
  MlirAttribute all = attr(func, "arg_attrs");
  MlirAttribute a = {NULL};
  intptr_t pos = mlirBlockArgumentGetArgNumber(arg);
  if (!mlirAttributeIsNull(all) && mlirAttributeIsAArray(all) &&
      pos < mlirArrayAttrGetNumElements(all)) {
    MlirAttribute d = mlirArrayAttrGetElement(all, pos);
    if (mlirAttributeIsADictionary(d))
      a = mlirDictionaryAttrGetElementByName(
          d, mlirStringRefCreateFromCString("ug.sym"));
  }
  bool given = !mlirAttributeIsNull(a);
  if (given && (!mlirAttributeIsADenseI64Array(a) ||
                mlirDenseArrayGetNumElements(a) != (intptr_t)rank))
    return fail(im, loc, MG_STATUS_INVALID, "%s",
                "'ug.sym' must be array<i64> with one entry per dim");
  for (uint32_t d = 0; d < rank; ++d) {
    int64_t s = given ? mlirDenseI64ArrayGetElement(a, d) : 0;
    if (s < 0 || s > MG_MAX_SYMS || (s > 0) != (dims[d] == DIM_SYMBOL))
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "each '?' dim of an argument needs its symbol in 'ug.sym' "
                  "(1.." STRINGIFY(MG_MAX_SYMS) "), each static dim 0");
    syms[d] = (unsigned)s;
    if (!s)
      continue;
    dims[d] = im->sym_size[s - 1];
    if (dims[d] < 1)
      return fail(im, loc, MG_STATUS_INVALID, "%s",
                  "a symbol needs its size in the kernel graph's 'ug.syms'");
  }
  return MG_STATUS_OK;
}

/// Function argument `arg` of graph `g` (function at `floc`) becomes a
/// graph input; `values` maps it (or the ug.transpose that gives it a
/// layout) to the input.
static MgStatus import_arg(Importer *im, MgGraphId g, MgLevel level,
                           MlirValue arg, MlirLocation floc,
                           MgPtrMap *values) {
  MgDType dt;
  uint32_t rank;
  int64_t dims[MG_MAX_DIMS];
  char why[WHY_LEN];
  if (!read_type(mlirValueGetType(arg), &dt, &rank, dims, why))
    // At the argument (its place in the signature when parsed).
    return fail(im, mlirValueGetLocation(arg), MG_STATUS_UNSUPPORTED,
                "argument type: %s", why);
  // An argument read through ug.transpose is an input with a layout; the
  // logical value is the transpose's result.
  MlirOperation view = layout_view(arg, level);
  unsigned syms[MG_MAX_DIMS];
  MgStatus ss = read_arg_syms(im, arg, rank, dims, syms);
  if (ss != MG_STATUS_OK)
    return ss;
  int8_t perm[MG_MAX_DIMS];
  if (!mlirOperationIsNull(view)) {
    unsigned stored[MG_MAX_DIMS];
    memcpy(stored, syms, sizeof stored);
    MgStatus s = read_layout(im, view, rank, dims, perm);
    if (s != MG_STATUS_OK)
      return s;
    for (uint32_t d = 0; d < rank; ++d)
      syms[d] = stored[perm[d]];
  }
  MgTensorId t = mg_graph_add_input(im->program, g, dt, rank, dims, im->diag);
  for (uint32_t d = 0; t != MG_NO_ID && d < rank; ++d)
    if (syms[d] && mg_graph_set_input_sym(im->program, g, t, d, syms[d],
                                          im->diag) != MG_STATUS_OK)
      t = MG_NO_ID;
  if (t != MG_NO_ID && !mlirOperationIsNull(view) &&
      mg_graph_set_input_perm(im->program, g, t, perm, im->diag) !=
          MG_STATUS_OK)
    t = MG_NO_ID;
  if (t == MG_NO_ID) {
    *im->error_loc = floc;
    return MG_STATUS_INVALID;
  }
  if (!value_map_put(values, mlirOperationIsNull(view)
                                 ? arg : mlirOperationGetResult(view, 0),
                     t))
    return fail(im, floc, MG_STATUS_NOMEM, "%s", "out of memory");
  return record_loc(im, g, im->program->graphs[g].tensors[t].producer, floc);
}

static MgStatus import_graph(Importer *im, MlirOperation func, MgLevel level,
                             MgGraphId *out_id) {
  MlirLocation floc = mlirOperationGetLocation(func);
  if (level == MG_LEVEL_COUNT)
    return fail(im, floc, MG_STATUS_INVALID, "%s",
                "'ug.level' must be \"kernel\", \"block\" or \"thread\"");
  MgGraphId g = mg_program_add_graph(im->program, level);
  if (g == MG_NO_ID || add_map_entry(im, g, func) != MG_STATUS_OK)
    return fail(im, floc, MG_STATUS_NOMEM, "%s", "out of memory");
  if (level == MG_LEVEL_BLOCK) {
    // ug.grid, then a symbol's axes (ug.grid_sym) and the rows a block of
    // them takes (ug.grid_rows): those have ceil(size / rows) blocks.
    static const char *const names[3] = {"ug.grid", "ug.grid_rows",
                                         "ug.grid_sym"};
    int64_t grid[3] = {1, 1, 1}, rows[3] = {1, 1, 1}, syms[3] = {0, 0, 0};
    int64_t *axes[3] = {grid, rows, syms};
    for (int k = 0; k < 3; ++k)
      if (!read_axes(func, names[k], axes[k]))
        return fail(im, floc, MG_STATUS_INVALID,
                    "'%s' must be array<i64: x, y, z>", names[k]);
    int64_t threads = 128, forloop = 1;
    int32_t dims[3];
    uint8_t grid_sym[3];
    int32_t grid_rows[3];
    for (int i = 0; i < 3; ++i) {
      if (rows[i] < 1 || rows[i] > INT32_MAX)
        return fail(im, floc, MG_STATUS_INVALID, "%s",
                    "'ug.grid_rows' entries must be positive");
      if (syms[i] < 0 || syms[i] > MG_MAX_SYMS ||
          (syms[i] && im->sym_size[syms[i] - 1] < 1))
        return fail(im, floc, MG_STATUS_INVALID, "%s",
                    "'ug.grid_sym' names a symbol the kernel graph's "
                    "'ug.syms' does not size");
      grid_rows[i] = (int32_t)rows[i];
      grid_sym[i] = (uint8_t)syms[i];
      dims[i] = grid[i] < 0 || grid[i] > INT32_MAX ? 0 : (int32_t)grid[i];
      if (syms[i])
        dims[i] = (int32_t)((im->sym_size[syms[i] - 1] + rows[i] - 1) /
                            rows[i]);
    }
    if (!mlirAttributeIsNull(attr(func, "ug.block_threads")) &&
        !read_int(func, "ug.block_threads", &threads))
      return fail(im, floc, MG_STATUS_INVALID, "%s",
                  "'ug.block_threads' must be an integer");
    if (!mlirAttributeIsNull(attr(func, "ug.forloop")) &&
        !read_int(func, "ug.forloop", &forloop))
      return fail(im, floc, MG_STATUS_INVALID, "%s",
                  "'ug.forloop' must be an integer");
    // A for-loop over a symbol (ug.forloop_sym) with ug.forloop_rows rows
    // an iteration has ceil(size / rows) iterations.
    int64_t loop_sym = 0, loop_rows = 1;
    if ((!mlirAttributeIsNull(attr(func, "ug.forloop_sym")) &&
         !read_int(func, "ug.forloop_sym", &loop_sym)) ||
        (!mlirAttributeIsNull(attr(func, "ug.forloop_rows")) &&
         !read_int(func, "ug.forloop_rows", &loop_rows)))
      return fail(im, floc, MG_STATUS_INVALID, "%s",
                  "'ug.forloop_sym' and 'ug.forloop_rows' must be integers");
    if (loop_sym < 0 || loop_sym > MG_MAX_SYMS ||
        (loop_sym && im->sym_size[loop_sym - 1] < 1) || loop_rows < 1 ||
        loop_rows > INT32_MAX)
      return fail(im, floc, MG_STATUS_INVALID, "%s",
                  "'ug.forloop_sym' names a symbol the kernel graph's "
                  "'ug.syms' does not size, or 'ug.forloop_rows' is not "
                  "positive");
    if (loop_sym)
      forloop = (im->sym_size[loop_sym - 1] + loop_rows - 1) / loop_rows;
    if (threads < 0 || threads > INT32_MAX || forloop < 0 || forloop > INT32_MAX)
      threads = forloop = 0;
    if (mg_graph_set_launch(im->program, g, dims, (int32_t)threads,
                            (int32_t)forloop, im->diag) != MG_STATUS_OK) {
      *im->error_loc = floc;
      return MG_STATUS_INVALID;
    }
    memcpy(im->program->graphs[g].grid_sym, grid_sym, sizeof grid_sym);
    memcpy(im->program->graphs[g].grid_rows, grid_rows, sizeof grid_rows);
    im->program->graphs[g].forloop_sym = (uint8_t)loop_sym;
    im->program->graphs[g].forloop_rows = (int32_t)loop_rows;
  }
  MlirRegion body = mlirOperationGetRegion(func, 0);
  MlirBlock block = mlirRegionGetFirstBlock(body);
  if (mlirBlockIsNull(block))
    return fail(im, floc, MG_STATUS_INVALID, "%s",
                "a μGraph function needs a body");
  MgPtrMap values;
  mg_ptrmap_init(&values);
  MgStatus s = MG_STATUS_OK;
  for (intptr_t i = 0; i < mlirBlockGetNumArguments(block); ++i) {
    s = import_arg(im, g, level, mlirBlockGetArgument(block, i), floc,
                   &values);
    if (s != MG_STATUS_OK)
      goto done;
  }
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationIsNull(mlirOperationGetNextInBlock(op))) {
      if (!(mlirIdentifierStr(mlirOperationGetName(op)).length == 11 &&
            !memcmp(mlirIdentifierStr(mlirOperationGetName(op)).data,
                    "func.return", 11))) {
        s = fail(im, mlirOperationGetLocation(op), MG_STATUS_INVALID, "%s",
                 "a μGraph function must end in func.return");
        goto done;
      }
      for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i) {
        MgTensorId t = value_map_get(&values, mlirOperationGetOperand(op, i));
        if (t == MG_NO_ID ||
            mg_graph_mark_output(im->program, g, t, im->diag) != MG_STATUS_OK) {
          if (t == MG_NO_ID)
            mg_diag_set(im->diag, MG_STATUS_INVALID, (int32_t)g, -1,
                        "returned value is not a μGraph value");
          *im->error_loc = mlirOperationGetLocation(op);
          s = MG_STATUS_INVALID;
          goto done;
        }
      }
      break;
    }
    s = import_op(im, g, op, &values);
    if (s != MG_STATUS_OK)
      goto done;
  }
  *out_id = g;
done:
  mg_ptrmap_free(&values);
  return s;
}

MgStatus mg_bridge_import(MlirSymbolTable symbols, MlirOperation root,
                          MgProgram **program, MgBridgeMap *map,
                          MlirLocation *error_loc, MgDiag *diag) {
  memset(map, 0, sizeof *map);
  *program = NULL;
  *error_loc = mlirOperationGetLocation(root);
  MgLevel level;
  if (!mg_bridge_func_level(root, &level) || level != MG_LEVEL_KERNEL)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "expected a func.func with ug.level = \"kernel\"");
  Importer im = {symbols, mg_program_create(), map, error_loc, diag, 0, {0}};
  if (!im.program)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1, "out of memory");
  MlirAttribute syms = attr(root, "ug.syms");
  if (!mlirAttributeIsNull(syms)) {
    if (!mlirAttributeIsADenseI64Array(syms) ||
        mlirDenseArrayGetNumElements(syms) != MG_MAX_SYMS) {
      mg_program_destroy(im.program);
      return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                         "'ug.syms' must be array<i64> of %d sizes",
                         MG_MAX_SYMS);
    }
    for (int i = 0; i < MG_MAX_SYMS; ++i)
      im.sym_size[i] = mlirDenseI64ArrayGetElement(syms, i);
  }
  MgGraphId g;
  MgStatus s = import_graph(&im, root, level, &g);
  if (s != MG_STATUS_OK) {
    mg_program_destroy(im.program);
    mg_bridge_map_free(map);
    return s;
  }
  *program = im.program;
  return MG_STATUS_OK;
}

MlirLocation mg_bridge_map_location(const MgBridgeMap *map, int32_t graph,
                                    int32_t op, MlirLocation fallback) {
  if (graph < 0 || (uint32_t)graph >= map->num_graphs)
    return fallback;
  if (op >= 0 && (uint32_t)op < map->num_ops[graph])
    return map->op_locs[graph][op];
  return mlirOperationGetLocation(map->graph_funcs[graph]);
}

void mg_bridge_map_free(MgBridgeMap *map) {
  for (uint32_t g = 0; g < map->num_graphs; ++g) {
    free(map->graph_names[g]);
    free(map->op_locs[g]);
  }
  free(map->graph_names);
  free(map->graph_funcs);
  free(map->num_ops);
  free(map->op_locs);
  memset(map, 0, sizeof *map);
}
