// DEPTH_TO_SPACE (DCR, as TFLite): output (x, y, c) reads input
// (x / bs, y / bs, ((y % bs) * bs + x % bs) * C + c) of the same batch.
// cfg = (bs, C, 0, 0).
uniform highp ivec4 cfg;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int bs = cfg.x;
  highp ivec2 q = p.xy / bs;
  highp int base = ((p.y % bs) * bs + p.x % bs) * cfg.y;
  highp int oslices = (cfg.y + 3) >> 2, islices = (cfg.y * bs * bs + 3) >> 2;
  highp int ob = p.z / oslices, zs = p.z - ob * oslices, z0 = ob * islices;
  highp vec4 r = vec4(0.0);
  for (highp int l = 0; l < 4; l++) {
    highp int c = 4 * zs + l;
    if (c >= cfg.y) break;
    highp int ic = base + c;
    r[l] = src_read(ivec3(q, z0 + (ic >> 2)))[ic & 3];
  }
  dst_write(p, r);
}
