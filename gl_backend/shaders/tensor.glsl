// Tensor accessor, prepended to every texmem compute shader.
// A tensor is described by `uniform ivec4 tm_t_NAME` = (W, H, D, L): its
// LOGICAL shape in texels (the object holding it is often larger) and its
// layout: L == 0 natural (texel (x, y, z) at (x, y, z), or (x, y) of a
// 2-D texture), L > 0 linear (texel index i = (z*H + y)*W + x stored at
// (i % L, i / L + R) of an L-wide 2-D texture, R = `uniform int tm_r_NAME`,
// the tensor's base row: 0, or its row in a GPU arena).
// texmem generates NAME_read / NAME_write / NAME_shape / NAME_inside on
// top of these for each binding.

highp ivec2 tm_coord2(highp ivec3 p, highp ivec4 t, highp int r) {
  if (t.w > 0) {
    highp int i = (p.z * t.y + p.y) * t.x + p.x;
    // The planner picks power-of-two widths: mask and shift instead of an
    // integer division per texel (a uniform branch).
    if ((t.w & (t.w - 1)) == 0) return ivec2(i & (t.w - 1), (i >> findLSB(t.w)) + r);
    return ivec2(i % t.w, i / t.w + r);
  }
  return p.xy;
}

highp ivec3 tm_coord3(highp ivec3 p, highp ivec4 t, highp int r) {
  if (t.w > 0) return ivec3(tm_coord2(p, t, r), 0);
  return p;
}

bool tm_inside(highp ivec3 p, highp ivec4 t) {
  return all(greaterThanEqual(p, ivec3(0))) && all(lessThan(p, t.xyz));
}
