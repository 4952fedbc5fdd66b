// MEAN: from = (input x from, input y from, reduce channels, input
// slices) where a "from" is 0 = output x, 1 = output y, 2 = reduced
// (summed over), 3 = 0. Reducing channels sums every lane of every slice
// of the batch into lane x (padding lanes are 0; the output then has one
// slice per batch, so its z is the batch). Divides by count, the reduced
// element count. Batch b is at z = b * slices + slice; bred = (batches
// summed, batch reduced, 0, 0): a reduced batch is summed over (output
// batch 1), else the output keeps the input's batch.
uniform highp ivec4 from;
uniform highp float count;
uniform highp ivec4 bred;

highp int pick(highp int f, highp ivec3 p) { return f == 0 ? p.x : f == 1 ? p.y : 0; }

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp ivec3 is = src_shape();
  highp int x0 = from.x == 2 ? 0 : pick(from.x, p);
  highp int x1 = from.x == 2 ? is.x : x0 + 1;
  highp int y0 = from.y == 2 ? 0 : pick(from.y, p);
  highp int y1 = from.y == 2 ? is.y : y0 + 1;
  highp vec4 r;
  highp int nbs = max(bred.x, 1);
  if (from.z != 0) {
    highp float t = 0.0;
    for (highp int b = 0; b < nbs; b++) {
      highp int z0 = (bred.y != 0 ? b : p.z) * from.w;
      for (highp int y = y0; y < y1; y++)
        for (highp int x = x0; x < x1; x++)
          for (highp int z = z0; z < z0 + from.w; z++) {
            highp vec4 v = src_read(ivec3(x, y, z));
            t += (v.x + v.y) + (v.z + v.w);
          }
    }
    r = vec4(t / count, 0.0, 0.0, 0.0);
  } else {
    highp vec4 s = vec4(0.0);
    for (highp int b = 0; b < nbs; b++) {
      highp int z = bred.y != 0 ? b * from.w + p.z : p.z;
      for (highp int y = y0; y < y1; y++)
        for (highp int x = x0; x < x1; x++) s += src_read(ivec3(x, y, z));
    }
    r = s / count;
  }
  dst_write(p, r);
}
