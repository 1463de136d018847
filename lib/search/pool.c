//===- pool.c - Worker threads, budgets and statistics --------------------===//
//
// mg_search_parallel runs a list of tasks on the workers: each thread takes
// the next index from an atomic counter. The caller's thread does no task
// work; it waits, and calls the progress callback every interval, so the
// callback never runs concurrently with itself. Results go to per-task or
// per-worker slots that the caller merges in a fixed order.
//
// Budgets: every worker polls mg_worker_stopped often; it reads the clock
// every 64 polls. Enumeration has its own deadline (60% of the budget) so
// that testing the best candidates found so far still fits in the budget;
// the memory bound and the state bound (max_states) also stop only
// enumeration. Live progress counters are
// published from the polls in batches (workers keep exact counts in their
// own stats, which are what the result reports).
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L
#include "search_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mg_search_memory(Search *s, int64_t delta) {
  uint64_t now = (uint64_t)((int64_t)atomic_fetch_add(&s->memory,
                                                      (uint64_t)delta) +
                            delta);
  uint64_t high = atomic_load(&s->memory_high);
  while (now > high &&
         !atomic_compare_exchange_weak(&s->memory_high, &high, now))
    ;
  if (now > s->opt.memory_limit) {
    atomic_store(&s->memory_limited, true);
    atomic_store(&s->enum_stop, true);
  }
}

//===--- Statistics -------------------------------------------------------===//

void mg_stats_add_reason(MgSearchStats *st, const char *text, uint64_t n) {
  for (uint32_t i = 0; i < st->num_reasons; i++)
    if (strcmp(st->reasons[i].text, text) == 0) {
      st->reasons[i].count += n;
      return;
    }
  if (st->num_reasons == MG_SEARCH_MAX_REASONS) {
    // Full: fold into the last slot, renamed.
    MgSearchReason *r = &st->reasons[MG_SEARCH_MAX_REASONS - 1];
    strcpy(r->text, "(other reasons)");
    r->count += n;
    return;
  }
  MgSearchReason *r = &st->reasons[st->num_reasons++];
  snprintf(r->text, sizeof r->text, "%s", text);
  r->count = n;
}

// The builder's message with every number replaced by "N".
static void reason_of(const char *msg, char *out, size_t size) {
  size_t n = 0;
  for (const char *c = msg; *c && n + 2 < size; c++) {
    if (*c >= '0' && *c <= '9') {
      if (n == 0 || out[n - 1] != 'N')
        out[n++] = 'N';
      while (c[1] >= '0' && c[1] <= '9')
        c++;
      continue;
    }
    out[n++] = *c;
  }
  out[n] = '\0';
}

void mg_worker_prune(Worker *w, MgSearchRule rule, const MgDiag *why) {
  w->stats.pruned[rule]++;
  if (rule == MG_SEARCH_RULE_SHAPE) {
    char text[96];
    reason_of(why && why->message[0] ? why->message : "(replay)", text,
              sizeof text);
    mg_stats_add_reason(&w->stats, text, 1);
  }
}

void mg_worker_states(Worker *w, uint64_t n, bool kernel) {
  w->stats.states += n;
  if (kernel)
    w->stats.kernel_states += n;
}

static uint64_t total_pruned(const MgSearchStats *st) {
  uint64_t n = 0;
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    n += st->pruned[r];
  return n;
}

bool mg_worker_stopped(Worker *w) {
  Search *s = w->s;
  if (atomic_load_explicit(&s->stop, memory_order_relaxed))
    return true;
  if (!s->verifying &&
      atomic_load_explicit(&s->enum_stop, memory_order_relaxed))
    return true;
  if ((++w->tick & 63) != 0)
    return false;
  uint64_t pruned = total_pruned(&w->stats);
  atomic_fetch_add(&s->live_states, w->stats.states - w->pub_states);
  atomic_fetch_add(&s->live_pruned, pruned - w->pub_pruned);
  w->pub_states = w->stats.states;
  w->pub_pruned = pruned;
  // The work bound: read at the same polls as the clock, so with one
  // thread it stops at the same state on every run.
  if (s->opt.max_states && !s->verifying &&
      atomic_load(&s->live_states) >= s->opt.max_states) {
    atomic_store(&s->states_limited, true);
    atomic_store(&s->enum_stop, true);
    return true;
  }
  if (s->deadline > 0) {
    double now = mg_clock_now();
    if (now > s->deadline) {
      atomic_store(&s->timed_out, true);
      atomic_store(&s->stop, true);
      return true;
    }
    if (!s->verifying && now > s->enum_deadline) {
      atomic_store(&s->timed_out, true);
      atomic_store(&s->enum_stop, true);
      return true;
    }
  }
  return false;
}

void mg_stats_add(MgSearchStats *dst, const MgSearchStats *src) {
  dst->states += src->states;
  dst->kernel_states += src->kernel_states;
  dst->skeletons += src->skeletons;
  for (int r = 0; r < MG_SEARCH_RULE_COUNT; r++)
    dst->pruned[r] += src->pruned[r];
  for (uint32_t i = 0; i < src->num_reasons; i++)
    mg_stats_add_reason(dst, src->reasons[i].text, src->reasons[i].count);
  dst->block_graphs += src->block_graphs;
  dst->kernel_graphs += src->kernel_graphs;
  dst->candidates += src->candidates;
}

//===--- Parallel tasks ---------------------------------------------------===//

typedef struct Pool {
  Search *s;
  Worker *workers;
  uint32_t n;
  TaskFn fn;
  void *arg;
  atomic_uint next;
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  uint32_t running;
} Pool;

typedef struct Thread {
  Pool *pool;
  Worker *w;
} Thread;

static void *thread_main(void *arg) {
  Thread *t = arg;
  Pool *pool = t->pool;
  for (;;) {
    uint32_t i = atomic_fetch_add(&pool->next, 1);
    if (i >= pool->n || mg_worker_stopped(t->w))
      break;
    pool->fn(t->w, i, pool->arg);
  }
  pthread_mutex_lock(&pool->lock);
  pool->running--;
  pthread_cond_signal(&pool->done_cond);
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

// Reports progress; `force` = false skips it when the interval has not
// passed since the last report (ends of short phases).
static void report(Search *s, const char *phase, bool force) {
  if (!s->opt.progress)
    return;
  double now = mg_clock_now();
  if (!force && now - s->last_report < s->opt.progress_interval_s)
    return;
  s->last_report = now;
  MgSearchProgress p;
  memset(&p, 0, sizeof p);
  p.elapsed_s = now - s->start;
  p.states = atomic_load(&s->live_states);
  p.pruned = atomic_load(&s->live_pruned);
  p.candidates = atomic_load(&s->live_candidates);
  p.evaluated = atomic_load(&s->live_evaluated);
  p.verified = atomic_load(&s->live_verified);
  p.states_per_s = p.elapsed_s > 0 ? (double)p.states / p.elapsed_s : 0;
  p.kernel_ops = s->level;
  p.phase = phase;
  s->opt.progress(&p, s->opt.progress_user_data);
}

void mg_search_parallel(Search *s, Worker *workers, uint32_t num_workers,
                        uint32_t n, TaskFn fn, void *arg) {
  if (n == 0)
    return;
  Pool pool;
  memset(&pool, 0, sizeof pool);
  pool.s = s;
  pool.workers = workers;
  pool.n = n;
  pool.fn = fn;
  pool.arg = arg;
  atomic_init(&pool.next, 0);
  pthread_mutex_init(&pool.lock, NULL);
  pthread_cond_init(&pool.done_cond, NULL);
  uint32_t nt = num_workers < n ? num_workers : n;
  Thread threads[256];
  pthread_t ids[256];
  uint32_t started = 0;
  pool.running = nt;
  for (uint32_t i = 0; i < nt; i++) {
    threads[i] = (Thread){&pool, &workers[i]};
    if (pthread_create(&ids[i], NULL, thread_main, &threads[i]) != 0)
      break;
    started++;
  }
  pthread_mutex_lock(&pool.lock);
  pool.running -= nt - started;
  pthread_mutex_unlock(&pool.lock);
  if (started == 0) { // no threads: run here
    Thread t = {&pool, &workers[0]};
    pool.running = 1;
    thread_main(&t);
  }
  const char *phase = s->verifying ? "verify" : "enumerate";
  double interval = s->opt.progress_interval_s > 0 ? s->opt.progress_interval_s
                                                   : 1.0;
  pthread_mutex_lock(&pool.lock);
  while (pool.running > 0) {
    if (!s->opt.progress) {
      pthread_cond_wait(&pool.done_cond, &pool.lock);
      continue;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double t = (double)until.tv_sec + (double)until.tv_nsec * 1e-9 + interval;
    until.tv_sec = (time_t)t;
    until.tv_nsec = (long)((t - (double)until.tv_sec) * 1e9);
    int rc = pthread_cond_timedwait(&pool.done_cond, &pool.lock, &until);
    if (rc == ETIMEDOUT && pool.running > 0) {
      pthread_mutex_unlock(&pool.lock);
      report(s, phase, true);
      pthread_mutex_lock(&pool.lock);
    }
  }
  pthread_mutex_unlock(&pool.lock);
  for (uint32_t i = 0; i < started; i++)
    pthread_join(ids[i], NULL);
  pthread_mutex_destroy(&pool.lock);
  pthread_cond_destroy(&pool.done_cond);
  report(s, phase, false);
}
