// PAD with zeros: before = (x, y, channels, batch) added in front; cin =
// the input's channels; sl = (input slices, output slices, input batch,
// 0): batch b is at z = b * slices + slice. Whole texels move when the
// channel padding is a multiple of 4, else each lane reads its own
// channel.
uniform highp ivec4 before;
uniform highp int cin;
uniform highp ivec4 sl;

// Input channel c of pixel q (batch at slice z0); 0 outside the input.
highp float channel(highp ivec2 q, highp int z0, highp int c) {
  return c >= 0 && c < cin ? tm_lane(src_read(ivec3(q, z0 + (c >> 2))), c & 3) : 0.0;
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp ivec3 is = src_shape();
  highp ivec2 q = p.xy - before.xy;
  highp int islices = sl.x, oslices = sl.y;
  highp int ob = p.z / oslices, zs = p.z - ob * oslices, bi = ob - before.w, z0 = bi * islices;
  highp vec4 r = vec4(0.0);
  if (all(greaterThanEqual(q, ivec2(0))) && all(lessThan(q, is.xy)) && bi >= 0 && bi < sl.z) {
    if ((before.z & 3) == 0) {
      // Lanes past cin are the source's zero padding or outside it.
      highp int z = zs - (before.z >> 2);
      if (z >= 0 && z < islices) r = src_read(ivec3(q, z0 + z));
    } else {
      highp int c = 4 * zs - before.z;
      r = vec4(channel(q, z0, c), channel(q, z0, c + 1), channel(q, z0, c + 2),
               channel(q, z0, c + 3));
    }
  }
  dst_write(p, r);
}
