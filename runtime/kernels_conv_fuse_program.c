/* The fused program of a convolution kernel (see kernels_fusion.h):
 * its input bindings (x, or what a fold reads instead, and the fused
 * operators' operand), its outputs, the fused stages' buffers and
 * uniforms and the defines that select their shader code
 * (shaders/conv_common.glsl). */
#include <stdio.h>

#include "kernel_env.h"
#include "kernels_conv_common.h"
#include "kernels_conv_fuse.h"
#include "kernels_util.h"

/* The names one fused stage's macros and uniforms take (string literals:
 * kernels keep uniform names as pointers). */
typedef struct fuse_names {
  const char *macro, *alpha, *act, *dim, *bc;
} fuse_names;

static const fuse_names stage_names[2] = {{"TM_FUSE", "falpha", "fact", "fdim", "fbc"},
                                          {"TM_FUSE2", "f2alpha", "f2act", "f2dim", "f2bc"}};

/* The operand buffer (f or g) of a fused stage's constant o, broadcast to
 * tensor t, and its uniforms. */
static texmem_status bind_constant(texmem__kernel_env *env, const char *name,
                                   const texmem_tensor *o, const texmem_tensor *tt,
                                   const fuse_names *nm, texmem__kernel *k, texmem_error *err) {
  if (k->n_buffers >= TEXMEM__KERNEL_MAX_BUFFERS)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: fused constant past the %d "
                        "buffers a kernel binds", name, TEXMEM__KERNEL_MAX_BUFFERS);
  int32_t sb[4];
  texmem__ew_align_bhwc(o, 4, sb);
  texmem_status s = texmem__ew_const_buffer(env, name, o, sb, &k->buffers[k->n_buffers], err);
  if (s) return s;
  k->n_buffers++;
  texmem__kernel_ivec4(k, nm->dim, sb[2], sb[1], texmem__ku_slices((uint32_t)sb[3]), 0);
  texmem__kernel_ivec4(k, nm->bc, sb[2] == 1 && tt->w > 1, sb[1] == 1 && tt->h > 1,
                       sb[3] == 1 && tt->c > 1, sb[0] == 1 && tt->b > 1);
  return TEXMEM_STATUS_OK;
}

/* Uniforms and bindings of fused stage `stage` (0, 1): operator f after
 * tensor t (the convolution's output, or the first fused operator's).
 * Appends to defs; stage 0 may bind the image e (*n_in), either a constant
 * buffer. */
static texmem_status bind_fused(texmem__kernel_env *env, const texmem_model *m, int32_t t,
                                const texmem_op *f, int stage, texmem__kernel *k, char *defs,
                                size_t cap, size_t *n_in, texmem_error *err) {
  const char *name = texmem_op_type_name(f->type);
  const fuse_names *nm = &stage_names[stage];
  const texmem_tensor *tt = texmem__ku_tensor(m, t);
  size_t len = strlen(defs);
  if (stage == 0 && texmem__kernel_env_half_images(env))
    len += (size_t)snprintf(defs + len, cap - len, "#define TM_ROUND_HALF 1\n");
  int kind = texmem__ew_unary_kind(f->type);
  if (stage == 0) texmem__kernel_int(k, "fchannels", (int32_t)tt->c);
  if (f->type == TEXMEM_OP_DEPTHWISE_CONV_2D) { /* per texel: its weights and bias in f (g) */
    snprintf(defs + len, cap - len, "#define %s_AFFINE 1\n", nm->macro);
    return texmem__dw_affine_buffer(env, m, f, k, nm->act, err);
  }
  if (kind >= 0) {
    snprintf(defs + len, cap - len, "#define %s_UNARY 1\n#define %s_OP %d\n", nm->macro,
             nm->macro, kind);
    texmem__kernel_float(k, nm->alpha, f->options.alpha);
    return TEXMEM_STATUS_OK;
  }
  bool swap = f->inputs[1] == t;
  int32_t oi = swap ? f->inputs[0] : f->inputs[1];
  const texmem_tensor *o = texmem__ku_tensor(m, oi);
  texmem_activation act =
      texmem__ew_has_activation(f->type) ? f->options.activation : TEXMEM_ACT_NONE;
  len += (size_t)snprintf(defs + len, cap - len,
                          "#define %s_OP %d\n#define %s_SWAP %d\n#define %s_TANH %d\n",
                          nm->macro, texmem__ew_binary_mode(f->type), nm->macro, swap, nm->macro,
                          act == TEXMEM_ACT_TANH);
  /* The operator's own activation, as uniform fact (f2act). */
  texmem_status s = texmem__ku_activation_as(name, act, nm->act, k, err);
  if (s) return s;
  if (!(o->flags & TEXMEM_TENSOR_CONSTANT)) {
    len += (size_t)snprintf(defs + len, cap - len, "#define %s_IMAGE 1\n", nm->macro);
    if (stage == 0 && k->fused_pad) {
      /* The PAD's input, zeros past its slices (a slice's input: more). */
      oi = k->fused_pad->inputs[0];
      len += (size_t)snprintf(defs + len, cap - len, "#define TM_FUSE_PAD 1\n");
      texmem__kernel_int(k, "fslices", texmem__ku_slices(texmem__ku_tensor(m, oi)->c));
    }
    if (stage == 0 && k->fused_pool) {
      /* The pool's input, each window's maximum. */
      const texmem_op_options *po = &k->fused_pool->options;
      int32_t px, py;
      oi = k->fused_pool->inputs[0];
      texmem__pool_pads(k->fused_pool, texmem__ku_tensor(m, oi), &px, &py);
      snprintf(defs + len, cap - len, "#define TM_FUSE_POOL 1\n");
      texmem__kernel_ivec4(k, "fpool", po->filter_w, po->filter_h, po->stride_w, po->stride_h);
      texmem__kernel_ivec4(k, "fpoolpad", px, py, 0, 0);
    }
    if (k->fused_rsz) {
      /* The resize's input, interpolated (the one stage binding e). */
      float sc[4];
      oi = k->fused_rsz->inputs[0];
      texmem__resize_scale(k->fused_rsz, texmem__ku_tensor(m, oi),
                           texmem__ku_tensor(m, k->fused_rsz->outputs[0]), sc);
      snprintf(defs + strlen(defs), cap - strlen(defs), "#define TM_FUSE_RESIZE 1\n");
      texmem__kernel_vec4(k, "frs", sc[0], sc[1], sc[2], sc[3]);
    }
    /* The tensor bound as x already and read there as it is (the
     * convolution's input, or a folded depthwise convolution's or MUL's):
     * one binding. */
    if (oi == k->inputs[0] && !k->in_d2s && !k->in_rsz && !k->in_aff)
      snprintf(defs + strlen(defs), cap - strlen(defs), "#define TM_FUSE_E_IS_X 1\n");
    else
      k->inputs[(*n_in)++] = oi;
    return TEXMEM_STATUS_OK;
  }
  snprintf(defs + len, cap - len, "#define %s_CONST 1\n", nm->macro);
  return bind_constant(env, name, o, tt, nm, k, err);
}

texmem_status texmem__conv_program(texmem__kernel_env *env, const texmem_model *m,
                                   const texmem_op *op, const char *file, const char *defines,
                                   const uint32_t local[3], texmem__kernel *k, texmem_error *err) {
  static const char *const outs[] = {"y", "y1", "y2"};
  const char *ins[4] = {"x", "e", "e", "e"};
  const char *bufs[TEXMEM__KERNEL_MAX_BUFFERS] = {"w", "b"};
  char defs[768];
  snprintf(defs, sizeof defs, "%s", defines ? defines : "");
  size_t n_in = 1;
  k->inputs[0] = k->in_pad       ? k->in_pad->inputs[0]
                 : k->in_dw_pad ? k->in_dw_pad->inputs[0]
                 : k->in_dw     ? k->in_dw->inputs[0]
                 : k->in_rsz    ? k->in_rsz->inputs[0]
                 : k->in_sq_add ? k->in_sq_add->inputs[0]
                 : k->in_sq_pool ? k->in_sq_pool->inputs[0]
                                : op->inputs[0];
  if (k->in_rsz || k->fused_rsz) /* a resize's store rounds in fp16 */
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "%s",
             texmem__kernel_env_half_images(env) ? "#define TM_RS_ROUND 1\n" : "");
  if (k->in_d2s) { /* xd the DEPTH_TO_SPACE's input, x read through it */
    const texmem_tensor *d = texmem__ku_tensor(m, k->in_d2s->outputs[0]);
    k->inputs[0] = k->in_d2s->inputs[0];
    ins[0] = "xd";
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_X_D2S 1\n%s",
             d->c % 4 ? "" : "#define TM_D2S_ALIGNED 1\n");
    texmem__kernel_ivec4(k, "xds", k->in_d2s->options.block_size, (int32_t)d->c, (int32_t)d->w,
                         (int32_t)d->h);
  }
  if (k->in_rsz) { /* xr the resize's input, x read through it */
    float sc[4];
    const texmem_tensor *r = texmem__ku_tensor(m, op->inputs[0]);
    texmem__resize_scale(k->in_rsz, texmem__ku_tensor(m, k->inputs[0]), r, sc);
    ins[0] = "xr";
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_X_RESIZE 1\n");
    texmem__kernel_vec4(k, "xrs", sc[0], sc[1], sc[2], sc[3]);
    texmem__kernel_ivec4(k, "xrout", (int32_t)r->w, (int32_t)r->h, 0, 0);
  }
  if (k->in_mul) { /* x the MUL's full-shape operand, s its per-channel one */
    const texmem_op *mul = k->in_mul;
    bool first = texmem__ku_same_bhwc(texmem__ku_tensor(m, mul->inputs[0]),
                                      texmem__ku_tensor(m, op->inputs[0]));
    k->inputs[0] = mul->inputs[first ? 0 : 1];
    k->inputs[n_in] = mul->inputs[first ? 1 : 0];
    ins[n_in++] = "s";
    if (k->in_add) { /* sb the ADD's other operand */
      const texmem_op *add = k->in_add;
      k->inputs[n_in] = add->inputs[add->inputs[0] == mul->outputs[0] ? 1 : 0];
      ins[n_in++] = "sb";
    }
  }
  if (k->in_sq_add) { /* xb the ADD's second operand, x its first */
    k->inputs[n_in] = k->in_sq_add->inputs[1];
    ins[n_in++] = "xb";
  }
  if (k->in_dw) bufs[2] = "dw"; /* texmem__dw_fold bound it third */
  if (k->in_sq_pool && k->in_sq) bufs[2] = "sw"; /* texmem__conv_squeeze's */
  for (size_t i = 0; i < k->n_buffers; i++)
    if (k->scratch_buffers >> i & 1u) bufs[i] = "sqs"; /* its scratch, the only one */
  if (k->in_aff) { /* xa the per-texel depthwise convolution's input, x read through it */
    k->inputs[0] = k->in_aff->inputs[0];
    ins[0] = "xa";
    bufs[k->n_buffers] = "xw";
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_X_AFFINE 1\n%s",
             texmem__kernel_env_half_images(env) ? "#define TM_XA_ROUND 1\n" : "");
    texmem_status s = texmem__dw_affine_buffer(env, m, k->in_aff, k, "xaact", err);
    if (s) return s;
  }
  k->outputs[0] = op->outputs[0];
  const texmem_op *stages[2] = {k->fused, k->fused ? k->fused2 : NULL};
  for (int i = 0; i < 2 && stages[i]; i++) {
    size_t nb = k->n_buffers;
    texmem_status s = bind_fused(env, m, k->outputs[0], stages[i], i, k, defs, sizeof defs,
                                 &n_in, err);
    if (s) return s;
    if (k->n_buffers > nb) bufs[nb] = i ? "g" : "f";
    k->outputs[0] = stages[i]->outputs[0];
  }
  k->n_inputs = n_in;
  k->n_outputs = 1;
  if (k->fused_keep && stages[1]) { /* the first operator's output, stored too */
    k->outputs[k->n_outputs++] = stages[0]->outputs[0];
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_FUSE_KEEP 1\n");
  }
  for (size_t h = 0; h < k->n_heads && h + 1 < sizeof outs / sizeof outs[0]; h++)
    k->outputs[k->n_outputs++] = k->heads[h]->outputs[0]; /* merged heads' outputs: y1, y2 */
  if (k->n_heads)
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_HEADS %zu\n",
             1 + k->n_heads);
  if (texmem__ku_stored_flat(m, k, k->outputs[0])) { /* y a RESHAPE of another height, width */
    const texmem_tensor *y = texmem__ku_tensor(m, k->outputs[0]);
    snprintf(defs + strlen(defs), sizeof defs - strlen(defs), "#define TM_Y_FLAT 1\n");
    texmem__kernel_ivec4(k, "yflat", (int32_t)y->w, (int32_t)y->h, 0, 0);
  }
  return texmem__kernel_program_scratch(env, file, defs, ins, n_in, outs, k->n_outputs, bufs,
                                        k->n_buffers, k->scratch_buffers, local, &k->program, err);
}

texmem_status texmem__fuse_unary_stage(texmem__kernel_env *env, const texmem_model *m,
                                       const texmem_op *op, texmem__kernel *k, char *defs,
                                       size_t cap, texmem_error *err) {
  if (!k->fused) return TEXMEM_STATUS_OK;
  if (texmem__ew_unary_kind(k->fused->type) < 0 || k->fused2)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: only a unary operator fuses into it", texmem_op_type_name(op->type));
  size_t n_in = k->n_inputs;
  texmem_status s = bind_fused(env, m, op->outputs[0], k->fused, 0, k, defs, cap, &n_in, err);
  if (!s) k->outputs[0] = k->fused->outputs[0];
  return s;
}

void texmem__pad_before(const texmem_model *m, const texmem_op *pad, int32_t *pl, int32_t *pt) {
  int32_t before[4], after[4];
  if (!pad) return;
  const texmem_tensor *x = texmem__ku_tensor(m, pad->inputs[0]);
  if (texmem__pad_amounts(m, pad, x->rank, before, after, NULL)) return;
  *pl += before[2];
  *pt += before[1];
}

