//===- layout.c - Index math: moving cells between dense arrays -----------===//
//
// Everything here is domain-free: cells are copied, never combined, so the
// same code serves doubles and residue pairs. Loops walk all dims but the
// last with an odometer and move the innermost run with memcpy (or a fill,
// for a broadcast stride of 0), so the cost is O(cells moved) with one
// memcpy per row. All arrays are dense row-major with rank <= MG_MAX_DIMS.
//
//===----------------------------------------------------------------------===//
#include "exec_internal.h"

#include <string.h>

void mg_interp_fill(MgCell *dst, MgCell v, size_t n) {
  for (size_t i = 0; i < n; ++i)
    dst[i] = v;
}

static void dense_strides(uint32_t rank, const int64_t *dims,
                          int64_t *stride) {
  int64_t s = 1;
  for (uint32_t d = rank; d-- > 0;) {
    stride[d] = s;
    s *= dims[d];
  }
}

static bool any_zero(uint32_t rank, const int64_t *dims) {
  for (uint32_t d = 0; d < rank; ++d)
    if (dims[d] == 0)
      return true;
  return false;
}

/// Advances idx over dims[0..rank-2] (the last dim is the inner run);
/// false once every position was visited.
static bool odometer_next(int64_t *idx, const int64_t *dims, uint32_t rank) {
  for (uint32_t d = rank - 1; d-- > 0;) {
    if (++idx[d] < dims[d])
      return true;
    idx[d] = 0;
  }
  return false;
}

void mg_interp_strided_copy(const MgCell *src, const int64_t *sstride,
                            MgCell *dst, uint32_t rank, const int64_t *dims) {
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  if (any_zero(rank, dims))
    return;
  int64_t idx[MG_MAX_DIMS] = {0};
  int64_t row = dims[rank - 1];
  int64_t inner = sstride[rank - 1];
  do {
    int64_t so = 0;
    for (uint32_t d = 0; d + 1 < rank; ++d)
      so += idx[d] * sstride[d];
    const MgCell *s = src + so;
    if (inner == 1) {
      memcpy(dst, s, (size_t)row * sizeof(MgCell));
    } else if (inner == 0) {
      mg_interp_fill(dst, *s, (size_t)row);
    } else {
      for (int64_t j = 0; j < row; ++j)
        dst[j] = s[j * inner];
    }
    dst += row;
  } while (odometer_next(idx, dims, rank));
}

void mg_interp_copy_box(const MgCell *src, MgBoxAt from, MgCell *dst,
                        MgBoxAt to, const int64_t *region, uint32_t rank) {
  const int64_t *const sdims = from.dims, *const soff = from.off;
  const int64_t *const ddims = to.dims, *const doff = to.off;
  if (rank == 0) {
    dst[0] = src[0];
    return;
  }
  if (any_zero(rank, region))
    return;
  int64_t ss[MG_MAX_DIMS], ds[MG_MAX_DIMS];
  dense_strides(rank, sdims, ss);
  dense_strides(rank, ddims, ds);
  int64_t idx[MG_MAX_DIMS] = {0};
  size_t row = (size_t)region[rank - 1] * sizeof(MgCell);
  do {
    int64_t so = soff[rank - 1], dof = doff[rank - 1];
    for (uint32_t d = 0; d + 1 < rank; ++d) {
      so += (soff[d] + idx[d]) * ss[d];
      dof += (doff[d] + idx[d]) * ds[d];
    }
    memcpy(dst + dof, src + so, row);
  } while (odometer_next(idx, region, rank));
}

void mg_interp_broadcast(const MgCell *src, uint32_t srank,
                         const int64_t *sdims, MgCell *dst, uint32_t rank,
                         const int64_t *dims) {
  int64_t dense[MG_MAX_DIMS], stride[MG_MAX_DIMS];
  dense_strides(srank, sdims, dense);
  uint32_t lead = rank - srank; // missing leading dims repeat the source
  for (uint32_t d = 0; d < rank; ++d) {
    if (d < lead) {
      stride[d] = 0;
    } else {
      uint32_t sd = d - lead;
      stride[d] = sdims[sd] == dims[d] ? dense[sd] : 0;
    }
  }
  mg_interp_strided_copy(src, stride, dst, rank, dims);
}
