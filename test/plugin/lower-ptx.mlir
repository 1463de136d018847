// REQUIRES: libdevice
// In stock mlir-opt the plugin's superopt pipeline appends the upstream
// NVVM passes after lowering (ptx=auto finds libdevice): PTX comes out.
// RUN: %mlir_opt --load-pass-plugin=%mirage_plugin --pass-pipeline='builtin.module(mirage-superopt{cache=false})' %S/../driver/superopt-remarks.mlir | FileCheck %s

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.binary @rms_lax0_gpu [#gpu.object<#nvvm.target<O = 3, chip = "sm_90">
// CHECK-SAME: .entry rms_lax0_gpu_k2
// CHECK: func.func private @rms_lax0(
// CHECK: gpu.launch_func async
