//===- search_mpi.h - The search pass spread over MPI ranks ----------------===//
//
// Under `mpirun -np N` every rank parses the input and lifts it alike, so
// every rank lists the module's distinct subprograms in the same order
// (module order, repeats dropped as the pass drops them). Subprogram j
// belongs to rank (j + 1) mod N: each rank answers its own (its caches,
// then the search, exactly as a plain run) and sends rank 0 the cache
// entries of the answer (the μGraph text the cache stores); rank 0 reads
// them like a shared server's, verified whatever they claim, so its output
// is the plain run's. A rank that reports a failure, sends something that
// fails the checks, or has sent nothing for `timeout_s` has its work done
// on rank 0 instead. docs/scale-out.md.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_SEARCH_MPI_H
#define MIRAGE_PASSES_SEARCH_MPI_H

#include "cache.h"
#include "pass.h"

typedef struct MgMpiItem {
  MgProgram *subject;
  uint64_t hash;
  int owner;
  char name[256];    // its first function
  MlirLocation loc;
} MgMpiItem;

typedef struct MgMpiPlan {
  int rank, size;
  uint32_t round;    // this pass run's number (one per --split-input-file chunk)
  double timeout_s;
  double start_s;
  MgMpiItem *items;
  uint32_t count, cap;
  // Per rank, on rank 0: what it was given and did.
  uint32_t *given, *searched, *cached, *used, *redone;
  double *last_s;    // when it last delivered (or the round started)
} MgMpiPlan;

/// Lists `module`'s distinct subprograms (those without graph-defined
/// kernels) and their owners. False after an import error (reported).
bool mg_search_mpi_plan(MgMpiPlan *plan, MlirOperation module, int rank,
                        int size, double timeout_s);
void mg_search_mpi_free(MgMpiPlan *plan);
/// The item of `program`, or -1.
int mg_search_mpi_find(const MgMpiPlan *plan, const MgProgram *program,
                       uint64_t hash);

/// How a rank answered: from its caches or by searching.
typedef enum MgMpiHow { MG_MPI_SEARCHED, MG_MPI_CACHED } MgMpiHow;
/// Rank != 0: sends item `j`'s entries (`entries`), or, when `error` is not
/// NULL, that it could not answer it. False on an MPI error.
bool mg_search_mpi_send(const MgMpiPlan *plan, uint32_t j,
                        const MgCacheMemo *entries, MgMpiHow how,
                        const char *error);
/// Rank != 0: waits for rank 0 to have received what this rank sent.
void mg_search_mpi_flush(void);
/// Test hook: MIRAGE_MPI_TEST_KILL=R:K kills rank R (SIGKILL) as it starts
/// its K-th subprogram (1-based).
void mg_search_mpi_test_kill(const MgMpiPlan *plan, uint32_t nth);

/// Rank 0: receives whatever the ranks have sent (also during its own
/// searches, from their progress callback).
void mg_search_mpi_drain(MgMpiPlan *plan);

typedef enum MgMpiWait {
  MG_MPI_DELIVERED, // entries in `inbox`
  MG_MPI_FAILED,    // the rank could not answer, or sent garbage: `why`
  MG_MPI_LATE,      // nothing for timeout_s, now or before: `why`
} MgMpiWait;
/// Rank 0: waits for item `j` from its owner (at most until the owner
/// has been silent for timeout_s) and puts its entries into `inbox`.
/// `*first_late`: this call found the rank late (say so once).
MgMpiWait mg_search_mpi_wait(MgMpiPlan *plan, uint32_t j, MgCacheMemo *inbox,
                             bool *first_late, char *why, size_t why_size);

#endif // MIRAGE_PASSES_SEARCH_MPI_H
