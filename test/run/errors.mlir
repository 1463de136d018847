// Errors: each gets one clear message on stderr and exit status 1.
// RUN: not mirage-run --compare=nope,add_ug %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mirage-run --compare=add_tosa,nope %s 2>&1 | FileCheck %s --check-prefix=MISSING-RHS
// RUN: not mirage-run --compare=add_tosa,add_ug_f16 %s 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// RUN: not mirage-run --compare=add_tosa,add_ug_three_args %s 2>&1 | FileCheck %s --check-prefix=ARITY
// RUN: not mirage-run --compare=add_ug,add_ug %s 2>&1 | FileCheck %s --check-prefix=LHS-UG
// RUN: not mirage-run --compare=add_tosa,add_tosa %s 2>&1 | FileCheck %s --check-prefix=RHS-NOT-UG
// RUN: not mirage-run --compare=int_tosa,int_ug %s 2>&1 | FileCheck %s --check-prefix=TYPE
// RUN: not mirage-run --compare=rank9_tosa,rank9_ug %s 2>&1 | FileCheck %s --check-prefix=RANK9
// RUN: not mirage-run --compare=custom_op_tosa,add_ug %s 2>&1 | FileCheck %s --check-prefix=LOWERING
// RUN: not mirage-run --compare=add_tosa,bad_grid_ug %s 2>&1 | FileCheck %s --check-prefix=INVALID-UG
// RUN: not mirage-run %s 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not mirage-run %S/Inputs/missing-reference.mlir 2>&1 | FileCheck %s --check-prefix=NOREF
// RUN: not mirage-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not mirage-run %S/Inputs/malformed.mlir 2>&1 | FileCheck %s --check-prefix=PARSE
// RUN: not mirage-run --seed=x %s 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not mirage-run --tolerance=-1 %s 2>&1 | FileCheck %s --check-prefix=TOL
// RUN: not mirage-run --compare=add_tosa %s 2>&1 | FileCheck %s --check-prefix=COMPARE
// RUN: not mirage-run --frobnicate %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-run --lift --compare=add_tosa,add_ug %s 2>&1 | FileCheck %s --check-prefix=LIFT-COMPARE
// RUN: not mirage-run --lift="bogus=1" %s 2>&1 | FileCheck %s --check-prefix=LIFT-OPTION
// RUN: not mirage-run 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: mirage-run --help | FileCheck %s --check-prefix=HELP
// RUN: mirage-run --compare=@add_tosa,@add_ug %s | FileCheck %s --check-prefix=AT

// MISSING: errors.mlir:{{[0-9:]*}} error: @nope vs @add_ug: no function named '@nope'
// MISSING-RHS: error: @add_tosa vs @nope: no function named '@nope'
// SIGNATURE: error: @add_tosa vs @add_ug_f16: the reference and the kernel graph have different signatures (argument 0 is 'tensor<4x8xf32>' vs 'tensor<4x8xf16>')
// ARITY: different signatures (2 arguments and 1 results vs 3 and 1)
// LHS-UG: error: @add_ug vs @add_ug: '@add_ug' must be a function body in upstream dialects (TOSA, linalg, ...) to be JIT-compiled
// RHS-NOT-UG: error: @add_tosa vs @add_tosa: '@add_tosa' is not a kernel-level μGraph function (ug.level = "kernel")
// TYPE: error: @int_tosa vs @int_ug: unsupported argument 0 type 'tensor<4xi32>' (expected a ranked tensor of rank 1-8 with element type f16, bf16 or f32)
// RANK9: error: @rank9_tosa vs @rank9_ug: unsupported argument 0 type 'tensor<1x2x1x2x1x2x1x2x4xf32>' (expected a ranked tensor of rank 1-8
// LOWERING: error: failed to legalize operation 'tosa.custom'
// LOWERING: error: @custom_op_tosa vs @add_ug: lowering to the LLVM dialect failed
// INVALID-UG: errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @add_tosa vs @bad_grid_ug: imap axis 'x' of size 3 does not divide dim 0
// NONE: mirage-run: no lifted kernel graphs in '{{.*}}errors.mlir'
// NOREF: missing-reference.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @f_lax0: reference function '@f_lax0_ref' not found
// NOFILE: mirage-run: cannot read '{{.*}}does-not-exist.mlir'
// PARSE: malformed.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// PARSE: mirage-run: could not parse '{{.*}}malformed.mlir'
// SEED: mirage-run: invalid --seed value 'x'
// TOL: mirage-run: invalid --tolerance value '-1'
// COMPARE: mirage-run: --compare expects two function names, '--compare=LHS,RHS'
// UNKNOWN: mirage-run: unknown option '--frobnicate' (see --help)
// LIFT-COMPARE: mirage-run: --compare cannot be combined with --lift or --lower
// LIFT-OPTION: mirage-run: --lift: unknown option 'bogus' for pass 'mirage-lift'
// NOINPUT: mirage-run: no input file
// HELP: USAGE: mirage-run [options] <file.mlir>
// HELP: LOWERING PIPELINE
// HELP-NEXT: builtin.module(func.func(tosa-to-linalg-named,
// AT: @add_tosa vs @add_ug: 1 output, 32 elements, max abs error {{.*}}: ok

func.func @add_tosa(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = tosa.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

func.func @add_ug(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %c = "ug.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

func.func @add_ug_f16(%a: tensor<4x8xf16>, %b: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {ug.level = "kernel"} {
  %c = "ug.add"(%a, %b) : (tensor<4x8xf16>, tensor<4x8xf16>) -> tensor<4x8xf16>
  func.return %c : tensor<4x8xf16>
}

func.func @add_ug_three_args(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %c = "ug.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

func.func @int_tosa(%a: tensor<4xi32>) -> tensor<4xi32> {
  return %a : tensor<4xi32>
}
func.func @int_ug(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ug.level = "kernel"} {
  %c = "ug.relu"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// A TOSA op the upstream lowering does not handle.
func.func @custom_op_tosa(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = tosa.custom %a, %b {domain_name = "mirage", operator_name = "add", implementation_attrs = ""} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// A kernel graph that imports but breaks a μGraph rule (a grid of 3 blocks
// cannot split a dim of 4).
func.func @bad_grid_block(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.block_threads = 128 : i64, ug.forloop = 1 : i64, ug.grid = array<i64: 3, 1, 1>, ug.level = "block"} {
  %at = "ug.iterator"(%a) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %bt = "ug.iterator"(%b) {fmap = -1 : i64, imap = array<i64: 0, -1, -1>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %c = "ug.add"(%at, %bt) : (tensor<1x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32>
  %o = "ug.saver"(%c) {omap = array<i64: 0, -1, -1>} : (tensor<1x8xf32>) -> tensor<4x8xf32>
  func.return %o : tensor<4x8xf32>
}
func.func @bad_grid_ug(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %c = "ug.custom"(%a, %b) {kernel = @bad_grid_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %c : tensor<4x8xf32>
}

// Rank 9 is past the μGraph limit of 8.
func.func @rank9_tosa(%a: tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32> {
  %e = tosa.exp %a : (tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32>
  return %e : tensor<1x2x1x2x1x2x1x2x4xf32>
}

func.func @rank9_ug(%a: tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32> attributes {ug.level = "kernel"} {
  %e = "ug.exp"(%a) : (tensor<1x2x1x2x1x2x1x2x4xf32>) -> tensor<1x2x1x2x1x2x1x2x4xf32>
  func.return %e : tensor<1x2x1x2x1x2x1x2x4xf32>
}
