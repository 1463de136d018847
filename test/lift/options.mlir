// Options, remarks and pipelines of mirage-lift / mirage-unlift.
//
// Bad options name the option and fail:
// RUN: not mirage-opt --mirage-lift="max-ops=0" %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mirage-opt --mirage-lift="bogus=1" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-opt --mirage-lift="lift-relu=maybe" %s 2>&1 | FileCheck %s --check-prefix=BOOL
// RANGE: value 0 of option 'max-ops' of 'mirage-lift' is out of range [1, 4096]
// UNKNOWN: unknown option 'bogus' for pass 'mirage-lift'
// BOOL: option 'lift-relu'
//
// --help lists both passes and the options with their defaults:
// RUN: mirage-opt --help | FileCheck %s --check-prefix=HELP
// HELP: --mirage-lift
// HELP-NEXT: max-ops=<int> {{.*}}(default: 16)
// HELP-NEXT: lift-relu=<bool> {{.*}}(default: true)
// HELP-NEXT: remarks=<bool> {{.*}}(default: false)
// HELP: --mirage-unlift
//
// Remarks only when asked, by the option, --mirage-remarks or MIRAGE_REMARKS:
// RUN: mirage-opt --mirage-lift %s 2>&1 >/dev/null | count 0
// RUN: mirage-opt --mirage-lift=remarks=true %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-lift --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// RUN: env MIRAGE_REMARKS=1 mirage-opt --mirage-lift %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REM
// REM: options.mlir:[[# @LINE + 15]]:1: remark: mirage-lift: '@f': lifted 1 subprogram (@f_lax0); 0 tensor ops left in place
// REM: options.mlir:[[# @LINE + 15]]:8: remark: mirage-lift: @f_lax0: 3 ops -> kernel graph of 3 μGraph ops, 2 inputs, 1 output
//
// Textual pipelines, in mirage-opt and in stock mlir-opt with the plugin:
// RUN: mirage-opt --pass-pipeline='builtin.module(mirage-lift{max-ops=2},mirage-verify-ugraph)' %s | FileCheck %s --check-prefix=TWO
// RUN: mlir-opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-lift{max-ops=2},mirage-verify-ugraph)' %s | FileCheck %s --check-prefix=TWO
// RUN: mirage-opt %s > %t.in
// RUN: mlir-opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-lift,mirage-unlift)' %s | mirage-opt - > %t.rt
// RUN: diff %t.in %t.rt
// TWO: call @f_lax0(%arg0, %arg1)
// TWO: call @f_lax1(
// TWO: "ug.add"
// TWO: "ug.exp"
// TWO: "ug.rsqrt"

func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %b = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = tosa.rsqrt %b : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}
