// --mirage-search on a kernel graph of predefined ops (what lifting makes):
// the result is one graph-defined kernel that verifies against the input.
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" %s > %t.out
// RUN: FileCheck %s < %t.out
// The result is equivalent to the reference kept beside it.
// RUN: mirage-opt --mirage-check-equiv="lhs=rms rhs=rms_copy" %t.out 2>&1 | FileCheck %s --check-prefix=EQUIV
// Same output for one and two threads.
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false threads=1" %s > %t.t1
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false threads=2" %s > %t.t2
// RUN: diff %t.t1 %t.t2
// Statistics and progress.
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" --mirage-stats %s 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" --mirage-progress %s 2>&1 >/dev/null | FileCheck %s --check-prefix=PROGRESS
// Without abstract-expression pruning (ablation) the space is too large for a
// tiny budget: the search stops cleanly and says so, keeping the input or
// the best graph it verified by then (what 0.3 s reaches depends on the
// machine: a 6-kernel graph the model rates 14.3 us against 14.5).
// RUN: mirage-opt --mirage-search="cache=false absexpr=false time-budget-s=0.3" --mirage-remarks %s 2>&1 >%t.budget | FileCheck %s --check-prefix=BUDGET
// RUN: FileCheck %s --check-prefix=KEPT < %t.budget

// CHECK: func.func @rms_k1({{.*}}ug.level = "block"}
// CHECK-DAG: "ug.accum"({{.*}}) {kind = "sum_sq_last"}
// CHECK-DAG: "ug.matmul"
// CHECK: "ug.saver"
// CHECK-LABEL: func.func @rms(
// CHECK-NEXT: "ug.custom"({{.*}}) {kernel = @rms_k1
// CHECK-NEXT: return
// EQUIV: remark: '@rms' and '@rms_copy' are equivalent
// STATS: mirage-search @rms: {{.*}} states, {{.*}} verified
// STATS: mirage-search @rms: pruned by rule: shape {{[0-9]+}} {{.*}}absexpr {{[0-9]+}}
// The copy is the same μGraph: searched once, the answer reused.
// STATS-NOT: mirage-search @rms_copy:
// RUN: mirage-opt --mirage-search="time-budget-s=0 cache=false" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DEDUP
// DEDUP: remark: mirage-search: '@rms' replaced by a verified μGraph: {{.*}} on sm_90{{$}}
// DEDUP: remark: mirage-search: '@rms_copy' replaced by a verified μGraph: {{.*}} on sm_90 (the same μGraph as '@rms'){{$}}
// BUDGET: remark: mirage-search: '@rms' {{kept: no cheaper verified μGraph found|replaced by a verified μGraph: .* on sm_90}} (stopped by the time budget)
// KEPT-LABEL: func.func @rms(
// KEPT-NEXT: {{"ug.square"|"ug.custom"}}
// PROGRESS: [mirage-search @rms] {{.*}} states {{[0-9]+}}
func.func @rms(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
// A second copy (answered by the first one's search): check-equiv compares
// the two results.
func.func @rms_copy(%x: tensor<2x64xf32>, %w: tensor<64x96xf32>) -> tensor<2x96xf32> attributes {ug.level = "kernel"} {
  %sq = "ug.square"(%x) : (tensor<2x64xf32>) -> tensor<2x64xf32>
  %ss = "ug.sum"(%sq) {dim = 1 : i64} : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %n = "ug.div"(%x, %rms) : (tensor<2x64xf32>, tensor<2x1xf32>) -> tensor<2x64xf32>
  %y = "ug.matmul"(%n, %w) : (tensor<2x64xf32>, tensor<64x96xf32>) -> tensor<2x96xf32>
  func.return %y : tensor<2x96xf32>
}
