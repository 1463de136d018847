// Masks written as an arith.select in a linalg.generic body, as
// torch-mlir's linalg backend (torch.where, masked_fill) and JAX
// (jnp.where) emit them: the i1 condition is an input of the generic, the
// fill a float constant (in the body or captured from the function).
// Around a causal softmax / attention (scores 2x16x16). Each masked
// softmax is ONE subprogram:
//  - @where_mask_argument (f32): the mask a function argument (16x16,
//    broadcast over the batch), Where(mask, s, -inf) with the -inf
//    captured from outside, after the 1/√d scale and before P·V;
//  - @masked_fill_cmpi (f32): masked_fill(triu(1), finfo.min): the mask
//    computed at run time by an arith.cmpi generic on linalg.index,
//    expanded to 1x16x16 and read as (0, d1, d2), the fill -3.4e38 in the
//    body on the true side;
//  - @where_cmpi_f16 (f16): the causal mask from arith.cmpi, and the scale
//    inside the select's body: select(m, s·0.25, -inf);
//  - @masked_fill_argument_f16 (f16): a key padding mask argument (2x1x16)
//    with -65504 on the true side, and more arithmetic after the select in
//    the same body (·0.125).
// select(m, x, fill) = x + A, A = select(m, 0, fill) (fill on the true
// side: A = select(m, fill, 0)), lib/lift/mask_linalg.c: the caller
// computes A just before the call (a linalg.generic over the mask and a
// tensor.empty, both ug.boundary, reshaped to the kernel graph's unit dims
// by boundary reshapes), A enters the kernel graph as a float input and
// the kernel graph adds it; the reference keeps the generic on A with its
// select choosing x + A by a constant condition. The i1 mask reaches
// neither the kernel graph nor its reference.
// Not lifted, with the reason, and left as written: @float_condition (the
// mask compares the scores themselves) and @zero_fill (a 0 fill is no mask).
//
// RUN: mirage-opt --mirage-lift %s | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-verify-ugraph %s > /dev/null
// RUN: mirage-opt %s > %t.in
// RUN: mirage-opt --mirage-lift --mirage-unlift %s > %t.rt
// RUN: diff %t.in %t.rt
// Lifting twice lifts nothing more (the boundary generic is not lifted).
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-lift | mirage-opt --mirage-unlift > %t.rt2
// RUN: diff %t.in %t.rt2
// RUN: mirage-opt --mirage-lift %s | mirage-opt --mirage-lift --mirage-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=TWICE
// The numbers: mirage-run feeds the kernel graph and its reference the
// same random A (x + A is the reference's function for every A).
// RUN: mirage-opt --mirage-lift %s > %t.mlir
// RUN: mirage-run --range=0.25 %t.mlir | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --range=4 %t.mlir | FileCheck %s --check-prefix=VAL
// RUN: mirage-run --lower --range=0.25 %t.mlir | FileCheck %s --check-prefix=VAL
//
// REM: '@where_mask_argument': lifted 1 subprogram (@where_mask_argument_lax0); 0 tensor ops left in place
// REM-NEXT: @where_mask_argument_lax0: 8 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM-NEXT: '@masked_fill_cmpi': lifted 1 subprogram (@masked_fill_cmpi_lax0); 2 tensor ops left in place
// REM-NEXT: @masked_fill_cmpi_lax0: 6 ops -> kernel graph of 7 μGraph ops, 3 inputs, 1 output
// REM-NEXT: 'linalg.generic' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: 'tensor.expand_shape' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: '@where_cmpi_f16': lifted 1 subprogram (@where_cmpi_f16_lax0); 1 tensor op left in place
// REM-NEXT: @where_cmpi_f16_lax0: 7 ops -> kernel graph of 9 μGraph ops, 4 inputs, 1 output
// REM-NEXT: 'linalg.generic' is not lifted: operand 0 has an element type other than f16, bf16 or f32
// REM-NEXT: '@masked_fill_argument_f16': lifted 1 subprogram (@masked_fill_argument_f16_lax0); 0 tensor ops left in place
// REM-NEXT: @masked_fill_argument_f16_lax0: 5 ops -> kernel graph of 7 μGraph ops, 2 inputs, 1 output
// REM-NEXT: '@float_condition': lifted 2 subprograms (@float_condition_lax0, @float_condition_lax1); 2 tensor ops left in place
// REM: 'linalg.generic' is not lifted: its mask is computed from float values (a mask lifts when it is a constant, an argument or computed from integers)
// REM: '@zero_fill': nothing lifted; 1 tensor op left in place
// REM-NEXT: 'linalg.generic' is not lifted: a masked select lifts only with a -inf or large negative fill (got 0)
//
// TWICE: '@where_mask_argument': nothing lifted
// TWICE: 'linalg.generic' is not lifted: it computes the additive mask of a select lifted before
// TWICE: '@masked_fill_cmpi': nothing lifted
// TWICE: 'linalg.generic' is not lifted: it computes the additive mask of a select lifted before
// TWICE: '@where_cmpi_f16': nothing lifted
// TWICE: 'linalg.generic' is not lifted: it computes the additive mask of a select lifted before
// TWICE: '@masked_fill_argument_f16': nothing lifted
// TWICE: 'linalg.generic' is not lifted: it computes the additive mask of a select lifted before
//
// VAL: @where_mask_argument_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @masked_fill_cmpi_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @where_cmpi_f16_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @masked_fill_argument_f16_lax0: 1 output, 512 elements{{.*}}: ok
// VAL-NEXT: @float_condition_lax0: {{.*}}: ok
// VAL-NEXT: @float_condition_lax1: {{.*}}: ok
// VAL-NOT: {{MISMATCH|OVERFLOW}}

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#rows = affine_map<(d0, d1, d2) -> (d1, d2)>
#bcast = affine_map<(d0, d1, d2) -> (0, d1, d2)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#keys = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
func.func @where_mask_argument(%q: tensor<2x16x16xf32>, %kt: tensor<2x16x16xf32>, %v: tensor<2x16x16xf32>, %mask: tensor<16x16xi1>) -> tensor<2x16x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_0 = arith.constant 2.500000e-01 : f32
  %cst_1 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<2x16x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %2 = linalg.batch_matmul ins(%q, %kt : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%1 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.mulf %in, %cst_0 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  %4 = linalg.generic {indexing_maps = [#rows, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %3 : tensor<16x16xi1>, tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: i1, %in_2: f32, %out: f32):
    %14 = arith.select %in, %in_2, %cst_1 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  %5 = tensor.empty() : tensor<2x16x1xf32>
  %6 = linalg.fill ins(%cst_1 : f32) outs(%5 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x16x16xf32>) outs(%6 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x1xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.subf %in, %in_3 : f32
    %15 = math.exp %14 : f32
    linalg.yield %15 : f32
  } -> tensor<2x16x16xf32>
  %9 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x16x16xf32>) outs(%9 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.addf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.divf %in, %in_3 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  %12 = linalg.batch_matmul ins(%11, %v : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%1 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %12 : tensor<2x16x16xf32>
}

func.func @masked_fill_cmpi(%q: tensor<2x16x16xf32>, %kt: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %cst_1 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<2x16x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %2 = linalg.batch_matmul ins(%q, %kt : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%1 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %e = tensor.empty() : tensor<16x16xi1>
  %future = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<16x16xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %gt = arith.cmpi ugt, %j, %i : index
    linalg.yield %gt : i1
  } -> tensor<16x16xi1>
  %future3 = tensor.expand_shape %future [[0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xi1> into tensor<1x16x16xi1>
  %4 = linalg.generic {indexing_maps = [#bcast, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%future3, %2 : tensor<1x16x16xi1>, tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: i1, %in_2: f32, %out: f32):
    %cst_3 = arith.constant -3.40282347E+38 : f32
    %14 = arith.select %in, %cst_3, %in_2 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  %5 = tensor.empty() : tensor<2x16x1xf32>
  %6 = linalg.fill ins(%cst_1 : f32) outs(%5 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x16x16xf32>) outs(%6 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.maximumf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x1xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.subf %in, %in_3 : f32
    %15 = math.exp %14 : f32
    linalg.yield %15 : f32
  } -> tensor<2x16x16xf32>
  %9 = linalg.fill ins(%cst : f32) outs(%5 : tensor<2x16x1xf32>) -> tensor<2x16x1xf32>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x16x16xf32>) outs(%9 : tensor<2x16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %14 = arith.addf %in, %out : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x1xf32>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x16x16xf32>, tensor<2x16x1xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %in_3: f32, %out: f32):
    %14 = arith.divf %in, %in_3 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  return %11 : tensor<2x16x16xf32>
}

func.func @where_cmpi_f16(%q: tensor<2x16x16xf16>, %kt: tensor<2x16x16xf16>, %v: tensor<2x16x16xf16>) -> tensor<2x16x16xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 2.500000e-01 : f16
  %cst_1 = arith.constant 0xFC00 : f16
  %0 = tensor.empty() : tensor<2x16x16xf16>
  %1 = linalg.fill ins(%cst : f16) outs(%0 : tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %2 = linalg.batch_matmul ins(%q, %kt : tensor<2x16x16xf16>, tensor<2x16x16xf16>) outs(%1 : tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  %e = tensor.empty() : tensor<16x16xi1>
  %keep = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<16x16xi1>) {
  ^bb0(%out: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %le = arith.cmpi ule, %j, %i : index
    linalg.yield %le : i1
  } -> tensor<16x16xi1>
  %4 = linalg.generic {indexing_maps = [#rows, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%keep, %2 : tensor<16x16xi1>, tensor<2x16x16xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: i1, %in_2: f16, %out: f16):
    %ninf = arith.constant 0xFC00 : f16
    %s = arith.mulf %in_2, %cst_0 : f16
    %14 = arith.select %in, %s, %ninf : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x16xf16>
  %5 = tensor.empty() : tensor<2x16x1xf16>
  %6 = linalg.fill ins(%cst_1 : f16) outs(%5 : tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x16x16xf16>) outs(%6 : tensor<2x16x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %14 = arith.maximumf %in, %out : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x1xf16>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x16x16xf16>, tensor<2x16x1xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %14 = arith.subf %in, %in_3 : f16
    %15 = math.exp %14 : f16
    linalg.yield %15 : f16
  } -> tensor<2x16x16xf16>
  %9 = linalg.fill ins(%cst : f16) outs(%5 : tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x16x16xf16>) outs(%9 : tensor<2x16x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %14 = arith.addf %in, %out : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x1xf16>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x16x16xf16>, tensor<2x16x1xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %14 = arith.divf %in, %in_3 : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x16xf16>
  %12 = linalg.batch_matmul ins(%11, %v : tensor<2x16x16xf16>, tensor<2x16x16xf16>) outs(%1 : tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
  return %12 : tensor<2x16x16xf16>
}

func.func @masked_fill_argument_f16(%s: tensor<2x16x16xf16>, %pad: tensor<2x1x16xi1>) -> tensor<2x16x16xf16> {
  %cst = arith.constant 0.000000e+00 : f16
  %cst_0 = arith.constant 1.250000e-01 : f16
  %cst_1 = arith.constant 0xFC00 : f16
  %lowest = arith.constant -6.550400e+04 : f16
  %0 = tensor.empty() : tensor<2x16x16xf16>
  %4 = linalg.generic {indexing_maps = [#keys, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%pad, %s : tensor<2x1x16xi1>, tensor<2x16x16xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: i1, %in_2: f16, %out: f16):
    %14 = arith.select %in, %lowest, %in_2 : f16
    %15 = arith.mulf %14, %cst_0 : f16
    linalg.yield %15 : f16
  } -> tensor<2x16x16xf16>
  %5 = tensor.empty() : tensor<2x16x1xf16>
  %6 = linalg.fill ins(%cst_1 : f16) outs(%5 : tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %7 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%4 : tensor<2x16x16xf16>) outs(%6 : tensor<2x16x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %14 = arith.maximumf %in, %out : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x1xf16>
  %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %7 : tensor<2x16x16xf16>, tensor<2x16x1xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %14 = arith.subf %in, %in_3 : f16
    %15 = math.exp %14 : f16
    linalg.yield %15 : f16
  } -> tensor<2x16x16xf16>
  %9 = linalg.fill ins(%cst : f16) outs(%5 : tensor<2x16x1xf16>) -> tensor<2x16x1xf16>
  %10 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%8 : tensor<2x16x16xf16>) outs(%9 : tensor<2x16x1xf16>) {
  ^bb0(%in: f16, %out: f16):
    %14 = arith.addf %in, %out : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x1xf16>
  %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<2x16x16xf16>, tensor<2x16x1xf16>) outs(%0 : tensor<2x16x16xf16>) {
  ^bb0(%in: f16, %in_3: f16, %out: f16):
    %14 = arith.divf %in, %in_3 : f16
    linalg.yield %14 : f16
  } -> tensor<2x16x16xf16>
  return %11 : tensor<2x16x16xf16>
}

func.func @float_condition(%q: tensor<2x16x16xf32>, %kt: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %thr = arith.constant 1.000000e+00 : f32
  %cst_1 = arith.constant 0xFF800000 : f32
  %0 = tensor.empty() : tensor<2x16x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %2 = linalg.batch_matmul ins(%q, %kt : tensor<2x16x16xf32>, tensor<2x16x16xf32>) outs(%1 : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  %e = tensor.empty() : tensor<2x16x16xi1>
  %big = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<2x16x16xf32>) outs(%e : tensor<2x16x16xi1>) {
  ^bb0(%in: f32, %out: i1):
    %c = arith.cmpf ogt, %in, %thr : f32
    linalg.yield %c : i1
  } -> tensor<2x16x16xi1>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%big, %2 : tensor<2x16x16xi1>, tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: i1, %in_2: f32, %out: f32):
    %14 = arith.select %in, %in_2, %cst_1 : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %15 = math.exp %in : f32
    linalg.yield %15 : f32
  } -> tensor<2x16x16xf32>
  return %8 : tensor<2x16x16xf32>
}

func.func @zero_fill(%s: tensor<2x16x16xf32>, %mask: tensor<16x16xi1>) -> tensor<2x16x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x16x16xf32>
  %4 = linalg.generic {indexing_maps = [#rows, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mask, %s : tensor<16x16xi1>, tensor<2x16x16xf32>) outs(%0 : tensor<2x16x16xf32>) {
  ^bb0(%in: i1, %in_2: f32, %out: f32):
    %e = math.exp %in_2 : f32
    %14 = arith.select %in, %e, %cst : f32
    linalg.yield %14 : f32
  } -> tensor<2x16x16xf32>
  return %4 : tensor<2x16x16xf32>
}

// The mask argument: A = select(mask, 0, -inf) in the mask's shape, given
// the kernel graph's unit dim by a boundary expand_shape.
// CHECK-LABEL: func.func @where_mask_argument(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>, %[[MASK:[^:]+]]: tensor<16x16xi1>)
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[E:[0-9]+]] = tensor.empty() {ug.boundary} : tensor<16x16xf32>
// CHECK-NEXT: %[[A:[0-9]+]] = linalg.generic {{.*}} ins(%[[MASK]] : tensor<16x16xi1>) outs(%[[E]] : tensor<16x16xf32>) attrs = {ug.boundary} {
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[FILL:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[ZERO]], %[[FILL]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: %[[A3:.*]] = tensor.expand_shape %[[A]] {{\[\[}}0, 1], [2]] output_shape [1, 16, 16] {ug.boundary} : tensor<16x16xf32> into tensor<1x16x16xf32>
// CHECK-NEXT: %[[R:[0-9]+]] = call @where_mask_argument_lax0(%[[Q]], %[[K]], %[[V]], %[[A3]]) : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: return %[[R]]
// The kernel graph: both matmuls, the scale, the add of A, the softmax.
// CHECK-LABEL: func.func private @where_mask_argument_lax0(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>, %[[V:[^:]+]]: tensor<2x16x16xf32>, %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32> attributes {ug.level = "kernel", ug.reference = @where_mask_argument_lax0_ref} {
// CHECK-NEXT: %[[S:.*]] = "ug.matmul"(%[[Q]], %[[K]])
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"(%[[S]]) {scalar = 2.500000e-01 : f64}
// CHECK-NEXT: %[[X:.*]] = "ug.add"(%[[SS]], %[[A]]) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[MAX:.*]] = "ug.reduce_max"(%[[X]]) {dim = 2 : i64}
// CHECK-NEXT: %[[SUB:.*]] = "ug.sub"(%[[X]], %[[MAX]])
// CHECK-NEXT: %[[EXP:.*]] = "ug.exp"(%[[SUB]])
// CHECK-NEXT: %[[SUM:.*]] = "ug.sum"(%[[EXP]]) {dim = 2 : i64}
// CHECK-NEXT: %[[P:.*]] = "ug.div"(%[[EXP]], %[[SUM]])
// CHECK-NEXT: %[[O:.*]] = "ug.matmul"(%[[P]], %[[V]])
// CHECK-NEXT: return %[[O]]
// The reference: the generic reads A (the unit dim taken off again), its
// select picks x + A by a constant condition; no i1 tensor anywhere.
// CHECK-LABEL: func.func private @where_mask_argument_lax0_ref(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[\[}}0, 1], [2]] {ug.boundary} : tensor<1x16x16xf32> into tensor<16x16xf32>
// CHECK-NOT: i1>
// CHECK: linalg.generic {{.*}} ins(%[[A2]], %{{[0-9]+}} : tensor<16x16xf32>, tensor<2x16x16xf32>)
// CHECK-NEXT: ^bb0(%[[AV:.*]]: f32, %[[XV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[TRUE:.*]] = arith.constant {ug.boundary} true
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[XV]], %[[AV]] {ug.boundary} : f32
// CHECK-NEXT: %[[SEL:.*]] = arith.select %[[TRUE]], %[[SUM]], %cst_1 : f32
// CHECK-NEXT: linalg.yield %[[SEL]] : f32
// CHECK-NOT: i1>
// CHECK: return

// The run-time mask: its generic and expand_shape stay; A in the mask's
// own 1x16x16, the fill where the mask holds.
// CHECK-LABEL: func.func @masked_fill_cmpi(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x16x16xf32>, %[[K:[^:]+]]: tensor<2x16x16xf32>)
// CHECK: arith.cmpi ugt
// CHECK: %[[FUT:.*]] = tensor.expand_shape %{{[0-9]+}} {{\[\[}}0, 1], [2]] output_shape [1, 16, 16] : tensor<16x16xi1> into tensor<1x16x16xi1>
// CHECK: %[[E:[0-9]+]] = tensor.empty() {ug.boundary} : tensor<1x16x16xf32>
// CHECK-NEXT: %[[A:[0-9]+]] = linalg.generic {{.*}} ins(%[[FUT]] : tensor<1x16x16xi1>) outs(%[[E]] : tensor<1x16x16xf32>) attrs = {ug.boundary} {
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[FILL:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-NEXT: %[[S:.*]] = arith.select %[[M]], %[[FILL]], %[[ZERO]] : f32
// CHECK: call @masked_fill_cmpi_lax0(%[[Q]], %[[K]], %[[A]]) : (tensor<2x16x16xf32>, tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-LABEL: func.func private @masked_fill_cmpi_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: %[[S:.*]] = "ug.matmul"
// CHECK-NEXT: "ug.add"(%[[S]], %[[A]]) : (tensor<2x16x16xf32>, tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK-NEXT: "ug.reduce_max"
// CHECK-LABEL: func.func private @masked_fill_cmpi_lax0_ref(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf32>) -> tensor<2x16x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]], %{{[0-9]+}} : tensor<1x16x16xf32>, tensor<2x16x16xf32>)
// CHECK-NEXT: ^bb0(%[[AV:.*]]: f32, %[[XV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[FILL:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK-NEXT: %[[FALSE:.*]] = arith.constant {ug.boundary} false
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[XV]], %[[AV]] {ug.boundary} : f32
// CHECK-NEXT: arith.select %[[FALSE]], %[[FILL]], %[[SUM]] : f32

// The scale inside the select's body: scaled, then masked.
// CHECK-LABEL: func.func @where_cmpi_f16(
// CHECK: arith.cmpi ule
// CHECK: tensor.empty() {ug.boundary} : tensor<16x16xf16>
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{[0-9]+}} : tensor<16x16xi1>) outs(%{{[0-9]+}} : tensor<16x16xf16>) attrs = {ug.boundary} {
// CHECK: arith.constant 0xFC00 : f16
// CHECK: tensor.expand_shape {{.*}} {ug.boundary} : tensor<16x16xf16> into tensor<1x16x16xf16>
// CHECK-NEXT: call @where_cmpi_f16_lax0(
// CHECK-LABEL: func.func private @where_cmpi_f16_lax0(
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[S:.*]] = "ug.matmul"
// CHECK-NEXT: %[[SS:.*]] = "ug.mul_scalar"(%[[S]]) {scalar = 2.500000e-01 : f64}
// CHECK-NEXT: "ug.add"(%[[SS]], %[[A]]) : (tensor<2x16x16xf16>, tensor<1x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: "ug.reduce_max"
// CHECK: "ug.matmul"
// CHECK-NEXT: return

// The padding mask argument: A in its shape, 2x1x16; the scale after the
// select in the same body applies to x + A.
// CHECK-LABEL: func.func @masked_fill_argument_f16(
// CHECK-SAME: %[[S:[^:]+]]: tensor<2x16x16xf16>, %[[PAD:[^:]+]]: tensor<2x1x16xi1>)
// CHECK: %[[A:[0-9]+]] = linalg.generic {{.*}} ins(%[[PAD]] : tensor<2x1x16xi1>) outs(%{{[0-9]+}} : tensor<2x1x16xf16>) attrs = {ug.boundary} {
// CHECK: arith.constant -6.550400e+04 : f16
// CHECK: call @masked_fill_argument_f16_lax0(%[[S]], %[[A]]) : (tensor<2x16x16xf16>, tensor<2x1x16xf16>) -> tensor<2x16x16xf16>
// CHECK-LABEL: func.func private @masked_fill_argument_f16_lax0(
// CHECK-SAME: %[[S:[^:]+]]: tensor<2x16x16xf16>, %[[A:[^:]+]]: tensor<2x1x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %[[X:.*]] = "ug.add"(%[[S]], %[[A]]) : (tensor<2x16x16xf16>, tensor<2x1x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: "ug.mul_scalar"(%[[X]]) {scalar = 1.250000e-01 : f64}
// CHECK-NEXT: "ug.reduce_max"

// A float condition: the select's generic stays as written between the
// two calls.
// CHECK-LABEL: func.func @float_condition(
// CHECK: %[[S:[0-9]+]] = call @float_condition_lax0(
// CHECK: %[[BIG:[0-9]+]] = linalg.generic {{.*}} ins(%[[S]] : tensor<2x16x16xf32>) outs(%{{[0-9]+}} : tensor<2x16x16xi1>)
// CHECK: arith.cmpf ogt
// CHECK: %[[X:[0-9]+]] = linalg.generic {{.*}} ins(%[[BIG]], %[[S]] : tensor<2x16x16xi1>, tensor<2x16x16xf32>)
// CHECK-NEXT: ^bb0(%[[M:.*]]: i1, %[[XV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.select %[[M]], %[[XV]], %{{.*}} : f32
// CHECK: call @float_condition_lax1(%[[X]])
// CHECK-LABEL: func.func @zero_fill(
// CHECK-NOT: call
// CHECK: arith.select
// CHECK-NOT: call
// CHECK: return
