// CONCATENATION of segments along x, y, channels or batch, TM_N distinct input
// images in0..in(TM_N-1) (defined by the kernel). Segment s ends at
// ends[s] along the axis and reads image imgs[s]; the first starts at
// range.z. cfg = (axis: 0 x, 1 y, 2 channels, 3 batch; segments; output channels;
// channel offsets all multiples of 4). This pass writes the output
// positions (texels along channels) in [range.x, range.y) of the axis. Unaligned channel concatenation reads each lane on its own.
// Batch b of a tensor with S slices is at z = b*S + s; along x or y every
// input has the output's slices, along channels segment s has
// ceil(its channels / 4).
uniform highp ivec4 ends0, ends1;
uniform highp ivec4 imgs0, imgs1;
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

highp int seg_end(highp int s) { return s < 4 ? tm_ilane(ends0, s) : tm_ilane(ends1, s - 4); }
highp int seg_img(highp int s) { return s < 4 ? tm_ilane(imgs0, s) : tm_ilane(imgs1, s - 4); }

// Output channel c (< cfg.z) of pixel xy in batch ob, read from its segment.
highp float channel(highp ivec2 xy, highp int ob, highp int c) {
  if (c >= cfg.z) return 0.0;
  highp int s = 0, start = range.z;
  while (s < cfg.y - 1 && c >= seg_end(s)) {
    start = seg_end(s);
    s++;
  }
  highp int k = c - start;
  highp int z = ob * ((seg_end(s) - start + 3) >> 2) + (k >> 2);
  return tm_lane(rd(seg_img(s), ivec3(xy, z)), k & 3);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
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
    highp ivec3 q = p;
    if (cfg.x == 0) q.x -= start;
    else if (cfg.x == 1) q.y -= start;
    else if (cfg.x == 3) q.z = (ob - start) * oslices + zs;
    else q.z = ob * ((seg_end(s) - start + 3) >> 2) + zs - (start >> 2);
    r = rd(seg_img(s), q);
  } else {
    highp int c = 4 * zs;
    r = vec4(channel(p.xy, ob, c), channel(p.xy, ob, c + 1), channel(p.xy, ob, c + 2),
             channel(p.xy, ob, c + 3));
  }
  r = clamp(r, act.x, act.y);
  if (act.z > 0.0) r = tanh(r);
  dst_write(p, r);
}
