// A pipeline string naming the Mirage passes runs in stock mlir-opt; the
// options are parsed by the plugin (errors name the option).
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{max-block-ops=7 time-budget-s=0 target=sm_90 remarks=true cache=false},cse)' %s 2>&1 | FileCheck %s
// RUN: not %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{max-block-ops=x})' %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{frobnicate=1})' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK: remark: mirage-lift: '@f': nothing to lift
// CHECK: func.func @f
// BAD: invalid value 'x' for option 'max-block-ops' of 'mirage-superopt': expected an integer
// UNKNOWN: unknown option 'frobnicate' for pass 'mirage-superopt'
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
