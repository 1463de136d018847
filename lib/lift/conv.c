//===- conv.c - Convolutions and pooling as im2col and a matmul -----------===//
//
// A 2-D convolution is data movement and a matmul: ug.im2col lays the
// patches of an NHWC input out as rows, [G, N·Ho·Wo, KH·KW·Cg] (zero
// outside the input), and a batched matmul with the filter viewed as
// [G, KH·KW·Cg, Fg] gives [G, N·Ho·Wo, Fg]; a transpose to [M, G, Fg] (for
// G > 1) and a row-major reshape make it channels-last, and a transpose
// the layout the op writes (NCHW). Pooling is the same patches with
// groups = C reduced over the window (ug.reduce_max, ug.sum). Each form
// (linalg named ops, TOSA) is a table row: how its input, filter and
// result are permuted to and from that canonical order.
//
// Around the op:
//  - a tensor.pad with the constant 0 on the spatial dims of a
//    convolution's input folds into the im2col's padding: its image is a
//    pending value (MG_LIFT_PAD) that only the convolutions and pooling ops
//    reading it express; anything else that needs it cuts the pad (then
//    the padded tensor enters the kernel graph). A pad of nothing is its
//    operand. Any other pad value (max pooling's -inf) is cut: im2col pads
//    with zeros;
//  - the accumulator of a linalg op: a fill of 0 (-inf or the lowest
//    finite value for a max) is absorbed, a per-channel bias (tosa's bias
//    operand, torch-mlir's linalg.generic broadcasting the bias into the
//    init) is added to the matmul's [G, M, Fg] result before the reshape,
//    and any other tensor is added (max: maximum) after it. tensor.empty
//    there is undefined and refused;
//  - the output views are recorded, so that the element-wise ops after
//    the op move in front of them (sink.c) and the search sees the matmul
//    and its epilogue as one part.
// Static shapes only (im2col has no symbolic dims); TOSA's f16
// accumulation, zero points other than 0, padded TOSA pooling (max pads
// with -inf, avg excludes the padding from its count) are cut.
//
//===----------------------------------------------------------------------===//
#include "lift_internal.h"

#include <string.h>

typedef enum ConvKind {
  CONV_MATMUL, // filter, matmul
  CONV_MAX,    // window, reduce_max
  CONV_SUM,    // window, sum
} ConvKind;

// Where the filter dims go (wdim): G, KH, KW, Cg, Fg as positions in the
// permuted filter (-1: size 1).
typedef struct ConvForm {
  const char *name;
  uint8_t kind;     // ConvKind
  bool tosa;        // attributes and operands in TOSA's form
  uint8_t x_rank;   // 4 (N H W C in some order) or 5 (N G C H W)
  uint8_t o_rank;   // the result's rank
  int8_t xperm[5];  // canonical dim d is input dim xperm[d]: N H W C, or
                    // N H W G Cg for a rank-5 input
  uint8_t w_rank;
  int8_t wperm[5];  // permuted filter dim d is filter dim wperm[d]
  int8_t wdim[5];   // G KH KW Cg Fg in the permuted filter
  int8_t operm[5];  // result dim d is channels-last dim operm[d]
} ConvForm;

#define ID4 {0, 1, 2, 3, 0}
#define NCHW_TO_NHWC {0, 2, 3, 1, 0}
#define NHWC_TO_NCHW {0, 3, 1, 2, 0}

static const ConvForm forms[] = {
    {"linalg.conv_2d_nhwc_hwcf", CONV_MATMUL, false, 4, 4, ID4, 4,
     {0, 1, 2, 3, 0}, {-1, 0, 1, 2, 3}, ID4},
    {"linalg.conv_2d_nhwc_fhwc", CONV_MATMUL, false, 4, 4, ID4, 4,
     {1, 2, 3, 0, 0}, {-1, 0, 1, 2, 3}, ID4},
    {"linalg.conv_2d_nchw_fchw", CONV_MATMUL, false, 4, 4, NCHW_TO_NHWC,
     4, {2, 3, 1, 0, 0}, {-1, 0, 1, 2, 3}, NHWC_TO_NCHW},
    // [N, G, C, H, W] x [FG, G, C, KH, KW] -> [N, G, FG, Ho, Wo]
    {"linalg.conv_2d_ngchw_fgchw", CONV_MATMUL, false, 5, 5,
     {0, 3, 4, 1, 2}, 5, {1, 3, 4, 2, 0}, {0, 1, 2, 3, 4}, {0, 3, 4, 1, 2}},
    // [N, G, C, H, W] x [G, FG, C, KH, KW] -> [N, G, FG, Ho, Wo]
    {"linalg.conv_2d_ngchw_gfchw", CONV_MATMUL, false, 5, 5,
     {0, 3, 4, 1, 2}, 5, {0, 3, 4, 2, 1}, {0, 1, 2, 3, 4}, {0, 3, 4, 1, 2}},
    {"linalg.depthwise_conv_2d_nhwc_hwc", CONV_MATMUL, false, 4, 4, ID4, 3,
     {2, 0, 1, 0, 0}, {0, 1, 2, -1, -1}, ID4},
    {"linalg.depthwise_conv_2d_nhwc_hwcm", CONV_MATMUL, false, 4, 5, ID4,
     4, {2, 0, 1, 3, 0}, {0, 1, 2, -1, 3}, {0, 1, 2, 3, 4}},
    {"linalg.depthwise_conv_2d_nchw_chw", CONV_MATMUL, false, 4, 4,
     NCHW_TO_NHWC, 3, {0, 1, 2, 0, 0}, {0, 1, 2, -1, -1}, NHWC_TO_NCHW},
    {"linalg.pooling_nhwc_max", CONV_MAX, false, 4, 4, ID4, 0, {0}, {0},
     ID4},
    {"linalg.pooling_nhwc_sum", CONV_SUM, false, 4, 4, ID4, 0, {0}, {0},
     ID4},
    {"linalg.pooling_nchw_max", CONV_MAX, false, 4, 4, NCHW_TO_NHWC, 0,
     {0}, {0}, NHWC_TO_NCHW},
    {"linalg.pooling_nchw_sum", CONV_SUM, false, 4, 4, NCHW_TO_NHWC, 0,
     {0}, {0}, NHWC_TO_NCHW},
    // TOSA: weight OHWI [F, KH, KW, C]; depthwise [KH, KW, C, M] writes
    // channel c·M + m.
    {"tosa.conv2d", CONV_MATMUL, true, 4, 4, ID4, 4, {1, 2, 3, 0, 0},
     {-1, 0, 1, 2, 3}, ID4},
    {"tosa.depthwise_conv2d", CONV_MATMUL, true, 4, 4, ID4, 4,
     {2, 0, 1, 3, 0}, {0, 1, 2, -1, 3}, ID4},
    {"tosa.max_pool2d", CONV_MAX, true, 4, 4, ID4, 0, {0}, {0}, ID4},
    {"tosa.avg_pool2d", CONV_SUM, true, 4, 4, ID4, 0, {0}, {0}, ID4},
};

static const ConvForm *form_of(MlirOperation op) {
  for (size_t i = 0; i < sizeof forms / sizeof *forms; ++i)
    if (mg_bridge_op_is(op, forms[i].name))
      return &forms[i];
  return NULL;
}

bool mg_lift_is_conv(MlirOperation op) {
  return form_of(op) != NULL || mg_bridge_op_is(op, "tensor.pad");
}

intptr_t mg_lift_conv_data_operands(MlirOperation op) {
  const ConvForm *f = form_of(op);
  intptr_t n = mlirOperationGetNumOperands(op);
  if (mg_bridge_op_is(op, "tensor.pad"))
    return n < 1 ? n : 1; // the rest are dynamic low/high sizes
  if (!f || !f->tosa)
    return n;
  intptr_t data = f->kind == CONV_MATMUL ? 3 : 1; // input, weight, bias
  return n < data ? n : data;
}

int mg_lift_conv_window_operand(MlirOperation op) {
  const ConvForm *f = form_of(op);
  return f && !f->tosa && f->kind != CONV_MATMUL ? 1 : -1;
}

//===--- Attributes -------------------------------------------------------===//

// Two values of a linalg `strides` / `dilations` (dense i64, tensor or
// vector), 1 when absent; false when present in another form.
static bool linalg_pair(MlirOperation op, const char *name, int64_t *out) {
  MlirAttribute a = mg_lift_attr(op, name);
  out[0] = out[1] = 1;
  if (mlirAttributeIsNull(a))
    return true;
  if (!mlirAttributeIsADenseIntElements(a) ||
      mlirElementsAttrGetNumElements(a) != 2)
    return false;
  MlirType et = mlirShapedTypeGetElementType(mlirAttributeGetType(a));
  if (!mlirTypeIsAInteger(et) || mlirIntegerTypeGetWidth(et) != 64)
    return false;
  for (intptr_t i = 0; i < 2; ++i)
    out[i] = mlirDenseElementsAttrGetInt64Value(a, i);
  return true;
}

// `n` values of the i64 array attribute `name` of a TOSA op.
static bool tosa_array(MlirOperation op, const char *name, intptr_t n,
                       int64_t *out) {
  return mg_bridge_i64s(mg_lift_attr(op, name), n, out);
}

// TOSA float zero points (operands from `from` on) are splat zeros.
static bool zero_points(MgLiftBuilder *b, MlirOperation op, intptr_t from) {
  for (intptr_t i = from; i < mlirOperationGetNumOperands(op); ++i) {
    double z;
    if (!mg_lift_get_scalar(mlirOperationGetOperand(op, i), &z) || z != 0.0)
      return mg_lift_fail(b, op, "zero point operand %d is not a zero constant",
                          (int)i);
  }
  return true;
}

// TOSA's acc_type: f16 accumulation is what the IR asks for and the
// μGraph's matmul and sum do not model.
static bool acc_type(MgLiftBuilder *b, MlirOperation op) {
  MlirAttribute a = mg_lift_attr(op, "acc_type");
  if (mlirAttributeIsNull(a))
    return true;
  if (!mlirAttributeIsAType(a))
    return mg_lift_fail(b, op, "unreadable 'acc_type'");
  MlirType t = mlirTypeAttrGetValue(a);
  if (mlirTypeIsAF16(t))
    return mg_lift_fail(b, op,
                        "it accumulates in f16 (acc_type = f16); lifted "
                        "convolutions and pooling accumulate in f32");
  if (!mlirTypeIsAF32(t))
    return mg_lift_fail(b, op, "only acc_type = f32 lifts");
  return true;
}

// Window, strides, dilations and padding of `op` into `c` (groups later).
static bool read_params(MgLiftBuilder *b, MlirOperation op, const ConvForm *f,
                        const MgLiftType *wt, MgIm2col *c) {
  memset(c, 0, sizeof *c);
  int64_t s[2] = {1, 1}, d[2] = {1, 1}, k[2] = {1, 1}, pad[4] = {0, 0, 0, 0};
  if (f->tosa) {
    bool pool = f->kind != CONV_MATMUL;
    if (!tosa_array(op, "stride", 2, s) || !tosa_array(op, "pad", 4, pad) ||
        (!pool && !tosa_array(op, "dilation", 2, d)) ||
        (pool && !tosa_array(op, "kernel", 2, k)))
      return mg_lift_fail(b, op, "missing or malformed stride, dilation, "
                                 "pad or kernel");
  } else if (!linalg_pair(op, "strides", s) ||
             !linalg_pair(op, "dilations", d)) {
    return mg_lift_fail(b, op, "strides and dilations must be two integers");
  }
  if (f->kind == CONV_MATMUL) {
    k[0] = wt->dims[(int)f->wperm[f->wdim[1]]];
    k[1] = wt->dims[(int)f->wperm[f->wdim[2]]];
  } else if (!f->tosa) { // the window is the shape of operand 1
    MlirType w = mlirValueGetType(mlirOperationGetOperand(op, 1));
    if (!mlirTypeIsARankedTensor(w) || mlirShapedTypeGetRank(w) != 2 ||
        !mlirShapedTypeHasStaticShape(w))
      return mg_lift_fail(b, op, "the pooling window is not a static 2-D "
                                 "tensor");
    k[0] = mlirShapedTypeGetDimSize(w, 0);
    k[1] = mlirShapedTypeGetDimSize(w, 1);
  }
  c->kh = k[0], c->kw = k[1], c->sh = s[0], c->sw = s[1], c->dh = d[0],
  c->dw = d[1];
  c->pad_top = pad[0], c->pad_bottom = pad[1], c->pad_left = pad[2],
  c->pad_right = pad[3];
  if (f->tosa && f->kind == CONV_MAX && (pad[0] | pad[1] | pad[2] | pad[3]))
    return mg_lift_fail(b, op,
                        "max pooling pads with -inf, ug.im2col with 0 "
                        "(only unpadded max pooling lifts)");
  if (f->tosa && f->kind == CONV_SUM && (pad[0] | pad[1] | pad[2] | pad[3]))
    return mg_lift_fail(b, op,
                        "a padded tosa.avg_pool2d divides by the count of "
                        "elements inside the input (only unpadded average "
                        "pooling lifts)");
  for (int i = 0; i < 4; ++i)
    if (pad[i] < 0)
      return mg_lift_fail(b, op, "negative padding");
  return true;
}

//===--- tensor.pad -------------------------------------------------------===//

// The constant a tensor.pad yields, false when it is not one.
static bool pad_value(MlirOperation pad, double *out) {
  if (mlirOperationGetNumRegions(pad) < 1)
    return false;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(pad, 0));
  if (mlirBlockIsNull(body))
    return false;
  MlirOperation y = mlirBlockGetTerminator(body);
  return !mlirOperationIsNull(y) && mlirOperationGetNumOperands(y) == 1 &&
         mg_lift_get_scalar(mlirOperationGetOperand(y, 0), out);
}

// Static low and high amounts of `pad` (rank `rank`).
static bool pad_amounts(MlirOperation pad, uint32_t rank, int64_t *lo,
                        int64_t *hi) {
  MlirAttribute l = mg_lift_attr(pad, "static_low"),
                h = mg_lift_attr(pad, "static_high");
  if (mlirOperationGetNumOperands(pad) != 1 || mlirAttributeIsNull(l) ||
      mlirAttributeIsNull(h) || !mlirAttributeIsADenseI64Array(l) ||
      !mlirAttributeIsADenseI64Array(h) ||
      mlirDenseArrayGetNumElements(l) != rank ||
      mlirDenseArrayGetNumElements(h) != rank)
    return false;
  for (uint32_t d = 0; d < rank; ++d) {
    lo[d] = mlirDenseI64ArrayGetElement(l, d);
    hi[d] = mlirDenseI64ArrayGetElement(h, d);
    if (lo[d] < 0 || hi[d] < 0)
      return false;
  }
  return true;
}

// Every use of `v` is operand `k` of a linalg or TOSA convolution or
// pooling (`linalg` only: of a linalg one; `sum`: not a max pooling),
// directly or through one tensor.expand_shape (torch-mlir splits channels
// into groups so) when `view`.
static bool read_by_convs(MlirValue v, intptr_t k, bool linalg, bool sum,
                          bool view) {
  for (MlirOpOperand u = mlirValueGetFirstUse(v); !mlirOpOperandIsNull(u);
       u = mlirOpOperandGetNextUse(u)) {
    MlirOperation user = mlirOpOperandGetOwner(u);
    const ConvForm *f = form_of(user);
    if (view && mg_bridge_op_is(user, "tensor.expand_shape")) {
      if (!read_by_convs(mlirOperationGetResult(user, 0), k, linalg, sum,
                         false))
        return false;
      continue;
    }
    if (!f || (linalg && f->tosa) || (sum && f->kind == CONV_MAX) ||
        mlirOpOperandGetOperandNumber(u) != k)
      return false;
  }
  return true;
}

static bool translate_pad(MgLiftBuilder *b, MlirOperation op) {
  MgLiftType rt;
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  MlirValue src = mlirOperationGetOperand(op, 0);
  if (mg_lift_type_is_dynamic(mlirValueGetType(src)) ||
      mg_lift_type_is_dynamic(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return mg_lift_fail(b, op, "a tensor.pad with a dynamic dim ('?')");
  int64_t lo[MG_LIFT_MAX_RANK], hi[MG_LIFT_MAX_RANK];
  if (!pad_amounts(op, rt.rank, lo, hi))
    return mg_lift_fail(b, op, "a tensor.pad without static, non-negative "
                               "low and high amounts");
  bool none = true;
  for (uint32_t d = 0; d < rt.rank; ++d)
    none &= lo[d] == 0 && hi[d] == 0;
  MgLiftVal r;
  if (none) { // pads nothing: its operand, whatever the value
    if (!mg_lift_get(b, src, &r))
      return false;
    r.dtype = rt.dtype;
    return mg_lift_set_result(b, op, &r);
  }
  double value;
  if (!pad_value(op, &value))
    return mg_lift_fail(b, op, "the tensor.pad does not yield a constant");
  if (value != 0.0)
    return mg_lift_fail(b, op,
                        "it pads with %g; only zero padding folds into a "
                        "convolution's ug.im2col",
                        value);
  if (!read_by_convs(mlirOperationGetResult(op, 0), 0, false, false, true))
    return mg_lift_fail(b, op,
                        "a tensor.pad lifts only folded into the "
                        "convolutions and pooling ops that read it");
  memset(&r, 0, sizeof r);
  r.kind = MG_LIFT_PAD;
  r.dtype = rt.dtype;
  r.rank = rt.rank;
  memcpy(r.dims, rt.dims, rt.rank * sizeof *rt.dims);
  for (uint32_t d = 0; d < MG_LIFT_MAX_RANK; ++d)
    r.map[d] = -1;
  r.t = MG_NO_ID;
  r.ir = mlirOperationGetResult(op, 0);
  return mg_lift_set_result(b, op, &r);
}

//===--- The convolution --------------------------------------------------===//

static void to_i64(const int8_t *p, uint32_t n, int64_t *out) {
  for (uint32_t i = 0; i < n; ++i)
    out[i] = p[i];
}

// The dim of tensor.expand_shape `view`'s result that dim `s` of its
// operand becomes, -1 when it is split.
static int expanded_dim(MlirOperation view, uint32_t s) {
  MlirAttribute re = mg_lift_attr(view, "reassociation");
  if (mlirAttributeIsNull(re) || !mlirAttributeIsAArray(re) ||
      (intptr_t)s >= mlirArrayAttrGetNumElements(re))
    return -1;
  MlirAttribute g = mlirArrayAttrGetElement(re, s);
  if (!mlirAttributeIsAArray(g) || mlirArrayAttrGetNumElements(g) != 1 ||
      !mlirAttributeIsAInteger(mlirArrayAttrGetElement(g, 0)))
    return -1;
  return (int)mlirIntegerAttrGetValueInt(mlirArrayAttrGetElement(g, 0));
}

// A zero tensor.pad lifted in front of the convolution (directly or
// through one expand_shape, `view`): its amounts into c's padding, and the
// unpadded value seen in the convolution input's shape into `x`.
static bool fold_pad(MgLiftBuilder *b, MlirOperation op, const ConvForm *f,
                     MlirOperation pad, MlirOperation view, MgIm2col *c,
                     MgLiftVal *x) {
  MlirValue padded = mlirOperationGetResult(pad, 0);
  uint32_t rank = (uint32_t)mlirShapedTypeGetRank(mlirValueGetType(padded));
  int64_t lo[MG_LIFT_MAX_RANK], hi[MG_LIFT_MAX_RANK];
  if (rank > MG_LIFT_MAX_RANK || !pad_amounts(pad, rank, lo, hi))
    return mg_lift_fail(b, pad, "internal: unreadable tensor.pad");
  bool direct = mlirOperationEqual(view, pad);
  if (!direct && !(mg_bridge_op_is(view, "tensor.expand_shape") &&
                   mlirValueEqual(mlirOperationGetOperand(view, 0), padded)))
    return mg_lift_fail(b, pad,
                        "the tensor.pad reaches the convolution through "
                        "views other than one tensor.expand_shape");
  MgLiftType it; // the convolution's input
  const char *why;
  if (!mg_lift_read_type(mlirValueGetType(mlirOperationGetOperand(op, 0)), &it,
                         &why))
    return mg_lift_fail(b, op, "the input %s", why);
  MlirValue src = mlirOperationGetOperand(pad, 0);
  int hd = f->xperm[1], wd = f->xperm[2];
  for (uint32_t s = 0; s < rank; ++s) {
    int d = direct ? (int)s : expanded_dim(view, s);
    if (!lo[s] && !hi[s])
      continue;
    if (d != hd && d != wd)
      return mg_lift_fail(b, pad,
                          "the tensor.pad pads dim %u, which is not a "
                          "spatial dim of the convolution's input",
                          s);
    if (d == hd)
      c->pad_top += lo[s], c->pad_bottom += hi[s];
    else
      c->pad_left += lo[s], c->pad_right += hi[s];
    it.dims[d] -= lo[s] + hi[s];
  }
  if (!mg_lift_get(b, src, x))
    return false;
  return direct || mg_lift_view_reshape(b, x, it.rank, it.dims, x);
}

// The input as an exact NHWC tensor [N, H, W, C]; a zero tensor.pad
// lifted in front is folded into c's padding.
static bool conv_input(MgLiftBuilder *b, MlirOperation op, const ConvForm *f,
                       MgIm2col *c, MgLiftVal *out) {
  MlirValue v = mlirOperationGetOperand(op, 0);
  MgLiftVal x;
  if (!mg_lift_get(b, v, &x))
    return false;
  if (x.kind == MG_LIFT_PAD &&
      !fold_pad(b, op, f, mg_lift_def_op(x.ir), mg_lift_def_op(v), c, &x))
    return false;
  int64_t perm[5];
  to_i64(f->xperm, f->x_rank, perm);
  if (!mg_lift_materialize(b, &x))
    return false;
  if (x.rank != f->x_rank)
    return mg_lift_fail(b, op, "the input has rank %u (%u expected)", x.rank,
                        f->x_rank);
  if (!mg_lift_view_transpose(b, &x, perm, &x))
    return false;
  if (f->x_rank == 5) { // [N, H, W, G, Cg] -> [N, H, W, G·Cg]
    int64_t d4[4] = {x.dims[0], x.dims[1], x.dims[2], x.dims[3] * x.dims[4]};
    if (!mg_lift_view_reshape(b, &x, 4, d4, &x))
      return false;
  }
  if (!mg_lift_realize(b, &x))
    return false;
  if (!mg_lift_val_is_exact(b, &x))
    return mg_lift_fail(b, op, "the convolution's input is broadcast");
  *out = x;
  return true;
}

// The filter as an exact [G, KH·KW·Cg, Fg] tensor; G, Cg, Fg into g.
static bool conv_filter(MgLiftBuilder *b, MlirOperation op, const ConvForm *f,
                        int64_t *g, MgLiftVal *out) {
  MgLiftVal w;
  int64_t perm[5], pd[5];
  to_i64(f->wperm, f->w_rank, perm);
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 1), &w) ||
      !mg_lift_materialize(b, &w))
    return false;
  if (w.rank != f->w_rank)
    return mg_lift_fail(b, op, "the filter has rank %u (%u expected)", w.rank,
                        f->w_rank);
  if (!mg_lift_view_transpose(b, &w, perm, &w))
    return false;
  for (int i = 0; i < 5; ++i)
    pd[i] = f->wdim[i] < 0 ? 1 : w.dims[(int)f->wdim[i]];
  int64_t d3[3] = {pd[0], pd[1] * pd[2] * pd[3], pd[4]};
  if (!mg_lift_view_reshape(b, &w, 3, d3, &w) || !mg_lift_realize(b, &w))
    return false;
  if (!mg_lift_val_is_exact(b, &w))
    return mg_lift_fail(b, op, "the filter is broadcast");
  g[0] = pd[0], g[1] = pd[3], g[2] = pd[4];
  *out = w;
  return true;
}

// The accumulator's start (linalg: the init; TOSA: none, the bias apart).
typedef enum InitUse { INIT_ABSORBED, INIT_CHANNEL, INIT_AFTER } InitUse;

// Classifies the init of a linalg op (image `in`, in the result's frame):
// absorbed (0, or the lowest value for a max), per channel (constant over
// N, Ho, Wo: a broadcast bias), or a tensor to combine after the reshape.
static bool init_use(MgLiftBuilder *b, MlirOperation op, const ConvForm *f,
                     MgLiftVal *in, InitUse *use) {
  MlirValue init = mlirOperationGetOperand(op, 2);
  uint8_t dtype = in->dtype;
  double z;
  if (mg_lift_get_scalar(init, &z) &&
      (f->kind == CONV_MAX ? z <= -mg_lift_max_finite(dtype) : z == 0.0)) {
    *use = INIT_ABSORBED;
    return true;
  }
  if (mg_lift_is_empty(init))
    return mg_lift_fail(b, op, "the accumulator starts from tensor.empty "
                               "(undefined values)");
  if (!mg_lift_get(b, init, in))
    return false;
  bool channel = f->kind != CONV_MAX;
  for (uint32_t d = 0; channel && d < in->rank; ++d)
    channel = f->operm[d] >= 3 || in->dims[d] == 1 || in->map[d] < 0;
  *use = channel ? INIT_CHANNEL : INIT_AFTER;
  return true;
}

// The per-channel values of `in` (a value of the result's frame constant
// over N, Ho, Wo; or a rank-1 TOSA bias of F or 1 elements) in the frame
// [G, M, Fg] of the matmul's result.
static bool channel_view(MgLiftBuilder *b, const ConvForm *f,
                         const MgLiftVal *in, bool tosa_bias,
                         const MgLiftVal *frame, MgLiftVal *out) {
  if (in->kind == MG_LIFT_SCALAR) { // a constant: ug.add_scalar
    mg_lift_alg_scalar(frame, in->scalar, in->dtype, out);
    return true;
  }
  int64_t G = frame->dims[0], M = frame->dims[1], Fg = frame->dims[2];
  MgLiftVal ch = *in;
  if (!tosa_bias) { // keep the channel dims, in channels-last order
    ch.rank = 0;
    for (int k = 3; k < 5; ++k)
      for (uint32_t d = 0; d < in->rank; ++d)
        if (f->operm[d] == k) {
          ch.dims[ch.rank] = in->dims[d];
          ch.map[ch.rank++] = in->map[d];
        }
    for (uint32_t d = ch.rank; d < MG_LIFT_MAX_RANK; ++d)
      ch.map[d] = -1;
  }
  int64_t n = 1;
  for (uint32_t d = 0; d < ch.rank; ++d)
    n *= ch.dims[d];
  int64_t gf[3] = {G, 1, Fg}, ones[3] = {1, 1, 1}, fdims[3] = {G, M, Fg};
  const int8_t phi[3] = {0, 1, 2};
  return mg_lift_view_reshape(b, &ch, 3, n == 1 ? ones : gf, &ch) &&
         mg_lift_frame_in(b, &ch, 3, fdims, phi, out);
}

static bool translate_conv(MgLiftBuilder *b, MlirOperation op,
                           const ConvForm *f) {
  MgLiftType rt, wt;
  memset(&wt, 0, sizeof wt);
  if (!mg_lift_result_type(op, 0, &rt))
    return mg_lift_fail(b, op, "unsupported result type");
  for (intptr_t i = 0; i < mlirOperationGetNumOperands(op); ++i)
    if (mg_lift_type_is_dynamic(
            mlirValueGetType(mlirOperationGetOperand(op, i))))
      return mg_lift_fail(b, op,
                          "operand %d has a dynamic dim ('?'); ug.im2col "
                          "needs static shapes",
                          (int)i);
  if (mg_lift_type_is_dynamic(mlirValueGetType(mlirOperationGetResult(op, 0))))
    return mg_lift_fail(b, op, "the result has a dynamic dim ('?'); "
                               "ug.im2col needs static shapes");
  if (rt.rank != f->o_rank)
    return mg_lift_fail(b, op, "unexpected result rank %u", rt.rank);
  const char *why;
  if (f->kind == CONV_MATMUL &&
      !mg_lift_read_type(mlirValueGetType(mlirOperationGetOperand(op, 1)), &wt,
                         &why))
    return mg_lift_fail(b, op, "unsupported filter type");
  if (f->tosa && ((f->kind == CONV_MATMUL && !zero_points(b, op, 3)) ||
                  (f->kind == CONV_SUM && !zero_points(b, op, 1)) ||
                  (f->kind != CONV_MAX && !acc_type(b, op))))
    return false;
  MgIm2col c;
  if (!read_params(b, op, f, &wt, &c))
    return false;
  MgLiftVal x, w;
  memset(&x, 0, sizeof x);
  memset(&w, 0, sizeof w);
  if (!conv_input(b, op, f, &c, &x))
    return false;
  int64_t N = x.dims[0], H = x.dims[1], W = x.dims[2], C = x.dims[3];
  int64_t grp[3] = {C, 1, 1}; // G, Cg, Fg
  if (f->kind == CONV_MATMUL && !conv_filter(b, op, f, grp, &w))
    return false;
  int64_t G = grp[0], Cg = grp[1], Fg = grp[2];
  if (G < 1 || G * Cg != C)
    return mg_lift_fail(b, op,
                        "the filter's %lld group(s) of %lld channels do not "
                        "match the input's %lld channels",
                        (long long)G, (long long)Cg, (long long)C);
  c.groups = (int32_t)G;
  int64_t Ho, Wo;
  mg_im2col_out_hw(&c, H, W, &Ho, &Wo);
  // The result in channels-last order (result dim d is dim operm[d]).
  int64_t cl[5];
  for (uint32_t d = 0; d < rt.rank; ++d)
    cl[(int)f->operm[d]] = rt.dims[d];
  int64_t F = 1;
  for (uint32_t d = 3; d < rt.rank; ++d)
    F *= cl[d];
  if (Ho < 1 || Wo < 1 || cl[0] != N || cl[1] != Ho || cl[2] != Wo ||
      F != G * Fg)
    return mg_lift_fail(b, op,
                        "the result [%lld, %lld, %lld, %lld] (channels last) "
                        "does not match the %lldx%lld window over the "
                        "[%lld, %lld, %lld, %lld] input, which gives "
                        "[%lld, %lld, %lld, %lld] with these strides, "
                        "dilations and padding",
                        (long long)cl[0], (long long)cl[1], (long long)cl[2],
                        (long long)F, (long long)c.kh, (long long)c.kw,
                        (long long)N, (long long)H, (long long)W, (long long)C,
                        (long long)N, (long long)Ho, (long long)Wo,
                        (long long)(G * Fg));
  MgTensorId p = mg_lift_emit_im2col(b, x.t, &c);
  if (p == MG_NO_ID)
    return false;
  MgTensorId y =
      f->kind == CONV_MATMUL
          ? mg_lift_emit_matmul(b, p, w.t, rt.dtype)
          : mg_lift_emit_reduce(b, f->kind == CONV_MAX ? MG_OP_REDUCE_MAX
                                                       : MG_OP_SUM,
                                p, 2, rt.dtype);
  if (y == MG_NO_ID)
    return false;
  MgLiftVal r, in;
  mg_lift_val_exact(b, y, rt.dtype, op, &r);
  if (f->tosa && f->kind == CONV_SUM) { // average: the sum / window size
    MgLiftVal k;
    mg_lift_alg_scalar(&r, (double)(c.kh * c.kw), rt.dtype, &k);
    if (!mg_lift_alg_binary(b, MG_LIFT_ALG_DIV, &r, &k, rt.dtype, &r))
      return false;
  }
  // The accumulator or bias: per channel before the reshape.
  InitUse use = INIT_ABSORBED;
  memset(&in, 0, sizeof in);
  in.dtype = rt.dtype;
  bool tosa_bias = false;
  if (f->tosa && f->kind == CONV_MATMUL) {
    double z;
    MlirValue bias = mlirOperationGetOperand(op, 2);
    if (!mg_lift_get_scalar(bias, &z) || z != 0.0) {
      if (!mg_lift_get(b, bias, &in))
        return false;
      if (in.rank != 1 || (in.dims[0] != F && in.dims[0] != 1))
        return mg_lift_fail(b, op, "the bias is not [%lld] or [1]",
                            (long long)F);
      use = INIT_CHANNEL;
      tosa_bias = true;
    }
  } else if (!f->tosa && !init_use(b, op, f, &in, &use)) {
    return false;
  }
  if (use == INIT_CHANNEL) {
    MgLiftVal cv;
    if (!channel_view(b, f, &in, tosa_bias, &r, &cv) ||
        !mg_lift_alg_binary(b, MG_LIFT_ALG_ADD, &r, &cv, rt.dtype, &r))
      return false;
  }
  // [G, M, Fg] -> [M, G, Fg] -> channels last -> the op's layout.
  const int64_t swap[3] = {1, 0, 2};
  int64_t operm[5];
  to_i64(f->operm, rt.rank, operm);
  MgTensorId before = r.t;
  if ((G > 1 && !mg_lift_view_transpose(b, &r, swap, &r)) ||
      !mg_lift_view_reshape(b, &r, rt.rank, cl, &r) ||
      !mg_lift_view_transpose(b, &r, operm, &r) ||
      (r.t != before && !mg_lift_record_sink(b, r.t)))
    return false;
  if (use == INIT_AFTER) {
    MgLiftVal fi;
    int8_t phi[MG_LIFT_MAX_RANK];
    for (uint32_t d = 0; d < rt.rank; ++d)
      phi[d] = (int8_t)d;
    if (!mg_lift_frame_in(b, &in, rt.rank, rt.dims, phi, &fi) ||
        !mg_lift_alg_binary(b,
                            f->kind == CONV_MAX ? MG_LIFT_ALG_MAX
                                                : MG_LIFT_ALG_ADD,
                            &fi, &r, rt.dtype, &r))
      return false;
  }
  r.dtype = rt.dtype;
  return mg_lift_set_result(b, op, &r);
}

bool mg_lift_translate_conv(MgLiftBuilder *b, MlirOperation op) {
  if (mg_bridge_op_is(op, "tensor.pad"))
    return translate_pad(b, op);
  const ConvForm *f = form_of(op);
  if (!f)
    return mg_lift_fail(b, op, "no translation for this convolution");
  return translate_conv(b, op, f);
}

//===--- The broadcast bias of torch-mlir's linalg convolutions -----------===//

// A linalg.generic that copies its one input to a larger shape (the
// output map the identity, the body yielding the input), read only as the
// init of linalg convolutions (maybe through an expand_shape into groups):
// torch-mlir's bias. Its image is the input seen broadcast over the
// result's frame, which the convolution adds per channel; it never leaves
// the kernel graph (if it had to, the result could not be exact, and the
// generic is cut).
int mg_lift_translate_conv_init(MgLiftBuilder *b, MlirOperation op) {
  if (!mg_bridge_op_is(op, "linalg.generic") ||
      mlirOperationGetNumOperands(op) != 2 ||
      mlirOperationGetNumResults(op) != 1)
    return -1;
  MlirValue res = mlirOperationGetResult(op, 0);
  if (mlirOpOperandIsNull(mlirValueGetFirstUse(res)))
    return -1;
  if (!read_by_convs(res, 2, true, true, true))
    return -1;
  MlirBlock body = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  MlirOperation y = mlirBlockIsNull(body) ? (MlirOperation){NULL}
                                          : mlirBlockGetTerminator(body);
  if (mlirOperationIsNull(y) || mlirOperationGetNumOperands(y) != 1)
    return -1;
  MlirValue yv = mlirOperationGetOperand(y, 0);
  if (!mlirValueIsABlockArgument(yv) ||
      !mlirBlockEqual(mlirBlockArgumentGetOwner(yv), body) ||
      mlirBlockArgumentGetArgNumber(yv) != 0)
    return -1;
  MlirAttribute maps = mg_lift_attr(op, "indexing_maps");
  if (mlirAttributeIsNull(maps) || !mlirAttributeIsAArray(maps) ||
      mlirArrayAttrGetNumElements(maps) != 2)
    return -1;
  MlirAffineMap in_map =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 0));
  MlirAffineMap out_map =
      mlirAffineMapAttrGetValue(mlirArrayAttrGetElement(maps, 1));
  MgLiftType rt;
  if (!mlirAffineMapIsIdentity(out_map) || !mg_lift_result_type(op, 0, &rt) ||
      mlirAffineMapGetNumDims(out_map) != rt.rank)
    return -1;
  int8_t phi[MG_LIFT_MAX_RANK];
  intptr_t n = mlirAffineMapGetNumResults(in_map);
  if (n > MG_LIFT_MAX_RANK)
    return -1;
  for (intptr_t j = 0; j < n; ++j) {
    MlirAffineExpr e = mlirAffineMapGetResult(in_map, j);
    if (mlirAffineExprIsADim(e))
      phi[j] = (int8_t)mlirAffineDimExprGetPosition(e);
    else if (mlirAffineExprIsAConstant(e) &&
             mlirAffineConstantExprGetValue(e) == 0)
      phi[j] = -1;
    else
      return -1;
  }
  MgLiftVal x, r;
  if (!mg_lift_get(b, mlirOperationGetOperand(op, 0), &x))
    return 0;
  if (x.rank != n)
    return mg_lift_fail(b, op, "the broadcast input has rank %u, its map %d",
                        x.rank, (int)n);
  if (!mg_lift_frame_in(b, &x, rt.rank, rt.dims, phi, &r))
    return 0;
  r.dtype = rt.dtype;
  return mg_lift_set_result(b, op, &r);
}
