// mirage-run --time where nothing can be timed: no CUDA driver, a library
// that is not one, CUDA's stub library, a driver without a device. Each is
// one line on stdout, nothing on stderr, exit status 0, and needs no CUDA
// toolkit. MIRAGE_CUDA_LIBRARY names the driver library (default
// libcuda.so.1): /nonexistent forces the missing-driver path on machines
// that have one, and the stand-in driver built with mirage-run
// (tools/mirage-run/fake_cuda.c, MIRAGE_FAKE_CUDA=<failure>) plays the
// others.
// DEFINE: %{fake} = env MIRAGE_CUDA_LIBRARY="$(dirname "$(command -v mirage-run)")/libmirage-fake-cuda.so"

// RUN: env MIRAGE_CUDA_LIBRARY=/nonexistent/libcuda.so.1 mirage-run --time %s > %t.nodriver 2>&1
// RUN: FileCheck %s --check-prefix=NODRIVER < %t.nodriver
// RUN: count 1 < %t.nodriver
// NODRIVER: mirage-run: --time: no CUDA driver (/nonexistent/libcuda.so.1 not found); nothing timed

// A shared library without the driver's entry points (glibc's libm).
// RUN: env MIRAGE_CUDA_LIBRARY=libm.so.6 mirage-run --time=5 %s > %t.notdriver 2>&1
// RUN: FileCheck %s --check-prefix=NOTDRIVER < %t.notdriver
// RUN: count 1 < %t.notdriver
// NOTDRIVER: mirage-run: --time: no CUDA driver (libm.so.6 has no cuInit); nothing timed

// RUN: %{fake} MIRAGE_FAKE_CUDA=stub mirage-run --time %s > %t.stub 2>&1
// RUN: FileCheck %s --check-prefix=STUB < %t.stub
// RUN: count 1 < %t.stub
// STUB: mirage-run: --time: no CUDA driver ({{.*}}libmirage-fake-cuda.so is CUDA's stub library: cuInit: CUDA_ERROR_STUB_LIBRARY: CUDA driver is a stub library); nothing timed

// RUN: %{fake} MIRAGE_FAKE_CUDA=no-device mirage-run --time %s > %t.nodevice 2>&1
// RUN: FileCheck %s --check-prefix=NODEVICE < %t.nodevice
// RUN: count 1 < %t.nodevice
// NODEVICE: mirage-run: --time: no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected); nothing timed

// RUN: %{fake} MIRAGE_FAKE_CUDA=zero-devices mirage-run --time --lift %s > %t.zero 2>&1
// RUN: FileCheck %s --check-prefix=ZERO < %t.zero
// RUN: count 1 < %t.zero
// ZERO: mirage-run: --time: no CUDA device (cuDeviceGetCount: 0 device(s)); nothing timed

// Bad options are errors before any of that (exit 1).
// RUN: not mirage-run --time=0 %s 2>&1 | FileCheck %s --check-prefix=RUNS
// RUN: not mirage-run --time=x %s 2>&1 | FileCheck %s --check-prefix=RUNS
// RUN: not mirage-run --time --warmup=-1 %s 2>&1 | FileCheck %s --check-prefix=WARMUP
// RUN: not mirage-run --time --lower %s 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not mirage-run --time --compare=add,add_ug %s 2>&1 | FileCheck %s --check-prefix=COMPARE
// RUN: not mirage-run --time --target=sm_70 %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not mirage-run --warm-l2 %s 2>&1 | FileCheck %s --check-prefix=NEEDS-TIME
// RUN: mirage-run --help | FileCheck %s --check-prefix=HELP
// RUNS: mirage-run: invalid --time value '{{0|x}}' (expected 1..100000 timed runs)
// WARMUP: mirage-run: invalid --warmup value '-1' (expected 0..10000)
// LOWER: mirage-run: --time cannot be combined with --lower
// COMPARE: mirage-run: --time cannot be combined with --compare
// TARGET: mirage-run: unknown target 'sm_70' (expected sm_80, sm_86, sm_89 or sm_90)
// NEEDS-TIME: mirage-run: --warmup, --warm-l2, --target and --toolkit need --time
// HELP: --time[=<N>]
// HELP: $MIRAGE_CUDA_LIBRARY

func.func @add(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = tosa.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @add_ug(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ug.level = "kernel"} {
  %r = "ug.add"(%a, %b) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  func.return %r : tensor<4x8xf32>
}
