// Lowering fuzz: for each of the six benchmarks at small shapes, the first
// distinct programs the search generates (verified or not, one- and
// two-kernel, many grids, maps and accumulators) are lowered to their CPU
// form, JIT-compiled and compared with the interpreter on the same inputs.
// How many the search makes within its short budget depends on the
// machine, so the count is only required to be positive and all of them
// to agree. (`mirage-run --lower-candidates=60` on the same file lowered
// 255 programs, all in agreement; docs/lower.md.)
// RUN: mirage-run --lower-candidates=8 %S/Inputs/small-benchmarks.mlir | FileCheck %s
// RUN: not mirage-run --lower-candidates=0 %S/Inputs/small-benchmarks.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: @rmsnorm_small_lax0: [[NRMSNORM:[1-9][0-9]*]] search candidate(s) lowered, [[NRMSNORM]] agree with the interpreter
// CHECK: @gqa_small_lax0: [[NGQA:[1-9][0-9]*]] search candidate(s) lowered, [[NGQA]] agree with the interpreter
// CHECK: @qknorm_small_lax0: [[NQKNORM:[1-9][0-9]*]] search candidate(s) lowered, [[NQKNORM]] agree with the interpreter
// CHECK: @lora_small_lax0: [[N:[1-9][0-9]*]] search candidate(s) lowered, [[N]] agree with the interpreter
// CHECK: @gated_mlp_small_lax0: [[NGATED:[1-9][0-9]*]] search candidate(s) lowered, [[NGATED]] agree with the interpreter
// CHECK: @ntrans_small_lax0: [[NNTRANS:[1-9][0-9]*]] search candidate(s) lowered, [[NNTRANS]] agree with the interpreter
// BAD: invalid --lower-candidates value '0' (expected 1..10000)
