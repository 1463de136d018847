// Calls host=device's @add (test/lower/host-strides.mlir) on CPU memory
// the way a runtime would: dense buffers, then views that break what its
// kernel reads. Linked with the host code and run by lli, one entry
// function per case (its i32 result, 0, is lli's exit status).
!arg = memref<4x8xf32, strided<[?, ?], offset: ?>>
func.func private @add(!arg, !arg, !arg)

//===----------------------------------------------------------------------===//
// A stand-in for upstream's CUDA runtime wrappers (libmlir_cuda_runtime):
// streams and modules are null, and a launch says so on stderr and runs
// the one kernel of the test, c = a + b over 32 floats, on the CPU from
// the aligned pointers it is given (parameters 1, 8 and 15: each rank-2
// memref comes as allocated, aligned, offset, 2 sizes, 2 strides).
//===----------------------------------------------------------------------===//
llvm.mlir.global private constant @launched("launch\0A") {addr_space = 0 : i32}
llvm.func @write(i32, !llvm.ptr, i64) -> i64
llvm.func @mgpuStreamCreate() -> !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @mgpuStreamSynchronize(%s: !llvm.ptr) { llvm.return }
llvm.func @mgpuStreamDestroy(%s: !llvm.ptr) { llvm.return }
llvm.func @mgpuModuleLoadJIT(%p: !llvm.ptr, %o: i32) -> !llvm.ptr {
  %0 = llvm.mlir.zero : !llvm.ptr
  llvm.return %0 : !llvm.ptr
}
llvm.func @mgpuModuleUnload(%m: !llvm.ptr) { llvm.return }
llvm.func @mgpuModuleGetFunction(%m: !llvm.ptr, %n: !llvm.ptr) -> !llvm.ptr {
  llvm.return %n : !llvm.ptr
}
llvm.func @aligned_param(%params: !llvm.ptr, %i: i64) -> !llvm.ptr {
  %slot = llvm.getelementptr %params[%i] : (!llvm.ptr, i64) -> !llvm.ptr, !llvm.ptr
  %value = llvm.load %slot : !llvm.ptr -> !llvm.ptr
  %p = llvm.load %value : !llvm.ptr -> !llvm.ptr
  llvm.return %p : !llvm.ptr
}
llvm.func @mgpuLaunchKernel(%f: !llvm.ptr, %gx: i64, %gy: i64, %gz: i64, %bx: i64, %by: i64, %bz: i64, %smem: i32, %s: !llvm.ptr, %params: !llvm.ptr, %extra: !llvm.ptr, %n: i64) {
  %fd = llvm.mlir.constant(2 : i32) : i32
  %len = llvm.mlir.constant(7 : i64) : i64
  %m = llvm.mlir.addressof @launched : !llvm.ptr
  %w = llvm.call @write(%fd, %m, %len) : (i32, !llvm.ptr, i64) -> i64
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  %c8 = llvm.mlir.constant(8 : i64) : i64
  %c15 = llvm.mlir.constant(15 : i64) : i64
  %c32 = llvm.mlir.constant(32 : i64) : i64
  %a = llvm.call @aligned_param(%params, %c1) : (!llvm.ptr, i64) -> !llvm.ptr
  %b = llvm.call @aligned_param(%params, %c8) : (!llvm.ptr, i64) -> !llvm.ptr
  %c = llvm.call @aligned_param(%params, %c15) : (!llvm.ptr, i64) -> !llvm.ptr
  llvm.br ^loop(%c0 : i64)
^loop(%i: i64):
  %done = llvm.icmp "eq" %i, %c32 : i64
  llvm.cond_br %done, ^exit, ^body
^body:
  %pa = llvm.getelementptr %a[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %pb = llvm.getelementptr %b[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %pc = llvm.getelementptr %c[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x = llvm.load %pa : !llvm.ptr -> f32
  %y = llvm.load %pb : !llvm.ptr -> f32
  %z = llvm.fadd %x, %y : f32
  llvm.store %z, %pc : f32, !llvm.ptr
  %next = llvm.add %i, %c1 : i64
  llvm.br ^loop(%next : i64)
^exit:
  llvm.return
}

//===----------------------------------------------------------------------===//
// The cases.
//===----------------------------------------------------------------------===//
llvm.mlir.global private constant @right("dense: c = a + b\0A") {addr_space = 0 : i32}
llvm.mlir.global private constant @wrong("dense: wrong values\0A") {addr_space = 0 : i32}

// v[i, j] = 8 i + j + bias.
func.func @fill(%v: memref<4x8xf32>, %bias: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %r = arith.muli %i, %c8 : index
      %k = arith.addi %r, %j : index
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      %x = arith.addf %kf, %bias : f32
      memref.store %x, %v[%i, %j] : memref<4x8xf32>
    }
  }
  return
}

// Dense, 16-byte aligned, offset 0: a = 8 i + j, b = a + 100, so every
// c[i, j] must be 2 (8 i + j) + 100; prints which.
func.func @dense() -> i32 {
  %a = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %b = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %c = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %hundred = arith.constant 100.0 : f32
  %minus = arith.constant -1.0 : f32
  call @fill(%a, %zero) : (memref<4x8xf32>, f32) -> ()
  call @fill(%b, %hundred) : (memref<4x8xf32>, f32) -> ()
  call @fill(%c, %minus) : (memref<4x8xf32>, f32) -> ()
  %ac = memref.cast %a : memref<4x8xf32> to !arg
  %bc = memref.cast %b : memref<4x8xf32> to !arg
  %cc = memref.cast %c : memref<4x8xf32> to !arg
  call @add(%ac, %bc, %cc) : (!arg, !arg, !arg) -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %true = arith.constant true
  %ok = scf.for %i = %c0 to %c4 step %c1 iter_args(%oi = %true) -> (i1) {
    %row = scf.for %j = %c0 to %c8 step %c1 iter_args(%oj = %oi) -> (i1) {
      %x = memref.load %a[%i, %j] : memref<4x8xf32>
      %y = memref.load %b[%i, %j] : memref<4x8xf32>
      %z = memref.load %c[%i, %j] : memref<4x8xf32>
      %s = arith.addf %x, %y : f32
      %eq = arith.cmpf oeq, %s, %z : f32
      %both = arith.andi %oj, %eq : i1
      scf.yield %both : i1
    }
    scf.yield %row : i1
  }
  %fd = arith.constant 2 : i32
  scf.if %ok {
    %m = llvm.mlir.addressof @right : !llvm.ptr
    %n = arith.constant 17 : i64
    %w = llvm.call @write(%fd, %m, %n) : (i32, !llvm.ptr, i64) -> i64
  } else {
    %m = llvm.mlir.addressof @wrong : !llvm.ptr
    %n = arith.constant 20 : i64
    %w = llvm.call @write(%fd, %m, %n) : (i32, !llvm.ptr, i64) -> i64
  }
  %status = arith.constant 0 : i32
  return %status : i32
}

// Rows 2..5 of an 8x8 buffer as b: dense strides, offset 16.
func.func @offset() -> i32 {
  %big = memref.alloc() {alignment = 16 : i64} : memref<8x8xf32>
  %a = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %s = memref.subview %big[2, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  %c = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %sc = memref.cast %s : memref<4x8xf32, strided<[8, 1], offset: 16>> to !arg
  %ac = memref.cast %a : memref<4x8xf32> to !arg
  %cc = memref.cast %c : memref<4x8xf32> to !arg
  call @add(%ac, %sc, %cc) : (!arg, !arg, !arg) -> ()
  %status = arith.constant 0 : i32
  return %status : i32
}

// Every other column of a 4x16 buffer as c: offset 0, strides [16, 2].
func.func @stride() -> i32 {
  %big = memref.alloc() {alignment = 16 : i64} : memref<4x16xf32>
  %a = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %s = memref.subview %big[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
  %sc = memref.cast %s : memref<4x8xf32, strided<[16, 2]>> to !arg
  %ac = memref.cast %a : memref<4x8xf32> to !arg
  call @add(%ac, %ac, %sc) : (!arg, !arg, !arg) -> ()
  %status = arith.constant 0 : i32
  return %status : i32
}

// The first 8 columns of a 4x16 buffer as c: offset 0, strides [16, 1]
// (only the row stride differs).
func.func @row_stride() -> i32 {
  %big = memref.alloc() {alignment = 16 : i64} : memref<4x16xf32>
  %a = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %s = memref.subview %big[0, 0] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1]>>
  %sc = memref.cast %s : memref<4x8xf32, strided<[16, 1]>> to !arg
  %ac = memref.cast %a : memref<4x8xf32> to !arg
  call @add(%ac, %ac, %sc) : (!arg, !arg, !arg) -> ()
  %status = arith.constant 0 : i32
  return %status : i32
}

// A dense 4x8 view 4 bytes into a 16-byte aligned buffer as a: offset 0,
// strides [8, 1], the aligned pointer at 4 mod 16 (memref.view moves the
// pointer itself).
func.func @unaligned() -> i32 {
  %raw = memref.alloc() {alignment = 16 : i64} : memref<132xi8>
  %c4 = arith.constant 4 : index
  %v = memref.view %raw[%c4][] : memref<132xi8> to memref<4x8xf32>
  %b = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %c = memref.alloc() {alignment = 16 : i64} : memref<4x8xf32>
  %vc = memref.cast %v : memref<4x8xf32> to !arg
  %bc = memref.cast %b : memref<4x8xf32> to !arg
  %cc = memref.cast %c : memref<4x8xf32> to !arg
  call @add(%vc, %bc, %cc) : (!arg, !arg, !arg) -> ()
  %status = arith.constant 0 : i32
  return %status : i32
}
