/* CONCATENATION along any axis (op_concat.comp), any number of inputs.
 * The axis as written maps to x, y, channels or the batch. One pass binds at
 * most MAX_SEGMENTS segments (each distinct tensor once, at most as many
 * images as the context allows) and writes one range of the output along
 * the axis: positions along x, y or the batch, texels (4 channels) along
 * channels.
 * A texel that straddles two passes' inputs (channel offsets not multiples
 * of 4) goes to the later pass, which binds the earlier segment again, so
 * every texel is written by exactly one pass. Channel offsets that are not
 * multiples of 4 take the per-lane path. A segment made by a RESHAPE folded
 * into the concatenation (kernel.h: through) binds the reshape's input and
 * reads each element where the reshape would have taken it from. */
#include <stdio.h>

#include "kernels_util.h"

#define MAX_SEGMENTS 8

typedef struct concat_geom {
  size_t n;             /* segments (inputs) */
  const int32_t *ins;   /* model tensor of each segment */
  const int32_t *ends;  /* end of each segment along the axis (channels for C) */
  bool channels;        /* axis is C: ranges in texels */
  int32_t total_units;  /* output positions along the axis (texels for C) */
  size_t max_bind;      /* images a pass may bind */
} concat_geom;

static int32_t seg_start(const concat_geom *g, size_t i) { return i ? g->ends[i - 1] : 0; }

/* Pass p: its segments [*first, *last] and units [*lo, *hi). Returns the
 * number of passes, 0 if a pass cannot make progress. */
static uint32_t plan_pass(const concat_geom *g, uint32_t p, size_t *first, size_t *last,
                          int32_t *lo, int32_t *hi) {
  int32_t pos = 0;
  size_t i = 0;
  uint32_t k = 0;
  for (;;) {
    /* The first segment with units at or after pos. */
    while (i + 1 < g->n && (g->channels ? (g->ends[i] + 3) / 4 : g->ends[i]) <= pos) i++;
    size_t j = i, bound = 0;
    int32_t seen[MAX_SEGMENTS];
    for (size_t m = i; m < g->n && m - i < MAX_SEGMENTS; m++) {
      bool dup = false;
      for (size_t q = 0; q < bound; q++) dup = dup || seen[q] == g->ins[m];
      if (!dup && bound == g->max_bind) break;
      if (!dup) seen[bound++] = g->ins[m];
      j = m;
    }
    int32_t end = j + 1 == g->n ? g->total_units
                  : g->channels ? g->ends[j] / 4 : g->ends[j];
    if (end <= pos) return 0;
    if (k == p) {
      *first = i;
      *last = j;
      *lo = pos;
      *hi = end;
    }
    k++;
    if (end >= g->total_units) return k;
    pos = end;
  }
}

/* What segment tensor t is read from: *src = t, *chans = 0; or, for a
 * RESHAPE folded into this concatenation (k->through), the reshape's input
 * and its channels, the segment's elements found there in dense BHWC order. */
static texmem_status read_through(const char *name, const texmem_model *model,
                                  const texmem__kernel *k, int32_t t, int32_t *src,
                                  int32_t *chans, texmem_error *err) {
  *src = t;
  *chans = 0;
  const texmem_op *r = texmem__ku_through(model, k, t, false);
  if (!r) return TEXMEM_STATUS_OK;
  *src = r->inputs[0];
  return texmem__ku_reshaped_input(name, model, r, chans, err);
}

texmem_status texmem__kernel_concat(texmem__kernel_env *env, const texmem_model *model,
                                    const texmem_op *op, texmem__kernel *out, texmem_error *err) {
  const char *name = "CONCATENATION";
  size_t n = op->n_inputs;
  if (n < 1 || op->n_outputs != 1)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %zu inputs, %zu outputs", name, n,
                        op->n_outputs);
  const texmem_tensor *y = NULL, *x0 = NULL;
  texmem_status s = texmem__ku_image(name, model, op->outputs[0], "output", &y, err);
  if (!s) s = texmem__ku_image(name, model, op->inputs[0], "input", &x0, err);
  if (s) return s;
  unsigned rank = x0->rank;
  int32_t axis = op->options.axis < 0 ? op->options.axis + (int32_t)rank : op->options.axis;
  if (rank == 0 || axis < 0 || axis >= (int32_t)rank)
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: axis %d for rank %u", name,
                        op->options.axis, rank);
  int comp = texmem__ku_axis_component(rank, (unsigned)axis);
  int32_t *ends = malloc(n * sizeof *ends);
  if (!ends) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: out of memory", name);
  int64_t total = 0;
  bool aligned = true;
  for (size_t i = 0; i < n && !s; i++) {
    const texmem_tensor *x = NULL;
    if ((s = texmem__ku_image(name, model, op->inputs[i], "input", &x, err))) break;
    if (x->rank != rank) {
      s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: input %zu has rank %u, input 0 has %u",
                       name, i, x->rank, rank);
      break;
    }
    for (unsigned j = 0; j < rank && !s; j++)
      if ((int32_t)j != axis && x->shape[j] != x0->shape[j])
        s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: input %zu dim %u is %d, input 0 has %d",
                         name, i, j, x->shape[j], x0->shape[j]);
    if (comp == 3 && total % 4 != 0) aligned = false;
    total += x->shape[axis];
    if (total > INT32_MAX / 2)
      s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: %lld along the axis", name,
                       (long long)total);
    ends[i] = (int32_t)total;
  }
  uint32_t h = x0->h, w = x0->w, c = x0->c;
  if (comp == 1) h = (uint32_t)total;
  if (comp == 2) w = (uint32_t)total;
  if (comp == 3) c = (uint32_t)total;
  if (!s) s = texmem__ku_check_out(name, y, h, w, c, err);
  if (!s && y->b != (comp == 0 ? (uint32_t)total : x0->b))
    s = texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: output \"%s\" has batch %u, the op gives %u",
                     name, y->name, y->b, comp == 0 ? (uint32_t)total : x0->b);
  if (!s) s = texmem__ku_activation(name, op->options.activation, out, err);
  texmem_gl_limits lim;
  texmem_gl_context_limits(texmem__kernel_env_context(env), &lim);
  concat_geom g = {.n = n,
                   .ins = op->inputs,
                   .ends = ends,
                   .channels = comp == 3,
                   .total_units = comp == 3 ? ((int32_t)total + 3) / 4 : (int32_t)total,
                   .max_bind = MAX_SEGMENTS};
  if (lim.max_compute_image_uniforms > 1 &&
      (int64_t)g.max_bind > lim.max_compute_image_uniforms - 1)
    g.max_bind = (size_t)(lim.max_compute_image_uniforms - 1);
  size_t first = 0, last = 0;
  int32_t lo = 0, hi = 0;
  uint32_t passes = s ? 0 : plan_pass(&g, out->pass, &first, &last, &lo, &hi);
  if (!s && (passes == 0 || out->pass >= passes))
    s = texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED_OP,
                     "%s: %zu inputs do not split into passes of %zu images", name, n,
                     g.max_bind);
  if (s) {
    free(ends);
    return s;
  }
  int32_t seg_ends[MAX_SEGMENTS] = {0}, imgs[MAX_SEGMENTS] = {0}, chans[MAX_SEGMENTS] = {0};
  /* Segments read through a reshape: any, all, all of them aligned (their
   * channels and their inputs' multiples of 4: a texel from one texel). */
  bool thru = false, all = true, aligned4 = true;
  for (size_t i = first; i <= last && !s; i++) {
    seg_ends[i - first] = ends[i];
    int32_t t = op->inputs[i], *cs = &chans[i - first];
    s = read_through(name, model, out, t, &t, cs, err);
    int32_t seg_c = comp == 3 ? ends[i] - seg_start(&g, i) : (int32_t)c;
    thru = thru || *cs;
    all = all && *cs;
    aligned4 = aligned4 && (!*cs || ((*cs | seg_c) & 3) == 0);
    /* Bind each distinct tensor once. */
    size_t img = out->n_inputs;
    for (size_t k = 0; k < out->n_inputs; k++)
      if (out->inputs[k] == t) img = k;
    if (img == out->n_inputs) out->inputs[out->n_inputs++] = t;
    imgs[i - first] = (int32_t)img;
  }
  int32_t first_start = seg_start(&g, first);
  free(ends);
  if (s) return s;

  static const char *const names[MAX_SEGMENTS] = {"in0", "in1", "in2", "in3",
                                                  "in4", "in5", "in6", "in7"};
  static const char *const outs[] = {"y"};
  /* y, or a RESHAPE of it to another height and width stored instead
   * (shaders/y_flat.glsl): work groups over y's own texels. */
  bool flat = texmem__ku_stored_flat(model, out, op->outputs[0]) != NULL;
  char defines[160];
  snprintf(defines, sizeof defines, "#define TM_N %zu\n%s%s%s%s", out->n_inputs,
           thru ? "#define TM_THRU 1\n" : "", thru && all ? "#define TM_THRU_ALL 1\n" : "",
           thru && aligned4 ? "#define TM_THRU_ALIGNED 1\n" : "",
           flat ? "#define TM_Y_FLAT 1\n" : "");
  s = texmem__kernel_program_defines(env, "op_concat.comp", defines, names, out->n_inputs, outs, 1,
                                     NULL, 0, NULL, &out->program, err);
  if (s) return s;
  texmem__ku_cover_y(out, y, flat);
  out->outputs[0] = op->outputs[0];
  out->n_outputs = 1;
  out->n_passes = passes;
  texmem__kernel_ivec4(out, "ends0", seg_ends[0], seg_ends[1], seg_ends[2], seg_ends[3]);
  texmem__kernel_ivec4(out, "ends1", seg_ends[4], seg_ends[5], seg_ends[6], seg_ends[7]);
  texmem__kernel_ivec4(out, "imgs0", imgs[0], imgs[1], imgs[2], imgs[3]);
  texmem__kernel_ivec4(out, "imgs1", imgs[4], imgs[5], imgs[6], imgs[7]);
  texmem__kernel_ivec4(out, "cfg", comp == 2 ? 0 : comp == 1 ? 1 : comp == 3 ? 2 : 3,
                       (int32_t)(last - first + 1),
                       (int32_t)c, comp == 3 && aligned ? 1 : 0);
  texmem__kernel_ivec4(out, "range", lo, hi, first_start, 0);
  if (thru) {
    texmem__kernel_ivec4(out, "thru0", chans[0], chans[1], chans[2], chans[3]);
    texmem__kernel_ivec4(out, "thru1", chans[4], chans[5], chans[6], chans[7]);
  }
  return TEXMEM_STATUS_OK;
}
