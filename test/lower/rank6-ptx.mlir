// REQUIRES: ptxas, libdevice
// The sanitized run leaves this test out: it repeats a plain-run PTX check,
// whose time is upstream's NVPTX back end and ptxas; the code of ours it
// runs is sanitized in rank6.mlir.
// UNSUPPORTED: asan
// The kernels of rank6.mlir (tiles of rank 6, rank-7 stage buffers, a
// rank-5 input layout, rank-6 views, two of them folded into their
// readers) as PTX for sm_90 and sm_80, accepted by ptxas
// (--mirage-lower="ptxas=true" fails the run otherwise).
// RUN: mirage-opt --mirage-lift --mirage-lower="ptxas=true" --mirage-remarks %S/rank6.mlir 2>&1 >/dev/null | FileCheck %s
// RUN: mirage-opt --mirage-lift --mirage-lower="target=sm_80 ptxas=true" --mirage-remarks %S/rank6.mlir 2>&1 >/dev/null | FileCheck %s
// CHECK: remark: mirage-ptxas: '@rank6_gpu': ptxas accepts 13 kernel(s)
// CHECK: remark: mirage-ptxas: '@rmsnorm_rank6_lax0_gpu': ptxas accepts
// Launched through mirage-run's stand-in CUDA driver (it runs no kernel,
// so the outputs mismatch, but it checks every launch's parameters against
// the PTX): a rank-6 memref is 3 + 2·6 words.
// RUN: env MIRAGE_CUDA_LIBRARY="$(dirname "$(command -v mirage-run)")/libmirage-fake-cuda.so" MIRAGE_FAKE_CUDA_LOG=1 not mirage-run --time=1 --warmup=0 --toolkit=%cuda_toolkit %S/rank6.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: fake-cuda: launch rank6_gpu_k4 grid 2x3x1 block 64 smem 0: b0 b0 0 2 3 2 2 4 64 3072 1024 512 256 64 1 b[[R:[0-9]+]] b[[R]] 0 2 3 2 2 4 1 48 16 8 4 1 1
// LAUNCH-COUNT-12: fake-cuda: launch rank6_gpu_k
