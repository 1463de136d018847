// Fuzz-style checks around casts (Inputs/fuzz_casts.py): random chains of
// f32 / f16 / bf16 casts next to unary, binary, splat and reduction ops,
// views and matmuls, in TOSA, in linalg with one generic per step, and in
// linalg with the casts inside the next op's body. Every module must lift
// and validate with no "internal" diagnostic, and round-trip through
// --mirage-unlift; with mirage-run, the lifted kernel graphs must agree
// with their references. Deterministic (fixed seeds). By hand: seeds 1-20
// with mirage-run (12 modules each) and 101-105 without (40 each), 3,500
// functions, passed. Before the fix about 3 % of such functions stopped
// the pass with "internal: could not insert kernel graph" (a unary or
// scalar op given the type of the narrowing cast after it).
//
// Half as many modules in the sanitized run.
// RUN: rm -rf %t && python3 %S/Inputs/fuzz_casts.py --mirage-opt mirage-opt --seed 7 --count %if asan %{15%} %else %{30%} --tmp %t | FileCheck %s
// CHECK: fuzz-casts: {{30|15}} modules of 8 functions, 0 failures
// RUN: rm -rf %t.n && python3 %S/Inputs/fuzz_casts.py --mirage-opt mirage-opt --mirage-run mirage-run --seed 3 --count %if asan %{5%} %else %{10%} --tmp %t.n | FileCheck %s --check-prefix=NUM
// NUM: fuzz-casts: {{10|5}} modules of 8 functions, 0 failures
