/* Slicing: STRIDED_SLICE (TFLite's start/stop rules per axis: masks,
 * negative indices from the end, clamping, shrunk axes dropped from the
 * output) and SPLIT / SPLIT_V (consecutive pieces along one axis, sizes
 * from the output shapes). Indices are walked over the shape as written,
 * right-aligned into 4 dims. */
#include <string.h>

#include "ref_internal.h"

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

texmem_status texmem_ref_strided_slice(const texmem_op_options *o, const texmem_ref_tensor *in,
                                       size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "STRIDED_SLICE";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 1, err))) return s;
  unsigned rank = in[0].rank;
  if (o->slice_rank != rank)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: slice of rank %u, input rank %u",
                        name, o->slice_rank, rank);
  /* Per axis, right-aligned: start, stride, count. */
  int64_t start[4] = {0, 0, 0, 0}, step[4] = {1, 1, 1, 1}, count[4] = {1, 1, 1, 1};
  int32_t oshape[4];
  unsigned orank = 0;
  for (unsigned a = 0; a < rank; a++) {
    int64_t dim = in[0].shape[a], st = o->slice_stride[a];
    if (st == 0) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: stride 0", name);
    bool shrink = (o->shrink_axis_mask >> a) & 1u;
    int64_t b = o->slice_begin[a];
    if ((o->begin_mask >> a) & 1u) b = st > 0 ? INT32_MIN : INT32_MAX;
    if (b < 0) b += dim;
    b = st > 0 ? clamp64(b, 0, dim) : clamp64(b, -1, dim - 1);
    int64_t e;
    if (shrink) {
      e = b + 1;
    } else {
      e = o->slice_end[a];
      if ((o->end_mask >> a) & 1u) e = st > 0 ? INT32_MAX : INT32_MIN;
      if (e < 0) e += dim;
      e = st > 0 ? clamp64(e, 0, dim) : clamp64(e, -1, dim - 1);
    }
    int64_t n = st > 0 ? (e - b + st - 1) / st : (b - e + (-st) - 1) / (-st);
    if (n < 0) n = 0;
    if (shrink) {
      if (n != 1)
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                            "%s: shrunk axis %u selects %lld elements", name, a, (long long)n);
    } else {
      oshape[orank++] = (int32_t)n;
    }
    unsigned j = 4 - rank + a;
    start[j] = b;
    step[j] = shrink ? 1 : st;
    count[j] = n;
  }
  if (out->rank != orank)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output rank %u, the slice gives %u",
                        name, out->rank, orank);
  for (unsigned i = 0; i < orank; i++)
    if (out->shape[i] != oshape[i])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "%s: output dim %u is %d, the slice gives %d", name, i, out->shape[i],
                          oshape[i]);
  if (!out->data) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: no output", name);
  int64_t is[4] = {1, 1, 1, 1};
  for (unsigned a = 0; a < rank; a++) is[4 - rank + a] = in[0].shape[a];
  size_t k = 0;
  for (int64_t i0 = 0; i0 < count[0]; i0++)
    for (int64_t i1 = 0; i1 < count[1]; i1++)
      for (int64_t i2 = 0; i2 < count[2]; i2++)
        for (int64_t i3 = 0; i3 < count[3]; i3++) {
          int64_t q[4] = {start[0] + i0 * step[0], start[1] + i1 * step[1],
                          start[2] + i2 * step[2], start[3] + i3 * step[3]};
          size_t at = (size_t)(((q[0] * is[1] + q[1]) * is[2] + q[2]) * is[3] + q[3]);
          out->data[k++] = in[0].data[at];
        }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_split(texmem_op_type type, const texmem_op_options *o,
                               const texmem_ref_tensor *in, size_t n_in, texmem_ref_tensor *outs,
                               size_t n_out, texmem_error *err) {
  const char *name = type == TEXMEM_OP_SPLIT ? "SPLIT" : "SPLIT_V";
  size_t di = type == TEXMEM_OP_SPLIT ? 1 : 0;
  if (n_in <= di || !in || !in[di].data)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: no data input", name);
  if (n_out < 1 || !outs)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: no outputs", name);
  const texmem_ref_tensor *x = &in[di];
  int32_t axis = o->axis < 0 ? o->axis + (int32_t)x->rank : o->axis;
  if (axis < 0 || axis >= (int32_t)x->rank)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: axis %d for rank %u", name,
                        o->axis, x->rank);
  int64_t total = 0;
  for (size_t i = 0; i < n_out; i++) {
    if (!outs[i].data || outs[i].rank != x->rank)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output %zu has no data or rank %u",
                          name, i, outs[i].rank);
    for (unsigned d = 0; d < x->rank; d++)
      if ((int32_t)d != axis && outs[i].shape[d] != x->shape[d])
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: output %zu dim %u is %d, input %d",
                            name, i, d, outs[i].shape[d], x->shape[d]);
    if (type == TEXMEM_OP_SPLIT && (int64_t)outs[i].shape[axis] * (int64_t)n_out != x->shape[axis])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: %zu equal pieces of %d", name,
                          n_out, x->shape[axis]);
    total += outs[i].shape[axis];
  }
  if (total != x->shape[axis])
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: pieces sum to %lld, axis has %d",
                        name, (long long)total, x->shape[axis]);
  size_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; d++) outer *= (size_t)x->shape[d];
  for (unsigned d = (unsigned)axis + 1; d < x->rank; d++) inner *= (size_t)x->shape[d];
  size_t k = 0;
  for (size_t r = 0; r < outer; r++)
    for (size_t i = 0; i < n_out; i++) {
      size_t len = (size_t)outs[i].shape[axis] * inner;
      memcpy(outs[i].data + r * len, x->data + k, len * sizeof *x->data);
      k += len;
    }
  return TEXMEM_STATUS_OK;
}
