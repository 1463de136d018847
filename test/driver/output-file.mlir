// -o replaces its file only after the whole run succeeded, and every write
// error fails the run with a message.
//
// A bad option with -o naming the input leaves the input intact.
// RUN: rm -rf %t.d && mkdir %t.d
// RUN: cp %s %t.d/in.mlir
// RUN: not mirage-opt %t.d/in.mlir --mirage-lift=max-ops=0 -o %t.d/in.mlir 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: cmp %s %t.d/in.mlir
// So does a pass that fails, and malformed input.
// RUN: not mirage-opt %t.d/in.mlir --mirage-check-equiv="lhs=nope rhs=nada" -o %t.d/in.mlir 2>/dev/null
// RUN: cmp %s %t.d/in.mlir
// RUN: printf 'func.func @broken(' > %t.d/bad.mlir
// RUN: cp %s %t.d/out.mlir
// RUN: not mirage-opt %t.d/bad.mlir -o %t.d/out.mlir 2>/dev/null
// RUN: cmp %s %t.d/out.mlir
// No temporary file is left behind, after failures or success.
// RUN: mirage-opt %t.d/in.mlir --mirage-lift -o %t.d/in.mlir
// RUN: FileCheck %s --check-prefix=LIFTED < %t.d/in.mlir
// RUN: ls -A %t.d | FileCheck %s --check-prefix=NOTMP --implicit-check-not=.
// The file keeps its permissions.
// RUN: chmod 640 %t.d/in.mlir && mirage-opt %t.d/in.mlir -o %t.d/in.mlir
// RUN: %python -c "import os, sys; sys.exit(os.stat(sys.argv[1]).st_mode & 0o777 != 0o640)" %t.d/in.mlir
// Write errors: a full device, as -o or as stdout.
// RUN: not mirage-opt %s -o /dev/full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not mirage-opt %s > /dev/full 2> %t.err
// RUN: FileCheck %s --check-prefix=FULLOUT < %t.err
// A directory that does not exist.
// RUN: not mirage-opt %s -o %t.nodir/out.mlir 2>&1 | FileCheck %s --check-prefix=NODIR
// Special files are written directly.
// RUN: mirage-opt %s -o /dev/null

// BADOPT: mirage-opt: value 0 of option 'max-ops' of 'mirage-lift' is out of range
// LIFTED: ug.level = "kernel"
// NOTMP: bad.mlir
// NOTMP-NEXT: in.mlir
// NOTMP-NEXT: out.mlir
// FULL: mirage-opt: cannot write '/dev/full': No space left on device
// FULLOUT: mirage-opt: cannot write '<stdout>': No space left on device
// NODIR: mirage-opt: cannot open '{{.*}}.nodir/out.mlir': No such file or directory

func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = tosa.add %x, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = tosa.exp %a : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %e : tensor<4x8xf32>
}
