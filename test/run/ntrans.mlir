// nTrans (benchmark 6: O = rmsnorm(X + α * (rmsnorm(H) + X)), rmsnorm over
// the last dim, no weight) at H, X, α (8,64): TOSA in f16, linalg in f32,
// kernel graphs unfused and as one custom kernel with a block per row pair.
// RUN: mirage-run --compare=ntrans_tosa_f16,ntrans_ug_f16 %s | FileCheck %s --check-prefix=TOSA16
// RUN: mirage-run --compare=ntrans_linalg_f32,ntrans_ug_f32 %s | FileCheck %s --check-prefix=LINALG32
// RUN: mirage-run --compare=ntrans_linalg_f32,ntrans_fused_f32 %s | FileCheck %s --check-prefix=FUSED32
// RUN: not mirage-run --compare=ntrans_linalg_f32,ntrans_no_outer_norm_f32 %s | FileCheck %s --check-prefix=WRONG
// The lifter on the same file: every function it lifts must agree with the
// kernel graph it produced (the hand-written kernel graphs above carry no
// ug.reference, so only the lifter's pairs are checked).
// RUN: mirage-run --lift %s | FileCheck %s --check-prefix=LIFT

// TOSA16: @ntrans_tosa_f16 vs @ntrans_ug_f16: 1 output, 512 elements, max abs error {{.*}}: ok
// LINALG32: @ntrans_linalg_f32 vs @ntrans_ug_f32: 1 output, 512 elements, max abs error {{[0-9.]+}}e-{{0[6-9]|1[0-9]}} (tolerance {{.*}}): ok
// FUSED32: @ntrans_linalg_f32 vs @ntrans_fused_f32: 1 output, 512 elements, max abs error {{.*}}: ok
// WRONG: @ntrans_linalg_f32 vs @ntrans_no_outer_norm_f32: MISMATCH at output 0 element {{[0-9]+}}: jit

// LIFT-DAG: @ntrans_tosa_f16_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-DAG: @ntrans_linalg_f32_lax{{[0-9]+}}: {{.*}}: ok
// LIFT-NOT: MISMATCH

//===----------------------------------------------------------------------===//
// f16, TOSA
//===----------------------------------------------------------------------===//

func.func @ntrans_tosa_f16(%h: tensor<8x64xf16>, %x: tensor<8x64xf16>, %alpha: tensor<8x64xf16>) -> tensor<8x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %inv_n = "tosa.const"() <{values = dense<1.5625e-02> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %h2 = tosa.mul %h, %h, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %hs = tosa.reduce_sum %h2 {axis = 1 : i32} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %hm = tosa.mul %hs, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %hr = tosa.rsqrt %hm : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %hn = tosa.mul %h, %hr, %shift : (tensor<8x64xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %t = tosa.add %hn, %x : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %at = tosa.mul %alpha, %t, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %y = tosa.add %x, %at : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %y2 = tosa.mul %y, %y, %shift : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  %ys = tosa.reduce_sum %y2 {axis = 1 : i32} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %ym = tosa.mul %ys, %inv_n, %shift : (tensor<8x1xf16>, tensor<1x1xf16>, tensor<1xi8>) -> tensor<8x1xf16>
  %yr = tosa.rsqrt %ym : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %o = tosa.mul %y, %yr, %shift : (tensor<8x64xf16>, tensor<8x1xf16>, tensor<1xi8>) -> tensor<8x64xf16>
  return %o : tensor<8x64xf16>
}

func.func @ntrans_ug_f16(%h: tensor<8x64xf16>, %x: tensor<8x64xf16>, %alpha: tensor<8x64xf16>) -> tensor<8x64xf16> attributes {ug.level = "kernel"} {
  %h2 = "ug.square"(%h) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %hs = "ug.sum"(%h2) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %hm = "ug.div_scalar"(%hs) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %hr = "ug.sqrt"(%hm) : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %hn = "ug.div"(%h, %hr) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
  %t = "ug.add"(%hn, %x) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %at = "ug.mul"(%alpha, %t) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %y = "ug.add"(%x, %at) : (tensor<8x64xf16>, tensor<8x64xf16>) -> tensor<8x64xf16>
  %y2 = "ug.square"(%y) : (tensor<8x64xf16>) -> tensor<8x64xf16>
  %ys = "ug.sum"(%y2) {dim = 1 : i64} : (tensor<8x64xf16>) -> tensor<8x1xf16>
  %ym = "ug.div_scalar"(%ys) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %yr = "ug.sqrt"(%ym) : (tensor<8x1xf16>) -> tensor<8x1xf16>
  %o = "ug.div"(%y, %yr) : (tensor<8x64xf16>, tensor<8x1xf16>) -> tensor<8x64xf16>
  func.return %o : tensor<8x64xf16>
}

//===----------------------------------------------------------------------===//
// f32, linalg on tensors (named element-wise ops)
//===----------------------------------------------------------------------===//

func.func private @rmsnorm_rows(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 1.5625e-02 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %sq = linalg.mul ins(%x, %x : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %ss = linalg.reduce ins(%sq : tensor<8x64xf32>) outs(%z1 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %inv = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%ss : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.mulf %s, %inv_n : f32
    %r = math.rsqrt %m : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %invb = linalg.broadcast ins(%inv : tensor<8xf32>) outs(%e : tensor<8x64xf32>) dimensions = [1]
  %y = linalg.mul ins(%x, %invb : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

func.func @ntrans_linalg_f32(%h: tensor<8x64xf32>, %x: tensor<8x64xf32>, %alpha: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %hn = func.call @rmsnorm_rows(%h) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %t = linalg.add ins(%hn, %x : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %at = linalg.mul ins(%alpha, %t : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.add ins(%x, %at : tensor<8x64xf32>, tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
  %o = func.call @rmsnorm_rows(%y) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %o : tensor<8x64xf32>
}

func.func @ntrans_ug_f32(%h: tensor<8x64xf32>, %x: tensor<8x64xf32>, %alpha: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %h2 = "ug.square"(%h) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %hs = "ug.sum"(%h2) {dim = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %hm = "ug.div_scalar"(%hs) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %hr = "ug.sqrt"(%hm) : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %hn = "ug.div"(%h, %hr) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  %t = "ug.add"(%hn, %x) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %at = "ug.mul"(%alpha, %t) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = "ug.add"(%x, %at) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %y2 = "ug.square"(%y) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %ys = "ug.sum"(%y2) {dim = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %ym = "ug.div_scalar"(%ys) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %yr = "ug.sqrt"(%ym) : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %o = "ug.div"(%y, %yr) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// One custom kernel (the paper's nTrans has one): a block per two rows, the
// whole row in the block so both norms stay local, no for-loop.
func.func @ntrans_fused_f32_block(%h: tensor<8x64xf32>, %x: tensor<8x64xf32>, %alpha: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %ht = "ug.iterator"(%h) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf32>) -> tensor<2x64xf32>
  %xt = "ug.iterator"(%x) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf32>) -> tensor<2x64xf32>
  %at0 = "ug.iterator"(%alpha) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<8x64xf32>) -> tensor<2x64xf32>
  %h2 = "ug.square"(%ht) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %hs = "ug.sum"(%h2) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %hm = "ug.div_scalar"(%hs) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %hr = "ug.sqrt"(%hm) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %hn = "ug.div"(%ht, %hr) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %t = "ug.add"(%hn, %xt) : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %at = "ug.mul"(%at0, %t) : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %y = "ug.add"(%xt, %at) : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  %y2 = "ug.square"(%y) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ys = "ug.sum"(%y2) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %ym = "ug.div_scalar"(%ys) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %yr = "ug.sqrt"(%ym) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %o = "ug.div"(%y, %yr) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %out = "ug.saver"(%o) {omap = array<i64: 0, -1, -1>} : (tensor<2x64xf32>) -> tensor<8x64xf32>
  func.return %out : tensor<8x64xf32>
}
func.func @ntrans_fused_f32(%h: tensor<8x64xf32>, %x: tensor<8x64xf32>, %alpha: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %o = "ug.custom"(%h, %x, %alpha) {kernel = @ntrans_fused_f32_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %o : tensor<8x64xf32>
}

// Wrong on purpose: skips the outer rmsnorm.
func.func @ntrans_no_outer_norm_f32(%h: tensor<8x64xf32>, %x: tensor<8x64xf32>, %alpha: tensor<8x64xf32>) -> tensor<8x64xf32> attributes {ug.level = "kernel"} {
  %h2 = "ug.square"(%h) : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %hs = "ug.sum"(%h2) {dim = 1 : i64} : (tensor<8x64xf32>) -> tensor<8x1xf32>
  %hm = "ug.div_scalar"(%hs) {scalar = 6.400000e+01 : f64} : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %hr = "ug.sqrt"(%hm) : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %hn = "ug.div"(%h, %hr) : (tensor<8x64xf32>, tensor<8x1xf32>) -> tensor<8x64xf32>
  %t = "ug.add"(%hn, %x) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %at = "ug.mul"(%alpha, %t) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = "ug.add"(%x, %at) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  func.return %y : tensor<8x64xf32>
}
