//===- mpi_ranks.h - The MPI processes of an `mpirun` launch ---------------===//
//
// MPI is started lazily, from within the search pass, and only when the
// process was launched by mpirun (or another MPI launcher) with more than
// one rank: a plain run never touches it. Without MPI in the build (CMake
// MIRAGE_MPI off or no MPI found) the launch is still recognised from the
// launcher's environment, so ranks other than 0 stay silent.
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_PASSES_MPI_RANKS_H
#define MIRAGE_PASSES_MPI_RANKS_H

#include <stdbool.h>
#include <stddef.h>


/// The launcher's rank and size (Open MPI's OMPI_COMM_WORLD_*, else
/// PMI_RANK/PMI_SIZE of MPICH's hydra); 0 and 1 when not launched so.
void mg_mpi_launch(int *rank, int *size);
/// True on a rank other than 0 of such a launch: it writes no output,
/// remarks nor statistics (rank 0 alone does). mg_passes_mpi_is_worker.
bool mg_mpi_is_worker(void);
/// True when the build has MPI.
bool mg_mpi_available(void);

/// Starts MPI once (MPI_Init_thread, MPI_THREAD_SERIALIZED: the search
/// threads never call it) when launched with more than one rank and the
/// build has MPI; errors return instead of aborting the job. False (and
/// `why`) when MPI cannot be started.
bool mg_mpi_start(int *rank, int *size, char *why, size_t why_size);

/// Sends `len` bytes to `dest` without waiting for it to receive them
/// (the buffer is copied and kept until it has); false on an MPI error.
bool mg_mpi_post(int dest, int tag, const char *data, size_t len);
/// Waits until every posted message was received, or `timeout_s` passed
/// (then false).
bool mg_mpi_flush(double timeout_s);
/// A message with `tag` from any rank, if one has arrived: true with a
/// malloc'd NUL-terminated copy of its bytes in `*data`, its length and
/// sender. Never waits.
bool mg_mpi_poll(int tag, char **data, size_t *len, int *source);

/// Ends MPI at the end of the process with `status`: MPI_Finalize, or,
/// after mg_mpi_abandon, MPI_Abort(status), which ends ranks that are still
/// busy instead of waiting for them. Idempotent; also registered with
/// atexit (status 0). mg_passes_mpi_finish.
void mg_mpi_finish(int status);
/// Says that a rank may never answer (late or dead): mg_mpi_finish will
/// end the job rather than wait for it.
void mg_mpi_abandon(void);

#endif // MIRAGE_PASSES_MPI_RANKS_H
