// RESHAPE: re-index through the dense BHWC order. mode 0: each lane finds
// its element (flat = ((b*H' + y)*W' + x)*C' + c, then the input's
// (b, y, x, c)); mode 1: same channels, whole texels move (texel index
// (b*H' + y)*W' + x); mode 2: same shape, a copy. Batch b of a tensor
// with S slices is at z = b*S + s. cs = (input C, output C, mode, 0).
uniform highp ivec4 cs;

// Output channel c of pixel (x, y) in batch ob: its dense element, found in
// the input.
highp float element(highp ivec3 p, highp int ob, highp int c) {
  if (c >= cs.y) return 0.0;
  highp ivec3 is = src_shape(), os = dst_shape();
  highp int islices = (cs.x + 3) >> 2, plane = is.x * is.y;
  highp int e = ((ob * os.y + p.y) * os.x + p.x) * cs.y + c;
  highp int ci = e % cs.x, t = e / cs.x, ib = t / plane, rr = t - ib * plane;
  return tm_lane(src_read(ivec3(rr % is.x, rr / is.x, ib * islices + (ci >> 2))), ci & 3);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  if (cs.z == 2) {
    dst_write(p, src_read(p));
    return;
  }
  highp ivec3 is = src_shape(), os = dst_shape();
  highp int islices = (cs.x + 3) >> 2, oslices = (cs.y + 3) >> 2;
  highp int ob = p.z / oslices, zs = p.z - ob * oslices;
  highp int plane = is.x * is.y;
  if (cs.z == 1) {
    highp int t = (ob * os.y + p.y) * os.x + p.x, ib = t / plane, r = t - ib * plane;
    dst_write(p, src_read(ivec3(r % is.x, r / is.x, ib * islices + zs)));
    return;
  }
  highp int c = 4 * zs;
  dst_write(p, vec4(element(p, ob, c), element(p, ob, c + 1), element(p, ob, c + 2),
                    element(p, ob, c + 3)));
}
