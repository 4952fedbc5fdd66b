/* Parsing the FlexBuffers options of MediaPipe's custom operators (key
 * names and checks as MediaPipe's own parsers and Eval functions). */
#include "mediapipe_options.h"

#include <math.h>
#include <string.h>

#include "flexbuffers.h"
#include "common.h" /* texmem__fail */

typedef struct opts {
  texmem__flex_map map;
  const char *op;
  texmem_error *err;
} opts;

static texmem_status bad(const opts *o, const char *key, const char *why) {
  if (key)
    return texmem__fail(o->err, TEXMEM_STATUS_BAD_MODEL, "%s: custom options: %s: %s", o->op, key,
                        why);
  return texmem__fail(o->err, TEXMEM_STATUS_BAD_MODEL, "%s: custom options: %s", o->op, why);
}

static texmem_status open_map(opts *o, const char *op, const uint8_t *buf, size_t size,
                              texmem_error *err) {
  o->op = op;
  o->err = err;
  const char *e = texmem__flex_root_map(buf, size, &o->map);
  return e ? bad(o, NULL, e) : TEXMEM_STATUS_OK;
}

static texmem_status get(const opts *o, const char *key, texmem__flex_ref *r) {
  bool found;
  const char *e = texmem__flex_map_get(&o->map, key, r, &found);
  if (e) return bad(o, key, e);
  if (!found) return bad(o, key, "missing");
  return TEXMEM_STATUS_OK;
}

/* An int32 in [lo, INT32_MAX]. */
static texmem_status get_int(const opts *o, const char *key, int32_t lo, int32_t *out) {
  texmem__flex_ref r;
  int64_t v;
  texmem_status s = get(o, key, &r);
  if (s) return s;
  const char *e = texmem__flex_int(&r, &v);
  if (e) return bad(o, key, e);
  if (v < lo || v > INT32_MAX)
    return texmem__fail(o->err, TEXMEM_STATUS_BAD_MODEL, "%s: custom options: %s is %lld", o->op,
                        key, (long long)v);
  *out = (int32_t)v;
  return TEXMEM_STATUS_OK;
}

/* A finite float; positive when `positive`. */
static texmem_status get_float(const opts *o, const char *key, bool positive, float *out) {
  texmem__flex_ref r;
  double v;
  texmem_status s = get(o, key, &r);
  if (s) return s;
  const char *e = texmem__flex_double(&r, &v);
  if (e) return bad(o, key, e);
  if (!isfinite(v) || fabs(v) > 3.0e38 || (positive && !(v > 0)))
    return texmem__fail(o->err, TEXMEM_STATUS_BAD_MODEL, "%s: custom options: %s is %g", o->op,
                        key, v);
  *out = (float)v;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__mp_parse_l2tm(const uint8_t *opt, size_t size, texmem__mp_l2tm *out,
                                    texmem_error *err) {
  memset(out, 0, sizeof *out);
  opts o;
  texmem_status s = open_map(&o, TEXMEM__MP_L2TM_NAME, opt, size, err);
  if (s || (s = get_int(&o, "left_rotation_idx", 0, &out->left)) ||
      (s = get_int(&o, "right_rotation_idx", 0, &out->right)) ||
      (s = get_float(&o, "target_rotation_radians", false, &out->target_rotation)) ||
      (s = get_int(&o, "output_width", 1, &out->out_w)) ||
      (s = get_int(&o, "output_height", 1, &out->out_h)) ||
      (s = get_float(&o, "scale_x", true, &out->scale_x)) ||
      (s = get_float(&o, "scale_y", true, &out->scale_y)))
    return s;
  texmem__flex_ref r;
  if ((s = get(&o, "subset_idxs", &r))) return s;
  int64_t v[2 * TEXMEM__MP_MAX_SUBSET];
  size_t n;
  const char *e = texmem__flex_ints(&r, v, 2 * TEXMEM__MP_MAX_SUBSET, &n);
  if (e) return bad(&o, "subset_idxs", e);
  if (n == 0) return bad(&o, "subset_idxs", "empty");
  for (size_t i = 0; i < n; i++)
    if (v[i] < 0 || v[i] > INT32_MAX)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "%s: custom options: subset_idxs[%zu] is %lld",
                          TEXMEM__MP_L2TM_NAME, i, (long long)v[i]);
  out->n_subset = (n + 1) / 2;
  for (size_t i = 0; i < out->n_subset; i++) {
    out->subset[i][0] = (int32_t)v[2 * i];
    out->subset[i][1] = (int32_t)v[2 * i + 1 < n ? 2 * i + 1 : n - 1];
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__mp_parse_ttb(const uint8_t *opt, size_t size, texmem__mp_ttb *out,
                                   texmem_error *err) {
  memset(out, 0, sizeof *out);
  opts o;
  texmem_status s = open_map(&o, TEXMEM__MP_TTB_NAME, opt, size, err);
  if (s || (s = get_int(&o, "output_height", 1, &out->out_h)) ||
      (s = get_int(&o, "output_width", 1, &out->out_w)))
    return s;
  return TEXMEM_STATUS_OK;
}
