// mirage-opt accepts and rejects every test input of the suite as stock
// mlir-opt does, at the same line and column (mlir-opt-acceptance.mlir:
// the alias corpus and the examples, in both runs). The sanitized run
// leaves this sweep out: ~320 process starts under ASan, minutes of
// upstream parsing; the parse path of ours (aliases) is sanitized by
// mlir-opt-acceptance.mlir and by the fuzz slice (fuzz/slice.mlir, 500
// mutants of these same inputs).
// UNSUPPORTED: asan
// RUN: %python %S/Inputs/compare_acceptance.py mirage-opt %stock_mlir_opt %ugraph_irdl \
// RUN:   %mirage_src/test/*/*.mlir %mirage_src/test/*/Inputs/*.mlir | FileCheck %s
// CHECK: inputs, [[N:[0-9]+]] same, 0 differ
