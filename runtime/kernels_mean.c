/* MEAN over any axes whose kept channel axis stays the output's channel
 * axis (op_mean.comp): the reduced axes are mapped through the shapes as
 * written to the input's x / y / channels, the kept ones to the output's
 * x / y. The batch is kept (the output's batch) or reduced (summed over,
 * output batch 1). H and W reduced alone go to op_reduce_hw.comp on a GPU
 * (kernels_util.h). */
#include "kernels_util.h"

texmem_status texmem__kernel_mean(texmem__kernel_env *env, const texmem_model *model,
                                  const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "MEAN";
  const texmem_tensor *x = NULL, *y = NULL;
  texmem_status s = texmem__ku_in_out(name, model, op, &x, &y, err);
  if (s) return s;
  const texmem_op_options *o = &op->options;
  unsigned r = x->rank;
  uint32_t axes = o->reduce_axes;
  if (r == 0 || axes == 0 || (axes >> r))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "MEAN: axes mask 0x%x for rank %u",
                        (unsigned)axes, r);
  /* Output as written: the kept axes (all, with keep_dims). */
  unsigned out_rank = 0, src_axis[TEXMEM_MAX_RANK];
  int32_t out_shape[TEXMEM_MAX_RANK];
  double count = 1.0;
  for (unsigned i = 0; i < r; i++) {
    bool red = axes >> i & 1u;
    if (red) count *= x->shape[i];
    if (!red || o->keep_dims) {
      src_axis[out_rank] = i;
      out_shape[out_rank++] = red ? 1 : x->shape[i];
    }
  }
  if (y->rank != out_rank)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "MEAN: output rank %u, the op gives %u",
                        y->rank, out_rank);
  for (unsigned j = 0; j < out_rank; j++)
    if (y->shape[j] != out_shape[j])
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "MEAN: output dim %u is %d, the op gives %d",
                          j, y->shape[j], out_shape[j]);
  /* Per input component (1 = y, 2 = x, 3 = channels): reduced, or the
   * output component it lands in. */
  int in_to_out[4] = {-1, -1, -1, -1};
  bool reduced[4] = {false, false, false, false};
  uint32_t in_size[4] = {x->b, x->h, x->w, x->c};
  for (unsigned i = 0; i < r; i++)
    if (axes >> i & 1u) reduced[texmem__ku_axis_component(r, i)] = true;
  for (unsigned j = 0; j < out_rank; j++)
    if (!(axes >> src_axis[j] & 1u))
      in_to_out[texmem__ku_axis_component(r, src_axis[j])] = texmem__ku_axis_component(out_rank, j);
  int from[2]; /* input x (component 2), input y (component 1) */
  for (int k = 0; k < 2; k++) {
    int comp = k == 0 ? 2 : 1;
    if (in_size[comp] == 1)
      from[k] = 3;
    else if (reduced[comp])
      from[k] = 2;
    else if (in_to_out[comp] == 2)
      from[k] = 0;
    else if (in_to_out[comp] == 1)
      from[k] = 1;
    else
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                          "MEAN: a kept spatial axis becomes the output's batch or channels");
  }
  bool red_b = reduced[0] && x->b > 1;
  if (x->b > 1 && !(red_b ? y->b == 1 : in_to_out[0] == 0 && y->b == x->b))
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "MEAN: batch %u neither stays the output's batch nor is reduced to 1", x->b);
  bool red_c = reduced[3] && x->c > 1;
  if (!red_c && x->c > 1 && in_to_out[3] != 3)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "MEAN: the kept channel axis is not the output's channel axis");
  if (red_c && y->c != 1)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                        "MEAN: channels reduced but a spatial axis becomes the output's channels");
  /* H and W reduced, channels and batch kept: one texel a plane, a
   * work-group reduction on a GPU (kernels_util.h). */
  uint64_t depth = (uint64_t)x->b * (uint64_t)texmem__ku_slices(x->c);
  if (from[0] >= 2 && from[1] >= 2 && !red_c && !red_b && texmem__ku_reduce_hw_fits(env, depth)) {
    if ((s = texmem__ku_reduce_hw(env, op, (uint32_t)depth, (uint64_t)x->h * x->w, 1,
                                  (float)count, out, err))) return s;
    texmem__kernel_vec4(out, "act", -FLT_MAX, FLT_MAX, 0.0f, 0.0f);
    return TEXMEM_STATUS_OK;
  }
  if ((s = texmem__ku_program_1(env, "op_mean.comp", op, out, err))) return s;
  texmem__kernel_ivec4(out, "from", from[0], from[1], red_c ? 1 : 0, texmem__ku_slices(x->c));
  texmem__kernel_float(out, "count", (float)count);
  texmem__kernel_ivec4(out, "bred", red_b ? (int32_t)x->b : 1, red_b, 0, 0);
  return TEXMEM_STATUS_OK;
}
