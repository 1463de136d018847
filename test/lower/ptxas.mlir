// REQUIRES: ptxas
// --mirage-ptxas runs the CUDA assembler on the PTX of every gpu.binary:
// accepted PTX gets a remark with what ptxas reports, rejected PTX an error
// at the binary; --mirage-lower="ptxas=true" appends it after the PTX
// passes (see ptx.mlir for the lowering itself).
// RUN: mirage-opt --mirage-ptxas --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=GOOD
// RUN: not mirage-opt --mirage-ptxas %S/Inputs/bad-ptx.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mirage-opt --mirage-ptxas="toolkit=%t.nowhere" %s 2>&1 | FileCheck %s --check-prefix=NO-PTXAS
// RUN: not mirage-opt --mirage-lower="ptxas=true ptx=false" %S/Inputs/rms-kernel.mlir 2>&1 | FileCheck %s --check-prefix=NO-PTX
// ptxas assembles for the chip the binary was made for, not the option.
// RUN: mirage-opt --mirage-ptxas="target=sm_80" --mirage-remarks %s 2>&1 >/dev/null | FileCheck %s --check-prefix=CHIP
// ptxas says why it rejects (here: an sm_90 file assembled for sm_80).
// RUN: not mirage-opt --mirage-ptxas %S/Inputs/sm90-as-sm80.mlir 2>&1 | FileCheck %s --check-prefix=WHY

// GOOD: ptxas.mlir:[[@LINE+7]]:3: remark: mirage-ptxas: '@tiny': ptxas accepts 1 kernel(s) for sm_90: at most {{[0-9]+}} registers, 0 bytes of static shared memory, 0 bytes spilled
// BAD: bad-ptx.mlir:{{[0-9]+}}:3: error: mirage-ptxas: ptxas rejects the PTX of '@bad':
// NO-PTXAS: no ptxas at '{{.*}}nowhere/bin/ptxas' (set toolkit=...)
// NO-PTX: ptxas=true needs PTX, which ptx=false does not produce here
// CHIP: remark: mirage-ptxas: '@tiny': ptxas accepts 1 kernel(s) for sm_90
// WHY: error: mirage-ptxas: ptxas rejects the PTX of '@mislabeled': ptxas fatal{{.*}}SM version specified by .target is higher
module attributes {gpu.container_module} {
  gpu.binary @tiny [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A.version 7.8\0A.target sm_90\0A.address_size 64\0A\0A.visible .entry tiny()\0A{\0A\09ret;\0A}\0A">]
}
