// --mirage-search="dump-dot=DIR" draws each kernel-graph function's μGraph
// as DIR/<function>.dot, all three levels: the kernel graph, each block
// graph as a cluster (grid, threads, for-loop range, the loop body in a
// nested cluster; iterators' imap/fmap, accumulators, savers' omap), thread
// graphs as clusters inside them, and every tensor's type on its edge.
// These μGraphs are written by hand (the search leaves functions that
// already have graph-defined kernels as they are), so every line is known.
// RUN: rm -rf %t && mirage-opt --mirage-search="time-budget-s=0 dump-dot=%t/pictures cache=false" %s -o /dev/null
// RUN: ls %t/pictures | FileCheck %s --check-prefix=FILES
// RUN: FileCheck %s --check-prefix=RMS < %t/pictures/rmsnorm_fused.dot
// RUN: FileCheck %s --check-prefix=GQA < %t/pictures/gqa_split_kv.dot
// Graphviz accepts every file.
// RUN: dot -Tsvg %t/pictures/rmsnorm_fused.dot -o %t/rmsnorm.svg
// RUN: dot -Tsvg %t/pictures/gqa_split_kv.dot -o %t/gqa.svg
// RUN: for f in %t/pictures/*.dot; do dot -Tsvg "$f" -o /dev/null || exit 1; done
// RUN: FileCheck %s --check-prefix=SVG < %t/gqa.svg
// A name that is no safe file name is encoded; in the picture it is
// escaped.
// RUN: cat %t/pictures/*odd* | FileCheck %s --check-prefix=ODD
// Block and thread graphs are drawn inside their callers, not on their own.
// FILES-NOT: block
// FILES-NOT: thread
// FILES: gqa_split_kv.dot
// FILES-NEXT: rmsnorm_fused.dot
// FILES-NEXT: we%22ird%2Fname%20odd.dot
// FILES-NOT: .dot

//===----------------------------------------------------------------------===//
// RMSNorm + matmul in one kernel, as in the paper: a sum accumulator for
// the matmul, a sum-of-squares one for rms, the normalisation in a thread
// graph after the loop, f32 accumulators.
//===----------------------------------------------------------------------===//
// RMS: // μGraph @rmsnorm_fused (mirage-mlir)
// RMS-NEXT: digraph "rmsnorm_fused" {
// RMS-NEXT: graph [label="@rmsnorm_fused\nnot searched (already has graph-defined kernels)"
// RMS: n0_0 [label="input 0", shape=ellipse
// RMS-NEXT: n0_1 [label="input 1", shape=ellipse
// RMS-NEXT: subgraph cluster_0_2 {
// RMS-NEXT: label="block graph 1 (kernel op 2)\ngrid [4, 1, 1], 128 threads, forloop 4"
// RMS-NEXT: subgraph cluster_1_loop {
// RMS-NEXT: label="for-loop i in [0, 4)"
// RMS-NEXT: n1_2 [label="iterator\nimap [φ, φ, φ]\nfmap 1"
// RMS-NEXT: n1_3 [label="iterator\nimap [1, φ, φ]\nfmap 0"
// RMS-NEXT: n1_4 [label="matmul"
// RMS-NEXT: }
// RMS-NEXT: n1_5 [label="accum sum"
// RMS-NEXT: n1_6 [label="accum sum_sq_last"
// RMS-NEXT: subgraph cluster_1_7 {
// RMS-NEXT: label="thread graph 2 (block op 7)"
// RMS-NEXT: n2_2 [label="div_scalar\n64"
// RMS-NEXT: n2_3 [label="sqrt"
// RMS-NEXT: n2_4 [label="div"
// RMS-NEXT: }
// RMS-NEXT: n1_8 [label="saver\nomap [1, φ, φ]"
// RMS-NEXT: }
// RMS-NEXT: n0_3 [label="output 0", shape=ellipse
// Edges carry the consumer's view: whole kernel tensors into iterators,
// tiles between block ops, f32 out of the accumulators, the thread graph's
// inputs straight from the accumulators.
// RMS-DAG: n0_0 -> n1_2 [label="2x64xf16"];
// RMS-DAG: n0_1 -> n1_3 [label="64x96xf16"];
// RMS-DAG: n1_2 -> n1_4 [label="2x16xf16"];
// RMS-DAG: n1_3 -> n1_4 [label="16x24xf16"];
// RMS-DAG: n1_4 -> n1_5 [label="2x24xf16"];
// RMS-DAG: n1_2 -> n1_6 [label="2x16xf16"];
// RMS-DAG: n1_6 -> n2_2 [label="2x1xf32"];
// RMS-DAG: n2_2 -> n2_3 [label="2x1xf32"];
// RMS-DAG: n1_5 -> n2_4 [label="2x24xf32"];
// RMS-DAG: n2_3 -> n2_4 [label="2x1xf32"];
// RMS-DAG: n2_4 -> n1_8 [label="2x24xf16"];
// RMS-DAG: n1_8 -> n0_3 [label="2x96xf16"];
// RMS: }
func.func private @rms_norm_thread(%acc: tensor<2x24xf32>, %ss: tensor<2x1xf32>) -> tensor<2x24xf16> attributes {ug.level = "thread"} {
  %mean = "ug.div_scalar"(%ss) {scalar = 6.400000e+01 : f64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %rms = "ug.sqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %y = "ug.div"(%acc, %rms) : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf16>
  func.return %y : tensor<2x24xf16>
}
func.func private @rms_block(%x: tensor<2x64xf16>, %w: tensor<64x96xf16>) -> tensor<2x96xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 4, 1, 1>, ug.level = "block"} {
  %xt = "ug.iterator"(%x) {fmap = 1 : i64, imap = array<i64: -1, -1, -1>} : (tensor<2x64xf16>) -> tensor<2x16xf16>
  %wt = "ug.iterator"(%w) {fmap = 0 : i64, imap = array<i64: 1, -1, -1>} : (tensor<64x96xf16>) -> tensor<16x24xf16>
  %m = "ug.matmul"(%xt, %wt) : (tensor<2x16xf16>, tensor<16x24xf16>) -> tensor<2x24xf16>
  %acc = "ug.accum"(%m) {kind = "sum"} : (tensor<2x24xf16>) -> tensor<2x24xf32>
  %ss = "ug.accum"(%xt) {kind = "sum_sq_last"} : (tensor<2x16xf16>) -> tensor<2x1xf32>
  %y = "ug.thread"(%acc, %ss) {kernel = @rms_norm_thread, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x24xf32>, tensor<2x1xf32>) -> tensor<2x24xf16>
  %o = "ug.saver"(%y) {omap = array<i64: 1, -1, -1>} : (tensor<2x24xf16>) -> tensor<2x96xf16>
  func.return %o : tensor<2x96xf16>
}
func.func @rmsnorm_fused(%x: tensor<2x64xf16>, %w: tensor<64x96xf16>) -> tensor<2x96xf16> attributes {ug.level = "kernel"} {
  %y = "ug.custom"(%x, %w) {kernel = @rms_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x64xf16>, tensor<64x96xf16>) -> tensor<2x96xf16>
  func.return %y : tensor<2x96xf16>
}

//===----------------------------------------------------------------------===//
// GQA-like attention in two kernels, as in the paper: the first splits the
// KV length over grid axis y and the loop, saving partial outputs and
// partial sums side by side; the second combines them and divides.
//===----------------------------------------------------------------------===//
// GQA: digraph "gqa_split_kv" {
// GQA: n0_2 [label="input 2", shape=ellipse
// GQA-NEXT: subgraph cluster_0_3 {
// GQA-NEXT: label="block graph 1 (kernel op 3)\ngrid [2, 4, 1], 128 threads, forloop 2"
// GQA-NEXT: subgraph cluster_1_loop {
// GQA-NEXT: label="for-loop i in [0, 2)"
// GQA-NEXT: n1_3 [label="iterator\nimap [1, φ, φ]\nfmap φ"
// GQA-NEXT: n1_4 [label="iterator\nimap [φ, 2, φ]\nfmap 2"
// GQA-NEXT: n1_5 [label="iterator\nimap [φ, 1, φ]\nfmap 1"
// GQA-NEXT: n1_6 [label="matmul"
// GQA-NEXT: n1_7 [label="exp"
// GQA-NEXT: n1_8 [label="matmul"
// GQA-NEXT: }
// GQA-NEXT: n1_9 [label="accum sum"
// GQA-NEXT: n1_10 [label="accum sum_last"
// GQA-NEXT: n1_11 [label="saver\nomap [1, 2, φ]"
// GQA-NEXT: n1_12 [label="saver\nomap [1, 2, φ]"
// GQA-NEXT: }
// GQA-NEXT: subgraph cluster_0_4 {
// GQA-NEXT: label="block graph 2 (kernel op 4)\ngrid [2, 1, 1], 128 threads, forloop 4"
// GQA-NEXT: subgraph cluster_2_loop {
// GQA-NEXT: label="for-loop i in [0, 4)"
// GQA-NEXT: n2_2 [label="iterator\nimap [1, φ, φ]\nfmap 2"
// GQA-NEXT: n2_3 [label="iterator\nimap [1, φ, φ]\nfmap φ"
// GQA-NEXT: n2_4 [label="sum\ndim 2"
// GQA-NEXT: n2_5 [label="div"
// GQA-NEXT: }
// GQA-NEXT: n2_6 [label="accum sum"
// GQA-NEXT: n2_7 [label="saver\nomap [1, φ, φ]"
// GQA-NEXT: }
// GQA-NEXT: n0_5 [label="output 0"
// The second kernel reads what the first one's savers wrote.
// GQA-DAG: n0_1 -> n1_4 [label="2x16x64xf16"];
// GQA-DAG: n1_4 -> n1_6 [label="2x16x8xf16"];
// GQA-DAG: n1_7 -> n1_10 [label="2x4x8xf16"];
// GQA-DAG: n1_10 -> n1_12 [label="2x4x1xf32"];
// GQA-DAG: n1_11 -> n2_2 [label="2x8x64xf32"];
// GQA-DAG: n1_12 -> n2_3 [label="2x8x4xf32"];
// GQA-DAG: n2_6 -> n2_7 [label="2x4x16xf16"];
// GQA-DAG: n2_7 -> n0_5 [label="2x8x16xf16"];
// SVG: <title>gqa_split_kv</title>
// SVG: <title>cluster_0_3</title>
// SVG: <title>cluster_1_loop</title>
// SVG: for&#45;loop i in [0, 2)
func.func private @gqa_split_block(%q: tensor<2x8x16xf16>, %k: tensor<2x16x64xf16>, %v: tensor<2x64x16xf16>) -> (tensor<2x8x64xf32>, tensor<2x8x4xf32>) attributes {ug.block_threads = 128 : i64, ug.forloop = 2 : i64, ug.grid = array<i64: 2, 4, 1>, ug.level = "block"} {
  %qt = "ug.iterator"(%q) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  %kt = "ug.iterator"(%k) {fmap = 2 : i64, imap = array<i64: -1, 2, -1>} : (tensor<2x16x64xf16>) -> tensor<2x16x8xf16>
  %vt = "ug.iterator"(%v) {fmap = 1 : i64, imap = array<i64: -1, 1, -1>} : (tensor<2x64x16xf16>) -> tensor<2x8x16xf16>
  %s = "ug.matmul"(%qt, %kt) : (tensor<2x4x16xf16>, tensor<2x16x8xf16>) -> tensor<2x4x8xf16>
  %e = "ug.exp"(%s) : (tensor<2x4x8xf16>) -> tensor<2x4x8xf16>
  %o = "ug.matmul"(%e, %vt) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  %oa = "ug.accum"(%o) {kind = "sum"} : (tensor<2x4x16xf16>) -> tensor<2x4x16xf32>
  %sa = "ug.accum"(%e) {kind = "sum_last"} : (tensor<2x4x8xf16>) -> tensor<2x4x1xf32>
  %os = "ug.saver"(%oa) {omap = array<i64: 1, 2, -1>} : (tensor<2x4x16xf32>) -> tensor<2x8x64xf32>
  %ss = "ug.saver"(%sa) {omap = array<i64: 1, 2, -1>} : (tensor<2x4x1xf32>) -> tensor<2x8x4xf32>
  func.return %os, %ss : tensor<2x8x64xf32>, tensor<2x8x4xf32>
}
func.func private @gqa_combine_block(%op: tensor<2x8x64xf32>, %sp: tensor<2x8x4xf32>) -> tensor<2x8x16xf16> attributes {ug.block_threads = 128 : i64, ug.forloop = 4 : i64, ug.grid = array<i64: 2, 1, 1>, ug.level = "block"} {
  %ot = "ug.iterator"(%op) {fmap = 2 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x8x64xf32>) -> tensor<2x4x16xf32>
  %st = "ug.iterator"(%sp) {fmap = -1 : i64, imap = array<i64: 1, -1, -1>} : (tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %den = "ug.sum"(%st) {dim = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %y = "ug.div"(%ot, %den) : (tensor<2x4x16xf32>, tensor<2x4x1xf32>) -> tensor<2x4x16xf32>
  %ya = "ug.accum"(%y) {kind = "sum"} : (tensor<2x4x16xf32>) -> tensor<2x4x16xf16>
  %r = "ug.saver"(%ya) {omap = array<i64: 1, -1, -1>} : (tensor<2x4x16xf16>) -> tensor<2x8x16xf16>
  func.return %r : tensor<2x8x16xf16>
}
func.func @gqa_split_kv(%q: tensor<2x8x16xf16>, %k: tensor<2x16x64xf16>, %v: tensor<2x64x16xf16>) -> tensor<2x8x16xf16> attributes {ug.level = "kernel"} {
  %o, %s = "ug.custom"(%q, %k, %v) {kernel = @gqa_split_block, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 1, 0, 0>} : (tensor<2x8x16xf16>, tensor<2x16x64xf16>, tensor<2x64x16xf16>) -> (tensor<2x8x64xf32>, tensor<2x8x4xf32>)
  %r = "ug.custom"(%o, %s) {kernel = @gqa_combine_block, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 0>, resultSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<2x8x64xf32>, tensor<2x8x4xf32>) -> tensor<2x8x16xf16>
  func.return %r : tensor<2x8x16xf16>
}

//===----------------------------------------------------------------------===//
// A symbol with a quote, a slash and a space: %XX in the file name, escaped
// in the title.
//===----------------------------------------------------------------------===//
// ODD: // μGraph @we\"ird/name odd (mirage-mlir)
// ODD-NEXT: digraph "we\"ird/name odd" {
// ODD-NEXT: graph [label="@we\"ird/name odd\n
// ODD: n0_1 [label="exp"
func.func @"we\22ird/name odd"(%x: tensor<4x8xf16>) -> tensor<4x8xf16> attributes {ug.level = "kernel"} {
  %y = "ug.exp"(%x) : (tensor<4x8xf16>) -> tensor<4x8xf16>
  func.return %y : tensor<4x8xf16>
}
