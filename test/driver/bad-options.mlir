// Unknown options and bad values name the option and fail.
// RUN: not mirage-opt --mirage-superopt="bogus=1" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-opt --mirage-superopt="max-block-ops=seven" %s 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not mirage-opt --mirage-superopt="max-block-ops=0" %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mirage-opt --mirage-superopt="target=sm_42" %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not mirage-opt --mirage-superopt="time-budget-s=-3" %s 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not mirage-opt --mirage-superopt="threads" %s 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not mirage-opt --pass-pipeline='builtin.module(mirage-superopt{bogus=1})' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-opt --mirage-check-equiv="lhs=f" %s 2>&1 | FileCheck %s --check-prefix=REQUIRED

// UNKNOWN: unknown option 'bogus' for pass 'mirage-superopt'
// NOTINT: invalid value 'seven' for option 'max-block-ops' of 'mirage-superopt': expected an integer
// RANGE: value 0 of option 'max-block-ops' of 'mirage-superopt' is out of range [1, 32]
// TARGET: unknown target 'sm_42'
// FLOAT: invalid value '-3' for option 'time-budget-s'
// NOVALUE: option 'threads' of 'mirage-superopt' needs a value
// REQUIRED: 'mirage-check-equiv' needs both 'lhs' and 'rhs' options
func.func @f() {
  return
}
