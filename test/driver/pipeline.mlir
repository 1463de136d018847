// Mirage passes inside textual pipelines, with options, around upstream ones.
// RUN: mirage-opt --pass-pipeline='builtin.module(mirage-superopt{max-block-ops=7 time-budget-s=0 target=sm_90},canonicalize)' %s | FileCheck %s
// RUN: mirage-opt --mirage-superopt="max-block-ops=7 time-budget-s=0 target=sm_90" --canonicalize %s | FileCheck %s
// RUN: mirage-opt %s -o %t && FileCheck %s < %t
// RUN: mirage-opt - < %s | FileCheck %s

// The upstream canonicalizer folds the add of zero; the module is otherwise
// unchanged.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK: return
func.func @add_zero(%a: tensor<4xf32>) -> tensor<4xf32> {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %0 = arith.addf %a, %z : tensor<4xf32>
  return %0 : tensor<4xf32>
}
