//===- harness.c - One finite-field test, shared by verify and search -----===//
//
// mg_verify_equivalent and the search's cached checks (lib/search/check.c)
// must run the same tests: same inputs from a key, same uninterpreted
// functions for that key, same comparison. Both call these functions, so
// the draw, the salt and the comparison are defined once; changing any of
// them changes both together.
//
//===----------------------------------------------------------------------===//
#include "mirage/ff_domain.h"

/// Separates the uninterpreted-function key from the input stream.
#define MG_FF_UF_SALT 0x243f6a8885a308d3ull

// Uniform residues by rejection (every p is above 2^31 - 2^28 and every q
// above 2^30 - 2^27, so most draws are kept; the result is exactly uniform).
static uint32_t draw(MgRng *rng, unsigned bits, uint32_t mod) {
  for (;;) {
    uint32_t r = (uint32_t)(mg_rng_next(rng) >> (64 - bits));
    if (r < mod)
      return r;
  }
}

void mg_ff_draw_inputs(MgBuffer *inputs, uint32_t num_inputs, uint64_t key) {
  MgRng rng = {key};
  MgFfField f = mg_ff_field_draw(key);
  for (uint32_t i = 0; i < num_inputs; ++i) {
    int64_t n = mg_buffer_numel(&inputs[i]);
    for (int64_t e = 0; e < n; ++e) {
      uint32_t xp = draw(&rng, 31, f.p);
      uint32_t xq = draw(&rng, 30, f.q);
      inputs[i].data[e] = mg_ff_cell(xp, xq);
    }
  }
}

void mg_ff_rekey_test(MgFfContext *ctx, uint64_t key) {
  mg_ff_context_rekey(ctx, mg_hash_u64(key, MG_FF_UF_SALT));
  mg_ff_context_set_field(ctx, mg_ff_field_draw(key));
}

bool mg_ff_first_difference(const MgBuffer *a, const MgBuffer *b,
                            uint32_t num_outputs, MgVerifyResult *r) {
  for (uint32_t k = 0; k < num_outputs; ++k) {
    int64_t n = mg_buffer_numel(&a[k]);
    if (n != mg_buffer_numel(&b[k]))
      return true;
    for (int64_t e = 0; e < n; ++e) {
      uint32_t x = mg_ff_cell_p(a[k].data[e]), y = mg_ff_cell_p(b[k].data[e]);
      if (x != y) {
        r->output = k;
        r->index = e;
        r->value_a = x;
        r->value_b = y;
        return true;
      }
    }
  }
  return false;
}
