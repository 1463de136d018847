// A subprogram the search cannot improve goes back to its original ops
// before lowering (upstream compiles them as it did before): the module
// prints as the input did, and the remark says why.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false" --mirage-remarks %S/Inputs/superopt-kept.mlir 2>%t.remarks >%t.out
// RUN: mirage-opt %S/Inputs/superopt-kept.mlir > %t.plain
// RUN: diff %t.plain %t.out
// RUN: FileCheck %s < %t.remarks

// CHECK: remark: mirage-search: '@mm_lax0' kept: no cheaper verified μGraph found
// CHECK: remark: mirage-superopt: 1 LAX subprogram(s) lifted and searched; 0 lowered to GPU kernels, 1 left as the original ops (nothing faster was verified, or it cannot be lowered yet: the remarks above say)
