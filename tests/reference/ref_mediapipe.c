/* MediaPipe's custom operators, version 2 (mediapipe/util/tflite/
 * operations/), written from their published semantics in float as
 * MediaPipe computes them. texmem runs every batch (MediaPipe only batch
 * 0); a matrix input of batch 1 serves every batch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mediapipe_options.h"
#include "ref_internal.h"

/* Row-major 4x4: r = a * b. */
static void mat4_mul(const float a[16], const float b[16], float r[16]) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 4 + j];
      r[i * 4 + j] = s;
    }
}

static void mat4_apply(float t[16], const float m[16]) {
  float r[16];
  mat4_mul(t, m, r);
  memcpy(t, r, sizeof r);
}

/* The 16 matrix values of batch b of a (B|1, 4, 4) or (B|1, 1, 4, 4)
 * tensor; NULL when its shape is neither. */
static const float *matrix_of(const texmem_ref_tensor *m, uint32_t b) {
  uint32_t d[4];
  texmem_ref_bhwc(m, d);
  if (d[1] != 1 || d[2] != 4 || d[3] != 4) return NULL;
  return m->data + (size_t)(d[0] == 1 ? 0 : b) * 16;
}

static texmem_status check_matrix(const char *name, const texmem_ref_tensor *m, uint32_t batch,
                                  texmem_error *err) {
  uint32_t d[4];
  texmem_ref_bhwc(m, d);
  if (d[1] != 1 || d[2] != 4 || d[3] != 4 || (d[0] != 1 && d[0] != batch))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: matrix is %ux%ux%ux%u (BHWC), needs (%u or 1)x1x4x4", name, d[0],
                        d[1], d[2], d[3], batch);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_landmarks_to_transform_matrix(const texmem_op_options *o,
                                                       const texmem_ref_tensor *in, size_t n_in,
                                                       texmem_ref_tensor *out,
                                                       texmem_error *err) {
  const char *name = TEXMEM__MP_L2TM_NAME;
  texmem_status s = texmem__ref_need(name, in, n_in, 1, err);
  if (s) return s;
  texmem__mp_l2tm *p = malloc(sizeof *p);
  if (!p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "%s: no memory", name);
  if ((s = texmem__mp_parse_l2tm(o->custom_options, o->custom_options_size, p, err))) goto done;
  uint32_t d[4];
  texmem_ref_bhwc(&in[0], d);
  if (in[0].rank != 3 || d[3] != 3) {
    s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: landmarks need shape (B, N, 3)",
                     name);
    goto done;
  }
  uint32_t n = d[2];
  bool in_range = (uint32_t)p->left < n && (uint32_t)p->right < n;
  for (size_t i = 0; i < p->n_subset; i++)
    in_range = in_range && (uint32_t)p->subset[i][0] < n && (uint32_t)p->subset[i][1] < n;
  if (!in_range) {
    s = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: a landmark index is >= %u", name,
                     n);
    goto done;
  }
  if ((s = texmem__ref_check_out(name, out, d[0], 1, 4, 4, err))) goto done;
  for (uint32_t b = 0; b < d[0]; b++) {
    const float *l = in[0].data + (size_t)b * n * 3;
    float lx = l[p->left * 3], ly = l[p->left * 3 + 1];
    float rx = l[p->right * 3], ry = l[p->right * 3 + 1];
    float rot = p->target_rotation - atan2f(ry - ly, rx - lx);
    /* the subset's bounding box in the frame rotated by rot */
    float c = cosf(rot), sn = sinf(rot);
    float minx = 0, maxx = 0, miny = 0, maxy = 0;
    for (size_t i = 0; i < 2 * p->n_subset; i++) {
      const float *q = l + (size_t)p->subset[i / 2][i % 2] * 3;
      float x = c * q[0] - sn * q[1], y = sn * q[0] + c * q[1];
      if (i == 0 || x < minx) minx = x;
      if (i == 0 || x > maxx) maxx = x;
      if (i == 0 || y < miny) miny = y;
      if (i == 0 || y > maxy) maxy = y;
    }
    float cw = maxx - minx, ch = maxy - miny;
    float mx = (minx + maxx) / 2, my = (miny + maxy) / 2;
    float ci = cosf(-rot), si = sinf(-rot);
    float cx = ci * mx - si * my, cy = si * mx + ci * my;
    /* shift to the centre, rotate back, scale, shift by half the output */
    float t[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    const float shift[16] = {1, 0, 0, cx, 0, 1, 0, cy, 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_apply(t, shift);
    const float rm[16] = {ci, -si, 0, 0, si, ci, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_apply(t, rm);
    float sx = p->scale_x * cw / (float)p->out_w, sy = p->scale_y * ch / (float)p->out_h;
    const float sc[16] = {sx, 0, 0, 0, 0, sy, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    mat4_apply(t, sc);
    const float half[16] = {1, 0, 0, -(float)p->out_w / 2, 0, 1, 0, -(float)p->out_h / 2,
                            0, 0, 1, 0, 0, 0, 0, 1};
    mat4_apply(t, half);
    memcpy(out->data + (size_t)b * 16, t, sizeof t);
  }
done:
  free(p);
  return s;
}

texmem_status texmem_ref_transform_tensor_bilinear(const texmem_op_options *o,
                                                   const texmem_ref_tensor *in, size_t n_in,
                                                   texmem_ref_tensor *out, texmem_error *err) {
  const char *name = TEXMEM__MP_TTB_NAME;
  texmem_status s = texmem__ref_need(name, in, n_in, 2, err);
  if (s) return s;
  texmem__mp_ttb p;
  if ((s = texmem__mp_parse_ttb(o->custom_options, o->custom_options_size, &p, err))) return s;
  uint32_t d[4];
  texmem_ref_bhwc(&in[0], d);
  if (in[0].rank != 4)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "%s: data needs rank 4", name);
  if ((s = check_matrix(name, &in[1], d[0], err)) ||
      (s = texmem__ref_check_out(name, out, d[0], (uint32_t)p.out_h, (uint32_t)p.out_w, d[3],
                                 err)))
    return s;
  uint32_t od[4] = {d[0], (uint32_t)p.out_h, (uint32_t)p.out_w, d[3]};
  int ih = (int)d[1], iw = (int)d[2];
  for (uint32_t b = 0; b < d[0]; b++) {
    const float *m = matrix_of(&in[1], b);
    /* v2 aligns corners: the matrix maps pixel centres, so shift by half a
     * pixel on both sides */
    float x3 = m[3] + m[0] * 0.5f + m[1] * 0.5f - 0.5f;
    float y3 = m[7] + m[4] * 0.5f + m[5] * 0.5f - 0.5f;
    for (uint32_t oy = 0; oy < od[1]; oy++)
      for (uint32_t ox = 0; ox < od[2]; ox++) {
        float tx = m[0] * (float)ox + m[1] * (float)oy + x3;
        float ty = m[4] * (float)ox + m[5] * (float)oy + y3;
        bool outside = tx < 0.0f || tx > (float)(iw - 1) || ty < 0.0f || ty > (float)(ih - 1);
        float fx = floorf(tx), fy = floorf(ty);
        int x0 = (int)fx, y0 = (int)fy;
        float rx = tx - fx, ly = ty - fy;
        for (uint32_t c = 0; c < d[3]; c++) {
          float v = 0;
          if (!outside) {
#define AT(yy, xx)                                                       \
  ((yy) < 0 || (xx) < 0 || (yy) >= ih || (xx) >= iw                      \
       ? 0.0f                                                            \
       : in[0].data[texmem__ref_at(d, b, (uint32_t)(yy), (uint32_t)(xx), c)])
            float up = (1.0f - rx) * AT(y0, x0) + rx * AT(y0, x0 + 1);
            float lo = (1.0f - rx) * AT(y0 + 1, x0) + rx * AT(y0 + 1, x0 + 1);
#undef AT
            v = ly * lo + (1.0f - ly) * up;
          }
          out->data[texmem__ref_at(od, b, oy, ox, c)] = v;
        }
      }
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_ref_transform_landmarks(const texmem_op_options *o,
                                             const texmem_ref_tensor *in, size_t n_in,
                                             texmem_ref_tensor *out, texmem_error *err) {
  (void)o;
  const char *name = TEXMEM__MP_TL_NAME;
  texmem_status s = texmem__ref_need(name, in, n_in, 2, err);
  if (s) return s;
  uint32_t d[4];
  texmem_ref_bhwc(&in[0], d);
  if (in[0].rank != 3 || (d[3] != 2 && d[3] != 3))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s: landmarks need shape (B, N, 2 or 3)", name);
  if ((s = check_matrix(name, &in[1], d[0], err)) ||
      (s = texmem__ref_check_out(name, out, d[0], 1, d[2], d[3], err)))
    return s;
  for (uint32_t b = 0; b < d[0]; b++) {
    const float *m = matrix_of(&in[1], b);
    for (uint32_t i = 0; i < d[2]; i++) {
      size_t at = ((size_t)b * d[2] + i) * d[3];
      float x = in[0].data[at], y = in[0].data[at + 1];
      /* (x, y, 0, 1) through the first two rows; z passes through */
      out->data[at] = m[0] * x + m[1] * y + m[3];
      out->data[at + 1] = m[4] * x + m[5] * y + m[7];
      if (d[3] == 3) out->data[at + 2] = in[0].data[at + 2];
    }
  }
  return TEXMEM_STATUS_OK;
}
