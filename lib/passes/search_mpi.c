//===- search_mpi.c - The search pass spread over MPI ranks ----------------===//
//
// The plan and the messages; search_pass.c decides what is searched where.
// A message: a header line "mirage-mpi v1 round=R item=J how=S|C ok|failed"
// then, when ok, the cache entries as "KEY LENGTH\n" and LENGTH bytes each,
// else the reason. Messages of a later round (a rank ahead by a
// --split-input-file chunk) are kept; those of an earlier one (a rank that
// was late) are dropped.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L // nanosleep

#include "search_mpi.h"
#include "mpi_ranks.h"
#include "ugraph_funcs.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_RESULT 31
#define MAGIC "mirage-mpi v1"

typedef struct Message {
  uint32_t round, item;
  int source;
  char *data; // the whole message, NUL-terminated
  size_t len;
} Message;

// What rank 0 received and not yet used, and the ranks found late; kept
// across rounds.
static struct {
  Message *messages;
  uint32_t count, cap;
  uint32_t round;
  bool *late;
  int size;
} box;

int mg_search_mpi_find(const MgMpiPlan *plan, const MgProgram *program,
                       uint64_t hash) {
  for (uint32_t j = 0; j < plan->count; j++)
    if (plan->items[j].hash == hash &&
        mg_program_equal(plan->items[j].subject, program))
      return (int)j;
  return -1;
}

static bool add_item(MlirOperation module, MlirSymbolTable symbols,
                     MlirOperation func, const MgProgram *program,
                     const MgBridgeMap *map, void *ud) {
  (void)module, (void)symbols;
  MgMpiPlan *plan = ud;
  uint64_t hash = mg_program_hash(program);
  if (mg_pass_has_custom_ops(program) || mg_search_mpi_find(plan, program, hash) >= 0)
    return true;
  if (!mg_array_reserve(&plan->items, &plan->cap, plan->count + 1,
                        sizeof *plan->items, 16))
    return false;
  MgMpiItem *it = &plan->items[plan->count];
  if (!(it->subject = mg_program_clone(program)))
    return false;
  it->hash = hash;
  it->owner = (int)((plan->count + 1) % (uint32_t)plan->size);
  it->loc = mlirOperationGetLocation(func);
  snprintf(it->name, sizeof it->name, "%s", map->graph_names[0]);
  plan->count++;
  return true;
}

bool mg_search_mpi_plan(MgMpiPlan *plan, MlirOperation module, int rank,
                        int size, double timeout_s) {
  memset(plan, 0, sizeof *plan);
  plan->rank = rank, plan->size = size;
  plan->round = ++box.round;
  plan->timeout_s = timeout_s;
  plan->start_s = mg_clock_now();
  size_t n = (size_t)size;
  plan->given = calloc(n, sizeof *plan->given);
  plan->searched = calloc(n, sizeof *plan->searched);
  plan->cached = calloc(n, sizeof *plan->cached);
  plan->used = calloc(n, sizeof *plan->used);
  plan->redone = calloc(n, sizeof *plan->redone);
  plan->last_s = calloc(n, sizeof *plan->last_s);
  if (!box.late) {
    box.late = calloc(n, sizeof *box.late);
    box.size = size;
  }
  if (!plan->given || !plan->searched || !plan->cached || !plan->used ||
      !plan->redone || !plan->last_s || !box.late || box.size != size) {
    mg_pass_error(mlirOperationGetLocation(module),
                  "mirage-search: out of memory planning the MPI search");
    return false;
  }
  for (int r = 0; r < size; r++)
    plan->last_s[r] = plan->start_s;
  if (!mg_pass_for_each_kernel_program(module, NULL, add_item, plan))
    return false;
  for (uint32_t j = 0; j < plan->count; j++)
    plan->given[plan->items[j].owner]++;
  return true;
}

void mg_search_mpi_free(MgMpiPlan *plan) {
  for (uint32_t j = 0; j < plan->count; j++)
    mg_program_destroy(plan->items[j].subject);
  free(plan->items);
  free(plan->given);
  free(plan->searched);
  free(plan->cached);
  free(plan->used);
  free(plan->redone);
  free(plan->last_s);
  memset(plan, 0, sizeof *plan);
}

bool mg_search_mpi_send(const MgMpiPlan *plan, uint32_t j,
                        const MgCacheMemo *entries, MgMpiHow how,
                        const char *error) {
  MgText t = {0};
  mg_text_printf(&t, MAGIC " round=%" PRIu32 " item=%" PRIu32 " how=%c %s\n",
                 plan->round, j, how == MG_MPI_CACHED ? 'C' : 'S',
                 error ? "failed" : "ok");
  if (error)
    mg_text_printf(&t, "%s", error);
  // Test hook: MIRAGE_MPI_TEST_GARBLE=1 changes a byte of every entry, as
  // a broken link or rank would (rank 0 must notice).
  bool garble = getenv("MIRAGE_MPI_TEST_GARBLE") != NULL;
  for (uint32_t i = 0; !error && i < entries->count; i++) {
    mg_text_printf(&t, "%s %zu\n%s", entries->entries[i].key,
                   entries->entries[i].len, entries->entries[i].text);
    if (garble && !t.failed && entries->entries[i].len >= 2)
      t.data[t.len - 2] ^= 1;
  }
  bool ok = !t.failed && mg_mpi_post(0, TAG_RESULT, t.data, t.len);
  mg_text_free(&t);
  return ok;
}

void mg_search_mpi_flush(void) {
  // Rank 0 receives all it waits for; a rank it gave up on is ended by
  // its MPI_Abort at exit, so this never waits for ever.
  while (!mg_mpi_flush(3600))
    ;
}

void mg_search_mpi_test_kill(const MgMpiPlan *plan, uint32_t nth) {
  const char *hook = getenv("MIRAGE_MPI_TEST_KILL");
  int rank = -1;
  unsigned k = 0;
  if (hook && sscanf(hook, "%d:%u", &rank, &k) == 2 && rank == plan->rank &&
      k == nth) {
    fflush(NULL);
    raise(SIGKILL);
  }
}

static void keep_message(char *data, size_t len, int source) {
  uint32_t round = 0, item = 0;
  if (sscanf(data, MAGIC " round=%" SCNu32 " item=%" SCNu32, &round,
             &item) != 2 ||
      round < box.round ||
      !mg_array_reserve(&box.messages, &box.cap, box.count + 1,
                        sizeof *box.messages, 16)) {
    free(data);
    return;
  }
  box.messages[box.count++] = (Message){round, item, source, data, len};
}

void mg_search_mpi_drain(MgMpiPlan *plan) {
  char *data;
  size_t len;
  int source;
  while (mg_mpi_poll(TAG_RESULT, &data, &len, &source)) {
    if (source > 0 && source < plan->size)
      plan->last_s[source] = mg_clock_now();
    keep_message(data, len, source);
  }
}

// The entries of an ok message into `inbox`; false if malformed.
static bool read_entries(const char *p, const char *end, MgCacheMemo *inbox) {
  while (p < end) {
    char key[65];
    size_t len = 0;
    int used = 0;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol || eol - p > 100 ||
        sscanf(p, "%64[0-9a-f] %zu%n", key, &len, &used) != 2 ||
        p + used != eol || strlen(key) != 64 ||
        len > (size_t)(end - eol - 1) ||
        !mg_cache_memo_put(inbox, key, eol + 1, len))
      return false;
    p = eol + 1 + len;
  }
  return true;
}

// Item j's message from its owner, taken out of the box; NULL if none yet.
static Message *take(const MgMpiPlan *plan, uint32_t j, Message *out) {
  for (uint32_t i = 0; i < box.count; i++) {
    Message *m = &box.messages[i];
    if (m->round == plan->round && m->item == j &&
        m->source == plan->items[j].owner) {
      *out = *m;
      *m = box.messages[--box.count];
      return out;
    }
  }
  return NULL;
}

static MgMpiWait read_message(MgMpiPlan *plan, const Message *m,
                              MgCacheMemo *inbox, char *why, size_t size) {
  const char *body = strchr(m->data, '\n');
  char how = 0, status[8] = "";
  const char *head = strstr(m->data, " how=");
  if (!body || !head || head > body ||
      sscanf(head, " how=%c %7s", &how, status) != 2) {
    snprintf(why, size, "rank %d sent a malformed message", m->source);
    return MG_MPI_FAILED;
  }
  if (!strcmp(status, "failed")) {
    snprintf(why, size, "rank %d could not answer it: %.*s", m->source,
             (int)(m->len - (size_t)(body + 1 - m->data)), body + 1);
    return MG_MPI_FAILED;
  }
  if (strcmp(status, "ok") ||
      !read_entries(body + 1, m->data + m->len, inbox)) {
    snprintf(why, size, "rank %d sent malformed entries", m->source);
    return MG_MPI_FAILED;
  }
  (how == 'C' ? plan->cached : plan->searched)[m->source]++;
  return MG_MPI_DELIVERED;
}

MgMpiWait mg_search_mpi_wait(MgMpiPlan *plan, uint32_t j, MgCacheMemo *inbox,
                             bool *first_late, char *why, size_t why_size) {
  int owner = plan->items[j].owner;
  *first_late = false;
  Message m;
  for (;;) {
    mg_search_mpi_drain(plan);
    if (take(plan, j, &m)) {
      MgMpiWait w = read_message(plan, &m, inbox, why, why_size);
      free(m.data);
      return w;
    }
    double silent = mg_clock_now() - plan->last_s[owner];
    if (box.late[owner] || silent >= plan->timeout_s) {
      *first_late = !box.late[owner];
      if (!box.late[owner])
        mg_mpi_abandon(); // it may never finish: end the job at exit
      box.late[owner] = true;
      snprintf(why, why_size, "rank %d has sent nothing for %.1f s "
                              "(mpi-timeout-s %.1f)", owner, silent,
               plan->timeout_s);
      return MG_MPI_LATE;
    }
    nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
  }
}
