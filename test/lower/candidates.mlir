// Lowering fuzz: for each of the six benchmarks at small shapes, the first
// distinct programs the search generates (verified or not, one- and
// two-kernel, many grids, maps and accumulators) are lowered to their CPU
// form, JIT-compiled and compared with the interpreter on the same inputs.
// The search stops enumerating after 4·N complete candidates (one thread:
// the same ones on any machine, however loaded; a time budget used to cut
// it short and a loaded machine then lowered none), so each benchmark
// lowers exactly N = 8 distinct programs and all of them must agree.
// (`mirage-run --lower-candidates=60` on the same file lowered 255
// programs, all in agreement; docs/lower.md.)
// The sanitized run leaves it out (48 programs JIT-compiled, minutes under
// ASan); the CPU lowering of such kernels is sanitized in cpu.mlir,
// reductions.mlir, online-softmax.mlir, rank6.mlir (--lower-candidates=8).
// UNSUPPORTED: asan
// RUN: mirage-run --lower-candidates=8 %S/Inputs/small-benchmarks.mlir | FileCheck %s
// RUN: not mirage-run --lower-candidates=0 %S/Inputs/small-benchmarks.mlir 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: @rmsnorm_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// CHECK: @gqa_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// CHECK: @qknorm_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// CHECK: @lora_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// CHECK: @gated_mlp_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// CHECK: @ntrans_small_lax0: 8 search candidate(s) lowered, 8 agree with the interpreter
// BAD: invalid --lower-candidates value '0' (expected 1..10000)
