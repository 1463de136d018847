// The memory bound (--memory-limit, docs/mirage-run.md "Memory"): the
// bytes a check needs are summed from the shapes before anything is
// allocated. Above the bound a sample of fewer rows is checked when one
// fits, else the pair is refused with one error naming its largest tensor,
// its size and the bound (exit 1). Every run here stays under 2 GB of
// address space (`ulimit -v`): none allocates the tensors it refuses.
//
// 2^29 elements, an f32 argument of 2 GiB: a full check needs about 36
// GiB, a sample of rows still the whole argument and result (4 GiB).
// RUN: ulimit -v 2000000; not mirage-run --memory-limit=1G --compare=double29_tosa,double29_ug %s 2>&1 | FileCheck %s --check-prefix=E29
// RUN: ulimit -v 2000000; not mirage-run --memory-limit=1.5G --sample-above=never --compare=double29_tosa,double29_ug %s 2>&1 | FileCheck %s --check-prefix=E29-ALL
// 2^40 elements (2 TiB as f16): beyond the default bound on any machine
// (half the physical memory, at most 64 GiB).
// RUN: ulimit -v 2000000; not mirage-run --compare=double40_tosa,double40_ug %s 2>&1 | FileCheck %s --check-prefix=E40
// --lower checks every kernel graph: each is refused.
// RUN: ulimit -v 2000000; not mirage-run --lower --memory-limit=16M %s 2>&1 | FileCheck %s --check-prefix=LOWER
// So does --time (the host's buffers; here through the stand-in driver).
// RUN: %if libdevice %{ ulimit -v 2000000; env MIRAGE_CUDA_LIBRARY="$(dirname "$(command -v mirage-run)")/libmirage-fake-cuda.so" not mirage-run --time=1 --warmup=0 --memory-limit=64M --toolkit=%cuda_toolkit %s 2>&1 | FileCheck %s --check-prefix=TIME %}
//
// A full check that fits the work budget (1.7e7 operations) but not the
// bound: a sample of the columns is checked instead, and the line says why.
// RUN: ulimit -v 2000000; mirage-run --memory-limit=64M --compare=head_tosa,head_ug %s | FileCheck %s --check-prefix=SAMPLED
// RUN: ulimit -v 2000000; mirage-run --compare=head_tosa,head_ug %s | FileCheck %s --check-prefix=FULL
// Not even a sample of one column fits: the whole weight alone is 16 MiB.
// RUN: ulimit -v 2000000; not mirage-run --memory-limit=16M --compare=head_tosa,head_ug %s 2>&1 | FileCheck %s --check-prefix=HEAD-16M
//
// Bad values get one line and exit 1.
// RUN: not mirage-run --memory-limit=abc %s 2>&1 | FileCheck %s --check-prefix=BAD-abc
// RUN: not mirage-run --memory-limit= %s 2>&1 | FileCheck %s --check-prefix=BAD-EMPTY
// RUN: not mirage-run --memory-limit=0 %s 2>&1 | FileCheck %s --check-prefix=BAD-0
// RUN: not mirage-run --memory-limit=15M %s 2>&1 | FileCheck %s --check-prefix=BAD-15M
// RUN: not mirage-run --memory-limit=-1G %s 2>&1 | FileCheck %s --check-prefix=BAD-NEG
// RUN: not mirage-run --memory-limit=2X %s 2>&1 | FileCheck %s --check-prefix=BAD-X
// RUN: not mirage-run --memory-limit=1GB %s 2>&1 | FileCheck %s --check-prefix=BAD-GB
// RUN: not mirage-run --memory-limit=inf %s 2>&1 | FileCheck %s --check-prefix=BAD-INF
// RUN: not mirage-run --memory-limit=1e30 %s 2>&1 | FileCheck %s --check-prefix=BAD-HUGE
// RUN: not mirage-run --memory-limit=2000000T %s 2>&1 | FileCheck %s --check-prefix=BAD-T
// RUN: not mirage-run --memory-limit=0x10G %s 2>&1 | FileCheck %s --check-prefix=BAD-HEX
// RUN: mirage-run --help | FileCheck %s --check-prefix=HELP

// E29: memory-limit.mlir:{{[0-9]+}}:{{[0-9]+}}: error: @double29_tosa vs @double29_ug: checking a sample of rows needs about 4.0 GiB, more than the memory bound of 1.0 GiB (--memory-limit): its largest tensor is argument 0 (tensor<8192x65536xf32>), 536870912 elements (2.0 GiB); nothing was run
// E29-NOT: out of memory
// E29-ALL: error: @double29_tosa vs @double29_ug: checking every element needs about 36 GiB, more than the memory bound of 1.5 GiB (--memory-limit): its largest tensor is argument 0 (tensor<8192x65536xf32>), 536870912 elements (2.0 GiB); nothing was run
// E40: error: @double40_tosa vs @double40_ug: checking a sample of rows needs about 4.0 TiB, more than the memory bound of {{[0-9.]+}} GiB (--memory-limit): its largest tensor is argument 0 (tensor<1048576x1048576xf16>), 1099511627776 elements (2.0 TiB); nothing was run
// E40-NOT: out of memory
// LOWER: error: @double29_ug: checking every element needs about {{[0-9]+}} GiB, more than the memory bound of 16 MiB (--memory-limit): its largest tensor is argument 0 (tensor<8192x65536xf32>), 536870912 elements (2.0 GiB); nothing was run
// LOWER: error: @double40_ug: checking every element needs about {{[0-9]+}} TiB, more than the memory bound of 16 MiB (--memory-limit): its largest tensor is argument 0 (tensor<1048576x1048576xf16>), 1099511627776 elements (2.0 TiB); nothing was run
// LOWER: error: @head_ug: checking every element needs about {{[0-9]+}} MiB, more than the memory bound of 16 MiB
// TIME: error: @double29_ug: checking every element needs about {{[0-9]+}} GiB, more than the memory bound of 64 MiB
// TIME: error: @double40_ug: checking every element needs about {{[0-9]+}} TiB, more than the memory bound of 64 MiB
// TIME: error: @head_ug: checking every element needs about {{[0-9]+}} MiB, more than the memory bound of 64 MiB
// TIME-NOT: out of memory
// SAMPLED: @head_tosa vs @head_ug: sampled: {{[0-9]+}} of 65536 indices of dim 2 of output 0 (the first, the last and {{[0-9]+}} chosen at random with seed 1): {{[0-9]+}} of 262144 elements; a full check would take about 1.7e+07 operations (--sample-above=1e+08) and need about {{[0-9]+}} MiB, more than --memory-limit=64 MiB
// SAMPLED-NEXT: @head_tosa vs @head_ug: 1 output, {{[0-9]+}} elements, max abs error {{.*}}: ok
// FULL: @head_tosa vs @head_ug: 1 output, 262144 elements, max abs error {{.*}}: ok
// HEAD-16M: error: @head_tosa vs @head_ug: checking a sample of rows needs about {{[0-9]+}} MiB, more than the memory bound of 16 MiB (--memory-limit): its largest tensor is argument 1 (tensor<1x64x65536xf32>), 4194304 elements (16 MiB); nothing was run
// BAD-abc: mirage-run: invalid --memory-limit value 'abc' (expected a size in bytes from 16M to 2^60, with an optional suffix K, M, G or T, or 'none')
// BAD-EMPTY: mirage-run: invalid --memory-limit value ''
// BAD-0: mirage-run: invalid --memory-limit value '0'
// BAD-15M: mirage-run: invalid --memory-limit value '15M'
// BAD-NEG: mirage-run: invalid --memory-limit value '-1G'
// BAD-X: mirage-run: invalid --memory-limit value '2X'
// BAD-GB: mirage-run: invalid --memory-limit value '1GB'
// BAD-INF: mirage-run: invalid --memory-limit value 'inf'
// BAD-HUGE: mirage-run: invalid --memory-limit value '1e30'
// BAD-T: mirage-run: invalid --memory-limit value '2000000T'
// BAD-HEX: mirage-run: invalid --memory-limit value '0x10G'
// HELP: --memory-limit=<S>
// HELP: 'none': no bound (default: half the physical memory,
// HELP-NEXT: at most 64G: {{[0-9.]+}} {{MiB|GiB}} here)

func.func @double29_tosa(%x: tensor<8192x65536xf32>) -> tensor<8192x65536xf32> {
  %y = tosa.add %x, %x : (tensor<8192x65536xf32>, tensor<8192x65536xf32>) -> tensor<8192x65536xf32>
  return %y : tensor<8192x65536xf32>
}
func.func @double29_ug(%x: tensor<8192x65536xf32>) -> tensor<8192x65536xf32> attributes {ug.level = "kernel"} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<8192x65536xf32>) -> tensor<8192x65536xf32>
  func.return %y : tensor<8192x65536xf32>
}

func.func @double40_tosa(%x: tensor<1048576x1048576xf16>) -> tensor<1048576x1048576xf16> {
  %y = tosa.add %x, %x : (tensor<1048576x1048576xf16>, tensor<1048576x1048576xf16>) -> tensor<1048576x1048576xf16>
  return %y : tensor<1048576x1048576xf16>
}
func.func @double40_ug(%x: tensor<1048576x1048576xf16>) -> tensor<1048576x1048576xf16> attributes {ug.level = "kernel"} {
  %y = "ug.mul_scalar"(%x) {scalar = 2.000000e+00 : f64} : (tensor<1048576x1048576xf16>) -> tensor<1048576x1048576xf16>
  func.return %y : tensor<1048576x1048576xf16>
}

// An LM head in small: 4 tokens, 65,536 columns.
func.func @head_tosa(%x: tensor<1x4x64xf32>, %w: tensor<1x64x65536xf32>) -> tensor<1x4x65536xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = tosa.matmul %x, %w, %zp, %zp : (tensor<1x4x64xf32>, tensor<1x64x65536xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x65536xf32>
  return %y : tensor<1x4x65536xf32>
}
func.func @head_ug(%x: tensor<1x4x64xf32>, %w: tensor<1x64x65536xf32>) -> tensor<1x4x65536xf32> attributes {ug.level = "kernel"} {
  %y = "ug.matmul"(%x, %w) : (tensor<1x4x64xf32>, tensor<1x64x65536xf32>) -> tensor<1x4x65536xf32>
  func.return %y : tensor<1x4x65536xf32>
}
