/* Slices, one gather shader (op_slice.comp) for all:
 * - STRIDED_SLICE: per axis of the input as written, TFLite's start/stop
 *   rules (begin/end masks, negative indices from the end, clamping into
 *   the axis, a shrunk axis takes one element and leaves the output); the
 *   output's axes are the kept ones in order, so an output component may
 *   read a different input component (shrinking moves W to H's place...).
 *   The output tensor must have the shape the slice gives.
 * - SPLIT / SPLIT_V: consecutive pieces along options.axis, one pass per
 *   output (pass p writes output p); piece sizes are the outputs' sizes
 *   along the axis, which must add up to the input's. */
#include "kernels_util.h"

typedef struct slice_map {
  int32_t feed[4], start[4], step[4]; /* per input component b, y, x, c */
} slice_map;

static texmem_status program(texmem__kernel_env *env, int32_t in, int32_t outp,
                             const texmem_tensor *x, const texmem_tensor *y, const slice_map *m,
                             texmem__kernel *k, texmem_error *err) {
  static const char *const ins[] = {"src"}, *const outs[] = {"dst"};
  texmem_status s = texmem__kernel_program(env, "op_slice.comp", ins, 1, outs, 1, NULL, 0, NULL,
                                           &k->program, err);
  if (s) return s;
  k->inputs[0] = in;
  k->n_inputs = 1;
  k->outputs[0] = outp;
  k->n_outputs = 1;
  texmem__kernel_ivec4(k, "feed", m->feed[0], m->feed[1], m->feed[2], m->feed[3]);
  texmem__kernel_ivec4(k, "start", m->start[0], m->start[1], m->start[2], m->start[3]);
  texmem__kernel_ivec4(k, "step", m->step[0], m->step[1], m->step[2], m->step[3]);
  texmem__kernel_ivec4(k, "dims", (int32_t)y->c, (int32_t)x->c, 0, 0);
  return TEXMEM_STATUS_OK;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A STRIDED_SLICE's input x, output y and map *mp: where each output
 * element comes from. */
static texmem_status strided_slice_map(const texmem_model *model, const texmem_op *op,
                                       const texmem_tensor **xp, const texmem_tensor **yp,
                                       slice_map *mp, texmem_error *err) {
  const char *name = "STRIDED_SLICE";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  *xp = x;
  *yp = y;
  const texmem_op_options *o = &op->options;
  unsigned rank = x->rank;
  if (o->slice_rank != rank)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: begin/end/strides for rank %u, input has %u",
                        name, o->slice_rank, rank);
  slice_map m = {{-1, -1, -1, -1}, {0, 0, 0, 0}, {1, 1, 1, 1}};
  int32_t kept_axis[TEXMEM_MAX_RANK], kept_size[TEXMEM_MAX_RANK];
  unsigned orank = 0;
  for (unsigned a = 0; a < rank; a++) {
    int64_t dim = x->shape[a], st = o->slice_stride[a];
    if (st == 0) return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: stride of axis %u is 0", name, a);
    bool shrink = (o->shrink_axis_mask >> a) & 1u;
    int64_t b = o->slice_begin[a], e;
    if ((o->begin_mask >> a) & 1u) b = st > 0 ? INT32_MIN : INT32_MAX;
    if (b < 0) b += dim;
    b = st > 0 ? clamp64(b, 0, dim) : clamp64(b, -1, dim - 1);
    if (shrink) {
      e = b + 1;
    } else {
      e = o->slice_end[a];
      if ((o->end_mask >> a) & 1u) e = st > 0 ? INT32_MAX : INT32_MIN;
      if (e < 0) e += dim;
      e = st > 0 ? clamp64(e, 0, dim) : clamp64(e, -1, dim - 1);
    }
    int64_t n = st > 0 ? (e - b + st - 1) / st : (b - e - st - 1) / -st;
    if (n < 0) n = 0;
    if (shrink && (n != 1 || b < 0 || b >= dim))
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: shrunk axis %u (size %lld) has no element %d",
                          name, a, (long long)dim, (int)o->slice_begin[a]);
    if (n == 0)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP, "%s: axis %u selects nothing", name, a);
    int comp = texmem__ku_axis_component(rank, a);
    m.start[comp] = (int32_t)b;
    if (!shrink) {
      m.step[comp] = (int32_t)st;
      kept_axis[orank] = (int32_t)comp;
      kept_size[orank++] = (int32_t)n;
    }
  }
  if (y->rank != orank)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output \"%s\" has rank %u, the slice gives %u",
                        name, y->name, y->rank, orank);
  for (unsigned j = 0; j < orank; j++) {
    if (y->shape[j] != kept_size[j])
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output \"%s\" dim %u is %d, the slice gives %d",
                          name, y->name, j, y->shape[j], kept_size[j]);
    m.feed[kept_axis[j]] = texmem__ku_axis_component(orank, j);
  }
  *mp = m;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_strided_slice(texmem__kernel_env *env, const texmem_model *model,
                                           const texmem_op *op, texmem__kernel *out,
                                           texmem_error *err) {
  const texmem_tensor *x = NULL, *y = NULL;
  slice_map m;
  texmem_status s = strided_slice_map(model, op, &x, &y, &m, err);
  return s ? s : program(env, op->inputs[0], op->outputs[0], x, y, &m, out, err);
}

bool texmem__slice_leading_channels(const texmem_model *model, const texmem_op *op) {
  const texmem_tensor *x = NULL, *y = NULL;
  slice_map m;
  if (op->type != TEXMEM_OP_STRIDED_SLICE || strided_slice_map(model, op, &x, &y, &m, NULL) ||
      x->rank != 4 || y->rank != 4 || x->b != y->b || x->h != y->h || x->w != y->w)
    return false;
  for (int i = 0; i < 4; i++)
    if (m.feed[i] != i || m.start[i] != 0 || m.step[i] != 1) return false;
  return true;
}

texmem_status texmem__kernel_split(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  bool v = op->type == TEXMEM_OP_SPLIT_V;
  const char *name = v ? "SPLIT_V" : "SPLIT";
  size_t di = v ? 0 : 1;
  if (op->n_inputs <= di || op->n_outputs < 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs", name,
                        op->n_inputs, op->n_outputs);
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_image(name, model, op->inputs[di], "input", &x, err);
  if (s) return s;
  int32_t axis = op->options.axis < 0 ? op->options.axis + (int32_t)x->rank : op->options.axis;
  if (x->rank == 0 || axis < 0 || axis >= (int32_t)x->rank)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: axis %d for rank %u", name,
                        op->options.axis, x->rank);
  /* Every output is checked on pass 0; a pass writes its own piece. */
  int64_t total = 0, offset = 0;
  for (size_t i = 0; i < op->n_outputs; i++) {
    const texmem_tensor *t = NULL;
    if ((s = texmem__ku_image(name, model, op->outputs[i], "output", &t, err))) return s;
    if (t->rank != x->rank)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output %zu has rank %u, input %u", name,
                          i, t->rank, x->rank);
    for (unsigned d = 0; d < x->rank; d++)
      if ((int32_t)d != axis && t->shape[d] != x->shape[d])
        return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output %zu dim %u is %d, input has %d",
                            name, i, d, t->shape[d], x->shape[d]);
    if (!v && (int64_t)t->shape[axis] * (int64_t)op->n_outputs != x->shape[axis])
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output %zu has %d of %d along the axis, "
                          "not one of %zu equal pieces", name, i, t->shape[axis], x->shape[axis],
                          op->n_outputs);
    if (i < out->pass) offset += t->shape[axis];
    if (i == out->pass) y = t;
    total += t->shape[axis];
  }
  if (total != x->shape[axis])
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: the outputs add up to %lld along axis %d, "
                        "the input has %d", name, (long long)total, axis, x->shape[axis]);
  if (!y)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: pass %u of %zu", name, out->pass,
                        op->n_outputs);
  if (op->n_outputs > UINT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu outputs", name, op->n_outputs);
  out->n_passes = (uint32_t)op->n_outputs;
  slice_map m = {{0, 1, 2, 3}, {0, 0, 0, 0}, {1, 1, 1, 1}};
  m.start[texmem__ku_axis_component(x->rank, (unsigned)axis)] = (int32_t)offset;
  return program(env, op->inputs[di], op->outputs[out->pass], x, y, &m, out, err);
}
