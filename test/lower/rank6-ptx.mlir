// REQUIRES: ptxas, libdevice
// The kernels of rank6.mlir (tiles of rank 6, rank-7 stage buffers, a
// rank-5 input layout, rank-6 views) as PTX for sm_90 and sm_80, accepted
// by ptxas (--mirage-lower="ptxas=true" fails the run otherwise).
// RUN: mirage-opt --mirage-lift --mirage-lower="ptxas=true" --mirage-remarks %S/rank6.mlir 2>&1 >/dev/null | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-lower="target=sm_80 ptxas=true" --mirage-remarks %S/rank6.mlir 2>&1 >/dev/null | FileCheck %s
// CHECK: remark: mirage-ptxas: '@rank6_gpu': ptxas accepts 15 kernel(s)
// CHECK: remark: mirage-ptxas: '@rmsnorm_rank6_lax0_gpu': ptxas accepts
