// Two more GEMV forms (gemv.c):
//  - more than 8 rows (at most 32) go in row groups of at most 8, one
//    block per column block and row group, the row group the block
//    index's fastest digit (16 rows: 2 groups of 8; 12 rows: 2 of 6);
//  - B stored transposed (nn.Linear's weight W read as Wᵀ): each warp takes
//    2 columns (M > 8) or 4 (M <= 8), reads W's rows along K with 16-byte
//    vectors, A staged in shared memory one chunk of K (32 vectors) at a
//    time between two barriers, FMAs into partial sums (4 wide for at
//    most 8 sums, else 2) reduced after the last chunk, and the lane's
//    sums meet by shuffles (offsets 16 .. 1). The CPU form runs the same code with the threads
//    as loops, so mirage-run checks the chunks, the columns and the lanes'
//    positions against the interpreter (f16, bf16, f32; 3, 5, 16 rows).
// RUN: mirage-run --lower %s | FileCheck %s
// RUN: mirage-opt --mirage-lower="ptx=false" %s | FileCheck %s --check-prefix=GPU

// CHECK-DAG: @rows16: 1 output, 8192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @rows12: 1 output, 1536 elements, max abs error {{.*}}: ok
// CHECK-DAG: @dot16: 1 output, 8192 elements, max abs error {{.*}}: ok
// CHECK-DAG: @dot3: 1 output, 384 elements, max abs error {{.*}}: ok
// CHECK-DAG: @dot5_f32: 1 output, 320 elements, max abs error {{.*}}: ok
// CHECK-NOT: MISMATCH

// 512 columns of 8 halves: 64 groups; 8 per block would be 8 column
// blocks x 2 row groups = 16 blocks, fewer than 128, so 2 per block: 32
// column blocks x 2 row groups = 64 blocks of 64 threads. A block's rows
// start at (bid mod 2) * 8.
// GPU-LABEL: gpu.func @rows16_gpu_k2(
// GPU-SAME: memref<16x256xf16>
// GPU-SAME: known_grid_size = array<i32: 64, 1, 1>
// GPU: %[[BID:.*]] = gpu.block_id x
// GPU-DAG: %[[RG:.*]] = arith.remui %[[BID]], %[[C2:.*]] : index
// GPU-DAG: %[[CB:.*]] = arith.divui %[[BID]], %[[C2]] : index
// GPU: %[[ROW0:.*]] = arith.muli %[[RG]], %[[C8:.*]] : index
// GPU: vector.fma
// GPU: gpu.return
// GPU-LABEL: func.func @rows16(
// GPU: gpu.launch_func async [%{{.*}}] @rows16_gpu::@rows16_gpu_k2 blocks in (%[[G:.*]], %{{.*}}, %{{.*}}) threads in (%[[T:.*]], %{{.*}}, %{{.*}})
func.func @rows16(%a: tensor<16x256xf16>, %b: tensor<256x512xf16>) -> tensor<16x512xf16> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<16x256xf16>, tensor<256x512xf16>) -> tensor<16x512xf16>
  func.return %c : tensor<16x512xf16>
}
func.func @rows12(%a: tensor<1x12x256xf32>, %b: tensor<1x256x128xf32>) -> tensor<1x12x128xf32> attributes {ug.level = "kernel"} {
  %c = "ug.matmul"(%a, %b) : (tensor<1x12x256xf32>, tensor<1x256x128xf32>) -> tensor<1x12x128xf32>
  func.return %c : tensor<1x12x128xf32>
}

// 16 rows: two columns per warp, 512 / 16 = 32 blocks of 256 threads. W
// is read through its stored rows (the layout's transpose undone), A from
// shared memory (16 x 256 halves), each A vector serving both columns;
// each product of 8 is four 2-wide FMAs into the sum's partial sum (16 x
// 2 x 4 = 128 a chunk); each lane then holds 32 sums: 5 halving stages
// (16 + 8 + 4 + 2 + 1 shuffles).
// GPU-LABEL: gpu.func @dot16_gpu_k2(
// GPU-SAME: workgroup(%[[SMEM:.*]] : memref<16x256xf16, #gpu.address_space<workgroup>>
// GPU-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 32, 1, 1>
// GPU: %[[VIEW:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<512x256xf16> to memref<256x512xf16, strided<[1, 256]>>
// GPU: %[[W:.*]] = memref.transpose %[[VIEW]] (d0, d1) -> (d1, d0) : memref<256x512xf16, strided<[1, 256]>> to memref<512x256xf16, strided<[256, 1]>>
// GPU: scf.for
// GPU: vector.store %{{.*}}, %[[SMEM]][%{{.*}}, %{{.*}}] : memref<16x256xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// GPU: gpu.barrier
// GPU: vector.load %[[W]][%{{.*}}, %{{.*}}] : memref<512x256xf16, strided<[256, 1]>>, vector<8xf16>
// GPU: vector.load %[[SMEM]][%{{.*}}, %{{.*}}] : memref<16x256xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// GPU: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// GPU: vector.shuffle %{{.*}} [6, 7] : vector<8xf32>, vector<8xf32>
// GPU-COUNT-128: vector.fma %{{.*}} : vector<2xf32>
// GPU: gpu.barrier
// GPU: scf.yield
// GPU-COUNT-32: vector.reduction <add>, %{{.*}} : vector<2xf32> into f32
// GPU-COUNT-31: gpu.shuffle  xor
// GPU-NOT: gpu.shuffle
// GPU: gpu.return
func.func @dot16(%a: tensor<16x256xf16>, %w: tensor<512x256xf16>) -> tensor<16x512xf16> attributes {ug.level = "kernel"} {
  %b = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<512x256xf16>) -> tensor<256x512xf16>
  %c = "ug.matmul"(%a, %b) : (tensor<16x256xf16>, tensor<256x512xf16>) -> tensor<16x512xf16>
  func.return %c : tensor<16x512xf16>
}
// 3 rows x 4 columns per warp: 12 sums, halved twice (3 left in each
// quarter of the warp), then butterflies: lanes 0, 8, 16 and 24 store.
func.func @dot3(%a: tensor<1x3x512xbf16>, %w: tensor<1x128x512xbf16>) -> tensor<1x3x128xbf16> attributes {ug.level = "kernel"} {
  %b = "ug.transpose"(%w) {perm = array<i64: 0, 2, 1>} : (tensor<1x128x512xbf16>) -> tensor<1x512x128xbf16>
  %c = "ug.matmul"(%a, %b) : (tensor<1x3x512xbf16>, tensor<1x512x128xbf16>) -> tensor<1x3x128xbf16>
  func.return %c : tensor<1x3x128xbf16>
}
// f32: 4 elements per vector, chunks of 128: K = 256 is two chunks.
func.func @dot5_f32(%a: tensor<5x256xf32>, %w: tensor<64x256xf32>) -> tensor<5x64xf32> attributes {ug.level = "kernel"} {
  %b = "ug.transpose"(%w) {perm = array<i64: 1, 0>} : (tensor<64x256xf32>) -> tensor<256x64xf32>
  %c = "ug.matmul"(%a, %b) : (tensor<5x256xf32>, tensor<256x64xf32>) -> tensor<5x64xf32>
  func.return %c : tensor<5x64xf32>
}
