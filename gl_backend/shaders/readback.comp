// Read back: copies the logical texels of `src` into the SSBO `tm_out`
// in (z, y, x) order, for every target, format and layout.
void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!src_inside(p)) return;
  highp ivec3 s = src_shape();
  tm_out[(p.z * s.y + p.y) * s.x + p.x] = src_read(p);
}
