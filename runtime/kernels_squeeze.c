/* Squeeze-and-excitation's squeeze as one dispatch (kernels_fusion.h:
 * insq; shaders/op_squeeze.comp): a global pool, a 1x1 convolution of the
 * pooled pixel and its fused unary operator, then the 1x1 convolution
 * whose kernel this is. The selfie models have ten such blocks, each three
 * dispatches of a few work groups on the GPU (op_reduce_hw.comp, then the
 * tiled 1x1 kernel twice), where a dispatch costs about as much as the
 * block's arithmetic. The shader repeats each kernel's order of
 * operations, so the tile each convolution would have run with (its
 * parts, texmem__conv1x1_tile) is passed in. An ADD making the pool's
 * input is read through (k->in_sq_add). The pool's passes of four slices
 * run in work groups of their own, side by side, and the last to finish
 * runs the convolutions (a scratch buffer between them: pool_scratch). */
#include <stdio.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"

/* A convolution's groups x parts must fit this many invocations (the
 * least work group; the pool's, op_reduce_hw.comp's whose order it keeps,
 * can be larger: texmem__ku_reduce_group), and 4 x as many partials the
 * shared array (TM_SQ_PART). */
#define SQ_GROUP TEXMEM__KU_REDUCE_GROUP

/* The first convolution c (1x1, one-pixel planes) checked as
 * texmem__kernel_conv2d checks it, its weights and biases packed as the
 * tiled kernel reads them, joined as k's third buffer (sw): *bias_at is
 * the first bias vec4, *chans its output channels. */
static texmem_status first_conv(texmem__kernel_env *env, const texmem_model *model,
                                const texmem_op *c, texmem__kernel *k, int32_t *bias_at,
                                uint32_t *chans, texmem_error *err) {
  const char *name = "CONV_2D";
  const texmem_tensor *x = NULL, *y = NULL, *w = NULL, *bias = NULL;
  texmem_status s;
  if ((s = texmem__conv_operands(name, model, c, &x, &y, &w, err)) ||
      (s = texmem__conv_check_4d(name, x, w, err)))
    return s;
  uint32_t O = (uint32_t)w->shape[0], I = (uint32_t)w->shape[3];
  if (w->shape[1] != 1 || w->shape[2] != 1 || I != x->c ||
      w->data_size != (size_t)O * I * sizeof(float))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: squeeze weights %dx%dx%dx%d do not fit input \"%s\"", name,
                        w->shape[0], w->shape[1], w->shape[2], w->shape[3], x->name);
  if ((s = texmem__conv_check_out(name, y, x->b, 1, 1, O, err))) return s;
  if (c->n_inputs > 2 && c->inputs[2] >= 0 &&
      (s = texmem__conv_const(name, model, c->inputs[2], "bias", O, &bias, err)))
    return s;
  uint32_t ng = texmem__conv_groups(O);
  size_t nw = 0, nb = 0;
  float *pw = texmem__conv_pack_ohwi(w->data, O, 1, 1, I, 4, &nw);
  float *pb = texmem__conv_pack_bias(bias ? bias->data : NULL, O, ng * TEXMEM__CONV_GROUP, &nb);
  if ((s = texmem__conv_check_alloc(name, pw, pb, err)) ||
      (s = texmem__conv_upload_joined(env, pw, nw, pb, nb, &k->buffers[2], err)))
    return s;
  k->n_buffers = 3;
  *bias_at = (int32_t)(nw / 4);
  *chans = O;
  return TEXMEM_STATUS_OK;
}

/* The parts the tiled 1x1 kernel would split a one-pixel convolution of
 * `islices` to `oslices` over `batch` pixels in (noted as used). */
static uint32_t parts_of(texmem__kernel_env *env, uint32_t batch, uint32_t islices,
                         uint32_t oslices) {
  uint32_t ng = (oslices + TEXMEM__CONV_GROUP - 1) / TEXMEM__CONV_GROUP;
  texmem__conv_tile t =
      texmem__conv1x1_tile(batch, ng, (islices + 3) / 4, texmem__kernel_env_split(env));
  texmem__kernel_env_note_split(env, t.ks);
  return t.ks;
}

/* The pool's uniforms: pact its activation (a MEAN's none, as
 * kernels_mean.c sets it), pcount the plane's texels; its kind. */
static texmem_status pool_uniforms(const texmem_op *pool, const texmem_tensor *x,
                                   texmem__kernel *k, int32_t *kind, texmem_error *err) {
  *kind = pool->type == TEXMEM_OP_MAX_POOL_2D ? 0 : 1;
  texmem__kernel_float(k, "pcount", (float)x->w * (float)x->h);
  if (pool->type == TEXMEM_OP_MEAN) {
    texmem__kernel_vec4(k, "pact", -FLT_MAX, FLT_MAX, 0.0f, 0.0f);
    return TEXMEM_STATUS_OK;
  }
  return texmem__ku_activation_as(texmem_op_type_name(pool->type), pool->options.activation,
                                  "pact", k, err);
}

/* The first convolution's uniforms and defines (none: TM_SQ_ONE, the pool
 * read by op itself): its buffer, activation act1, fused unary operator;
 * *mid its output channels (x's without it). */
static texmem_status first_stage(texmem__kernel_env *env, const texmem_model *model,
                                 const texmem_tensor *x, texmem__kernel *k, int32_t *bias_at,
                                 uint32_t *mid, char *defs, size_t cap, texmem_error *err) {
  const texmem_op *c = k->in_sq, *u = k->in_sq_fused;
  size_t len = strlen(defs);
  *bias_at = 0;
  *mid = x->c;
  if (!c) {
    snprintf(defs + len, cap - len, "#define TM_SQ_ONE 1\n");
    return TEXMEM_STATUS_OK;
  }
  texmem_status s = first_conv(env, model, c, k, bias_at, mid, err);
  if (!s) s = texmem__ku_activation_as("CONV_2D", c->options.activation, "act1", k, err);
  if (s || !u) return s;
  int kind = texmem__ew_unary_kind(u->type);
  if (kind < 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "CONV_2D: a squeeze's first convolution fuses a unary operator only");
  snprintf(defs + len, cap - len, "#define TM_SQ_UNARY 1\n#define TM_SQ_OP %d\n", kind);
  texmem__kernel_float(k, "sqalpha", u->options.alpha);
  return TEXMEM_STATUS_OK;
}

/* The scratch the pool's work groups write and the last of a batch reads
 * (op_squeeze.comp): a count a batch, then each batch's slices' shares of
 * the pool (4 words each, whole slice groups), bound after the weights. */
static texmem_status pool_scratch(texmem__kernel_env *env, uint32_t batch, uint32_t slices,
                                  uint32_t shares, texmem__kernel *k, texmem_error *err) {
  if (k->n_buffers >= TEXMEM__KERNEL_MAX_BUFFERS)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "CONV_2D: no buffer left for the squeeze's scratch");
  size_t words = batch + (size_t)batch * ((slices + 3) / 4) * 16 * shares;
  texmem_status s = texmem__kernel_scratch(env, words, &k->buffers[k->n_buffers], err);
  if (s) return s;
  k->scratch_buffers |= 1u << k->n_buffers;
  k->n_buffers++;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__conv_squeeze(texmem__kernel_env *env, const texmem_model *model,
                                   const texmem_op *op, texmem__kernel *out,
                                   texmem_error *err) {
  const char *name = "CONV_2D";
  const texmem_op *pool = out->in_sq_pool;
  const texmem_tensor *x = NULL, *p = NULL;
  texmem_status s;
  if (!pool || out->n_buffers != 2)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: squeeze without its pool", name);
  if ((s = texmem__conv_image(name, model, pool->inputs[0], "squeezed input", &x, err)) ||
      (s = texmem__conv_image(name, model, pool->outputs[0], "pooled input", &p, err)))
    return s;
  if (x->rank != 4 || p->b != x->b || p->c != x->c || p->h != 1 || p->w != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL,
                        "%s: pool output \"%s\" is not one pixel of \"%s\"'s channels", name,
                        p->name, x->name);
  char defs[384];
  int32_t bias_at, kind;
  uint32_t mid;
  snprintf(defs, sizeof defs, "%s", texmem__kernel_env_half_images(env) ? "#define TM_SQ_ROUND 1\n" : "");
  if ((s = first_stage(env, model, x, out, &bias_at, &mid, defs, sizeof defs, err)) ||
      (s = pool_uniforms(pool, x, out, &kind, err)))
    return s;
  if (out->in_sq_add) { /* the pool reads x + xb, as op_binary.comp adds them */
    size_t n = strlen(defs);
    snprintf(defs + n, sizeof defs - n, "#define TM_SQ_ADD %d\n",
             texmem__ew_binary_mode(TEXMEM_OP_ADD));
    if ((s = texmem__ku_activation_as("ADD", out->in_sq_add->options.activation, "sqaact", out,
                                      err)))
      return s;
  }
  const texmem_tensor *y = texmem__ku_tensor(model, op->outputs[0]);
  uint32_t s0 = (uint32_t)texmem__ku_slices(x->c), s1 = (uint32_t)texmem__ku_slices(mid),
           s2 = (uint32_t)texmem__ku_slices(y->c);
  uint32_t k1 = out->in_sq ? parts_of(env, x->b, s0, s1) : 1, k2 = parts_of(env, x->b, s1, s2);
  if ((s1 + 3) / 4 * k1 > SQ_GROUP || (s2 + 3) / 4 * k2 > SQ_GROUP)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                        "%s: squeeze of %u and %u output slices in %u and %u parts exceeds the "
                        "%u invocations of its work group",
                        name, s1, s2, k1, k2, SQ_GROUP);
  texmem__kernel_ivec4(out, "sq", (int32_t)s0, (int32_t)s1, (int32_t)s2, bias_at);
  texmem__kernel_ivec4(out, "sqt", (int32_t)k1, (int32_t)k2, kind, (int32_t)mid);
  size_t len = strlen(defs);
  /* The reduction's invocations (its order), in shares of SQ_GROUP: one
   * work group each, a slice group's shares side by side. */
  const uint32_t rn = texmem__ku_reduce_group(env, (uint64_t)x->h * x->w);
  const uint32_t share = rn / SQ_GROUP, local[3] = {SQ_GROUP, 1, 1};
  snprintf(defs + len, sizeof defs - len,
           "#define TM_RN %u\n#define TM_RL %u\n#define TM_RR %u\n#define TM_SQ_PART %u\n"
           "#define TM_SQ_P0 %u\n#define TM_SQ_P1 %u\n",
           rn, SQ_GROUP, share, TEXMEM__KU_REDUCE_GROUP_MAX, (s0 + 3) / 4 * 4, (s1 + 3) / 4 * 4);
  uint32_t groups = 1; /* a batch's: a share of a pool pass each, a power of two */
  while (groups < (s0 + 3) / 4) groups *= 2;
  groups *= share;
  if ((s = pool_scratch(env, x->b, s0, share, out, err)) ||
      (s = texmem__conv_program(env, model, op, "op_squeeze.comp", defs, local, out, err)))
    return s;
  out->groups[0] = groups;
  out->groups[1] = x->b;
  out->groups[2] = 1;
  texmem__ku_batch(out, x->b);
  return TEXMEM_STATUS_OK;
}
