// A whole model: a three-layer Llama-style decoder in torch-mlir's TOSA style
// (bench/models/llama_tosa.py at tiny shapes). Subprograms span layer
// boundaries (views lift, so they are large), so the first layer is cut
// differently; the third layer's subprograms are the second's: searched once. The
// module-level progress line counts them; a second compile takes every
// answer from the cache (kept ones and those max-states stopped included)
// and prints the same module. Each search is bounded by work (20000 states,
// one thread), so the output is the same on any machine at any load.
// RUN: %python %mirage_src/bench/models/llama_tosa.py --layers 3 --seq 8 --hidden 64 --heads 4 --ffn 96 > %t.mlir
// RUN: rm -rf %t.cache
// RUN: mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache-dir=%t.cache" --mirage-progress %t.mlir 2>%t.cold.err >%t.cold
// RUN: FileCheck %s --check-prefix=COLD < %t.cold.err
// RUN: mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache-dir=%t.cache" --mirage-progress %t.mlir 2>%t.warm.err >%t.warm
// RUN: FileCheck %s --check-prefix=WARM < %t.warm.err
// RUN: cmp %t.cold %t.warm
// COLD: [mirage-search] 1/9 subprograms (1 searched, 0 from the cache, 0 deduplicated), {{[0-9.]+}} s, about {{[0-9]+}} s left
// COLD: [mirage-search] 9/9 subprograms (5 searched, 0 from the cache, 4 deduplicated), {{[0-9.]+}} s, about 0 s left
// WARM-NOT: states
// WARM: [mirage-search] 9/9 subprograms (0 searched, 5 from the cache, 4 deduplicated)
// That the lifted subprograms compute what their ops compute is checked in
// lift/coverage.mlir (the same generator, two layers: the third's
// subprograms are the second's).
