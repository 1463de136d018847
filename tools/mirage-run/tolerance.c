//===- tolerance.c - How far the JIT may be from the exact result ---------===//
//
// The interpreter computes in f64 on inputs that are exactly representable,
// so it is (to ~1e-16) the exact result; the JIT rounds to the storage type
// after every operation, including every step of a reduction, because the
// upstream lowering accumulates in the element type of the linalg output.
// The error of an output element is then a sum of rounding errors, one per
// rounding on its longest dependency chain: a reduction of length n adds n
// roundings, an element-wise op one. That count is the "error length" L,
// read from the μGraph (the lifted graph computes the same reductions as the
// reference: a reduction split over a grid or a for-loop still adds up the
// same number of terms). docs/mirage-run.md derives the bound used here.
//
//===----------------------------------------------------------------------===//
#include "run.h"

#include <math.h>
#include <stdlib.h>

/// Kernel -> block -> thread is three levels; anything deeper is malformed.
#define MAX_DEPTH 4

static double max_input(const double *len, const MgOp *op) {
  double m = 0;
  for (uint32_t i = 0; i < op->num_inputs; ++i)
    if (len[op->inputs[i]] > m)
      m = len[op->inputs[i]];
  return m;
}

/// The lengths at a graph's boundary: its inputs' (given) and its
/// outputs' (computed), by position.
typedef struct Boundary {
  const double *in;
  uint32_t num_in;
  double *out;
  uint32_t num_out;
} Boundary;

/// Lengths of graph `gid`'s outputs, given its inputs' lengths. Tolerates
/// malformed ids (the program was validated before, but this must not be
/// the place that crashes if it was not).
static void analyze(const MgProgram *p, MgGraphId gid, const Boundary *b,
                    int depth) {
  const double *const in_len = b->in;
  double *const out_len = b->out;
  const uint32_t num_in = b->num_in, num_out = b->num_out;
  for (uint32_t i = 0; i < num_out; ++i)
    out_len[i] = 0;
  if (gid >= p->num_graphs || depth > MAX_DEPTH)
    return;
  const MgGraph *g = &p->graphs[gid];
  double *len = calloc(g->num_tensors ? g->num_tensors : 1, sizeof *len);
  if (!len)
    return;
  for (uint32_t o = 0; o < g->num_ops; ++o) {
    const MgOp *op = &g->ops[o];
    const MgTensor *in0 =
        op->num_inputs ? &g->tensors[op->inputs[0]] : NULL;
    double m = max_input(len, op);
    double r = m;
    switch ((MgOpKind)op->kind) {
    case MG_OP_INPUT:
      r = op->attr >= 0 && (uint32_t)op->attr < num_in ? in_len[op->attr] : 0;
      break;
    case MG_OP_MATMUL:
      r = m + (double)in0->dims[in0->rank - 1];
      break;
    case MG_OP_SUM:
      r = m + (double)in0->dims[op->attr];
      break;
    case MG_OP_ACCUM: {
      double f = g->forloop;
      double last = (double)in0->dims[in0->rank - 1];
      // A plain sum continues the reduction its input ends with (a matmul
      // tile of k_t terms summed over F iterations is one reduction of
      // F·k_t terms in the reference): at least m·F, at least m + F.
      // The online sum also rounds two rescales per step; a max rounds
      // nothing.
      r = op->acc == MG_ACCUM_SUM ? fmax(m * f, m + f)
          : op->acc == MG_ACCUM_ONLINE ? fmax(m * f, m + f) + 2
          : op->acc == MG_ACCUM_MAX ? m
          : op->acc == MG_ACCUM_SUM_LAST ? m + f * last
                                         : m + f * last + 1;
      break;
    }
    case MG_OP_MAX:
    case MG_OP_REDUCE_MAX:
    case MG_OP_MAX_SCALAR:
    case MG_OP_MIN_SCALAR:
      break; // picks an operand or the constant: no rounding
    case MG_OP_CUSTOM:
    case MG_OP_THREAD: {
      double sub_in[MG_MAX_OP_INPUTS], sub_out[MG_MAX_OP_OUTPUTS];
      for (uint32_t i = 0; i < op->num_inputs; ++i)
        sub_in[i] = len[op->inputs[i]];
      analyze(p, (MgGraphId)op->attr,
              &(Boundary){sub_in, op->num_inputs, sub_out, op->num_outputs},
              depth + 1);
      for (uint32_t i = 0; i < op->num_outputs; ++i)
        len[op->outputs[i]] = sub_out[i];
      continue;
    }
    case MG_OP_ITERATOR:
    case MG_OP_SAVER:
    case MG_OP_CONCAT:
    case MG_OP_TRANSPOSE:
    case MG_OP_RESHAPE:
    case MG_OP_SLICE:
    case MG_OP_IM2COL:
      break; // data movement: no rounding
    default:
      r = m + 1; // element-wise: one rounding
      break;
    }
    len[op->outputs[0]] = r;
  }
  for (uint32_t i = 0; i < num_out && i < g->num_outputs; ++i)
    out_len[i] = len[g->outputs[i]];
  free(len);
}

void mg_run_error_lengths(const MgProgram *program, double *lengths) {
  const MgGraph *root = &program->graphs[0];
  double in_len[MG_RUN_MAX_VALUES] = {0};
  uint32_t num_in = root->num_inputs < MG_RUN_MAX_VALUES ? root->num_inputs
                                                         : MG_RUN_MAX_VALUES;
  analyze(program, 0, &(Boundary){in_len, num_in, lengths, root->num_outputs},
          0);
}

double mg_run_tolerance(double u, double length, double scale) {
  return 4.0 * u * (1.0 + sqrt(length)) * scale;
}
