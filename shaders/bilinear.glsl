// RESIZE_BILINEAR's arithmetic, as TFLite's reference kernel, shared by
// op_resize.comp and the convolutions that read a resized tensor without
// it ever being stored (a resize folded into its reader:
// runtime/kernels_fusion.h): one definition, so a folded read takes
// the value the resize would have stored (rounded as its store would by
// the caller), bit for bit.
// scale = (w scale, h scale, half pixel centers if > 0, 0): the source of
// output pixel d is d * scale, or (d + 0.5) * scale - 0.5; the lower index
// is clamped at 0, the upper at the input's size - 1, and the weights come
// from the source minus the lower index.

// The source pixels (lo, hi per axis) of output pixel d in an input of
// size is, and the upper ones' weights f.
void tm_bilinear_taps(highp ivec2 d, highp vec4 scale, highp ivec2 is, out highp ivec2 lo,
                      out highp ivec2 hi, out highp vec2 f) {
  highp vec2 dv = vec2(d);
  highp vec2 s = scale.z > 0.0 ? (dv + 0.5) * scale.xy - 0.5 : dv * scale.xy;
  lo = max(ivec2(floor(s)), ivec2(0));
  hi = min(ivec2(ceil(s)), is - 1);
  f = s - vec2(lo);
}

// The interpolated value from the texels at (lo.x, lo.y), (lo.x, hi.y),
// (hi.x, lo.y), (hi.x, hi.y).
highp vec4 tm_bilinear_mix(highp vec4 v00, highp vec4 v10, highp vec4 v01, highp vec4 v11,
                           highp vec2 f) {
  return v00 * (1.0 - f.y) * (1.0 - f.x) + v10 * f.y * (1.0 - f.x) + v01 * (1.0 - f.y) * f.x +
         v11 * f.y * f.x;
}
