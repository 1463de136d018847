// The memory bound holds on any shape: GQA at the paper's dims with a batch
// of 1,048,576 (inputs alone are 0.6 TB in the finite field) cannot be
// tested within the default bound (2 GiB), so the search stops before it
// allocates anything and keeps the original ops, and says so. The run is
// held to 3 GiB of address space: were the test inputs filled before the
// bound is checked, it would fail here.
//
// RUN: ulimit -v 3145728; mirage-opt --mirage-superopt="time-budget-s=0 cache=false lower=false" --mirage-remarks %s -o %t 2>&1 | FileCheck %s
// RUN: mirage-opt --mirage-verify-ugraph %t > /dev/null

// CHECK: remark: mirage-search: '@gqa_huge_batch_lax0' kept: no cheaper verified μGraph found (stopped by the memory bound)

func.func @gqa_huge_batch(%q: tensor<1048576x256x64xf16>, %k: tensor<1048576x64x4096xf16>, %v: tensor<1048576x4096x64xf16>) -> tensor<1048576x256x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %qk = tosa.matmul %q, %k, %zp, %zp : (tensor<1048576x256x64xf16>, tensor<1048576x64x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1048576x256x4096xf16>
  %e = tosa.exp %qk : (tensor<1048576x256x4096xf16>) -> tensor<1048576x256x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<1048576x256x4096xf16>) -> tensor<1048576x256x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<1048576x256x1xf16>) -> tensor<1048576x256x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<1048576x256x4096xf16>, tensor<1048576x256x1xf16>, tensor<1xi8>) -> tensor<1048576x256x4096xf16>
  %o = tosa.matmul %p, %v, %zp, %zp : (tensor<1048576x256x4096xf16>, tensor<1048576x4096x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1048576x256x64xf16>
  return %o : tensor<1048576x256x64xf16>
}

