//===- domain.h - The finite-field value domain of the executor -*- C -*-===//
//
// Cells hold residue pairs (see field.h). One MgFfContext serves one test:
// its key selects the uninterpreted functions standing for the non-LAX ops,
// and when a domain call fails, `fault` says why, so the verifier can tell a
// voided test (zero divisor: redraw) from a program outside the supported
// fragment (exp of an exp result: INVALID).
//
//===----------------------------------------------------------------------===//
#ifndef MIRAGE_FF_DOMAIN_H
#define MIRAGE_FF_DOMAIN_H

#include "mirage/field.h"
#include "mirage/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum MgFfFault {
  MG_FF_FAULT_NONE,
  MG_FF_FAULT_ZERO_DIVISOR, // a divisor residue was 0: the test is void
  MG_FF_FAULT_EXP_OF_EXP,   // exp of a value whose q component is ⊥
  MG_FF_FAULT_BAD_SCALAR,   // NaN or infinite scalar
  MG_FF_FAULT_UNSUPPORTED,  // an op kind the domain does not know
  MG_FF_FAULT_NOMEM,
  MG_FF_FAULT_DEADLINE,     // the context's deadline passed: run abandoned
  MG_FF_FAULT_COUNT
} MgFfFault;

#define MG_FF_EXP_SLOTS 4

/// A bounding constant's field image and its rank in one test's order.
typedef struct MgFfBoundRank {
  uint32_t img;
  uint64_t rank;
} MgFfBoundRank;

typedef struct MgFfContext {
  uint64_t key;     // keys the uninterpreted functions of this test
  MgFfField field;  // this test's p and q (MG_FF_P, MG_FF_Q until rekeyed)
  MgFfFault fault;  // why the last failing call failed
  uint64_t uf_calls;// uninterpreted-function applications so far
  double deadline;  // mg_clock_now() time after which calls fail; 0 = none
  uint64_t work;    // cells processed since the clock was last read
  // Powers of g for the last MG_FF_EXP_SLOTS fields (a search's worker
  // runs tests 0, 1, 2, ... in turn): built on a field's first exp.
  uint32_t *exp_tables;              // the slots' tables, one allocation
  uint32_t exp_p[MG_FF_EXP_SLOTS];   // each slot's p (0: empty)
  uint32_t exp_next;                 // the slot refilled next
  const uint32_t *exp_lo, *exp_hi;   // field.p's slot: g^x for x < 2^16,
  uint32_t exp_cur;                  // g^(x·2^16) for x < 2^14; its p
  uint64_t *scratch;// matmul operands and row accumulators
  size_t scratch_cap;
  // The bounding constants of max_scalar / min_scalar (sorted, distinct,
  // borrowed): ranked in the max order by their real values
  // (mg_ff_context_set_bounds); their (image, rank) pairs for bound_key and
  // bound_p, sorted by image.
  const double *bounds;
  uint32_t num_bounds;
  struct MgFfBoundRank *bound_ranks;
  uint64_t bound_key;
  uint32_t bound_p, bound_live;
} MgFfContext;

/// The domain (constant, shared); its calls take an MgFfContext.
MG_API const MgDomain *mg_ff_domain(void);
/// Starts a context for one test; owns nothing until the domain allocates.
MG_API void mg_ff_context_init(MgFfContext *ctx, uint64_t key);
/// Sets the key (and clears the fault) keeping the allocated tables.
MG_API void mg_ff_context_rekey(MgFfContext *ctx, uint64_t key);
/// Sets the field the context computes in.
MG_API void mg_ff_context_set_field(MgFfContext *ctx, MgFfField field);
MG_API void mg_ff_context_dispose(MgFfContext *ctx);
/// The order max and the bounds use keeps these constants (`n` distinct
/// values, ascending; the caller keeps them alive) in their real order:
/// each test draws n random ranks and gives them, sorted, to the
/// constants' images, every other element keeping its keyed random rank.
/// Without it a clamp min(max(x, a), b) degenerates to b in the tests
/// whose order ranks a above b, hiding a moved a.
MG_API void mg_ff_context_set_bounds(MgFfContext *ctx, const double *values,
                                     uint32_t n);
/// The distinct scalars of every max_scalar / min_scalar op in `a` and
/// `b` (b may be NULL), ascending, into a malloc'd *out (NULL when none);
/// their count, or UINT32_MAX when out of memory.
MG_API uint32_t mg_ff_collect_bounds(const MgProgram *a, const MgProgram *b,
                                     double **out);
/// g^x mod p for x < q (through the context's tables when built).
MG_API uint32_t mg_ff_exp(MgFfContext *ctx, uint32_t x);
/// Message for a fault, for diagnostics.
MG_API const char *mg_ff_fault_message(MgFfFault fault);

// One test's pieces, shared by mg_verify_equivalent and the search's checks
// so that both run identical tests (lib/verify/harness.c).

/// Fills the allocated `inputs` with residues uniform in Z_p x Z_q of the
/// field of test `key` (mg_ff_field_draw) drawn from the stream keyed by
/// `key`: the same key gives the same field and values.
MG_API void mg_ff_draw_inputs(MgBuffer *inputs, uint32_t num_inputs,
                              uint64_t key);
/// Rekeys `ctx` with the field and uninterpreted functions of test `key`.
MG_API void mg_ff_rekey_test(MgFfContext *ctx, uint64_t key);
/// First element of outputs a[k], b[k] (k < num_outputs) whose p components
/// differ, into r->output/index/value_a/value_b; true also (r untouched)
/// when two outputs' element counts differ; false when all agree.
MG_API bool mg_ff_first_difference(const MgBuffer *a, const MgBuffer *b,
                                   uint32_t num_outputs, MgVerifyResult *r);

#ifdef __cplusplus
}
#endif

#endif // MIRAGE_FF_DOMAIN_H
