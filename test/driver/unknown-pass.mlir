// RUN: not mirage-opt --no-such-pass %s 2>&1 | FileCheck %s
// RUN: not mirage-opt --mirage-no-such-pass %s 2>&1 | FileCheck %s --check-prefix=MIRAGE
// RUN: not mirage-opt --pass-pipeline='builtin.module(no-such-pass)' %s 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not mirage-opt -x %s 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not mirage-opt --pass-pipeline='builtin.module(cse)' --canonicalize %s 2>&1 | FileCheck %s --check-prefix=MIX

// CHECK: mirage-opt: unknown option or pass '--no-such-pass'
// MIRAGE: mirage-opt: unknown Mirage pass 'mirage-no-such-pass'
// PIPE: mirage-opt: invalid --pass-pipeline: {{.*}}'no-such-pass' does not refer to a registered pass
// FLAG: mirage-opt: unknown option '-x'
// MIX: mirage-opt: --pass-pipeline cannot be combined with pass flags
func.func @f() {
  return
}
