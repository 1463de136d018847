// REQUIRES: libdevice, ptxas
// In stock mlir-opt the plugin's superopt pipeline appends the upstream
// NVVM passes after lowering (ptx=auto finds libdevice): PTX comes out.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false})' %S/../driver/superopt-remarks.mlir | FileCheck %s
// ptxas=true checks it there too; the pipeline's remarks option reaches it.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{time-budget-s=0 cache=false ptxas=true remarks=true})' %S/../driver/superopt-remarks.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=PTXAS
// PTXAS: remark: mirage-ptxas: '@rms_lax0_gpu': ptxas accepts 1 kernel(s) for sm_90

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.binary @rms_lax0_gpu [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">
// CHECK-SAME: .entry rms_lax0_gpu_k2
// CHECK: func.func private @rms_lax0(
// CHECK: gpu.launch_func async
