// RESIZE_NEAREST_NEIGHBOR as TFLite's reference kernel: source index
// (dst + offset) * scale, rounded half away from zero with align_corners
// (the value is never negative: floor(v + 0.5)), else floored; clamped to
// [0, in - 1]. scale = (w scale, h scale, offset (0.5 with half pixel
// centers), align corners).
uniform highp vec4 scale;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp ivec3 is = src_shape();
  highp vec2 v = (vec2(p.xy) + scale.z) * scale.xy;
  highp ivec2 q = ivec2(scale.w > 0.0 ? floor(v + 0.5) : floor(v));
  dst_write(p, src_read(ivec3(clamp(q, ivec2(0), is.xy - 1), p.z)));
}
