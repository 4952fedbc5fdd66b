// RESIZE_BILINEAR (bilinear.glsl holds the arithmetic; runtime/kernels_resize.c
// sets scale = (w scale, h scale, half pixel centers, 0)).
#include "bilinear.glsl"
uniform highp vec4 scale;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp ivec2 lo, hi;
  highp vec2 f;
  tm_bilinear_taps(p.xy, scale, src_shape().xy, lo, hi, f);
  dst_write(p, tm_bilinear_mix(src_read(ivec3(lo.x, lo.y, p.z)), src_read(ivec3(lo.x, hi.y, p.z)),
                               src_read(ivec3(hi.x, lo.y, p.z)), src_read(ivec3(hi.x, hi.y, p.z)),
                               f));
}
