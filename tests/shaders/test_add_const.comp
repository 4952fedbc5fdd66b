// Test shader: dst = src + c (uniform vec4 c); src is zero outside its
// logical shape, so tensors of any shapes chain.
uniform highp vec4 c;
void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp vec4 v = src_inside(p) ? src_read(p) : vec4(0.0);
  dst_write(p, v + c);
}
