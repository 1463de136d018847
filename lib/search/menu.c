//===- menu.c - Block graphs per input signature, computed once -----------===//
//
// A Menu lists what a graph-defined kernel can compute from given inputs:
// entries keyed by the outputs' signature (abstract class, type and roles of
// every saver result), each with up to max_recipes block graphs (recipes)
// that produce it, in generation order. The kernel-level generator branches
// on entries, not recipes: recipes of one entry are interchangeable until
// the candidates are materialized and tested.
//
// Cache invariant: a MenuSlot, once `ready`, holds a menu that never
// changes; it is keyed by the block inputs' signature and the goal, which
// is all the block generator reads, so the content does not depend on who
// computed it or when. A slot being computed is visible (ready = false) and
// other workers wait for it, so each menu is computed exactly once and the
// statistics count its work once.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define MENU_CHUNK (64u * 1024u)

Menu *mg_menu_create(void) {
  Menu *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->arena = mg_arena_create(MENU_CHUNK);
  if (!m->arena) {
    free(m);
    return NULL;
  }
  return m;
}

void mg_menu_destroy(Menu *menu) {
  if (!menu)
    return;
  mg_arena_destroy(menu->arena);
  free(menu->entries);
  free(menu->slots);
  free(menu);
}

size_t mg_menu_bytes(const Menu *menu) {
  return mg_arena_bytes_used(menu->arena) +
         menu->cap * sizeof(MenuEntry) + menu->num_slots * sizeof(uint32_t);
}

static uint64_t sig_hash(const MenuEntry *e) {
  uint64_t h = mg_hash_u64(0x6d656e75ull, e->num_out);
  for (uint32_t k = 0; k < e->num_out; k++) {
    const MgTensor *t = &e->type[k];
    h = mg_hash_u64(h, e->cls[k]);
    h = mg_hash_u64(h, t->dtype);
    h = mg_hash_u64(h, t->rank);
    for (uint32_t d = 0; d < t->rank; d++) {
      h = mg_hash_u64(h, (uint64_t)t->dims[d]);
      h = mg_hash_u64(h, e->role[k][d]);
    }
    h = mg_hash_u64(h, e->sup[k].top);
    for (uint32_t i = 0; i < e->sup[k].n; i++)
      h = mg_hash_u64(h, e->sup[k].m[i]);
  }
  return h;
}

static bool sig_equal(const MenuEntry *a, const MenuEntry *b) {
  if (a->num_out != b->num_out)
    return false;
  for (uint32_t k = 0; k < a->num_out; k++) {
    const MgTensor *x = &a->type[k], *y = &b->type[k];
    if (a->cls[k] != b->cls[k] || x->dtype != y->dtype || x->rank != y->rank)
      return false;
    for (uint32_t d = 0; d < x->rank; d++)
      if (x->dims[d] != y->dims[d] || a->role[k][d] != b->role[k][d])
        return false;
    if (!mg_sup_equal(&a->sup[k], &b->sup[k]))
      return false;
  }
  return true;
}

static bool grow_slots(Menu *m) {
  uint32_t n = m->num_slots ? m->num_slots * 2 : 64;
  uint32_t *slots = calloc(n, sizeof *slots);
  if (!slots)
    return false;
  for (uint32_t i = 0; i < m->num; i++) {
    uint32_t at = (uint32_t)(m->entries[i].sig & (n - 1));
    while (slots[at])
      at = (at + 1) & (n - 1);
    slots[at] = i + 1;
  }
  free(m->slots);
  m->slots = slots;
  m->num_slots = n;
  return true;
}

// The entry with `sig`'s signature, created when absent; NULL on no memory.
static MenuEntry *find_or_add(Menu *m, const MenuEntry *sig) {
  if ((m->num + 1) * 2 > m->num_slots && !grow_slots(m))
    return NULL;
  uint64_t h = sig_hash(sig);
  uint32_t at = (uint32_t)(h & (m->num_slots - 1));
  for (; m->slots[at]; at = (at + 1) & (m->num_slots - 1)) {
    MenuEntry *e = &m->entries[m->slots[at] - 1];
    if (e->sig == h && sig_equal(e, sig))
      return e;
  }
  if (!mg_array_reserve(&m->entries, &m->cap, m->num + 1, sizeof *m->entries,
                        16))
    return NULL;
  MenuEntry *e = &m->entries[m->num];
  memset(e, 0, sizeof *e);
  e->num_out = sig->num_out;
  memcpy(e->cls, sig->cls, sizeof e->cls);
  memcpy(e->type, sig->type, sizeof e->type);
  memcpy(e->role, sig->role, sizeof e->role);
  memcpy(e->sup, sig->sup, sizeof e->sup);
  e->sig = h;
  m->slots[at] = ++m->num;
  return e;
}

// Recipe order within an entry: more parallelism, then less shared
// memory, then fewer ops; equal ones keep their generation order.
static bool better(const Recipe *a, const Recipe *b) {
  if (a->par != b->par)
    return a->par > b->par;
  if (a->smem != b->smem)
    return a->smem < b->smem;
  return a->num_ops < b->num_ops;
}

bool mg_menu_add(Menu *menu, uint32_t max_recipes, const MenuEntry *sig,
                 const Recipe *recipe) {
  MenuEntry *e = find_or_add(menu, sig);
  if (!e)
    return false;
  uint32_t at = e->num_recipes;
  while (at > 0 && better(recipe, &e->recipes[at - 1]))
    at--;
  if (at >= max_recipes) {
    menu->dropped++;
    return true;
  }
  if (e->num_recipes == e->cap_recipes && e->cap_recipes < max_recipes) {
    uint32_t cap = e->cap_recipes ? e->cap_recipes * 2 : 2;
    if (cap > max_recipes)
      cap = max_recipes;
    Recipe *fresh = mg_arena_alloc(menu->arena, cap, sizeof *fresh);
    if (!fresh)
      return false;
    if (e->num_recipes)
      memcpy(fresh, e->recipes, e->num_recipes * sizeof *fresh);
    e->recipes = fresh;
    e->cap_recipes = cap;
  }
  if (e->num_recipes == max_recipes) {
    e->num_recipes--; // the worst leaves
    menu->dropped++;
  }
  MgOp *ops = mg_arena_alloc(menu->arena, recipe->num_ops ? recipe->num_ops
                                                          : 1, sizeof(MgOp));
  if (!ops)
    return false;
  memcpy(ops, recipe->ops, recipe->num_ops * sizeof(MgOp));
  memmove(&e->recipes[at + 1], &e->recipes[at],
          (e->num_recipes - at) * sizeof *e->recipes);
  e->recipes[at] = *recipe;
  e->recipes[at].ops = ops;
  e->num_recipes++;
  return true;
}

bool mg_menu_merge(Menu *dst, uint32_t max_recipes, const Menu *src) {
  for (uint32_t i = 0; i < src->num; i++) {
    const MenuEntry *e = &src->entries[i];
    if (!find_or_add(dst, e))
      return false;
    for (uint32_t j = 0; j < e->num_recipes; j++)
      if (!mg_menu_add(dst, max_recipes, e, &e->recipes[j]))
        return false;
  }
  dst->dropped += src->dropped;
  return true;
}

//===--- The shared cache -------------------------------------------------===//

static void copy_sup(Support *dst, const Support *src) {
  dst->n = src->n;
  dst->top = src->top;
  memcpy(dst->m, src->m, src->n * sizeof src->m[0]);
}

// Canonical bytes of (sig, goal): unused fields zeroed.
static void normalize(const BlockSig *sig, const Goal *goal, BlockSig *ns,
                      Goal *ng) {
  memset(ns, 0, sizeof *ns);
  memset(ng, 0, sizeof *ng);
  ns->n = sig->n;
  for (uint32_t i = 0; i < sig->n; i++) {
    const MgTensor *t = &sig->type[i];
    ns->type[i].dtype = t->dtype;
    ns->type[i].rank = t->rank;
    memcpy(ns->type[i].dims, t->dims, t->rank * sizeof(int64_t));
    ns->info[i].cls = sig->info[i].cls;
    copy_sup(&ns->info[i].sup, &sig->info[i].sup);
    memcpy(ns->info[i].role, sig->info[i].role, t->rank * sizeof(MgRole));
  }
  ng->exact = goal->exact;
  if (!goal->exact)
    return;
  ng->n = goal->n;
  for (uint32_t k = 0; k < goal->n; k++) {
    const MgTensor *t = &goal->type[k];
    ng->cls[k] = goal->cls[k];
    ng->type[k].dtype = t->dtype;
    ng->type[k].rank = t->rank;
    memcpy(ng->type[k].dims, t->dims, t->rank * sizeof(int64_t));
    memcpy(ng->role[k], goal->role[k], t->rank * sizeof(MgRole));
    copy_sup(&ng->sup[k], &goal->sup[k]);
  }
}

static uint64_t key_of(const BlockSig *ns, const Goal *ng) {
  uint64_t h = mg_hash_bytes(0x63616368ull, ns, sizeof *ns);
  return mg_hash_bytes(h, ng, sizeof *ng);
}

// The slot of a normalized key (lock held), NULL when absent.
static MenuSlot *lookup(Search *s, uint64_t key, const BlockSig *ns,
                        const Goal *ng) {
  for (MenuSlot *m = s->menu_table[key % s->menu_buckets]; m; m = m->next)
    if (m->key == key && memcmp(&m->sig, ns, sizeof *ns) == 0 &&
        memcmp(&m->goal, ng, sizeof *ng) == 0)
      return m;
  return NULL;
}

static MenuSlot *insert(Search *s, uint64_t key, const BlockSig *ns,
                        const Goal *ng) {
  MenuSlot *m = calloc(1, sizeof *m);
  if (!m)
    return NULL;
  m->key = key;
  m->sig = *ns;
  m->goal = *ng;
  m->next = s->menu_table[key % s->menu_buckets];
  s->menu_table[key % s->menu_buckets] = m;
  return m;
}

#define MAX_SKELETONS 4096

static Menu *compute(Worker *w, const BlockSig *sig, const Goal *goal) {
  Search *s = w->s;
  Menu *menu = mg_menu_create();
  Skeleton *sks = malloc(MAX_SKELETONS * sizeof *sks);
  if (!menu || !sks) {
    free(sks);
    mg_menu_destroy(menu);
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
    return NULL;
  }
  uint32_t n = mg_block_skeletons(s, sig, goal, sks, MAX_SKELETONS);
  for (uint32_t i = 0; i < n && !mg_worker_stopped(w); i++)
    mg_block_enumerate(w, sig, goal, &sks[i], menu);
  free(sks); // (block.c accounts the menu's bytes as it grows)
  return menu;
}

const Menu *mg_menu_get(Worker *w, const BlockSig *sig, const Goal *goal) {
  Search *s = w->s;
  BlockSig ns;
  Goal ng;
  normalize(sig, goal, &ns, &ng);
  uint64_t key = key_of(&ns, &ng);
  pthread_mutex_lock(&s->lock);
  MenuSlot *slot = lookup(s, key, &ns, &ng);
  if (slot) {
    while (!slot->ready)
      pthread_cond_wait(&s->menu_ready, &s->lock);
    pthread_mutex_unlock(&s->lock);
    return slot->menu;
  }
  slot = insert(s, key, &ns, &ng);
  pthread_mutex_unlock(&s->lock);
  if (!slot) {
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
    return NULL;
  }
  Menu *menu = compute(w, sig, goal);
  pthread_mutex_lock(&s->lock);
  slot->menu = menu;
  slot->ready = true;
  pthread_cond_broadcast(&s->menu_ready);
  pthread_mutex_unlock(&s->lock);
  return menu;
}

//===--- Parallel prefetch ------------------------------------------------===//

typedef struct Job {
  uint32_t key;       // index into the prefetch list
  Skeleton sk;
  Menu *menu;         // this skeleton's block graphs
} Job;

typedef struct Prefetch {
  const BlockSig *sigs;
  const Goal *goals;
  Job *jobs;
} Prefetch;

static void run_job(Worker *w, uint32_t index, void *arg) {
  Prefetch *pf = arg;
  Job *j = &pf->jobs[index];
  j->menu = mg_menu_create();
  if (!j->menu) {
    atomic_store(&w->s->failed, true);
    atomic_store(&w->s->stop, true);
    return;
  }
  mg_block_enumerate(w, &pf->sigs[j->key], &pf->goals[j->key], &j->sk,
                     j->menu);
}

void mg_menu_prefetch(Search *s, Worker *workers, uint32_t num_workers,
                      const BlockSig *sigs, const Goal *goals, uint32_t n) {
  Skeleton *sks = malloc(MAX_SKELETONS * sizeof *sks);
  Job *jobs = NULL;
  uint32_t num_jobs = 0, cap_jobs = 0;
  bool *todo = calloc(n ? n : 1, sizeof *todo);
  if (!sks || !todo)
    goto fail;
  for (uint32_t k = 0; k < n; k++) {
    BlockSig ns;
    Goal ng;
    normalize(&sigs[k], &goals[k], &ns, &ng);
    pthread_mutex_lock(&s->lock);
    bool cached = lookup(s, key_of(&ns, &ng), &ns, &ng) != NULL;
    pthread_mutex_unlock(&s->lock);
    for (uint32_t j = 0; j < k && !cached; j++) { // duplicates in the list
      BlockSig os;
      Goal og;
      normalize(&sigs[j], &goals[j], &os, &og);
      cached = todo[j] && memcmp(&os, &ns, sizeof ns) == 0 &&
               memcmp(&og, &ng, sizeof ng) == 0;
    }
    if (cached)
      continue;
    todo[k] = true;
    uint32_t m = mg_block_skeletons(s, &sigs[k], &goals[k], sks,
                                    MAX_SKELETONS);
    if (!mg_array_reserve(&jobs, &cap_jobs, num_jobs + m, sizeof *jobs,
                          2 * (num_jobs + m)))
      goto fail;
    for (uint32_t i = 0; i < m; i++)
      jobs[num_jobs++] = (Job){k, sks[i], NULL};
  }
  Prefetch pf = {sigs, goals, jobs};
  mg_search_parallel(s, workers, num_workers, num_jobs, run_job, &pf);
  // Merge per key in skeleton order: the same menu a single worker builds.
  for (uint32_t k = 0, j = 0; k < n; k++) {
    if (!todo[k])
      continue;
    Menu *menu = mg_menu_create();
    if (!menu)
      goto fail_jobs;
    for (; j < num_jobs && jobs[j].key == k; j++)
      if (jobs[j].menu &&
          !mg_menu_merge(menu, s->opt.max_recipes, jobs[j].menu)) {
        mg_menu_destroy(menu);
        goto fail_jobs;
      }
    BlockSig ns;
    Goal ng;
    normalize(&sigs[k], &goals[k], &ns, &ng);
    mg_search_memory(s, (int64_t)mg_menu_bytes(menu));
    pthread_mutex_lock(&s->lock);
    MenuSlot *slot = insert(s, key_of(&ns, &ng), &ns, &ng);
    if (slot) {
      slot->menu = menu;
      slot->ready = true;
    }
    pthread_mutex_unlock(&s->lock);
    if (!slot) {
      mg_menu_destroy(menu);
      goto fail_jobs;
    }
  }
  for (uint32_t j = 0; j < num_jobs; j++) {
    if (jobs[j].menu)
      mg_search_memory(s, -(int64_t)mg_menu_bytes(jobs[j].menu));
    mg_menu_destroy(jobs[j].menu);
  }
  free(jobs);
  free(sks);
  free(todo);
  return;
fail_jobs:
  for (uint32_t j = 0; j < num_jobs; j++)
    mg_menu_destroy(jobs[j].menu);
fail:
  free(jobs);
  free(sks);
  free(todo);
  atomic_store(&s->failed, true);
  atomic_store(&s->stop, true);
}
