// REQUIRES: mpi
// Not in the sanitized run: Open MPI's components (dlopen'd by MPI_Init)
// leave allocations to the process's exit that LeakSanitizer reports with
// stacks ending in unloaded modules, which no suppression can name.
// search_mpi.c's message handling is checked here, unsanitized; the cache
// and verification paths it calls run sanitized in cache-shared.mlir.
// UNSUPPORTED: asan
// The MPI search (docs/scale-out.md): under `mpirun -np 2` the module's
// distinct subprograms are spread over the two ranks, rank 0 verifies what
// rank 1 sends and alone writes the output, which is the single-process
// run's byte for byte. Searches are bounded by work (max-states, one
// thread), so every run finds the same μGraphs at any load.
//
// A three-layer decoder: 9 subprograms, 5 distinct; rank 1 gets 3.
// RUN: %python %mirage_src/bench/models/llama_tosa.py --layers 3 --seq 8 --hidden 64 --heads 4 --ffn 96 > %t.model.mlir
// RUN: mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache=false" %t.model.mlir -o %t.single
// RUN: %mpirun -np 2 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache=false" --mirage-remarks %t.model.mlir -o %t.two 2> %t.two.err
// RUN: cmp %t.single %t.two
// RUN: FileCheck %s --check-prefix=MODEL < %t.two.err
// MODEL: remark: mirage-search: '@forward_lax0' replaced by a verified μGraph: {{.*}} (from MPI rank 1, verified here)
// MODEL: remark: mirage-search: MPI: 2 rank(s), 5 distinct subprogram(s): rank 0 answered its 2; rank 1 was given 3: 3 searched, 0 from its caches, 3 used here after verification, 0 searched again on rank 0
// MODEL-NOT: warning
//
// With a cache: rank 1 writes its own entries, rank 0 keeps what it
// verified, so a later single-process run finds every answer on disk, and
// a second mpirun has rank 1 answer from its cache.
// RUN: rm -rf %t.cache
// RUN: %mpirun -np 2 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache-dir=%t.cache" %t.model.mlir -o %t.cold
// RUN: cmp %t.single %t.cold
// RUN: mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache-dir=%t.cache" --mirage-progress %t.model.mlir -o %t.warm 2> %t.warm.err
// RUN: cmp %t.single %t.warm
// RUN: FileCheck %s --check-prefix=WARM < %t.warm.err
// WARM: [mirage-search] 9/9 subprograms (0 searched, 5 from the cache, 4 deduplicated)
// RUN: %mpirun -np 2 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache-dir=%t.cache" --mirage-remarks %t.model.mlir -o %t.warm2 2> %t.warm2.err
// RUN: cmp %t.single %t.warm2
// RUN: FileCheck %s --check-prefix=WARM2 < %t.warm2.err
// WARM2: rank 1 was given 3: 0 searched, 3 from its caches, 3 used here after verification, 0 searched again on rank 0
//
// A paper benchmark (RMSNorm + matmul at the paper's shapes), lowered to
// kernels: alone in its file it goes to rank 1.
// RUN: sed -n '/^func.func @rmsnorm_paper/,/^}/p' %mirage_src/test/lift/rmsnorm-tosa.mlir > %t.rms.mlir
// RUN: mirage-opt --mirage-superopt="time-budget-s=0 cache=false ptx=false" %t.rms.mlir -o %t.rms.single
// RUN: %mpirun -np 2 mirage-opt --mirage-superopt="time-budget-s=0 cache=false ptx=false" --mirage-remarks %t.rms.mlir -o %t.rms.two 2> %t.rms.err
// RUN: cmp %t.rms.single %t.rms.two
// RUN: FileCheck %s --check-prefix=RMS < %t.rms.err
// RMS: '@rmsnorm_paper_lax0' replaced by a verified μGraph: 6 kernel(s) -> 1, {{.*}} (from MPI rank 1, verified here)
// RMS: rank 1 was given 1: 1 searched, 0 from its caches, 1 used here after verification
//
// Rank 1's entries damaged on the way (test hook): each is reported once,
// searched on rank 0, and the output is still right.
// RUN: %mpirun -np 2 -x MIRAGE_MPI_TEST_GARBLE=1 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache=false" %t.model.mlir -o %t.garbled 2> %t.garbled.err
// RUN: cmp %t.single %t.garbled
// RUN: FileCheck %s --check-prefix=GARBLED < %t.garbled.err
// GARBLED-COUNT-3: warning: mirage-search: rank 1's answer for '@forward_lax{{[024]}}' is not used, searched on rank 0: cache entry 'handed:{{[0-9a-f]+}}' fails its checksum
// GARBLED-NOT: warning
//
// Rank 1 killed as it starts its second subprogram (test hook). By
// default Open MPI ends the job: mpirun says which rank died and exits
// non-zero, and -o is left as it was.
// RUN: echo untouched > %t.killed
// RUN: not %mpirun -np 2 -x MIRAGE_MPI_TEST_KILL=1:2 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache=false" %t.model.mlir -o %t.killed 2> %t.killed.err
// RUN: FileCheck %s --check-prefix=KILLED < %t.killed.err
// RUN: FileCheck %s --check-prefix=UNTOUCHED < %t.killed
// KILLED: process rank 1 {{.*}}exited on signal 9
// UNTOUCHED: untouched
// With --enable-recovery the job goes on: rank 0 hears nothing from rank 1
// for mpi-timeout-s, searches what it was given itself (one warning),
// writes the right output and ends the job (MPI_Abort with its status 0:
// MPI_Finalize would wait for the dead rank).
// RUN: %mpirun -np 2 --enable-recovery -x MIRAGE_MPI_TEST_KILL=1:2 mirage-opt --mirage-superopt="lower=false time-budget-s=0 max-states=20000 threads=1 cache=false mpi-timeout-s=2" %t.model.mlir -o %t.recovered 2> %t.recovered.err
// RUN: cmp %t.single %t.recovered
// RUN: FileCheck %s --check-prefix=RECOVERED < %t.recovered.err
// RECOVERED: warning: mirage-search: rank 1 has sent nothing for {{.*}} (mpi-timeout-s 2.0); what it was given is searched on rank 0
// RECOVERED-NOT: warning: mirage-search
//
// The option's range.
// RUN: not mirage-opt --mirage-superopt="mpi-timeout-s=90000" %t.rms.mlir 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: mpi-timeout-s must be in [0, 86400] seconds
