// Test shader: dst = src * weights[z] * scale + bias, with an SSBO of one
// vec4 per slice, a float and an int uniform.
uniform highp float scale;
uniform highp int bias;
void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp vec4 v = src_inside(p) ? src_read(p) : vec4(0.0);
  dst_write(p, v * weights[p.z] * scale + vec4(float(bias)));
}
