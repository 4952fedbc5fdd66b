// CONCATENATION of segments along x, y, channels or batch, TM_N distinct input
// images in0..in(TM_N-1) (defined by the kernel). Segment s ends at
// ends[s] along the axis and reads image imgs[s]; the first starts at
// range.z. cfg = (axis: 0 x, 1 y, 2 channels, 3 batch; segments; output channels;
// channel offsets all multiples of 4). This pass writes the output
// positions (texels along channels) in [range.x, range.y) of the axis. Unaligned channel concatenation reads each lane on its own.
// Batch b of a tensor with S slices is at z = b*S + s; along x or y every
// input has the output's slices, along channels segment s has
// ceil(its channels / 4). With TM_THRU, thru[s] > 0: segment s is a
// RESHAPE's output that is never stored; its image is the reshape's input,
// of thru[s] channels, and each element is read where the dense BHWC order
// puts it (as op_reshape.comp reads it). TM_THRU_ALL: every segment is;
// TM_THRU_ALIGNED: every one's channels and its input's are multiples of
// 4, so a texel's lanes are one texel of the input. Both are compile-time,
// so a CPU driver, which runs every side of a branch it cannot prove
// uniform, reads once a texel. y may be a RESHAPE of the output
// (y_flat.glsl).
#include "y_flat.glsl"
uniform highp ivec4 ends0, ends1;
uniform highp ivec4 imgs0, imgs1;
#ifdef TM_THRU
uniform highp ivec4 thru0, thru1;
#endif
uniform highp ivec4 cfg;
uniform highp ivec4 range;
uniform highp vec4 act; // clamp min, clamp max, tanh if > 0

highp vec4 rd(highp int i, highp ivec3 q) {
#if TM_N > 1
  if (i == 1) return in1_read(q);
#endif
#if TM_N > 2
  if (i == 2) return in2_read(q);
#endif
#if TM_N > 3
  if (i == 3) return in3_read(q);
#endif
#if TM_N > 4
  if (i == 4) return in4_read(q);
#endif
#if TM_N > 5
  if (i == 5) return in5_read(q);
#endif
#if TM_N > 6
  if (i == 6) return in6_read(q);
#endif
#if TM_N > 7
  if (i == 7) return in7_read(q);
#endif
  return in0_read(q);
}

#ifdef TM_THRU
highp ivec3 shp(highp int i) {
#if TM_N > 1
  if (i == 1) return in1_shape();
#endif
#if TM_N > 2
  if (i == 2) return in2_shape();
#endif
#if TM_N > 3
  if (i == 3) return in3_shape();
#endif
#if TM_N > 4
  if (i == 4) return in4_shape();
#endif
#if TM_N > 5
  if (i == 5) return in5_shape();
#endif
#if TM_N > 6
  if (i == 6) return in6_shape();
#endif
#if TM_N > 7
  if (i == 7) return in7_shape();
#endif
  return in0_shape();
}

highp int seg_thru(highp int s) { return s < 4 ? tm_ilane(thru0, s) : tm_ilane(thru1, s - 4); }
#endif

highp int seg_end(highp int s) { return s < 4 ? tm_ilane(ends0, s) : tm_ilane(ends1, s - 4); }
highp int seg_img(highp int s) { return s < 4 ? tm_ilane(imgs0, s) : tm_ilane(imgs1, s - 4); }

#ifdef TM_THRU
// The texel of image i (cs channels) holding element e in dense BHWC order.
highp vec4 src_texel(highp int i, highp int cs, highp int e) {
  highp ivec3 is = shp(i);
  highp int plane = is.x * is.y, ci = e % cs, t = e / cs, b = t / plane, r = t - b * plane;
  return rd(i, ivec3(r % is.x, r / is.x, b * ((cs + 3) >> 2) + (ci >> 2)));
}

highp float element(highp int i, highp int cs, highp int e) {
  return tm_lane(src_texel(i, cs, e), (e % cs) & 3);
}

#endif

// Texel q of segment s, whose tensor has w x h pixels of c channels.
highp vec4 seg_texel(highp int s, highp ivec3 q, highp int w, highp int h, highp int c) {
#ifndef TM_THRU
  return rd(seg_img(s), q);
#else
  highp int cs = seg_thru(s), i = seg_img(s);
#ifndef TM_THRU_ALL
  if (cs == 0) return rd(i, q);
#endif
  highp int sl = (c + 3) >> 2, b = q.z / sl, c0 = 4 * (q.z - b * sl);
  highp int e = ((b * h + q.y) * w + q.x) * c + c0;
#ifdef TM_THRU_ALIGNED
  return src_texel(i, cs, e);
#else
  return vec4(element(i, cs, e), c0 + 1 < c ? element(i, cs, e + 1) : 0.0,
              c0 + 2 < c ? element(i, cs, e + 2) : 0.0, c0 + 3 < c ? element(i, cs, e + 3) : 0.0);
#endif
#endif
}

// Output channel c (< cfg.z) of pixel xy in batch ob, read from its segment.
highp float channel(highp ivec2 xy, highp int ob, highp int c) {
  if (c >= cfg.z) return 0.0;
  highp int s = 0, start = range.z;
  while (s < cfg.y - 1 && c >= seg_end(s)) {
    start = seg_end(s);
    s++;
  }
  highp int k = c - start, sc = seg_end(s) - start;
#ifdef TM_THRU
  highp int cs = seg_thru(s);
  if (cs > 0) {
    highp ivec3 os = y_shape();
    return element(seg_img(s), cs, ((ob * os.y + xy.y) * os.x + xy.x) * sc + k);
  }
#endif
  highp int z = ob * ((sc + 3) >> 2) + (k >> 2);
  return tm_lane(rd(seg_img(s), ivec3(xy, z)), k & 3);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!y_inside(p)) return;
  highp vec4 r = vec4(0.0);
  highp int oslices = (cfg.z + 3) >> 2, ob = p.z / oslices, zs = p.z - ob * oslices;
  highp int unit = cfg.x == 0 ? p.x : cfg.x == 1 ? p.y : cfg.x == 2 ? zs : ob;
  if (unit < range.x || unit >= range.y) return; // another pass's texel
  if (cfg.x != 2 || cfg.w != 0) {
    highp int v = cfg.x == 0 ? p.x : cfg.x == 1 ? p.y : cfg.x == 2 ? 4 * zs : ob;
    highp int s = 0, start = range.z;
    while (s < cfg.y - 1 && v >= seg_end(s)) {
      start = seg_end(s);
      s++;
    }
    highp ivec3 q = p, os = y_shape();
    highp int len = seg_end(s) - start, w = os.x, h = os.y, c = cfg.z;
    if (cfg.x == 0) {
      q.x -= start;
      w = len;
    } else if (cfg.x == 1) {
      q.y -= start;
      h = len;
    } else if (cfg.x == 3) {
      q.z = (ob - start) * oslices + zs;
    } else {
      q.z = ob * ((len + 3) >> 2) + zs - (start >> 2);
      c = len;
    }
    r = seg_texel(s, q, w, h, c);
  } else {
    highp int c = 4 * zs;
    r = vec4(channel(p.xy, ob, c), channel(p.xy, ob, c + 1), channel(p.xy, ob, c + 2),
             channel(p.xy, ob, c + 3));
  }
  r = clamp(r, act.x, act.y);
  if (act.z > 0.0) r = tanh(r);
  y_write(p, r);
}
