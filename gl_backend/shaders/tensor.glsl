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

// Component k (0..3) of v, chosen by selects. Shaders never index a vector
// or an array with a run-time value: a driver may back such an object with
// per-thread scratch memory, which it reserves for every thread the GPU can
// hold at once (tens of MiB on a large card, for one shader).
highp float tm_lane(highp vec4 v, highp int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}
highp int tm_ilane(highp ivec4 v, highp int k) {
  return k == 0 ? v.x : k == 1 ? v.y : k == 2 ? v.z : v.w;
}
// True for the lanes of texel slice zs whose channel 4*zs + lane is < c.
bvec4 tm_lanes_below(highp int zs, highp int c) {
  return lessThan(ivec4(4 * zs) + ivec4(0, 1, 2, 3), ivec4(c));
}

// Texel index of p in a tensor held by a buffer: dense (z, y, x) order from
// texel r * W (a buffer arena's W is 1: r is the tensor's texel offset).
highp int tm_index(highp ivec3 p, highp ivec4 t, highp int r) {
  return (p.z * t.y + p.y) * t.x + p.x + r * t.w;
}
