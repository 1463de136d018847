//===- dot.c - μGraph programs as Graphviz pictures -----------------------===//
//
// mg_program_write_dot draws all three levels in one digraph: kernel ops
// are nodes of the top cluster; a graph-defined kernel is a nested cluster
// holding its block graph (grid, threads, for-loop range in the label),
// whose in-loop ops sit in a further "for-loop" cluster when F > 1, and a
// thread op is a cluster holding its thread graph. Every edge carries the
// type of the tensor it moves, as seen by the consumer (a kernel tensor into
// an iterator, a tile between block ops).
//
// Node identity: each drawn graph instance gets a number `inst` in drawing
// order and op `o` of it the node "n<inst>_<o>", so a block graph called by
// two kernels is drawn twice without clashing ids. INPUT ops of block and
// thread graphs are not drawn: their tensor's edges start at whatever
// produces the caller's operand (a kernel input, a saver inside another
// kernel's cluster), which is where the data comes from. Likewise the
// results of custom and thread ops are the nodes producing the called
// graph's outputs (savers, thread ops).
//
// Edges are collected in a second buffer and written after every node:
// Graphviz puts a node into the cluster where it is first mentioned, so an
// edge written inside a cluster would pull a node drawn later into it.
//
// Everything is in index order, so the same program gives the same bytes.
//
//===----------------------------------------------------------------------===//
#include "graph_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define NO_NODE UINT32_MAX

/// Where a tensor's value comes from in the picture: a drawn node.
typedef struct NodeRef {
  uint32_t inst, op; // inst == NO_NODE: not drawn (no edge)
} NodeRef;

typedef struct DotWriter {
  const MgProgram *p;
  MgText *out;   // nodes and clusters
  MgText edges;  // written after the last node
  uint32_t next_inst;
  MgDiag *diag;
  MgStatus status;
} DotWriter;

/// A bad program (an id out of range); the first one is reported.
static void fail(DotWriter *w, MgGraphId g, uint32_t op, const char *what) {
  if (w->status == MG_STATUS_OK)
    w->status = mg_diag_set(w->diag, MG_STATUS_INVALID, (int32_t)g,
                            (int32_t)op, "cannot draw the μGraph: %s", what);
}

/// Appends `s` as the inside of a DOT quoted string: '"' and '\' escaped
/// (a label would read "\n", "\N" or "\G" as escapes), a line break as the
/// label escape "\n", other control bytes and bytes that are not UTF-8 as
/// '?' (Graphviz refuses invalid UTF-8 in its default charset).
static void put_escaped(MgText *t, const char *s) {
  const unsigned char *c = (const unsigned char *)s;
  while (*c) {
    size_t n = *c < 0x80 ? 1 : (*c & 0xE0) == 0xC0 ? 2
             : (*c & 0xF0) == 0xE0 ? 3 : (*c & 0xF8) == 0xF0 ? 4 : 0;
    for (size_t k = 1; k < n; k++)
      if ((c[k] & 0xC0) != 0x80)
        n = 0; // also stops at the terminating NUL
    if (n > 1) {
      mg_text_printf(t, "%.*s", (int)n, (const char *)c);
      c += n;
      continue;
    }
    if (*c == '"' || *c == '\\')
      mg_text_printf(t, "\\%c", *c);
    else if (*c == '\n')
      mg_text_printf(t, "\\n");
    else
      mg_text_printf(t, "%c", n == 1 && *c >= 0x20 && *c != 0x7F ? *c : '?');
    c++;
  }
}

/// "2x4096xf16", the MLIR tensor type without "tensor<>".
static void put_type(MgText *t, const MgTensor *tensor) {
  for (uint32_t d = 0; d < tensor->rank && d < MG_MAX_DIMS; d++)
    mg_text_printf(t, "%lldx", (long long)tensor->dims[d]);
  const char *dtype = mg_dtype_name((MgDType)tensor->dtype);
  mg_text_printf(t, "%s", dtype ? dtype : "?");
}

/// "[1, φ, φ]": a grid map (x, y, z), φ for a replica axis.
static void put_map(MgText *t, const int8_t map[3]) {
  for (int a = 0; a < 3; a++) {
    const char *sep = a ? ", " : "[";
    if (map[a] == MG_MAP_NONE)
      mg_text_printf(t, "%sφ", sep);
    else
      mg_text_printf(t, "%s%d", sep, map[a]);
  }
  mg_text_printf(t, "]");
}

static void indent(MgText *t, int depth) {
  mg_text_printf(t, "%*s", 2 * depth, "");
}

/// What an op does beyond its kind, on the lines after its name.
static void put_op_details(MgText *t, const MgGraph *gr, const MgOp *op) {
  switch ((MgOpKind)op->kind) {
  case MG_OP_ITERATOR:
    mg_text_printf(t, "\\nimap ");
    put_map(t, op->imap);
    if (op->fmap == MG_MAP_NONE)
      mg_text_printf(t, "\\nfmap φ");
    else
      mg_text_printf(t, "\\nfmap %d", op->fmap);
    break;
  case MG_OP_SAVER:
    mg_text_printf(t, "\\nomap ");
    put_map(t, op->omap);
    break;
  case MG_OP_ACCUM: {
    const char *acc = mg_accum_kind_name((MgAccumKind)op->acc);
    mg_text_printf(t, " %s", acc ? acc : "?");
    break;
  }
  case MG_OP_SUM: case MG_OP_REDUCE_MAX: case MG_OP_CONCAT:
    mg_text_printf(t, "\\ndim %d", op->attr);
    break;
  case MG_OP_SLICE:
    mg_text_printf(t, "\\ndim %d [%lld, +%lld)", op->attr,
                   (long long)op->shape[0], (long long)op->shape[1]);
    break;
  case MG_OP_IM2COL: {
    MgIm2col c = mg_op_im2col(op);
    mg_text_printf(t, "\\n%lldx%lld /%lld,%lld", (long long)c.kh,
                   (long long)c.kw, (long long)c.sh, (long long)c.sw);
    if (c.groups > 1)
      mg_text_printf(t, " g%d", c.groups);
    break;
  }
  case MG_OP_MUL_SCALAR: case MG_OP_DIV_SCALAR:
  case MG_OP_MAX_SCALAR: case MG_OP_MIN_SCALAR:
  case MG_OP_ADD_SCALAR:
    mg_text_printf(t, "\\n%g", op->scalar);
    break;
  case MG_OP_TRANSPOSE: {
    uint32_t rank = gr->tensors[op->outputs[0]].rank;
    for (uint32_t d = 0; d < rank && d < MG_MAX_DIMS; d++)
      mg_text_printf(t, "%s%d", d ? ", " : "\\nperm [", op->perm[d]);
    mg_text_printf(t, "]");
    break;
  }
  default:
    break;
  }
}

/// Fill colour by level; iterators, savers and accumulators stand out
/// because they are where data enters, leaves and crosses the loop.
static const char *fill_of(MgLevel level, MgOpKind kind) {
  switch (kind) {
  case MG_OP_ITERATOR: case MG_OP_SAVER:
    return "#f8cecc";
  case MG_OP_ACCUM:
    return "#e1d5e7";
  default:
    return level == MG_LEVEL_KERNEL ? "#dae8fc"
           : level == MG_LEVEL_BLOCK ? "#d5e8d4" : "#fff2cc";
  }
}

/// The node of an op that computes (not INPUT, CUSTOM or THREAD).
static void put_op_node(DotWriter *w, const MgGraph *gr, uint32_t inst,
                        uint32_t o, int depth) {
  const MgOp *op = &gr->ops[o];
  const char *name = mg_op_kind_name((MgOpKind)op->kind);
  indent(w->out, depth);
  mg_text_printf(w->out, "n%u_%u [label=\"%s", inst, o, name ? name : "?");
  put_op_details(w->out, gr, op);
  bool view = mg_op_is_view(op, (MgLevel)gr->level);
  mg_text_printf(w->out, "\", fillcolor=\"%s\"%s];\n",
                 fill_of((MgLevel)gr->level, (MgOpKind)op->kind),
                 view ? ", style=\"rounded,filled,dashed\"" : "");
}

/// An edge from the producer of tensor `t` (of `gr`) to node `to`, labelled
/// with the tensor's type; none when the producer is not drawn.
static void put_edge(DotWriter *w, const MgGraph *gr, const NodeRef *src,
                     MgTensorId t, NodeRef to) {
  if (src[t].inst == NO_NODE)
    return;
  mg_text_printf(&w->edges, "  n%u_%u -> n%u_%u [label=\"", src[t].inst,
                 src[t].op, to.inst, to.op);
  put_type(&w->edges, &gr->tensors[t]);
  mg_text_printf(&w->edges, "\"];\n");
}

/// True when every tensor id of `op` is one of `gr`'s.
static bool ids_ok(const MgGraph *gr, const MgOp *op) {
  if (op->num_inputs > MG_MAX_OP_INPUTS || op->num_outputs > MG_MAX_OP_OUTPUTS)
    return false;
  for (uint32_t i = 0; i < op->num_inputs; i++)
    if (op->inputs[i] >= gr->num_tensors)
      return false;
  for (uint32_t k = 0; k < op->num_outputs; k++)
    if (op->outputs[k] >= gr->num_tensors)
      return false;
  return true;
}

/// The call a graph is drawn for: the sources of its operands by input
/// position and where the sources of its outputs go. The root has no call
/// (args NULL): its inputs and outputs are drawn as nodes.
typedef struct Call {
  const NodeRef *args;
  uint32_t num_args;
  NodeRef *results;
  uint32_t num_results;
} Call;

/// One drawing of graph `g`: its instance number (the `n<inst>_<op>` node
/// names), where each of its tensors comes from (`src`, by tensor id) and
/// the call it is drawn for.
typedef struct Instance {
  MgGraphId g;
  uint32_t inst;
  NodeRef *src;
  const Call *call;
} Instance;

static void write_graph(DotWriter *w, MgGraphId g, const Call *call, int depth);

/// A custom op (block graph) or thread op (thread graph): a cluster with
/// the called graph inside; its results become the called graph's outputs.
static void write_call(DotWriter *w, const Instance *in, uint32_t o,
                       int depth) {
  const MgGraphId g = in->g;
  const uint32_t inst = in->inst;
  const NodeRef *src = in->src;
  const MgProgram *p = w->p;
  const MgGraph *gr = &p->graphs[g];
  const MgOp *op = &gr->ops[o];
  MgGraphId sub = op->attr >= 0 ? (MgGraphId)op->attr : MG_NO_ID;
  if (sub >= p->num_graphs || p->graphs[sub].level != gr->level + 1) {
    fail(w, g, o, "a custom or thread op names no graph of the next level");
    return;
  }
  const MgGraph *callee = &p->graphs[sub];
  NodeRef args[MG_MAX_OP_INPUTS], out[MG_MAX_OP_OUTPUTS];
  for (uint32_t i = 0; i < op->num_inputs; i++)
    args[i] = src[op->inputs[i]];
  for (uint32_t k = 0; k < MG_MAX_OP_OUTPUTS; k++)
    out[k] = (NodeRef){NO_NODE, NO_NODE}; // a callee with fewer outputs
  indent(w->out, depth);
  mg_text_printf(w->out, "subgraph cluster_%u_%u {\n", inst, o);
  indent(w->out, depth + 1);
  if (callee->level == MG_LEVEL_BLOCK)
    mg_text_printf(w->out,
                   "label=\"block graph %u (kernel op %u)\\ngrid [%d, %d, "
                   "%d], %d threads, forloop %d\"; style=filled; "
                   "fillcolor=\"#f4f7f4\"; color=\"#82b366\";\n",
                   sub, o, callee->grid[0], callee->grid[1], callee->grid[2],
                   callee->block_threads, callee->forloop);
  else
    mg_text_printf(w->out,
                   "label=\"thread graph %u (block op %u)\"; style=filled; "
                   "fillcolor=\"#fffbe6\"; color=\"#d6b656\";\n", sub, o);
  write_graph(w, sub, &(Call){args, op->num_inputs, out, op->num_outputs},
              depth + 1);
  indent(w->out, depth);
  mg_text_printf(w->out, "}\n");
  for (uint32_t k = 0; k < op->num_outputs; k++)
    in->src[op->outputs[k]] = out[k];
}

/// Draws op `o` of instance `in` and records where its results come from
/// in `in->src`.
static void write_op(DotWriter *w, const Instance *in, uint32_t o,
                     int depth) {
  const MgGraphId g = in->g;
  const uint32_t inst = in->inst;
  NodeRef *const src = in->src;
  const NodeRef *const args = in->call ? in->call->args : NULL;
  const uint32_t num_args = in->call ? in->call->num_args : 0;
  const MgGraph *gr = &w->p->graphs[g];
  const MgOp *op = &gr->ops[o];
  if (!ids_ok(gr, op) || op->num_outputs == 0) {
    fail(w, g, o, "a tensor id out of range");
    return;
  }
  switch ((MgOpKind)op->kind) {
  case MG_OP_INPUT:
    if (args) { // a callee's input: the caller's operand
      if (op->attr < 0 || (uint32_t)op->attr >= num_args)
        fail(w, g, o, "an input position beyond the call's operands");
      else
        src[op->outputs[0]] = args[op->attr];
      return;
    }
    indent(w->out, depth);
    mg_text_printf(w->out, "n%u_%u [label=\"input %d", inst, o, op->attr);
    int8_t perm[MG_MAX_DIMS];
    uint32_t rank = gr->tensors[op->outputs[0]].rank;
    bool layout = rank <= MG_MAX_DIMS && mg_op_input_perm(op, rank, perm);
    for (uint32_t d = 0; layout && d < rank; d++) // an input layout
      mg_text_printf(w->out, "%s%d", d ? ", " : "\\nlayout [", perm[d]);
    mg_text_printf(w->out, "%s\", shape=ellipse, fillcolor=white];\n",
                   layout ? "]" : "");
    break;
  case MG_OP_CUSTOM: case MG_OP_THREAD:
    write_call(w, in, o, depth);
    return;
  default:
    put_op_node(w, gr, inst, o, depth);
    for (uint32_t i = 0; i < op->num_inputs; i++)
      put_edge(w, gr, src, op->inputs[i], (NodeRef){inst, o});
    break;
  }
  for (uint32_t k = 0; k < op->num_outputs; k++)
    src[op->outputs[k]] = (NodeRef){inst, o};
}

/// Which of the three rounds of write_graph draws op `o`: 0 for INPUTs, 1
/// for the for-loop body (ops whose results are per-iteration values, when
/// the loop has its own cluster), 2 for the rest.
static int round_of(const MgGraph *gr, uint32_t o, const uint8_t *phase) {
  const MgOp *op = &gr->ops[o];
  if (op->kind == MG_OP_INPUT)
    return 0;
  bool loop = phase && op->num_outputs > 0 &&
              op->outputs[0] < gr->num_tensors &&
              phase[op->outputs[0]] == MG_PHASE_LOOP;
  return loop ? 1 : 2;
}

/// Draws graph `g` as a new instance for `call` (NULL for the root, whose
/// inputs and outputs are drawn); the sources of its outputs are written to
/// `call->results`.
static void write_graph(DotWriter *w, MgGraphId g, const Call *call,
                        int depth) {
  const NodeRef *const args = call ? call->args : NULL;
  const MgGraph *gr = &w->p->graphs[g];
  uint32_t inst = w->next_inst++;
  NodeRef *src = malloc((gr->num_tensors + 1) * sizeof *src);
  // The loop body gets its own cluster only when there is a loop.
  bool loop = gr->level == MG_LEVEL_BLOCK && gr->forloop > 1;
  uint8_t *phase = loop ? malloc(gr->num_tensors + 1) : NULL;
  if (!src || (loop && !phase)) {
    w->status = mg_diag_set(w->diag, MG_STATUS_NOMEM, (int32_t)g, -1,
                            "out of memory drawing the μGraph");
    free(src);
    free(phase);
    return;
  }
  for (uint32_t t = 0; t < gr->num_tensors; t++)
    src[t] = (NodeRef){NO_NODE, NO_NODE};
  if (phase)
    mg_graph_phases(gr, phase);
  // Loop-body ops read only inputs and loop values (placement.c), so each
  // round still draws every op after its producers.
  for (int round = 0; round < 3 && w->status == MG_STATUS_OK; round++) {
    int d = depth;
    if (round == 1 && loop) {
      indent(w->out, depth);
      mg_text_printf(w->out, "subgraph cluster_%u_loop {\n", inst);
      indent(w->out, depth + 1);
      mg_text_printf(w->out, "label=\"for-loop i in [0, %d)\"; "
                             "style=dashed; color=\"#6c8ebf\"; labeljust=l;\n",
                     gr->forloop);
      d = depth + 1;
    }
    for (uint32_t o = 0; o < gr->num_ops && w->status == MG_STATUS_OK; o++)
      if (round_of(gr, o, phase) == round)
        write_op(w, &(Instance){g, inst, src, call}, o, d);
    if (round == 1 && loop) {
      indent(w->out, depth);
      mg_text_printf(w->out, "}\n");
    }
  }
  if (w->status == MG_STATUS_OK && args &&
      gr->num_outputs > call->num_results)
    fail(w, g, MG_NO_ID, "a call with fewer results than its graph's outputs");
  for (uint32_t k = 0; k < gr->num_outputs && w->status == MG_STATUS_OK; k++) {
    MgTensorId t = gr->outputs[k];
    if (t >= gr->num_tensors) {
      fail(w, g, MG_NO_ID, "an output id out of range");
      break;
    }
    if (args) {
      call->results[k] = src[t];
      continue;
    }
    // The root's outputs are drawn as nodes numbered after its ops.
    indent(w->out, depth);
    mg_text_printf(w->out, "n%u_%u [label=\"output %u\", shape=ellipse, "
                           "fillcolor=white];\n", inst, gr->num_ops + k, k);
    put_edge(w, gr, src, t, (NodeRef){inst, gr->num_ops + k});
  }
  free(src);
  free(phase);
}

MgStatus mg_program_write_dot(const MgProgram *program, const char *name,
                              const char *caption, MgText *out,
                              MgDiag *diag) {
  if (!program || program->num_graphs == 0 ||
      program->graphs[0].level != MG_LEVEL_KERNEL)
    return mg_diag_set(diag, MG_STATUS_INVALID, -1, -1,
                       "cannot draw the μGraph: no root kernel graph");
  DotWriter w = {program, out, {NULL, 0, 0, false}, 0, diag, MG_STATUS_OK};
  mg_text_printf(out, "// μGraph @");
  put_escaped(out, name ? name : "");
  mg_text_printf(out, " (mirage-mlir); render with: dot -Tsvg FILE\n"
                      "digraph \"");
  put_escaped(out, name ? name : "");
  mg_text_printf(out, "\" {\n  graph [label=\"@");
  put_escaped(out, name ? name : "");
  if (caption && *caption) {
    mg_text_printf(out, "\\n");
    put_escaped(out, caption);
  }
  mg_text_printf(out, "\", labelloc=t, fontname=\"DejaVu Sans\", "
                      "fontsize=12];\n"
                      "  node [shape=box, style=\"rounded,filled\", "
                      "fontname=\"DejaVu Sans\", fontsize=10];\n"
                      "  edge [fontname=\"DejaVu Sans\", fontsize=8];\n");
  write_graph(&w, 0, NULL, 1);
  if (w.status == MG_STATUS_OK)
    mg_text_printf(out, "%s}\n", w.edges.data ? w.edges.data : "");
  bool no_memory = w.edges.failed || out->failed;
  mg_text_free(&w.edges);
  if (w.status == MG_STATUS_OK && no_memory)
    return mg_diag_set(diag, MG_STATUS_NOMEM, -1, -1,
                       "out of memory drawing the μGraph");
  return w.status;
}
