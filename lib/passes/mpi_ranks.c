//===- mpi_ranks.c - The MPI processes of an `mpirun` launch ---------------===//
//
// See mpi_ranks.h. Messages are posted (MPI_Isend, the buffer kept until
// received) so a rank goes on searching while rank 0 is busy; rank 0 polls
// (MPI_Iprobe) between and during its own searches. MPI_ERRORS_RETURN:
// a failed call is reported by the caller, never an abort of the job.
// A message travels as chunks of at most CHUNK bytes, each small enough
// to be sent eagerly by every transport: a large one goes by rendezvous,
// its bytes read from the sender when received, and the receive of a
// rank killed after posting it never ends (Open MPI 4.1, shared memory).
// A chunk that has arrived can always be received.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // nanosleep

#include "mpi_ranks.h"
#include "mirage/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef MIRAGE_HAVE_MPI
#include <mpi.h>
#endif

static int env_int(const char *name, int fallback) {
  const char *v = getenv(name);
  char *end = NULL;
  long n = v && *v ? strtol(v, &end, 10) : fallback;
  return end && *end ? fallback : (int)n;
}

void mg_mpi_launch(int *rank, int *size) {
  *size = env_int("OMPI_COMM_WORLD_SIZE", env_int("PMI_SIZE", 1));
  *rank = env_int("OMPI_COMM_WORLD_RANK", env_int("PMI_RANK", 0));
  if (*size < 1 || *rank < 0 || *rank >= *size)
    *rank = 0, *size = 1;
}

bool mg_mpi_is_worker(void) {
  int rank, size;
  mg_mpi_launch(&rank, &size);
  return rank > 0;
}

bool mg_passes_mpi_is_worker(void) { return mg_mpi_is_worker(); }
void mg_passes_mpi_finish(int status) { mg_mpi_finish(status); }

#ifndef MIRAGE_HAVE_MPI

bool mg_mpi_available(void) { return false; }
bool mg_mpi_start(int *rank, int *size, char *why, size_t why_size) {
  *rank = 0, *size = 1;
  snprintf(why, why_size, "this build has no MPI (CMake found none, or "
                          "MIRAGE_MPI=OFF)");
  return false;
}
bool mg_mpi_post(int dest, int tag, const char *data, size_t len) {
  (void)dest, (void)tag, (void)data, (void)len;
  return false;
}
bool mg_mpi_flush(double timeout_s) { (void)timeout_s; return true; }
bool mg_mpi_poll(int tag, char **data, size_t *len, int *source) {
  (void)tag, (void)data, (void)len, (void)source;
  return false;
}
void mg_mpi_finish(int status) { (void)status; }
void mg_mpi_abandon(void) {}

#else

#define CHUNK 2048

typedef struct Posted {
  MPI_Request request;
  char *data;
} Posted;

// A message being received from one rank: its length (the first chunk's
// first 8 bytes) and the bytes so far.
typedef struct Partial {
  char *data;
  size_t want, have;
} Partial;

static struct {
  bool started, finished, abandoned;
  int rank, size;
  Posted *posted;
  uint32_t num_posted, cap_posted;
  Partial *partial; // per rank
} mpi;

bool mg_mpi_available(void) { return true; }

static void finish_at_exit(void) { mg_mpi_finish(0); }

bool mg_mpi_start(int *rank, int *size, char *why, size_t why_size) {
  if (!mpi.started) {
    int provided = 0, inited = 0;
    MPI_Initialized(&inited);
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED,
                                   &provided) != MPI_SUCCESS) {
      snprintf(why, why_size, "MPI_Init_thread failed");
      return false;
    }
    if (!inited && provided < MPI_THREAD_SERIALIZED) {
      snprintf(why, why_size, "the MPI library offers thread level %d, "
                              "not MPI_THREAD_SERIALIZED", provided);
      return false;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mpi.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mpi.size);
    if (!(mpi.partial = calloc((size_t)mpi.size, sizeof *mpi.partial))) {
      snprintf(why, why_size, "out of memory");
      return false;
    }
    mpi.started = true;
    if (!inited)
      atexit(finish_at_exit);
  }
  *rank = mpi.rank, *size = mpi.size;
  return true;
}

// Frees the buffers of posted messages that have been received.
static void reap(void) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < mpi.num_posted; i++) {
    int done = 0;
    if (MPI_Test(&mpi.posted[i].request, &done, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS ||
        done)
      free(mpi.posted[i].data);
    else
      mpi.posted[kept++] = mpi.posted[i];
  }
  mpi.num_posted = kept;
}

static bool post_chunk(int dest, int tag, const char *head, size_t head_len,
                       const char *data, size_t len) {
  if (!mg_array_reserve(&mpi.posted, &mpi.cap_posted, mpi.num_posted + 1,
                        sizeof *mpi.posted, 8))
    return false;
  Posted *p = &mpi.posted[mpi.num_posted];
  if (!(p->data = malloc(head_len + len + 1)))
    return false;
  memcpy(p->data, head, head_len);
  memcpy(p->data + head_len, data, len);
  if (MPI_Isend(p->data, (int)(head_len + len), MPI_CHAR, dest, tag,
                MPI_COMM_WORLD, &p->request) != MPI_SUCCESS) {
    free(p->data);
    return false;
  }
  mpi.num_posted++;
  return true;
}

bool mg_mpi_post(int dest, int tag, const char *data, size_t len) {
  if (!mpi.started)
    return false;
  reap();
  uint64_t total = len;
  size_t first = len < CHUNK - 8 ? len : CHUNK - 8;
  bool ok = post_chunk(dest, tag, (const char *)&total, 8, data, first);
  for (size_t at = first; ok && at < len; at += CHUNK)
    ok = post_chunk(dest, tag, "", 0, data + at,
                    len - at < CHUNK ? len - at : CHUNK);
  return ok;
}

static void nap_ms(long ms) {
  nanosleep(&(struct timespec){0, ms * 1000 * 1000}, NULL);
}

bool mg_mpi_flush(double timeout_s) {
  double until = mg_clock_now() + timeout_s;
  for (reap(); mpi.num_posted > 0; reap()) {
    if (mg_clock_now() >= until)
      return false;
    nap_ms(5);
  }
  return true;
}

// Adds a received chunk to its sender's message; true when it completes
// it (then the message is the caller's).
static bool add_chunk(Partial *m, const char *chunk, size_t n) {
  if (!m->data) {
    uint64_t want = 0;
    if (n < 8)
      return false;
    memcpy(&want, chunk, 8);
    if (want > ((size_t)1 << 30) || !(m->data = malloc((size_t)want + 1)))
      return false; // a broken sender: its message never completes
    m->want = (size_t)want, m->have = 0;
    chunk += 8, n -= 8;
  }
  if (n > m->want - m->have)
    n = m->want - m->have;
  memcpy(m->data + m->have, chunk, n);
  m->have += n;
  return m->have == m->want;
}

bool mg_mpi_poll(int tag, char **data, size_t *len, int *source) {
  char chunk[CHUNK + 8];
  for (;;) {
    int flag = 0, count = 0;
    MPI_Status st;
    if (!mpi.started ||
        MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st) !=
            MPI_SUCCESS ||
        !flag || MPI_Get_count(&st, MPI_CHAR, &count) != MPI_SUCCESS ||
        count > (int)sizeof chunk ||
        MPI_Recv(chunk, count, MPI_CHAR, st.MPI_SOURCE, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return false;
    Partial *m = &mpi.partial[st.MPI_SOURCE];
    if (add_chunk(m, chunk, (size_t)count)) {
      m->data[m->want] = '\0';
      *data = m->data, *len = m->want, *source = st.MPI_SOURCE;
      *m = (Partial){NULL, 0, 0};
      return true;
    }
  }
}

void mg_mpi_abandon(void) { mpi.abandoned = true; }

void mg_mpi_finish(int status) {
  if (!mpi.started || mpi.finished)
    return;
  mpi.finished = true;
  fflush(stdout);
  fflush(stderr);
  // MPI_Finalize waits for every rank; one that never answers would make
  // it wait for ever. Abort ends them all, with this process's status.
  if (mpi.abandoned)
    MPI_Abort(MPI_COMM_WORLD, status);
  MPI_Finalize();
}

#endif
