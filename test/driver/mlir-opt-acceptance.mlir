// mirage-opt parses what stock mlir-opt parses, and rejects what it rejects
// at the same line and column: the alias corpus in Inputs/parse (aliases
// after ops, multi-line aliases, forward references, redefinitions,
// resources) and the shipped examples; mlir-opt-acceptance-suite.mlir
// compares every test input of the suite too (plain run only).
// %stock_mlir_opt: stock mlir-opt as it is, also in the sanitized run (it
// loads no plugin, so it needs no preloaded sanitizer runtime).
// RUN: %python %S/Inputs/compare_acceptance.py mirage-opt %stock_mlir_opt %ugraph_irdl \
// RUN:   %S/Inputs/parse/*.mlir %mirage_src/examples/*.mlir | FileCheck %s
// CHECK-DAG: alias-after-op.mlir: both accept
// CHECK-DAG: multiline-alias.mlir: both accept
// CHECK-DAG: type-alias-after-op.mlir: both accept
// CHECK-DAG: module-then-alias.mlir: both accept
// CHECK-DAG: resources-after-alias.mlir: both accept
// CHECK-DAG: forward-reference.mlir: both reject at 2:38
// CHECK-DAG: redefinition.mlir: both reject at 4:1
// CHECK-DAG: truncated-alias.mlir: both reject at 2:24
// CHECK-DAG: alias-inside-function.mlir: both reject at 2:17
// CHECK: inputs, [[N:[0-9]+]] same, 0 differ

// The report's example: an alias after a top-level op.
// RUN: printf 'func.func private @f() -> f64\n#map = affine_map<(d0) -> (d0)>\n' | mirage-opt - | FileCheck %s --check-prefix=ISSUE
// ISSUE: func.func private @f() -> f64
// A forward reference is an error at the file's own line and column.
// RUN: printf 'func.func private @f(tensor<4xf32, #e>)\n#e = "foo"\n' | not mirage-opt - 2>&1 | FileCheck %s --check-prefix=FWD
// FWD: <stdin>:1:38: error: undefined symbol alias id 'e'
