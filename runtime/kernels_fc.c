/* FULLY_CONNECTED: the input (any rank) is read as rows of `depth` values
 * in row-major order, as TFLite does; weights [out, depth], optional
 * bias; output [rows, out], or with keep_num_dims the input shape with
 * its last dimension replaced. When a row is exactly the input's last
 * dimension (the usual case) rows are whole texel runs (op_fc.comp, 4x4
 * vec4 blocks); otherwise each element is gathered (op_fc_gather.comp).
 * One invocation per output texel, flat 64-wide work groups: outputs are
 * often 1x1 spatially with many slices. A unary operator alone reading the
 * output runs in the same dispatch (kernels_fusion.h), and so do other
 * layers reading the same input by rows (op_fc_heads.comp: a landmark
 * model's heads), each with its own unary operator. */
#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

/* One layer's operands, checked. */
typedef struct fc_layer {
  const texmem_tensor *x, *y, *w, *bias;
  uint32_t n_out, depth, rows;
} fc_layer;

static texmem_status fc_layer_of(const char *name, const texmem_model *model, const texmem_op *op,
                                 fc_layer *l, texmem_error *err) {
  texmem_status s;
  *l = (fc_layer){0};
  if ((s = texmem__conv_operands(name, model, op, &l->x, &l->y, &l->w, err))) return s;
  if (l->w->rank != 2)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: weights have rank %u, need 2", name,
                        l->w->rank);
  l->n_out = (uint32_t)l->w->shape[0];
  l->depth = (uint32_t)l->w->shape[1];
  if (l->w->data_size != (size_t)l->n_out * l->depth * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: weights hold %zu bytes, need %zu", name,
                        l->w->data_size, (size_t)l->n_out * l->depth * sizeof(float));
  const texmem_tensor *x = l->x;
  uint64_t total = (uint64_t)x->b * x->h * x->w * x->c;
  if (l->depth == 0 || total % l->depth != 0)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: input \"%s\" of %llu values is not rows of %u", name, x->name,
                        (unsigned long long)total, l->depth);
  l->rows = (uint32_t)(total / l->depth);
  if (op->n_inputs > 2 && op->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, op->inputs[2], "bias", l->n_out, &l->bias, err)))
    return s;
  if (op->options.keep_dims)
    return texmem__conv_check_out(name, l->y, x->b, x->h, x->w, l->n_out, err);
  return texmem__conv_check_out(name, l->y, l->rows, 1, 1, l->n_out, err);
}

/* Packs layer l's weights at pw (4x4 vec4 blocks by rows, or one vec4 per
 * output slice and depth element when gathered). */
static void fc_pack(const fc_layer *l, bool rowwise, float *pw) {
  uint32_t is = (uint32_t)texmem__ku_slices(l->depth);
  const float *wd = l->w->data;
  for (uint32_t j = 0; j < l->n_out; j++)
    for (uint32_t k = 0; k < l->depth; k++) {
      size_t at = rowwise ? (((size_t)(j / 4) * is + k / 4) * 4 + k % 4) * 4 + j % 4
                          : ((size_t)(j / 4) * l->depth + k) * 4 + j % 4;
      pw[at] = wd[(size_t)j * l->depth + k];
    }
}

/* Flat work groups of 64 for `n` invocations. */
static texmem_status fc_groups(const char *name, uint64_t n, texmem__kernel *out,
                               texmem_error *err) {
  uint64_t groups = (n + 63) / 64;
  if (groups > 65535)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                        "%s: %llu output texels need more than 65535 work groups", name,
                        (unsigned long long)n);
  out->groups[0] = (uint32_t)groups;
  out->groups[1] = 1;
  out->groups[2] = 1;
  return TEXMEM_STATUS_OK;
}

/* The layer and its heads (out->heads) as one dispatch of op_fc_heads.comp:
 * the weights and biases of all, slice after slice, in one buffer each. */
static texmem_status fc_heads(texmem__kernel_env *env, const texmem_model *model,
                              const texmem_op *op, const fc_layer *l0, texmem__kernel *out,
                              texmem_error *err) {
  const char *name = "FULLY_CONNECTED";
  const texmem_op *ops[TEXMEM__KERNEL_MAX_HEADS] = {op};
  const texmem_op *unary[TEXMEM__KERNEL_MAX_HEADS] = {out->fused};
  fc_layer l[TEXMEM__KERNEL_MAX_HEADS] = {*l0};
  size_t n = 1 + out->n_heads;
  uint32_t is = (uint32_t)texmem__ku_slices(l0->depth), total = 0, first[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    if (i) {
      ops[i] = out->heads[i - 1];
      unary[i] = out->heads_fused[i - 1];
      texmem_status s = fc_layer_of(name, model, ops[i], &l[i], err);
      if (s) return s;
    }
    if (l[i].x != l0->x || l[i].depth != l0->x->c || l[i].rows != l0->rows ||
        (unary[i] && texmem__ew_unary_kind(unary[i]->type) < 0))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "%s: layers merged into one dispatch read one input by rows, a unary "
                          "operator after each at most",
                          name);
    first[i] = total;
    total += (uint32_t)texmem__ku_slices(l[i].n_out);
  }
  size_t nw = (size_t)total * is * 16, nb = (size_t)total * 4;
  float *pw = calloc(nw ? nw : 1, sizeof *pw), *pb = calloc(nb ? nb : 1, sizeof *pb);
  texmem_status s = texmem__conv_check_alloc(name, pw, pb, err);
  if (s) return s;
  for (size_t i = 0; i < n; i++) {
    fc_pack(&l[i], true, pw + (size_t)first[i] * is * 16);
    if (l[i].bias) memcpy(pb + (size_t)first[i] * 4, l[i].bias->data, l[i].n_out * sizeof *pb);
  }
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;
  static const char *const acts[] = {"act0", "act1", "act2", "act3"};
  char defs[256];
  size_t len = (size_t)snprintf(defs, sizeof defs, "#define TM_HEADS %zu\n%s", n,
                                texmem__kernel_env_half_images(env) ? "#define TM_ROUND_HALF 1\n"
                                                                     : "");
  float alpha[4] = {0};
  out->inputs[0] = op->inputs[0];
  out->n_inputs = 1;
  for (size_t i = 0; i < n; i++) {
    int kind = unary[i] ? texmem__ew_unary_kind(unary[i]->type) : -1;
    len += (size_t)snprintf(defs + len, sizeof defs - len, "#define TM_U%zu %d\n", i, kind);
    if (unary[i]) alpha[i] = unary[i]->options.alpha;
    out->outputs[i] = unary[i] ? unary[i]->outputs[0] : ops[i]->outputs[0];
    if ((s = texmem__ku_activation_as(name, ops[i]->options.activation, acts[i], out, err)))
      return s;
  }
  out->n_outputs = n;
  static const char *const ins[] = {"x"}, *const outs[] = {"y", "y1", "y2", "y3"};
  static const char *const bufs[] = {"w", "b"};
  const uint32_t local[3] = {64, 1, 1};
  if ((s = texmem__kernel_program_defines(env, "op_fc_heads.comp", defs, ins, 1, outs, n, bufs, 2,
                                          local, &out->program, err)))
    return s;
  texmem__kernel_ivec4(out, "fc", (int32_t)is, (int32_t)total, 0, 0);
  texmem__kernel_ivec4(out, "first", (int32_t)first[0], (int32_t)first[1], (int32_t)first[2],
                       (int32_t)first[3]);
  texmem__kernel_ivec4(out, "chans", (int32_t)l[0].n_out, n > 1 ? (int32_t)l[1].n_out : 0,
                       n > 2 ? (int32_t)l[2].n_out : 0, n > 3 ? (int32_t)l[3].n_out : 0);
  texmem__kernel_vec4(out, "alpha", alpha[0], alpha[1], alpha[2], alpha[3]);
  return fc_groups(name, (uint64_t)l0->rows * total, out, err);
}

texmem_status texmem__kernel_fully_connected(texmem__kernel_env *env, const texmem_model *model,
                                             const texmem_op *op, texmem__kernel *out,
                                             texmem_error *err) {
  const char *name = "FULLY_CONNECTED";
  fc_layer l;
  texmem_status s = fc_layer_of(name, model, op, &l, err);
  if (s) return s;
  if (out->n_heads) return fc_heads(env, model, op, &l, out, err);
  if ((s = texmem__ku_activation(name, op->options.activation, out, err))) return s;

  bool rowwise = l.depth == l.x->c;
  uint32_t os = (uint32_t)texmem__ku_slices(l.n_out), is = (uint32_t)texmem__ku_slices(l.depth);
  size_t nw = rowwise ? (size_t)os * is * 16 : (size_t)os * l.depth * 4, nb = 0;
  float *pw = calloc(nw ? nw : 1, sizeof *pw);
  float *pb = texmem__conv_pack_bias(l.bias ? l.bias->data : NULL, l.n_out, os, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err))) return s;
  fc_pack(&l, rowwise, pw);
  if ((s = texmem__conv_upload(env, pw, nw, pb, nb, out, err))) return s;

  static const char *const ins[] = {"x"}, *const outs[] = {"y"}, *const bufs[] = {"w", "b"};
  const uint32_t local[3] = {64, 1, 1};
  char defs[256] = "";
  out->inputs[0] = op->inputs[0];
  out->n_inputs = 1;
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  if ((s = texmem__fuse_unary_stage(env, model, op, out, defs, sizeof defs, err))) return s;
  if ((s = texmem__kernel_program_defines(env, rowwise ? "op_fc.comp" : "op_fc_gather.comp", defs,
                                          ins, 1, outs, 1, bufs, 2, local, &out->program, err)))
    return s;
  if (rowwise)
    texmem__kernel_ivec4(out, "fc", (int32_t)is, (int32_t)os, 0, 0);
  else
    texmem__kernel_ivec4(out, "fc", (int32_t)l.x->c, (int32_t)os, (int32_t)l.depth, 0);
  return fc_groups(name, (uint64_t)l.y->b * l.y->h * l.y->w * os, out, err);
}
