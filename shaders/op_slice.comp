// Slices (STRIDED_SLICE, one piece of SPLIT / SPLIT_V) as a gather: input
// component k (0 batch, 1 y, 2 x, 3 channel) of the texel an output lane
// reads is start[k] + step[k] * (output component feed[k]), feed[k] < 0 =
// fixed at start[k] (a shrunk axis or one the input lacks). dims = (output
// channels, input channels, 0, 0). Batch b of a tensor with S slices is
// at z = b*S + s. Lanes past the output's channels are written 0.
uniform highp ivec4 feed;
uniform highp ivec4 start;
uniform highp ivec4 step;
uniform highp ivec4 dims;

highp ivec4 source(highp ivec4 o) {
  highp ivec4 q = start;
  if (feed.x >= 0) q.x += step.x * tm_ilane(o, feed.x);
  if (feed.y >= 0) q.y += step.y * tm_ilane(o, feed.y);
  if (feed.z >= 0) q.z += step.z * tm_ilane(o, feed.z);
  if (feed.w >= 0) q.w += step.w * tm_ilane(o, feed.w);
  return q;
}

// Output channel c of output texel o = (batch, y, x, c), 0 past the
// output's channels.
highp float channel(highp ivec4 o, highp int is) {
  if (o.w >= dims.x) return 0.0;
  highp ivec4 q = source(o);
  return tm_lane(src_read(ivec3(q.z, q.y, q.x * is + (q.w >> 2))), q.w & 3);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int os = (dims.x + 3) >> 2, is = (dims.y + 3) >> 2;
  highp int ob = p.z / os, zs = p.z - ob * os;
  highp vec4 r = vec4(0.0);
  if (feed.w == 3 && step.w == 1 && (start.w & 3) == 0) {
    // Channels map to channels texel by texel.
    highp ivec4 q = source(ivec4(ob, p.y, p.x, 4 * zs));
    r = src_read(ivec3(q.z, q.y, q.x * is + (q.w >> 2)));
    r = mix(vec4(0.0), r, tm_lanes_below(zs, dims.x));
  } else {
    highp ivec4 o = ivec4(ob, p.y, p.x, 4 * zs);
    r = vec4(channel(o, is), channel(o + ivec4(0, 0, 0, 1), is), channel(o + ivec4(0, 0, 0, 2), is),
             channel(o + ivec4(0, 0, 0, 3), is));
  }
  dst_write(p, r);
}
