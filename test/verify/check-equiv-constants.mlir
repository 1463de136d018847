// Constants that are one residue in a fixed field are different programs.
// 2^31 ≡ 69 modulo the verifier's old fixed prime 2^31 - 69, so x·69 + x
// and x·2^31 + x were "equivalent"; so were the same pair scaled by 2^-20
// (6.58e-5 against 2048), its f16 form (69·2^-24 against 128) and bf16
// form, and 35 against 2^30 inside exp (2^30 ≡ 35 modulo the old q). Each
// test now runs in a field drawn from ~400,000 (docs/verification.md,
// "Constants"): every seed tells them apart, the default seed is fresh and
// printed, and an equal pair with a 40-bit constant states its constants'
// term.
//
// (Before the per-test fields, the first RUN printed "are equivalent".)
//
// RUN: (mirage-opt --mirage-check-equiv="lhs=mul69 rhs=mul2p31 seed=1" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=P31
// RUN: (mirage-opt --mirage-check-equiv="lhs=mul69 rhs=mul2p31 seed=2" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=P31
// RUN: (mirage-opt --mirage-check-equiv="lhs=mul69 rhs=mul2p31" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=P31
// RUN: (mirage-opt --mirage-check-equiv="lhs=small rhs=mul2048" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=SCALED
// RUN: (mirage-opt --mirage-check-equiv="lhs=f16_small rhs=f16_128" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=F16
// RUN: (mirage-opt --mirage-check-equiv="lhs=bf16_69 rhs=bf16_2p31" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=BF16
// RUN: (mirage-opt --mirage-check-equiv="lhs=exp35 rhs=exp2p30" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=EXP
// RUN: (mirage-opt --mirage-check-equiv="lhs=big rhs=big_twice" %s 2>&1 >/dev/null; echo "exit $?") | FileCheck %s --check-prefix=BIG
// The printed seed reruns the same tests.
// RUN: mirage-opt --mirage-check-equiv="lhs=big rhs=big_twice seed=12345" %s 2>&1 >/dev/null | FileCheck %s --check-prefix=SEED

// P31: check-equiv-constants.mlir:[[@LINE+2]]:1: error: '@mul69' and '@mul2p31' are not equivalent: output 0 differs at element 0 (test 1{{.*}}; seed {{[0-9]+}})
// P31-NEXT: exit 1
func.func @mul69(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<69.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @mul2p31(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<2147483648.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// SCALED: error: '@small' and '@mul2048' are not equivalent
// SCALED-NEXT: exit 1
func.func @small(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<6.580352783203125E-5> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @mul2048(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<2048.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// f16 constants (69·2^-24 is a subnormal, 128 a normal), cast to f32.
// F16: error: '@f16_small' and '@f16_128' are not equivalent
// F16-NEXT: exit 1
func.func @f16_small(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h = "tosa.const"() <{values = dense<4.112720489501953E-6> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %c = tosa.cast %h : (tensor<1x1xf16>) -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @f16_128(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %h = "tosa.const"() <{values = dense<128.0> : tensor<1x1xf16>}> : () -> tensor<1x1xf16>
  %c = tosa.cast %h : (tensor<1x1xf16>) -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// bf16 programs end to end.
// BF16: error: '@bf16_69' and '@bf16_2p31' are not equivalent
// BF16-NEXT: exit 1
func.func @bf16_69(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<69.0> : tensor<1x1xbf16>}> : () -> tensor<1x1xbf16>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xbf16>, tensor<1x1xbf16>, tensor<1xi8>) -> tensor<4x8xbf16>
  %r = tosa.add %m, %x : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

func.func @bf16_2p31(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<2147483648.0> : tensor<1x1xbf16>}> : () -> tensor<1x1xbf16>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xbf16>, tensor<1x1xbf16>, tensor<1xi8>) -> tensor<4x8xbf16>
  %r = tosa.add %m, %x : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %r : tensor<4x8xbf16>
}

// Inside exp the constant lives in Z_q.
// EXP: error: '@exp35' and '@exp2p30' are not equivalent
// EXP-NEXT: exit 1
func.func @exp35(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<35.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %e = tosa.exp %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.add %e, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @exp2p30(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<1073741824.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %e = tosa.exp %m : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = tosa.add %e, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// Equal programs, x·2^41 + x against x·2^40·2 + x: their coefficient
// 2^41 + 1 has 42 bits, so one prime of the set may divide it; the bound
// names that constants' term (1/399294 = 2^-18.6 per test).
// BIG: remark: '@big' and '@big_twice' are equivalent (error bound <= 2^-{{[4-9][0-9]\.[0-9]}}, {{[0-9]+}} tests; constants' term 2^-18.6 per test; seed {{[0-9]+}})
// BIG-NEXT: exit 0
// SEED: seed 12345)
func.func @big(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<2199023255552.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @big_twice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = "tosa.const"() <{values = dense<1099511627776.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %m = tosa.mul %x, %c, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %m2 = tosa.mul %m, %two, %shift : (tensor<4x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<4x8xf32>
  %r = tosa.add %m2, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
