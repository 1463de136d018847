// Issue 30's transformer block, written as torch-mlir's TOSA path emits a
// decode step: RMSNorm, Q/K/V projections, the queries viewed at rank 7
// ([batch, token, kv head, group, 1, 1, dim], as exporters write grouped
// attention), rotate-half RoPE (slices, a negate, a concat), the new key
// and value written into the KV caches with tensor.insert_slice at
// position 15, scaled stable softmax attention over the 16 cached
// positions, the output projection and residual, a second RMSNorm and a
// gated (SiLU) MLP with its residual. The updated caches are results.
// 52 of its 53 tensor ops lift (98.1 %); the one cut is a reshape dropping
// the unit dims of the rank-5 RoPE result before the scores matmul (the
// μGraph keeps rank 5 there, the key side is rank 3).
// RUN: mirage-opt --mirage-lift --mirage-remarks %s -o %t.lifted 2>&1 | FileCheck %s --check-prefix=REM
// RUN: mirage-opt --mirage-verify-ugraph %t.lifted > /dev/null
// RUN: mirage-run %t.lifted | FileCheck %s --check-prefix=NUM
// RUN: mirage-opt --mirage-superopt="lower=false threads=1 time-budget-s=0 max-states=100000 cache=false" --mirage-remarks %s -o %t.opt 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: mirage-run --lower %t.opt | FileCheck %s --check-prefix=NUM
//
// REM: remark: mirage-lift: '@decode_block': lifted 3 subprograms (@decode_block_lax0, @decode_block_lax1, @decode_block_lax2); 1 tensor op left in place
// REM: remark: mirage-lift: module: 52 of 53 tensor ops lifted (98.1 %) into 3 subprograms
// REM: 1 x 'tosa.reshape': matmul operands have μGraph ranks N and N
//
// NUM: @decode_block_lax0: 3 outputs, 256 elements, {{.*}}: ok
// NUM: @decode_block_lax1: 4 outputs, 2304 elements, {{.*}}: ok
// NUM: @decode_block_lax2: 1 output, 128 elements, {{.*}}: ok
//
// OPT: '@decode_block_lax0' replaced by a verified μGraph
// OPT: '@decode_block_lax1' replaced by a verified μGraph
// OPT: '@decode_block_lax2' replaced by a verified μGraph

func.func @decode_block(%x: tensor<1x1x128xf32>, %g1: tensor<1x1x128xf32>, %wq: tensor<1x128x128xf32>, %wk: tensor<1x128x64xf32>, %wv: tensor<1x128x64xf32>, %wo: tensor<1x128x128xf32>, %cos: tensor<1x1x1x1x32xf32>, %sin: tensor<1x1x1x1x32xf32>, %kc: tensor<1x2x16x32xf32>, %vc: tensor<1x2x16x32xf32>, %g2: tensor<1x1x128xf32>, %wg: tensor<1x128x256xf32>, %wu: tensor<1x128x256xf32>, %wd: tensor<1x256x128xf32>) -> (tensor<1x1x128xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %inv_d = "tosa.const"() <{values = dense<7.812500e-03> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %eps = "tosa.const"() <{values = dense<1.0e-05> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  // RMSNorm 1
  %sq = tosa.mul %x, %x, %shift : (tensor<1x1x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  %ss = tosa.reduce_sum %sq {axis = 2 : i32} : (tensor<1x1x128xf32>) -> tensor<1x1x1xf32>
  %ms = tosa.mul %ss, %inv_d, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  %me = tosa.add %ms, %eps : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %r = tosa.rsqrt %me : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %xn0 = tosa.mul %x, %r, %shift : (tensor<1x1x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  %xn = tosa.mul %xn0, %g1, %shift : (tensor<1x1x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  // Projections
  %q = tosa.matmul %xn, %wq, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x128xf32>
  %k = tosa.matmul %xn, %wk, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x64xf32>
  %v = tosa.matmul %xn, %wv, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x64xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x64xf32>
  // Rank-7 grouped view of the queries: [batch, token, kv head, group, 1, 1, dim]
  %s7 = tosa.const_shape {values = dense<[1, 1, 2, 2, 1, 1, 32]> : tensor<7xindex>} : () -> !tosa.shape<7>
  %q7 = tosa.reshape %q, %s7 : (tensor<1x1x128xf32>, !tosa.shape<7>) -> tensor<1x1x2x2x1x1x32xf32>
  %s5 = tosa.const_shape {values = dense<[2, 2, 1, 1, 32]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %q5 = tosa.reshape %q7, %s5 : (tensor<1x1x2x2x1x1x32xf32>, !tosa.shape<5>) -> tensor<2x2x1x1x32xf32>
  // RoPE on the queries (rotate half)
  %o0 = tosa.const_shape {values = dense<[0, 0, 0, 0, 0]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %o16 = tosa.const_shape {values = dense<[0, 0, 0, 0, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %hs = tosa.const_shape {values = dense<[2, 2, 1, 1, 16]> : tensor<5xindex>} : () -> !tosa.shape<5>
  %q1 = tosa.slice %q5, %o0, %hs : (tensor<2x2x1x1x32xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<2x2x1x1x16xf32>
  %q2 = tosa.slice %q5, %o16, %hs : (tensor<2x2x1x1x32xf32>, !tosa.shape<5>, !tosa.shape<5>) -> tensor<2x2x1x1x16xf32>
  %nq2 = tosa.negate %q2, %zp, %zp : (tensor<2x2x1x1x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2x1x1x16xf32>
  %rot = tosa.concat %nq2, %q1 {axis = 4 : i32} : (tensor<2x2x1x1x16xf32>, tensor<2x2x1x1x16xf32>) -> tensor<2x2x1x1x32xf32>
  %qc = tosa.mul %q5, %cos, %shift : (tensor<2x2x1x1x32xf32>, tensor<1x1x1x1x32xf32>, tensor<1xi8>) -> tensor<2x2x1x1x32xf32>
  %qs = tosa.mul %rot, %sin, %shift : (tensor<2x2x1x1x32xf32>, tensor<1x1x1x1x32xf32>, tensor<1xi8>) -> tensor<2x2x1x1x32xf32>
  %qr = tosa.add %qc, %qs : (tensor<2x2x1x1x32xf32>, tensor<2x2x1x1x32xf32>) -> tensor<2x2x1x1x32xf32>
  %s3q = tosa.const_shape {values = dense<[2, 2, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %q3 = tosa.reshape %qr, %s3q : (tensor<2x2x1x1x32xf32>, !tosa.shape<3>) -> tensor<2x2x32xf32>
  // KV-cache write at position 15
  %s4 = tosa.const_shape {values = dense<[1, 2, 1, 32]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %k4 = tosa.reshape %k, %s4 : (tensor<1x1x64xf32>, !tosa.shape<4>) -> tensor<1x2x1x32xf32>
  %v4 = tosa.reshape %v, %s4 : (tensor<1x1x64xf32>, !tosa.shape<4>) -> tensor<1x2x1x32xf32>
  %kn = tensor.insert_slice %k4 into %kc[0, 0, 15, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x16x32xf32>
  %vn = tensor.insert_slice %v4 into %vc[0, 0, 15, 0] [1, 2, 1, 32] [1, 1, 1, 1] : tensor<1x2x1x32xf32> into tensor<1x2x16x32xf32>
  // Attention over the 16 cached positions
  %s3k = tosa.const_shape {values = dense<[2, 16, 32]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %k3 = tosa.reshape %kn, %s3k : (tensor<1x2x16x32xf32>, !tosa.shape<3>) -> tensor<2x16x32xf32>
  %v3 = tosa.reshape %vn, %s3k : (tensor<1x2x16x32xf32>, !tosa.shape<3>) -> tensor<2x16x32xf32>
  %kt = tosa.transpose %k3 {perms = array<i32: 0, 2, 1>} : (tensor<2x16x32xf32>) -> tensor<2x32x16xf32>
  %sc = tosa.matmul %q3, %kt, %zp, %zp : (tensor<2x2x32xf32>, tensor<2x32x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2x16xf32>
  %scale = "tosa.const"() <{values = dense<0.17677669> : tensor<1x1x1xf32>}> : () -> tensor<1x1x1xf32>
  %ssc = tosa.mul %sc, %scale, %shift : (tensor<2x2x16xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<2x2x16xf32>
  %mx = tosa.reduce_max %ssc {axis = 2 : i32} : (tensor<2x2x16xf32>) -> tensor<2x2x1xf32>
  %d = tosa.sub %ssc, %mx : (tensor<2x2x16xf32>, tensor<2x2x1xf32>) -> tensor<2x2x16xf32>
  %e = tosa.exp %d : (tensor<2x2x16xf32>) -> tensor<2x2x16xf32>
  %se = tosa.reduce_sum %e {axis = 2 : i32} : (tensor<2x2x16xf32>) -> tensor<2x2x1xf32>
  %ri = tosa.reciprocal %se : (tensor<2x2x1xf32>) -> tensor<2x2x1xf32>
  %p = tosa.mul %e, %ri, %shift : (tensor<2x2x16xf32>, tensor<2x2x1xf32>, tensor<1xi8>) -> tensor<2x2x16xf32>
  %att = tosa.matmul %p, %v3, %zp, %zp : (tensor<2x2x16xf32>, tensor<2x16x32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<2x2x32xf32>
  %s3o = tosa.const_shape {values = dense<[1, 1, 128]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %a3 = tosa.reshape %att, %s3o : (tensor<2x2x32xf32>, !tosa.shape<3>) -> tensor<1x1x128xf32>
  %ao = tosa.matmul %a3, %wo, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x128xf32>
  %h = tosa.add %x, %ao : (tensor<1x1x128xf32>, tensor<1x1x128xf32>) -> tensor<1x1x128xf32>
  // RMSNorm 2 and the gated MLP
  %sq2 = tosa.mul %h, %h, %shift : (tensor<1x1x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  %ss2 = tosa.reduce_sum %sq2 {axis = 2 : i32} : (tensor<1x1x128xf32>) -> tensor<1x1x1xf32>
  %ms2 = tosa.mul %ss2, %inv_d, %shift : (tensor<1x1x1xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x1xf32>
  %me2 = tosa.add %ms2, %eps : (tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %r2 = tosa.rsqrt %me2 : (tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  %hn0 = tosa.mul %h, %r2, %shift : (tensor<1x1x128xf32>, tensor<1x1x1xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  %hn = tosa.mul %hn0, %g2, %shift : (tensor<1x1x128xf32>, tensor<1x1x128xf32>, tensor<1xi8>) -> tensor<1x1x128xf32>
  %gt = tosa.matmul %hn, %wg, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x256xf32>
  %up = tosa.matmul %hn, %wu, %zp, %zp : (tensor<1x1x128xf32>, tensor<1x128x256xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x256xf32>
  %sg = tosa.sigmoid %gt : (tensor<1x1x256xf32>) -> tensor<1x1x256xf32>
  %sl = tosa.mul %gt, %sg, %shift : (tensor<1x1x256xf32>, tensor<1x1x256xf32>, tensor<1xi8>) -> tensor<1x1x256xf32>
  %gu = tosa.mul %sl, %up, %shift : (tensor<1x1x256xf32>, tensor<1x1x256xf32>, tensor<1xi8>) -> tensor<1x1x256xf32>
  %dn = tosa.matmul %gu, %wd, %zp, %zp : (tensor<1x1x256xf32>, tensor<1x256x128xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x128xf32>
  %y = tosa.add %h, %dn : (tensor<1x1x128xf32>, tensor<1x1x128xf32>) -> tensor<1x1x128xf32>
  return %y, %kn, %vn : tensor<1x1x128xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>
}
