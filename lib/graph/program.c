//===- program.c - Program lifetime, storage growth and canonical identity ===//
//
// Storage invariant: a program's graph array and every graph's op, tensor
// and output arrays live in `program->arena`. Growing an array allocates a
// bigger one from the arena and copies; the old space is abandoned until the
// arena dies (the waste is at most the final size, as with doubling). A clone
// packs everything into one fresh arena with capacities equal to counts.
//
// Identity: hashing and equality read the same canonical key words (see
// op_key, tensor_key, graph_key): semantic fields only, never capacities or
// pointers, and for each op only the attributes its kind uses. So two
// programs that are equal always hash equal.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdlib.h>
#include <string.h>

#define PROGRAM_CHUNK_BYTES (16u * 1024u)
#define HASH_SEED 0xcbf29ce484222325ull // FNV-1a offset basis

// An empty program whose arena grows by `chunk_bytes`; NULL on no memory.
static MgProgram *program_create(size_t chunk_bytes) {
  MgProgram *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->arena = mg_arena_create(chunk_bytes);
  if (!p->arena) {
    free(p);
    return NULL;
  }
  return p;
}

MgProgram *mg_program_create(void) {
  return program_create(PROGRAM_CHUNK_BYTES);
}

void mg_program_destroy(MgProgram *program) {
  if (!program)
    return;
  mg_arena_destroy(program->arena);
  free(program);
}

// Grows `*array` (of `*cap` elements of `size` bytes, `used` in use) so it
// holds at least `need` elements.
static MgStatus grow(MgArena *arena, void **array, uint32_t *cap,
                     uint32_t used, uint32_t need, size_t size) {
  MG_ASSERT(used <= *cap && (used == 0 || *array));
  if (need <= *cap)
    return MG_STATUS_OK;
  uint64_t want = *cap ? (uint64_t)*cap * 2 : 8;
  if (want < need)
    want = need;
  if (want > UINT32_MAX - 1) // ids must stay below MG_NO_ID
    want = UINT32_MAX - 1;
  if (want < need)
    return MG_STATUS_NOMEM;
  void *fresh = mg_arena_alloc(arena, (size_t)want, size);
  if (!fresh)
    return MG_STATUS_NOMEM;
  if (used)
    memcpy(fresh, *array, (size_t)used * size);
  *array = fresh;
  *cap = (uint32_t)want;
  return MG_STATUS_OK;
}

// need = used + extra, failing on uint32 overflow.
static bool add_fits(uint32_t used, uint32_t extra, uint32_t *need) {
  if (extra > UINT32_MAX - 1 - used)
    return false;
  *need = used + extra;
  return true;
}

MgStatus mg_graph_reserve(MgProgram *p, MgGraphId g, uint32_t ops,
                          uint32_t tensors, uint32_t outputs) {
  MgGraph *gr = mg_program_graph(p, g);
  uint32_t need;
  if (!add_fits(gr->num_ops, ops, &need) ||
      grow(p->arena, (void **)&gr->ops, &gr->cap_ops, gr->num_ops, need,
           sizeof(MgOp)) != MG_STATUS_OK)
    return MG_STATUS_NOMEM;
  if (!add_fits(gr->num_tensors, tensors, &need) ||
      grow(p->arena, (void **)&gr->tensors, &gr->cap_tensors, gr->num_tensors,
           need, sizeof(MgTensor)) != MG_STATUS_OK)
    return MG_STATUS_NOMEM;
  if (!add_fits(gr->num_outputs, outputs, &need) ||
      grow(p->arena, (void **)&gr->outputs, &gr->cap_outputs, gr->num_outputs,
           need, sizeof(MgTensorId)) != MG_STATUS_OK)
    return MG_STATUS_NOMEM;
  return MG_STATUS_OK;
}

void mg_program_truncate(MgProgram *p, uint32_t num_graphs,
                         uint32_t kernel_ops, uint32_t kernel_tensors) {
  // Only ever back to an earlier state of the same program.
  MG_ASSERT(num_graphs >= 1 && num_graphs <= p->num_graphs);
  MG_ASSERT(kernel_ops <= p->graphs[0].num_ops &&
            kernel_tensors <= p->graphs[0].num_tensors);
  p->num_graphs = num_graphs;
  p->graphs[0].num_ops = kernel_ops;
  p->graphs[0].num_tensors = kernel_tensors;
  p->graphs[0].num_outputs = 0;
}

MgGraphId mg_program_add_graph(MgProgram *program, MgLevel level) {
  if (!program || (unsigned)level >= MG_LEVEL_COUNT)
    return MG_NO_ID;
  void *graphs = program->graphs;
  if (grow(program->arena, &graphs, &program->cap_graphs, program->num_graphs,
           program->num_graphs + 1, sizeof(MgGraph)) != MG_STATUS_OK)
    return MG_NO_ID;
  program->graphs = graphs;
  MgGraph *gr = &program->graphs[program->num_graphs];
  memset(gr, 0, sizeof *gr);
  gr->level = (uint8_t)level;
  gr->grid[0] = gr->grid[1] = gr->grid[2] = 1;
  gr->grid_rows[0] = gr->grid_rows[1] = gr->grid_rows[2] = 1;
  gr->forloop = 1;
  gr->forloop_rows = 1;
  gr->block_threads = level == MG_LEVEL_BLOCK ? 128 : 0;
  return program->num_graphs++;
}

// Copies `n` elements of `size` bytes into the arena; NULL only on no memory.
static void *pack(MgArena *arena, const void *src, uint32_t n, size_t size,
                  bool *ok) {
  if (n == 0)
    return NULL;
  void *dst = mg_arena_alloc(arena, n, size);
  if (!dst) {
    *ok = false;
    return NULL;
  }
  memcpy(dst, src, (size_t)n * size);
  return dst;
}

MgProgram *mg_program_clone(const MgProgram *program) {
  if (!program)
    return NULL;
  // Size one chunk to hold everything: each allocation rounds up to 16.
  size_t total = (size_t)program->num_graphs * sizeof(MgGraph) + 16;
  for (uint32_t g = 0; g < program->num_graphs; g++) {
    const MgGraph *gr = &program->graphs[g];
    total += (size_t)gr->num_ops * sizeof(MgOp) +
             (size_t)gr->num_tensors * sizeof(MgTensor) +
             (size_t)gr->num_outputs * sizeof(MgTensorId) + 48;
  }
  MgProgram *c = program_create(total);
  if (!c)
    return NULL;
  bool ok = true;
  c->graphs = pack(c->arena, program->graphs, program->num_graphs,
                   sizeof(MgGraph), &ok);
  c->num_graphs = c->cap_graphs = ok ? program->num_graphs : 0;
  for (uint32_t g = 0; ok && g < program->num_graphs; g++) {
    const MgGraph *src = &program->graphs[g];
    MgGraph *dst = &c->graphs[g];
    dst->ops = pack(c->arena, src->ops, src->num_ops, sizeof(MgOp), &ok);
    dst->tensors = pack(c->arena, src->tensors, src->num_tensors,
                        sizeof(MgTensor), &ok);
    dst->outputs = pack(c->arena, src->outputs, src->num_outputs,
                        sizeof(MgTensorId), &ok);
    dst->cap_ops = dst->num_ops;
    dst->cap_tensors = dst->num_tensors;
    dst->cap_outputs = dst->num_outputs;
  }
  if (!ok) {
    mg_program_destroy(c);
    return NULL;
  }
  return c;
}

//===--- Canonical keys ---------------------------------------------------===//

#define KEY_MAX 64 // > 4 + MG_MAX_OP_INPUTS + MG_MAX_OP_OUTPUTS + 8

static uint32_t clamp_count(uint32_t n, uint32_t max) {
  return n < max ? n : max;
}

// The semantic words of an op: kind, operands, and the attributes its kind
// reads. Unused fields (e.g. imap of a matmul) are left out, so structs
// filled by hand hash like builder-made ones.
static size_t op_key(const MgOp *op, uint64_t *key) {
  size_t n = 0;
  uint32_t ni = clamp_count(op->num_inputs, MG_MAX_OP_INPUTS);
  uint32_t no = clamp_count(op->num_outputs, MG_MAX_OP_OUTPUTS);
  key[n++] = op->kind;
  key[n++] = op->num_inputs;
  key[n++] = op->num_outputs;
  for (uint32_t i = 0; i < ni; i++)
    key[n++] = op->inputs[i];
  for (uint32_t i = 0; i < no; i++)
    key[n++] = op->outputs[i];
  switch (op->kind) {
  case MG_OP_INPUT: // a folded view's layout follows from the root graph
    for (int d = 0; d < MG_MAX_DIMS; d++)
      key[n++] = op->folded ? 0 : (uint64_t)(uint8_t)op->perm[d];
    key[n++] = (uint64_t)(uint32_t)op->attr;
    break;
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: case MG_OP_CONCAT: case MG_OP_CUSTOM:
  case MG_OP_THREAD:
    key[n++] = (uint64_t)(uint32_t)op->attr;
    break;
  case MG_OP_TRANSPOSE:
    for (int d = 0; d < MG_MAX_DIMS; d++)
      key[n++] = (uint64_t)(uint8_t)op->perm[d];
    break;
  case MG_OP_RESHAPE: case MG_OP_SLICE: case MG_OP_IM2COL:
    key[n++] = (uint64_t)(uint32_t)op->attr;
    for (int d = 0; d < MG_MAX_DIMS; d++)
      key[n++] = (uint64_t)op->shape[d];
    break;
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR: {
    uint64_t bits;
    memcpy(&bits, &op->scalar, sizeof bits);
    key[n++] = bits;
    break;
  }
  case MG_OP_ACCUM:
    key[n++] = op->acc;
    break;
  case MG_OP_ITERATOR:
    for (int a = 0; a < 3; a++)
      key[n++] = (uint64_t)(uint8_t)op->imap[a];
    key[n++] = (uint64_t)(uint8_t)op->fmap;
    break;
  case MG_OP_SAVER:
    for (int a = 0; a < 3; a++)
      key[n++] = (uint64_t)(uint8_t)op->omap[a];
    break;
  default:
    break;
  }
  return n;
}

static size_t tensor_key(const MgTensor *t, uint64_t *key) {
  size_t n = 0;
  uint32_t rank = clamp_count(t->rank, MG_MAX_DIMS);
  key[n++] = t->dtype;
  // The symbols ride in the rank's word, so static programs hash (and
  // break the search's ties) as they did before symbols.
  key[n++] = t->rank | (uint64_t)t->sym << 8;
  for (uint32_t d = 0; d < rank; d++)
    key[n++] = (uint64_t)t->dims[d];
  return n;
}

// Level, counts and (for block graphs only) the launch shape.
static size_t graph_key(const MgGraph *gr, uint64_t *key) {
  size_t n = 0;
  key[n++] = gr->level;
  key[n++] = gr->num_inputs;
  key[n++] = gr->num_ops;
  key[n++] = gr->num_tensors;
  key[n++] = gr->num_outputs;
  if (gr->level == MG_LEVEL_BLOCK) {
    for (int a = 0; a < 3; a++)
      key[n++] = (uint64_t)(uint32_t)gr->grid[a] |
                 (uint64_t)gr->grid_sym[a] << 32 |
                 (gr->grid_sym[a] ? (uint64_t)(uint32_t)gr->grid_rows[a] << 34
                                  : 0);
    key[n++] = (uint64_t)(uint32_t)gr->block_threads;
    key[n++] = (uint64_t)(uint32_t)gr->forloop |
               (uint64_t)gr->forloop_sym << 32 |
               (gr->forloop_sym ? (uint64_t)(uint32_t)gr->forloop_rows << 34
                                : 0);
  }
  return n;
}

static uint64_t hash_key(uint64_t h, const uint64_t *key, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = mg_hash_u64(h, key[i]);
  return h;
}

uint64_t mg_program_hash(const MgProgram *program) {
  uint64_t key[KEY_MAX];
  uint64_t h = HASH_SEED;
  if (!program)
    return h;
  h = mg_hash_u64(h, program->num_graphs);
  for (uint32_t g = 0; g < program->num_graphs; g++) {
    const MgGraph *gr = &program->graphs[g];
    h = hash_key(h, key, graph_key(gr, key));
    for (uint32_t i = 0; i < gr->num_ops; i++)
      h = hash_key(h, key, op_key(&gr->ops[i], key));
    for (uint32_t i = 0; i < gr->num_tensors; i++)
      h = hash_key(h, key, tensor_key(&gr->tensors[i], key));
    for (uint32_t i = 0; i < gr->num_outputs; i++)
      h = mg_hash_u64(h, gr->outputs[i]);
  }
  return h;
}

static bool keys_equal(const uint64_t *a, size_t na, const uint64_t *b,
                       size_t nb) {
  return na == nb && memcmp(a, b, na * sizeof *a) == 0;
}

bool mg_program_equal(const MgProgram *a, const MgProgram *b) {
  if (a == b)
    return true;
  if (!a || !b || a->num_graphs != b->num_graphs)
    return false;
  uint64_t ka[KEY_MAX], kb[KEY_MAX];
  for (uint32_t g = 0; g < a->num_graphs; g++) {
    const MgGraph *ga = &a->graphs[g], *gb = &b->graphs[g];
    // graph_key covers the counts, so the loops below stay in bounds.
    if (!keys_equal(ka, graph_key(ga, ka), kb, graph_key(gb, kb)))
      return false;
    for (uint32_t i = 0; i < ga->num_ops; i++)
      if (!keys_equal(ka, op_key(&ga->ops[i], ka), kb,
                      op_key(&gb->ops[i], kb)))
        return false;
    for (uint32_t i = 0; i < ga->num_tensors; i++)
      if (!keys_equal(ka, tensor_key(&ga->tensors[i], ka), kb,
                      tensor_key(&gb->tensors[i], kb)))
        return false;
    for (uint32_t i = 0; i < ga->num_outputs; i++)
      if (ga->outputs[i] != gb->outputs[i])
        return false;
  }
  return true;
}

const MgTensor *mg_graph_input_tensor(const MgGraph *g, uint32_t pos) {
  for (uint32_t i = 0; i < g->num_ops; ++i)
    if (g->ops[i].kind == MG_OP_INPUT && g->ops[i].attr == (int32_t)pos)
      return mg_graph_tensor(g, g->ops[i].outputs[0]);
  return NULL;
}

// Same type and, for inputs, the same stored layout.
static bool same_input(const MgGraph *ga, const MgTensor *a,
                       const MgGraph *gb, const MgTensor *b) {
  return a && b && mg_graph_same_type(a, b) &&
         mg_graph_same_layout(ga, a, gb, b);
}

bool mg_program_same_signature(const MgProgram *a, const MgProgram *b) {
  if (!a || !b || !a->num_graphs || !b->num_graphs)
    return false;
  const MgGraph *ga = &a->graphs[0], *gb = &b->graphs[0];
  if (ga->num_inputs != gb->num_inputs || ga->num_outputs != gb->num_outputs)
    return false;
  for (uint32_t i = 0; i < ga->num_inputs; ++i)
    if (!same_input(ga, mg_graph_input_tensor(ga, i), gb,
                    mg_graph_input_tensor(gb, i)))
      return false;
  for (uint32_t k = 0; k < ga->num_outputs; ++k)
    if (!mg_graph_same_type(&ga->tensors[ga->outputs[k]],
                            &gb->tensors[gb->outputs[k]]))
      return false;
  return true;
}
