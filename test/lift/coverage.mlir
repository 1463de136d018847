// --mirage-remarks ends with the module's coverage: ops lifted and left,
// the mean kernel-graph size, and the cuts by reason (numbers in reasons
// read N, so cuts of one kind count together), most frequent first.
// Input: the two-layer Llama of bench/models/llama_tosa.py at tiny shapes.
// RUN: %python %mirage_src/bench/models/llama_tosa.py --layers 2 --seq 8 --hidden 64 --heads 4 --ffn 96 > %t.mlir
// RUN: mirage-opt --mirage-lift --mirage-remarks %t.mlir 2>&1 >/dev/null | FileCheck %s
// CHECK: remark: mirage-lift: '@forward': lifted 6 subprograms
// Head split/merge reshapes, head transposes, Kᵀ and RoPE's slices and
// concat lift as view ops, the stable softmax's max as ug.reduce_max:
// nothing is left.
// CHECK: remark: mirage-lift: module: 216 of 216 tensor ops lifted (100.0 %) into 6 subprograms, 14.0 μGraph ops each on average; 0 left in place{{$}}
// CHECK-NOT: module:
// Every subprogram agrees with its original ops: the μGraph interpreter
// and (bf16) the JIT of our own lowering against the reference's JIT.
// The two-layer numbers in the plain run (the sanitized run JIT-compiles
// and interprets the one-layer bf16 model below, the same ops):
// RUN: %if !asan %{ mirage-run --lift --range=0.25 %t.mlir | FileCheck %s --check-prefixes=AGREE,TWO %}
// RUN: %python %mirage_src/bench/models/llama_tosa.py --layers 1 --seq 8 --hidden 64 --heads 4 --ffn 96 --dtype bf16 > %t.bf16.mlir
// RUN: mirage-run --lift --lower --range=0.25 %t.bf16.mlir | FileCheck %s --check-prefix=AGREE
// AGREE: @forward_lax0: {{.*}}: ok
// AGREE: @forward_lax1: {{.*}}: ok
// AGREE: @forward_lax2: {{.*}}: ok
// TWO: @forward_lax3: {{.*}}: ok
// TWO: @forward_lax4: {{.*}}: ok
// TWO: @forward_lax5: {{.*}}: ok
// AGREE-NOT: MISMATCH
// A module lifted whole says so, with no reasons.
// RUN: mirage-opt --mirage-lift --mirage-remarks %mirage_src/test/lift/rmsnorm-tosa.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE
// WHOLE: remark: mirage-lift: module: 13 of 13 tensor ops lifted (100.0 %) into 2 subprograms, 6.0 μGraph ops each on average; 0 left in place{{$}}
// WHOLE-NOT: module:
// The whole pipeline prints it too.
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 lower=false cache=false" --mirage-remarks %mirage_src/test/lift/rmsnorm-tosa.mlir 2>&1 >/dev/null | FileCheck %s --check-prefix=WHOLE
