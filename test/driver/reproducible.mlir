// The same input gives byte-identical output: with 1 or 2 search threads,
// without the cache, filling it and reading it back. gpu-module-to-binary
// records its compile time in the gpu.object (LLVMIRToISATimeInMs); the
// pipeline strips it (mirage-strip-compile-times), so with the CUDA toolkit
// the PTX modules compare equal too.
// Left out of the sanitized run: it is four compiles of one input whose
// paths the sanitized superopt, cache and plugin tests run; the search's
// threads are checked for races by scripts/test-tsan.sh.
// UNSUPPORTED: asan
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache=false" %mirage_src/examples/rmsnorm_matmul.mlir -o %t.1
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=2 cache=false" %mirage_src/examples/rmsnorm_matmul.mlir -o %t.2
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=2 cache-dir=%t.cache" %mirage_src/examples/rmsnorm_matmul.mlir -o %t.3
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 threads=1 cache-dir=%t.cache" %mirage_src/examples/rmsnorm_matmul.mlir -o %t.4
// RUN: cmp %t.1 %t.2
// RUN: cmp %t.1 %t.3
// RUN: cmp %t.1 %t.4
// RUN: FileCheck %s < %t.1
// The pass on its own, on a binary as upstream leaves it.
// RUN: mirage-opt --mirage-strip-compile-times %s | FileCheck %s --check-prefix=STRIP

// CHECK: gpu.{{module|binary}} @rmsnorm_matmul_lax0_gpu
// CHECK-NOT: TimeInMs

// STRIP-LABEL: gpu.binary @k_gpu
// STRIP-SAME: properties = {O = 3 : i32}
// STRIP-SAME: assembly = "ptx"
// STRIP-LABEL: gpu.binary @only_times
// STRIP-NOT: properties
// STRIP-SAME: assembly = "ptx2"
gpu.binary @k_gpu [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">, properties = {ISAToBinaryTimeInMs = 4 : i64, LLVMIRToISATimeInMs = 10 : i64, O = 3 : i32}, assembly = "ptx">]
gpu.binary @only_times [#gpu.object<#nvvm.target<chip = "sm_80">, properties = {LLVMIRToISATimeInMs = 11 : i64}, assembly = "ptx2">]
