/* RESIZE_BILINEAR as TFLite's reference kernel: scale = in/out, or
 * (in-1)/(out-1) with align_corners; source = dst*scale, or
 * (dst+0.5)*scale-0.5 with half_pixel_centers; lower index clamped at 0,
 * upper at in-1, weights from the unclamped source.
 * RESIZE_NEAREST_NEIGHBOR as TFLite's: source (dst + offset) * scale with
 * offset 0.5 for half_pixel_centers, rounded (half away from zero) with
 * align_corners, else floored; clamped to [0, in-1]. */
#include <math.h>

#include "ref_internal.h"

static void source(int32_t dst, float scale, bool half_pixel, int32_t in_size, float *v,
                   int32_t *lo, int32_t *hi) {
  *v = half_pixel ? ((float)dst + 0.5f) * scale - 0.5f : (float)dst * scale;
  int32_t f = (int32_t)floorf(*v), c = (int32_t)ceilf(*v);
  *lo = f > 0 ? f : 0;
  *hi = c < in_size - 1 ? c : in_size - 1;
}

/* Shapes (BHWC into d and od, the output checked against the input) and
 * the source step per output row and column (hs, ws), common to both
 * resizes. */
static texmem_status resize_setup(const char *name, const texmem_op_options *o,
                                  const texmem_ref_tensor *in, texmem_ref_tensor *out,
                                  uint32_t d[4], uint32_t od[4], float *hs, float *ws,
                                  texmem_error *err) {
  texmem_ref_bhwc(&in[0], d);
  texmem_ref_bhwc(out, od);
  texmem_status s = texmem__ref_check_out(name, out, d[0], od[1], od[2], d[3], err);
  if (s) return s;
  int32_t ih = (int32_t)d[1], iw = (int32_t)d[2], oh = (int32_t)od[1], ow = (int32_t)od[2];
  *hs = (float)ih / (float)oh;
  *ws = (float)iw / (float)ow;
  if (o->align_corners && oh > 1) *hs = (float)(ih - 1) / (float)(oh - 1);
  if (o->align_corners && ow > 1) *ws = (float)(iw - 1) / (float)(ow - 1);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_resize_bilinear(const texmem_op_options *o,
                                         const texmem_ref_tensor *in, size_t n_in,
                                         texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "RESIZE_BILINEAR";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 1, err))) return s;
  if (in[0].rank != 4 || !out || out->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: input and output need rank 4",
                        name);
  if (o->align_corners && o->half_pixel_centers)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: align_corners and half_pixel_centers both set", name);
  uint32_t d[4], od[4];
  float hs, ws;
  if ((s = resize_setup(name, o, in, out, d, od, &hs, &ws, err))) return s;
  int32_t ih = (int32_t)d[1], iw = (int32_t)d[2], oh = (int32_t)od[1], ow = (int32_t)od[2];
  const float *x = in[0].data;
  for (uint32_t b = 0; b < d[0]; b++)
    for (int32_t y = 0; y < oh; y++) {
      float sy;
      int32_t y0, y1;
      source(y, hs, o->half_pixel_centers, ih, &sy, &y0, &y1);
      float fy = sy - (float)y0;
      for (int32_t xo = 0; xo < ow; xo++) {
        float sx;
        int32_t x0, x1;
        source(xo, ws, o->half_pixel_centers, iw, &sx, &x0, &x1);
        float fx = sx - (float)x0;
        for (uint32_t c = 0; c < d[3]; c++) {
          float v00 = x[texmem__ref_at(d, b, (uint32_t)y0, (uint32_t)x0, c)];
          float v10 = x[texmem__ref_at(d, b, (uint32_t)y1, (uint32_t)x0, c)];
          float v01 = x[texmem__ref_at(d, b, (uint32_t)y0, (uint32_t)x1, c)];
          float v11 = x[texmem__ref_at(d, b, (uint32_t)y1, (uint32_t)x1, c)];
          out->data[texmem__ref_at(od, b, (uint32_t)y, (uint32_t)xo, c)] =
              v00 * (1 - fy) * (1 - fx) + v10 * fy * (1 - fx) + v01 * (1 - fy) * fx +
              v11 * fy * fx;
        }
      }
    }
  return TEXMEM_STATUS_OK;
}

static int32_t nearest(int32_t dst, float scale, const texmem_op_options *o, int32_t in_size) {
  float v = ((float)dst + (o->half_pixel_centers ? 0.5f : 0.0f)) * scale;
  int32_t i = o->align_corners ? (int32_t)roundf(v) : (int32_t)floorf(v);
  i = i < in_size - 1 ? i : in_size - 1;
  return i > 0 ? i : 0;
}

texmem_status texmem_ref_resize_nearest(const texmem_op_options *o, const texmem_ref_tensor *in,
                                        size_t n_in, texmem_ref_tensor *out, texmem_error *err) {
  const char *name = "RESIZE_NEAREST_NEIGHBOR";
  texmem_status s;
  if ((s = texmem__ref_need(name, in, n_in, 1, err))) return s;
  if (in[0].rank != 4 || !out || out->rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: input and output need rank 4",
                        name);
  uint32_t d[4], od[4];
  float hs, ws;
  if ((s = resize_setup(name, o, in, out, d, od, &hs, &ws, err))) return s;
  int32_t ih = (int32_t)d[1], iw = (int32_t)d[2], oh = (int32_t)od[1], ow = (int32_t)od[2];
  for (uint32_t b = 0; b < d[0]; b++)
    for (int32_t y = 0; y < oh; y++)
      for (int32_t xo = 0; xo < ow; xo++) {
        uint32_t sy = (uint32_t)nearest(y, hs, o, ih), sx = (uint32_t)nearest(xo, ws, o, iw);
        for (uint32_t c = 0; c < d[3]; c++)
          out->data[texmem__ref_at(od, b, (uint32_t)y, (uint32_t)xo, c)] =
              in[0].data[texmem__ref_at(d, b, sy, sx, c)];
      }
  return TEXMEM_STATUS_OK;
}
