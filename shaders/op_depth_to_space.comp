// DEPTH_TO_SPACE (DCR, as TFLite): output (x, y, c) reads input
// (x / bs, y / bs, ((y % bs) * bs + x % bs) * C + c) of the same batch.
// cfg = (bs, C, 0, 0). y may be a RESHAPE of the output (y_flat.glsl).
#include "y_flat.glsl"
uniform highp ivec4 cfg;

// Output channel c of the texel whose input pixel is q (batch at slice z0).
highp float channel(highp ivec2 q, highp int base, highp int z0, highp int c) {
  if (c >= cfg.y) return 0.0;
  highp int ic = base + c;
  return tm_lane(src_read(ivec3(q, z0 + (ic >> 2))), ic & 3);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!y_inside(p)) return;
  highp int bs = cfg.x;
  highp ivec2 q = p.xy / bs;
  highp int base = ((p.y % bs) * bs + p.x % bs) * cfg.y;
  highp int oslices = (cfg.y + 3) >> 2, islices = (cfg.y * bs * bs + 3) >> 2;
  highp int ob = p.z / oslices, zs = p.z - ob * oslices, z0 = ob * islices;
  highp int c = 4 * zs;
  y_write(p, vec4(channel(q, base, z0, c), channel(q, base, z0, c + 1),
                    channel(q, base, z0, c + 2), channel(q, base, z0, c + 3)));
}
