// --mirage-dump-dot=DIR (the driver's flag) and the dump-dot option of
// mirage-superopt / mirage-search write the chosen μGraph of each
// kernel-graph function as DIR/<function>.dot, also through a pipeline
// string and in stock mlir-opt; an unusable DIR fails before any work.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-dump-dot=%t/flag %s -o /dev/null
// RUN: FileCheck %s < %t/flag/rmsnorm_small_lax0.dot
// RUN: dot -Tsvg %t/flag/rmsnorm_small_lax0.dot -o %t/rmsnorm.svg
// The lowered pipeline draws the same μGraph: the search chose it.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false dump-dot=%t/option" %s -o /dev/null
// RUN: diff %t/flag/rmsnorm_small_lax0.dot %t/option/rmsnorm_small_lax0.dot
// RUN: mirage-opt --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false lower=false dump-dot=%t/pipeline})' %s -o /dev/null
// RUN: diff %t/flag/rmsnorm_small_lax0.dot %t/pipeline/rmsnorm_small_lax0.dot
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false lower=false dump-dot=%t/plugin})' %s -o /dev/null
// RUN: diff %t/flag/rmsnorm_small_lax0.dot %t/plugin/rmsnorm_small_lax0.dot
// A function the search keeps is drawn as it is.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false" --mirage-dump-dot=%t/kept %S/Inputs/superopt-kept.mlir -o /dev/null
// RUN: FileCheck %s --check-prefix=KEPT < %t/kept/mm_lax0.dot
// RUN: dot -Tsvg %t/kept/mm_lax0.dot -o /dev/null

// Unusable directories: a regular file, a path through one, no value.
// RUN: touch %t/file
// RUN: not mirage-opt --mirage-superopt="dump-dot=%t/file" --mirage-remarks %s 2>&1 | FileCheck %s --check-prefix=NOTDIR
// RUN: not mirage-opt --mirage-search="dump-dot=%t/file/sub" %s 2>&1 | FileCheck %s --check-prefix=UNDER
// RUN: not mirage-opt --mirage-superopt --mirage-dump-dot=%t/file --mirage-remarks %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not mirage-opt --mirage-superopt --mirage-dump-dot %s 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not mirage-opt --mirage-superopt --mirage-dump-dot= %s 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: mirage-opt --help | FileCheck %s --check-prefix=HELP

// CHECK: digraph "rmsnorm_small_lax0" {
// CHECK-NEXT: graph [label="@rmsnorm_small_lax0\nchosen (verified, cheaper): {{[0-9]+}} kernel(s), estimated {{[0-9.]+}} us on sm_90\ninput: 6 kernel(s), estimated {{[0-9.]+}} us (cost model, not measured)"
// CHECK: n0_0 [label="input 0"
// CHECK: subgraph cluster_
// CHECK-NEXT: label="block graph 1 (kernel op {{[0-9]+}})\ngrid [{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}], {{[0-9]+}} threads, forloop {{[0-9]+}}"
// CHECK: [label="iterator\nimap [{{.*}}]\nfmap
// CHECK: [label="accum sum_sq_last"
// CHECK: [label="saver\nomap [{{.*}}]"
// CHECK: n0_{{[0-9]+}} [label="output 0"
// CHECK: n0_0 -> n{{[0-9_]+}} [label="1x2x64xf16"];
// CHECK: -> n0_{{[0-9]+}} [label="1x2x96xf16"];
// CHECK-NEXT: }

// KEPT: graph [label="@mm_lax0\nkept (no cheaper verified μGraph): 1 kernel(s), estimated {{[0-9.]+}} us on sm_90 (cost model, not measured)"
// KEPT: n0_2 [label="matmul"
// KEPT-NOT: cluster

// NOTDIR-NOT: mirage-lift
// NOTDIR: option 'dump-dot': cannot create or write into directory '{{.*}}file': Not a directory
// NOTDIR-NOT: mirage-lift
// UNDER: option 'dump-dot': cannot create or write into directory '{{.*}}file/sub': Not a directory
// FLAG-NOT: mirage-lift
// FLAG: MIRAGE_DUMP_DOT (--mirage-dump-dot): cannot create or write into directory '{{.*}}file': Not a directory
// NOVALUE: mirage-opt: '--mirage-dump-dot' needs a directory ('--mirage-dump-dot=DIR')
// HELP: --mirage-dump-dot=<dir>
// HELP: dump-dot=<string> - {{.*}}Graphviz DIR/<function>.dot

func.func @rmsnorm_small(%x: tensor<1x2x64xf16>, %w: tensor<1x64x96xf16>) -> tensor<1x2x96xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_n = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %two = "tosa.const"() <{values = dense<2.0> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %half = "tosa.const"() <{values = dense<0.5> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %sq = tosa.pow %x, %two : (tensor<1x2x64xf16>, tensor<1x1x1xf16>) -> tensor<1x2x64xf16>
  %sum = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x2x64xf16>) -> tensor<1x2x1xf16>
  %mean = tosa.mul %sum, %inv_n, %shift : (tensor<1x2x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<1x2x1xf16>
  %rms = tosa.pow %mean, %half : (tensor<1x2x1xf16>, tensor<1x1x1xf16>) -> tensor<1x2x1xf16>
  %inv = tosa.reciprocal %rms : (tensor<1x2x1xf16>) -> tensor<1x2x1xf16>
  %normed = tosa.mul %x, %inv, %shift : (tensor<1x2x64xf16>, tensor<1x2x1xf16>, tensor<1xi8>) -> tensor<1x2x64xf16>
  %y = tosa.matmul %normed, %w, %zp, %zp : (tensor<1x2x64xf16>, tensor<1x64x96xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x96xf16>
  return %y : tensor<1x2x96xf16>
}


