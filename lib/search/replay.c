//===- replay.c - From kernel-graph skeletons to concrete programs --------===//
//
// The generators work at representative launch sizes. A complete kernel
// graph is materialized here: every custom kernel is rebuilt (replayed
// through the builders, which re-check everything) with each of its menu
// entry's recipes and each launch allowed by the policy:
//  - a grid axis takes divisors >= 2 of the dim its role cuts (powers of two
//    when pow2_launch), within the target's grid limits;
//  - the whole grid has at most max_blocks blocks and at least
//    min(min_blocks, the largest grid any recipe of the entry reaches), so
//    the GPU is filled when it can be (min_blocks defaults to the target's
//    SM count) and a kernel that can only split 8 rows still runs;
//  - the for-loop takes divisors >= 2 (<= max_forloop) of the tile dim it
//    cuts;
//  - the block graph's shared memory fits the target.
// The allowed launches of one recipe are tried in policy order: the
// smallest grid meeting the lower bound (fewest replicated reads), then the
// for-loop whose per-iteration tile is nearest loop_tile; the first
// `launch_variants` that build and fit shared memory are kept and the cost
// model ranks them (under rank=proxy only the first: the proxy would
// always prefer one block, so the launch is the policy's choice there).
// Each concrete program must produce the target's output types and, with
// abstract expressions on, classes; it is validated against the target and
// offered to the worker's collector.
//
//===----------------------------------------------------------------------===//
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LAUNCHES 1024
#define MAX_DIVISORS 64

// A block graph in the next slot, reusing the arrays a truncated graph left
// there (so replaying many times does not grow the arena).
static MgGraphId next_block_graph(MgProgram *p) {
  if (p->num_graphs >= p->cap_graphs)
    return mg_program_add_graph(p, MG_LEVEL_BLOCK);
  MgGraph *g = &p->graphs[p->num_graphs];
  MgGraph keep = *g;
  memset(g, 0, sizeof *g);
  g->level = MG_LEVEL_BLOCK;
  g->grid[0] = g->grid[1] = g->grid[2] = 1;
  g->forloop = 1;
  g->block_threads = 128;
  if (keep.level == MG_LEVEL_BLOCK || keep.level == MG_LEVEL_KERNEL) {
    g->ops = keep.ops;
    g->cap_ops = keep.cap_ops;
    g->tensors = keep.tensors;
    g->cap_tensors = keep.cap_tensors;
    g->outputs = keep.outputs;
    g->cap_outputs = keep.cap_outputs;
  }
  return p->num_graphs++;
}

bool mg_replay_recipe(MgProgram *p, const Recipe *r, const MgTensorId *inputs,
                      uint32_t n, const LaunchShape *at, MgTensorId *outs) {
  MgGraphId g = next_block_graph(p);
  if (g == MG_NO_ID || mg_graph_set_launch(p, g, at->grid, 128, at->forloop,
                                           NULL) != MG_STATUS_OK)
    return false;
  for (uint32_t i = 0; i < n; i++) {
    MgTensor t = p->graphs[0].tensors[inputs[i]];
    if (mg_graph_add_input(p, g, (MgDType)t.dtype, t.rank, t.dims, NULL) != i)
      return false;
  }
  for (uint32_t i = 0; i < n; i++)
    if (mg_graph_iterator(p, g, i, r->sk.imap[i], r->sk.fmap[i], NULL) ==
        MG_NO_ID)
      return false;
  for (uint32_t j = 0; j < r->num_ops; j++) {
    MgOp op = r->ops[j];
    MgTensorId out[MG_MAX_OP_OUTPUTS];
    if (mg_graph_add_op(p, g, &op, out, NULL) == MG_NO_ID)
      return false;
    if (op.kind == MG_OP_SAVER &&
        mg_graph_mark_output(p, g, out[0], NULL) != MG_STATUS_OK)
      return false;
  }
  return mg_graph_custom(p, 0, (MgCall){g, n, inputs}, outs, NULL) != MG_NO_ID;
}

//===--- Launch variants --------------------------------------------------===//

typedef struct Launch {
  LaunchShape at;
  int64_t blocks, tile; // grid size; size of the dim the for-loop cuts
  int64_t dist;         // log2 distance of `tile` from loop_tile
} Launch;

// Divisors >= 2 of d up to `limit`, ascending.
static uint32_t divisors(int64_t d, bool pow2, int64_t limit, int64_t *out) {
  uint32_t n = 0;
  for (int64_t r = 2; r <= d && r <= limit && n < MAX_DIVISORS;
       r = pow2 ? r * 2 : r + 1)
    if (d % r == 0)
      out[n++] = r;
  return n;
}

static int64_t log2_distance(int64_t a, int64_t b) {
  int64_t d = 0;
  while (a > b) {
    a /= 2;
    d++;
  }
  while (b > a) {
    b /= 2;
    d++;
  }
  return d;
}

typedef struct Variants {
  uint32_t n;
  Launch l[MAX_LAUNCHES];
} Variants;

// The kernel tensors of `p` an op runs on.
typedef struct KernelInputs {
  const MgProgram *p;
  const MgTensorId *ids;
  uint32_t n;
} KernelInputs;

// The launches the policy allows for `r` on `in` with at least `low`
// blocks (low < 0: only compute the largest grid, returned).
static int64_t launch_variants(const Search *s, const Recipe *r,
                               KernelInputs in, int64_t low, Variants *v) {
  const MgSearchOptions *o = &s->opt;
  const MgGraph *k = &in.p->graphs[0];
  const MgTensorId *inputs = in.ids;
  uint32_t n = in.n;
  int64_t opts[3][MAX_DIVISORS];
  uint32_t nopt[3];
  for (uint32_t a = 0; a < 3; a++) {
    nopt[a] = 1;
    opts[a][0] = 1;
    if (a >= r->sk.num_axes)
      continue;
    int64_t d = 0;
    for (uint32_t i = 0; i < n; i++)
      if (r->sk.imap[i][a] != MG_MAP_NONE)
        d = mg_gcd_i64(d, k->tensors[inputs[i]].dims[(int)r->sk.imap[i][a]]);
    nopt[a] = divisors(d, o->pow2_launch, s->gpu->max_grid[a], opts[a]);
  }
  // Largest grid the dims allow within max_blocks, for the lower bound.
  int64_t best = 0;
  for (uint32_t x = 0; x < nopt[0]; x++)
    for (uint32_t y = 0; y < nopt[1]; y++)
      for (uint32_t z = 0; z < nopt[2]; z++) {
        int64_t blocks = opts[0][x] * opts[1][y] * opts[2][z];
        if (blocks <= (int64_t)o->max_blocks && blocks > best)
          best = blocks;
      }
  v->n = 0;
  if (low < 0)
    return best;
  for (uint32_t x = 0; x < nopt[0]; x++)
    for (uint32_t y = 0; y < nopt[1]; y++)
      for (uint32_t z = 0; z < nopt[2]; z++) {
        int64_t g[3] = {opts[0][x], opts[1][y], opts[2][z]};
        int64_t blocks = g[0] * g[1] * g[2];
        if (blocks > (int64_t)o->max_blocks || blocks < low)
          continue;
        int64_t fo[MAX_DIVISORS];
        uint32_t nf = 1;
        fo[0] = 1;
        if (r->sk.loop != ROLE_NONE) {
          int64_t d = 0;
          for (uint32_t i = 0; i < n; i++) {
            int8_t f = r->sk.fmap[i];
            if (f == MG_MAP_NONE)
              continue;
            int64_t size = k->tensors[inputs[i]].dims[(int)f];
            for (uint32_t a = 0; a < 3; a++)
              if (r->sk.imap[i][a] == f)
                size /= g[a];
            d = mg_gcd_i64(d, size);
          }
          // A loop over per-block partials (split role) must run once per
          // partial, however many the producer made: no max_forloop cap.
          nf = divisors(d, o->pow2_launch,
                        role_is_split(r->sk.loop) ? d : (int64_t)o->max_forloop,
                        fo);
        }
        int64_t loop_dim = 0;
        for (uint32_t i = 0; i < n && !loop_dim; i++) {
          int8_t f = r->sk.fmap[i];
          if (f == MG_MAP_NONE)
            continue;
          loop_dim = k->tensors[inputs[i]].dims[(int)f];
          for (uint32_t a = 0; a < 3; a++)
            if (r->sk.imap[i][a] == f)
              loop_dim /= g[a];
        }
        for (uint32_t f = 0; f < nf && v->n < MAX_LAUNCHES; f++) {
          Launch *l = &v->l[v->n++];
          for (int a = 0; a < 3; a++)
            l->at.grid[a] = (int32_t)g[a];
          l->at.forloop = (int32_t)fo[f];
          l->blocks = blocks;
          l->tile = loop_dim ? loop_dim / fo[f] : 0;
          l->dist = l->tile ? log2_distance(l->tile, (int64_t)o->loop_tile)
                            : 0;
        }
      }
  return best;
}

// Policy order: the smallest grid that satisfies the lower bound (fewest
// replicated reads, largest tiles), then the for-loop whose tile is nearest
// loop_tile (larger tile first on ties), then the launch numbers.
int64_t mg_recipe_min_smem(const Search *s, const BlockSig *sig,
                           const Recipe *r) {
  MgProgram *p = mg_program_create();
  Variants *v = malloc(sizeof *v);
  MgTensorId in[MG_MAX_OP_INPUTS];
  int64_t best = -1;
  bool ok = p && v && mg_program_add_graph(p, MG_LEVEL_KERNEL) == 0;
  for (uint32_t i = 0; ok && i < sig->n; i++) {
    in[i] = mg_graph_add_input(p, 0, (MgDType)sig->type[i].dtype,
                               sig->type[i].rank, sig->type[i].dims, NULL);
    ok = in[i] != MG_NO_ID;
  }
  if (ok) {
    launch_variants(s, r, (KernelInputs){p, in, sig->n}, 0, v);
    // The most blocks, then the longest loop: the smallest tiles.
    uint32_t pick = v->n;
    for (uint32_t j = 0; j < v->n; j++)
      if (pick == v->n || v->l[j].blocks > v->l[pick].blocks ||
          (v->l[j].blocks == v->l[pick].blocks &&
           v->l[j].at.forloop > v->l[pick].at.forloop))
        pick = j;
    MgTensorId outs[MG_MAX_OP_OUTPUTS];
    uint32_t graphs = p->num_graphs, kops = p->graphs[0].num_ops,
             kt = p->graphs[0].num_tensors;
    if (pick < v->n &&
        mg_replay_recipe(p, r, in, sig->n, &v->l[pick].at, outs))
      best = mg_graph_smem_bytes(p, graphs);
    mg_program_truncate(p, graphs, kops, kt);
  }
  free(v);
  mg_program_destroy(p);
  return best;
}

static int cmp_launch(const void *pa, const void *pb) {
  const Launch *a = pa, *b = pb;
  if (a->blocks != b->blocks)
    return a->blocks < b->blocks ? -1 : 1;
  if (a->dist != b->dist)
    return a->dist < b->dist ? -1 : 1;
  if (a->tile != b->tile)
    return a->tile > b->tile ? -1 : 1;
  for (int i = 0; i < 3; i++)
    if (a->at.grid[i] != b->at.grid[i])
      return a->at.grid[i] < b->at.grid[i] ? -1 : 1;
  return (a->at.forloop > b->at.forloop) - (a->at.forloop < b->at.forloop);
}

//===--- Materialization --------------------------------------------------===//

typedef struct Mat {
  Worker *w;
  const KOp *ops;
  uint32_t n;
  const MgTensorId *outputs;
  MgProgram *p;
  uint16_t kinds[MG_OP_COUNT];
  uint64_t structure[32];
  Variants *v;
} Mat;

// Classes of graph 0 of `p` and a check of the outputs against the goal.
static bool outputs_match(const Search *s, const MgProgram *p) {
  const MgGraph *g = &p->graphs[0];
  for (uint32_t k = 0; k < s->facts.outputs.n; k++)
    if (!mg_graph_same_type(&g->tensors[g->outputs[k]],
                            &s->facts.outputs.type[k]))
      return false;
  if (!s->abs)
    return true;
  MgAbsId *cls = malloc((g->num_tensors ? g->num_tensors : 1) *
                        sizeof *cls);
  if (!cls)
    return false;
  for (uint32_t i = 0; i < g->num_ops; i++) {
    const MgOp *op = &g->ops[i];
    MgAbsId out[MG_MAX_OP_OUTPUTS];
    if (op->kind == MG_OP_INPUT)
      cls[op->outputs[0]] = mg_search_input_class(s, (uint32_t)op->attr);
    else {
      mg_search_classes(s, p, 0, i, cls, out);
      for (uint32_t k = 0; k < op->num_outputs; k++)
        cls[op->outputs[k]] = out[k];
    }
  }
  bool ok = true;
  for (uint32_t k = 0; k < s->facts.outputs.n; k++)
    ok &= cls[g->outputs[k]] == s->facts.outputs.cls[k];
  free(cls);
  return ok;
}

// The dtypes of every tensor of `p`, graph after graph (NULL: no memory).
static uint8_t *save_dtypes(const MgProgram *p) {
  size_t n = 1;
  for (MgGraphId g = 0; g < p->num_graphs; g++)
    n += p->graphs[g].num_tensors;
  uint8_t *d = malloc(n), *at = d;
  for (MgGraphId g = 0; d && g < p->num_graphs; g++)
    for (MgTensorId t = 0; t < p->graphs[g].num_tensors; t++)
      *at++ = p->graphs[g].tensors[t].dtype;
  return d;
}

static void restore_dtypes(MgProgram *p, const uint8_t *d) {
  for (MgGraphId g = 0; g < p->num_graphs; g++)
    for (MgTensorId t = 0; t < p->graphs[g].num_tensors; t++)
      p->graphs[g].tensors[t].dtype = *d++;
}

static uint64_t finish_widened(Mat *m);

// A complete candidate: its outputs marked, its partial sums declared f32
// (precision.c) while it is checked, costed and offered, and its types
// restored after, since the program is reused for the next candidates.
static uint64_t finish(Mat *m) {
  Search *s = m->w->s;
  uint8_t *kept = save_dtypes(m->p);
  if (!kept) {
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
    return 0;
  }
  uint64_t made = finish_widened(m);
  restore_dtypes(m->p, kept);
  free(kept);
  return made;
}

// Whether candidate `p` of a target standing for a program with symbols
// holds for every size once generalized (symbolic.c).
static bool generalizes(const Search *s, const MgProgram *p) {
  MgDiag why; // the reason is not reported: the rule counts it
  MgProgram *g = mg_search_symbolic_generalize(s->opt.symbolic, p,
                                               s->opt.symbolic_at, &why);
  mg_program_destroy(g);
  return g != NULL;
}

static uint64_t finish_widened(Mat *m) {
  Worker *w = m->w;
  Search *s = w->s;
  MgProgram *p = m->p;
  for (uint32_t k = 0; k < s->facts.outputs.n; k++)
    if (mg_graph_mark_output(p, 0, m->outputs[k], NULL) != MG_STATUS_OK ||
        (p->graphs[0].tensors[m->outputs[k]].dtype !=
             s->facts.outputs.type[k].dtype &&
         mg_graph_set_dtype(p, 0, m->outputs[k],
                            (MgDType)s->facts.outputs.type[k].dtype,
                            NULL) != MG_STATUS_OK)) {
      p->graphs[0].num_outputs = 0;
      mg_worker_prune(w, MG_SEARCH_RULE_OUTPUT, NULL);
      return 0;
    }
  if (mg_program_widen_partials(p, NULL) != MG_STATUS_OK) {
    atomic_store(&s->failed, true);
    atomic_store(&s->stop, true);
  } else if (!outputs_match(s, p)) {
    mg_worker_prune(w, MG_SEARCH_RULE_OUTPUT, NULL);
  } else if (s->facts.shift_rule && mg_search_mixes_maxes(p)) {
    mg_worker_prune(w, MG_SEARCH_RULE_SHIFT, NULL);
  } else if (mg_program_validate(p, s->gpu, NULL) != MG_STATUS_OK) {
    mg_worker_prune(w, MG_SEARCH_RULE_LAUNCH, NULL);
  } else if (mg_search_work(p) > s->max_work) {
    mg_worker_prune(w, MG_SEARCH_RULE_WORK, NULL);
  } else if (s->opt.symbolic && !generalizes(s, p)) {
    mg_worker_prune(w, MG_SEARCH_RULE_GENERALIZE, NULL);
  } else {
    MgSearchCost cost = mg_search_cost(p, &s->opt);
    uint64_t hash = mg_program_hash(p);
    uint64_t structure = mg_hash_bytes(0x73747275ull, m->structure,
                                       m->n * sizeof(uint64_t));
    w->stats.candidates++;
    uint64_t offered = atomic_fetch_add(&s->live_candidates, 1) + 1;
    if (s->opt.max_offered && offered >= s->opt.max_offered)
      atomic_store(&s->enum_stop, true);
    if (s->opt.on_candidate) {
      pthread_mutex_lock(&s->lock);
      s->opt.on_candidate(p, s->opt.candidate_user_data);
      pthread_mutex_unlock(&s->lock);
    }
    if (!mg_collector_offer(&w->collector, p, cost, hash, structure)) {
      atomic_store(&s->failed, true);
      atomic_store(&s->stop, true);
    }
    p->graphs[0].num_outputs = 0;
    return 1;
  }
  p->graphs[0].num_outputs = 0;
  return 0;
}

static bool budget_ok(const Mat *m, const Recipe *r) {
  const Search *s = m->w->s;
  if (!s->opt.use_kind_budget)
    return true;
  for (uint32_t k = 0; k < MG_OP_COUNT; k++)
    if (mg_search_budgeted((MgOpKind)k) &&
        m->kinds[k] + r->kinds[k] > s->facts.vocab.budget[k])
      return false;
  return true;
}

static uint64_t mat_op(Mat *m, uint32_t i);

// The smallest grid among `v`'s whose blocks fill the SMs' waves to 85 %
// (blocks / (ceil(blocks / SMs) · SMs)), 0 when none does: 128 blocks on
// 108 SMs leave the busiest SM twice the average's work, 512 do not.
static int64_t balanced_grid(const Variants *v, int64_t sms) {
  int64_t best = 0;
  for (uint32_t j = 0; j < v->n; j++) {
    int64_t b = v->l[j].blocks, waves = (b + sms - 1) / sms;
    if (b * 100 >= 85 * waves * sms && (!best || b < best))
      best = b;
  }
  return best;
}

static uint64_t mat_custom(Mat *m, uint32_t i) {
  uint64_t made = 0;
  Worker *w = m->w;
  const Search *s = w->s;
  const KOp *op = &m->ops[i];
  MgProgram *p = m->p;
  uint32_t graphs = p->num_graphs, kops = p->graphs[0].num_ops,
           kt = p->graphs[0].num_tensors;
  const MgTensorId *in = op->op.inputs;
  uint32_t n = op->op.num_inputs;
  // The lower bound on the grid: the SM count, or the largest grid any of
  // the entry's recipes reaches (so a recipe that cannot use the GPU loses
  // to one that can, and a kernel that can only split 8 rows still runs).
  int64_t reach = 1;
  for (uint32_t ri = 0; ri < op->entry->num_recipes; ri++) {
    int64_t b = launch_variants(s, &op->entry->recipes[ri],
                                (KernelInputs){p, in, n}, -1, &m->v[i]);
    if (b > reach)
      reach = b;
  }
  int64_t low = (int64_t)s->min_blocks < reach ? (int64_t)s->min_blocks
                                               : reach;
  for (uint32_t ri = 0; ri < op->entry->num_recipes; ri++) {
    const Recipe *r = &op->entry->recipes[ri];
    if (!budget_ok(m, r)) {
      mg_worker_prune(w, MG_SEARCH_RULE_BUDGET, NULL);
      continue;
    }
    Variants *v = &m->v[i];
    launch_variants(s, r, (KernelInputs){p, in, n}, low, v);
    qsort(v->l, v->n, sizeof v->l[0], cmp_launch);
    uint32_t kept = 0, variants = s->opt.rank == MG_SEARCH_RANK_PROXY
                                      ? 1 : s->opt.launch_variants;
    // Past the policy's launches, the first one that fills the SMs' waves
    // when none of those did, so that the cost model can weigh the two.
    int64_t balanced = s->opt.rank == MG_SEARCH_RANK_PROXY
                           ? 0
                           : balanced_grid(v, (int64_t)mg_cost_gpu(s->gpu)->sms);
    bool have_balanced = false;
    for (uint32_t j = 0; j < v->n; j++) {
      if (mg_worker_stopped(w))
        return made;
      MgTensorId outs[MG_MAX_OP_OUTPUTS];
      const Launch *l = &v->l[j];
      bool fills = balanced && l->blocks >= balanced;
      if (kept >= variants && (!balanced || have_balanced))
        break;
      if (kept >= variants && !fills)
        continue;
      if (!mg_replay_recipe(p, r, in, n, &l->at, outs)) {
        mg_worker_prune(w, MG_SEARCH_RULE_SHAPE, NULL);
      } else if (mg_graph_smem_bytes(p, graphs) > s->gpu->smem_bytes) {
        mg_worker_prune(w, MG_SEARCH_RULE_SMEM, NULL);
      } else {
        m->structure[i] = r->key;
        for (uint32_t k = 0; k < MG_OP_COUNT; k++)
          m->kinds[k] += r->kinds[k];
        uint64_t done = mat_op(m, i + 1); // a launch counts once it completes
        kept += done > 0;
        have_balanced |= done > 0 && fills;
        made += done;
        for (uint32_t k = 0; k < MG_OP_COUNT; k++)
          m->kinds[k] -= r->kinds[k];
      }
      mg_program_truncate(p, graphs, kops, kt);
    }
    if (!kept)
      mg_worker_prune(w, MG_SEARCH_RULE_LAUNCH, NULL);
  }
  return made;
}

static uint64_t mat_op(Mat *m, uint32_t i) {
  if (mg_worker_stopped(m->w))
    return 0;
  if (i == m->n)
    return finish(m);
  const KOp *op = &m->ops[i];
  if (op->custom)
    return mat_custom(m, i);
  MgProgram *p = m->p;
  uint32_t graphs = p->num_graphs, kops = p->graphs[0].num_ops,
           kt = p->graphs[0].num_tensors;
  MgOp o = op->op;
  MgDiag diag;
  if (mg_graph_add_op(p, 0, &o, NULL, &diag) == MG_NO_ID) {
    mg_worker_prune(m->w, MG_SEARCH_RULE_SHAPE, &diag);
    return 0;
  }
  uint64_t h = mg_hash_u64(o.kind, o.num_inputs);
  for (uint32_t k = 0; k < o.num_inputs; k++)
    h = mg_hash_u64(h, o.inputs[k]);
  h = mg_hash_u64(h, (uint32_t)o.attr);
  m->structure[i] = mg_hash_bytes(h, &o.scalar, sizeof o.scalar);
  if (mg_search_budgeted((MgOpKind)o.kind))
    m->kinds[o.kind]++;
  uint64_t made = mat_op(m, i + 1);
  if (mg_search_budgeted((MgOpKind)o.kind))
    m->kinds[o.kind]--;
  mg_program_truncate(p, graphs, kops, kt);
  return made;
}

void mg_replay_kernel_graph(Worker *w, const KOp *ops, uint32_t num_ops,
                            const MgTensorId *outputs) {
  const Search *s = w->s;
  Mat m;
  memset(&m, 0, sizeof m);
  m.w = w;
  m.ops = ops;
  m.n = num_ops < 32 ? num_ops : 32;
  m.outputs = outputs;
  m.p = mg_program_create();
  m.v = malloc(m.n * sizeof *m.v);
  bool ok = m.p && m.v && mg_program_add_graph(m.p, MG_LEVEL_KERNEL) == 0;
  for (uint32_t i = 0; ok && i < s->facts.num_inputs; i++) {
    const MgTensor *t = &s->facts.in_type[i];
    ok = mg_graph_add_input(m.p, 0, (MgDType)t->dtype, t->rank, t->dims,
                            NULL) == i;
  }
  if (ok)
    mat_op(&m, 0);
  else {
    atomic_store(&w->s->failed, true);
    atomic_store(&w->s->stop, true);
  }
  free(m.v);
  mg_program_destroy(m.p);
}
