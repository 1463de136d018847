// Unknown options and bad values name the option and fail.
// RUN: not mirage-opt --mirage-superopt="bogus=1" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-opt --mirage-superopt="max-block-ops=seven" %s 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not mirage-opt --mirage-superopt="max-block-ops=0" %s 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mirage-opt --mirage-superopt="target=sm_42" %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not mirage-opt --mirage-superopt="time-budget-s=-3" %s 2>&1 | FileCheck %s --check-prefix=FLOAT
// RUN: not mirage-opt --mirage-superopt="threads" %s 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not mirage-opt --pass-pipeline='builtin.module(mirage-superopt{bogus=1})' %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mirage-opt --mirage-check-equiv="lhs=f" %s 2>&1 | FileCheck %s --check-prefix=REQUIRED
// The search's own limits are the options' ranges, checked before any work
// (no lift remark): nothing the pass accepts is refused by the search.
// RUN: not mirage-opt --mirage-superopt="max-kernel-ops=13" --mirage-remarks %s 2>&1 | FileCheck %s --check-prefix=KOPS
// RUN: not mirage-opt --mirage-search="max-custom-kernels=13" %s 2>&1 | FileCheck %s --check-prefix=CUSTOM
// RUN: not mirage-opt --mirage-superopt="time-budget-s=inf" --mirage-remarks %s 2>&1 | FileCheck %s --check-prefix=INF
// A budget above the stated maximum (a day) is refused, not read as "none"
// (issue 33); the maximum itself is accepted.
// RUN: not mirage-opt --mirage-superopt="time-budget-s=1e308" --mirage-remarks %s 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not mirage-opt --mirage-search="time-budget-s=86400.5" %s 2>&1 | FileCheck %s --check-prefix=ABOVE
// RUN: mirage-opt --mirage-search="time-budget-s=86400" %s -o /dev/null
// RUN: not mirage-opt --mirage-search="max-states=-1" %s 2>&1 | FileCheck %s --check-prefix=STATES
// RUN: not mirage-opt --mirage-search="max-states=1099511627777" %s 2>&1 | FileCheck %s --check-prefix=STATES
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 max-kernel-ops=12 max-custom-kernels=12" %s -o /dev/null
// An unusable cache directory is a warning on stderr (the search runs
// without the cache), also without --mirage-remarks.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache-dir=/proc/mirage-nope" %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=CACHE
// The shared cache's options (test/search/cache-shared.mlir runs it).
// RUN: not mirage-opt --mirage-superopt="cache-url=redis://h:0" %s 2>&1 | FileCheck %s --check-prefix=URL-PORT
// RUN: not mirage-opt --mirage-superopt="cache-url=redis://h:6379/16" %s 2>&1 | FileCheck %s --check-prefix=URL-DB
// RUN: not mirage-opt --mirage-superopt="cache-url=redis://" %s 2>&1 | FileCheck %s --check-prefix=URL-HOST
// RUN: not mirage-opt --mirage-superopt="cache-timeout-s=0" %s 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: not mirage-opt --mirage-search="cache-ttl-s=-1" %s 2>&1 | FileCheck %s --check-prefix=TTL

// UNKNOWN: unknown option 'bogus' for pass 'mirage-superopt'
// NOTINT: invalid value 'seven' for option 'max-block-ops' of 'mirage-superopt': expected an integer
// RANGE: value 0 of option 'max-block-ops' of 'mirage-superopt' is out of range [1, 32]
// TARGET: unknown target 'sm_42'
// FLOAT: invalid value '-3' for option 'time-budget-s'
// NOVALUE: option 'threads' of 'mirage-superopt' needs a value
// REQUIRED: 'mirage-check-equiv' needs both 'lhs' and 'rhs' options
// KOPS-NOT: mirage-lift
// KOPS: value 13 of option 'max-kernel-ops' of 'mirage-superopt' is out of range [1, 12]
// KOPS-NOT: mirage-lift
// CUSTOM: value 13 of option 'max-custom-kernels' of 'mirage-search' is out of range [0, 12]
// INF-NOT: mirage-lift
// INF: option 'time-budget-s' is inf, expected 0..86400 seconds (0: no budget)
// INF-NOT: mirage-lift
// HUGE-NOT: mirage-lift
// HUGE: option 'time-budget-s' is 1e+308, expected 0..86400 seconds (0: no budget)
// HUGE-NOT: mirage-lift
// ABOVE: option 'time-budget-s' is 86400.5, expected 0..86400 seconds (0: no budget)
// STATES: option 'max-states' of 'mirage-search' is out of range [0, 1099511627776]
// URL-PORT: cache-url 'redis://h:0' has a bad port
// URL-DB: cache-url 'redis://h:6379/16' is not redis://HOST[:PORT][/DB] (DB 0..15)
// URL-HOST: cache-url 'redis://' has no host
// TIMEOUT: cache-timeout-s must be in (0, 600] seconds
// TTL: option 'cache-ttl-s' of 'mirage-search' is out of range
// CACHE: mirage-search: warning: cache-dir '/proc/mirage-nope' cannot be created or written ({{.*}}); results are not cached
func.func @f() {
  return
}
