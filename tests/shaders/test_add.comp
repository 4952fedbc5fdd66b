// Test shader: dst = a + b; each input is zero outside its logical shape.
void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp vec4 va = a_inside(p) ? a_read(p) : vec4(0.0);
  highp vec4 vb = b_inside(p) ? b_read(p) : vec4(0.0);
  dst_write(p, va + vb);
}
