// mirage-fuzz --emit: input i of seed s is the same mutant on every run
// (the corpus in sorted path order, a random state made from (s, i) only),
// so a fuzz finding is reproduced from its seed and index alone.
// RUN: mirage-fuzz --seed=7 --emit=123 %mirage_src/test %mirage_src/examples > %t.a
// RUN: mirage-fuzz --seed=7 --emit=123 %mirage_src/examples %mirage_src/test > %t.b
// RUN: diff %t.a %t.b
// RUN: FileCheck %s < %t.a
// CHECK: // mirage-fuzz --seed=7 --emit=123: {{.*}}.mlir:{{[0-9]+}}, mutations:
// CHECK-NEXT: // pipeline {{[a-z-]+}}: mirage-opt --mirage-
//
// Bad arguments are one message each.
// RUN: not mirage-fuzz --jobs=0 %mirage_src/examples 2>&1 | FileCheck %s --check-prefix=JOBS
// JOBS: mirage-fuzz: invalid value in '--jobs=0'
// RUN: not mirage-fuzz 2>&1 | FileCheck %s --check-prefix=CORPUS
// CORPUS: mirage-fuzz: no corpus
