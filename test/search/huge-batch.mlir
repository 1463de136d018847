// Budgets at huge batch dims (issue 14): QKNorm at small head dims with a
// batch of 65,536 under time-budget-s=5 ends within 30 s of CPU time
// (`ulimit -t`: a loaded machine does not make it fail) whatever it finds
// (finite-field tests at this shape take seconds each; the deadline
// abandons them), and at the paper's dims (256 queries, 4096 keys) it is
// too large to test within the memory bound at all and stops at once.
// Both stay under 3 GiB of address space.
//
// RUN: ulimit -v 3145728; ulimit -t 30; mirage-opt --mirage-superopt="cache=false lower=false time-budget-s=5" --mirage-remarks %s -o %t 2>&1 | FileCheck %s
// RUN: mirage-opt --mirage-verify-ugraph %t > /dev/null

// CHECK: remark: mirage-search: '@qknorm_batch_lax0' {{replaced by a verified|kept: no cheaper verified μGraph found \(stopped by the time budget\)}}
// CHECK: remark: mirage-search: '@qknorm_paper_batch_lax0' kept: no cheaper verified μGraph found (stopped by the memory bound)

func.func @qknorm_batch(%q: tensor<65536x4x8xf16>, %k: tensor<65536x8x16xf16>, %v: tensor<65536x16x8xf16>) -> tensor<65536x4x8xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_d = "tosa.const"() <{values = dense<0.125> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q_sq = tosa.mul %q, %q, %shift : (tensor<65536x4x8xf16>, tensor<65536x4x8xf16>, tensor<1xi8>) -> tensor<65536x4x8xf16>
  %q_sum = tosa.reduce_sum %q_sq {axis = 2 : i32} : (tensor<65536x4x8xf16>) -> tensor<65536x4x1xf16>
  %q_mean = tosa.mul %q_sum, %inv_d, %shift : (tensor<65536x4x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<65536x4x1xf16>
  %q_inv = tosa.rsqrt %q_mean : (tensor<65536x4x1xf16>) -> tensor<65536x4x1xf16>
  %q_n = tosa.mul %q, %q_inv, %shift : (tensor<65536x4x8xf16>, tensor<65536x4x1xf16>, tensor<1xi8>) -> tensor<65536x4x8xf16>
  %v_sq = tosa.mul %v, %v, %shift : (tensor<65536x16x8xf16>, tensor<65536x16x8xf16>, tensor<1xi8>) -> tensor<65536x16x8xf16>
  %v_sum = tosa.reduce_sum %v_sq {axis = 2 : i32} : (tensor<65536x16x8xf16>) -> tensor<65536x16x1xf16>
  %v_mean = tosa.mul %v_sum, %inv_d, %shift : (tensor<65536x16x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<65536x16x1xf16>
  %v_inv = tosa.rsqrt %v_mean : (tensor<65536x16x1xf16>) -> tensor<65536x16x1xf16>
  %v_n = tosa.mul %v, %v_inv, %shift : (tensor<65536x16x8xf16>, tensor<65536x16x1xf16>, tensor<1xi8>) -> tensor<65536x16x8xf16>
  %qk = tosa.matmul %q_n, %k, %zp, %zp : (tensor<65536x4x8xf16>, tensor<65536x8x16xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<65536x4x16xf16>
  %e = tosa.exp %qk : (tensor<65536x4x16xf16>) -> tensor<65536x4x16xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<65536x4x16xf16>) -> tensor<65536x4x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<65536x4x1xf16>) -> tensor<65536x4x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<65536x4x16xf16>, tensor<65536x4x1xf16>, tensor<1xi8>) -> tensor<65536x4x16xf16>
  %o = tosa.matmul %p, %v_n, %zp, %zp : (tensor<65536x4x16xf16>, tensor<65536x16x8xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<65536x4x8xf16>
  return %o : tensor<65536x4x8xf16>
}


func.func @qknorm_paper_batch(%q: tensor<65536x256x64xf16>, %k: tensor<65536x64x4096xf16>, %v: tensor<65536x4096x64xf16>) -> tensor<65536x256x64xf16> {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %inv_d = "tosa.const"() <{values = dense<0.015625> : tensor<1x1x1xf16>}> : () -> tensor<1x1x1xf16>
  %q_sq = tosa.mul %q, %q, %shift : (tensor<65536x256x64xf16>, tensor<65536x256x64xf16>, tensor<1xi8>) -> tensor<65536x256x64xf16>
  %q_sum = tosa.reduce_sum %q_sq {axis = 2 : i32} : (tensor<65536x256x64xf16>) -> tensor<65536x256x1xf16>
  %q_mean = tosa.mul %q_sum, %inv_d, %shift : (tensor<65536x256x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<65536x256x1xf16>
  %q_inv = tosa.rsqrt %q_mean : (tensor<65536x256x1xf16>) -> tensor<65536x256x1xf16>
  %q_n = tosa.mul %q, %q_inv, %shift : (tensor<65536x256x64xf16>, tensor<65536x256x1xf16>, tensor<1xi8>) -> tensor<65536x256x64xf16>
  %v_sq = tosa.mul %v, %v, %shift : (tensor<65536x4096x64xf16>, tensor<65536x4096x64xf16>, tensor<1xi8>) -> tensor<65536x4096x64xf16>
  %v_sum = tosa.reduce_sum %v_sq {axis = 2 : i32} : (tensor<65536x4096x64xf16>) -> tensor<65536x4096x1xf16>
  %v_mean = tosa.mul %v_sum, %inv_d, %shift : (tensor<65536x4096x1xf16>, tensor<1x1x1xf16>, tensor<1xi8>) -> tensor<65536x4096x1xf16>
  %v_inv = tosa.rsqrt %v_mean : (tensor<65536x4096x1xf16>) -> tensor<65536x4096x1xf16>
  %v_n = tosa.mul %v, %v_inv, %shift : (tensor<65536x4096x64xf16>, tensor<65536x4096x1xf16>, tensor<1xi8>) -> tensor<65536x4096x64xf16>
  %qk = tosa.matmul %q_n, %k, %zp, %zp : (tensor<65536x256x64xf16>, tensor<65536x64x4096xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<65536x256x4096xf16>
  %e = tosa.exp %qk : (tensor<65536x256x4096xf16>) -> tensor<65536x256x4096xf16>
  %sum = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<65536x256x4096xf16>) -> tensor<65536x256x1xf16>
  %inv = tosa.reciprocal %sum : (tensor<65536x256x1xf16>) -> tensor<65536x256x1xf16>
  %p = tosa.mul %e, %inv, %shift : (tensor<65536x256x4096xf16>, tensor<65536x256x1xf16>, tensor<1xi8>) -> tensor<65536x256x4096xf16>
  %o = tosa.matmul %p, %v_n, %zp, %zp : (tensor<65536x256x4096xf16>, tensor<65536x4096x64xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<65536x256x64xf16>
  return %o : tensor<65536x256x64xf16>
}

