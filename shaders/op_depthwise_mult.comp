// DEPTHWISE_CONV_2D with depth multiplier M > 1: output channel c reads
// input channel c / M, so each lane gathers its own input component.
// Layout of w and b as op_depthwise.comp (per output slice).
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, dilation x, dilation y
uniform highp ivec4 chan; // multiplier M, output channels, 0, 0

// Input channel c of pixel (ix, iy), batch at slice z0.
highp float channel(highp int ix, highp int iy, highp int z0, highp int c) {
  return tm_lane(x_read(ivec3(ix, iy, z0 + c / 4)), c % 4);
}

void main() {
  highp ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  highp int z = int(gl_WorkGroupID.z);
  highp ivec3 os = y_shape();
  if (p.x >= os.x || p.y >= os.y) return;
  highp ivec3 is = x_shape();
  highp int nb = max(batch, 1), oslices = os.z / nb;
  highp int zb = z / oslices, zs = z - zb * oslices, z0 = zb * (is.z / nb);
  // Input channel of each lane (padding lanes repeat the last channel;
  // their weights are zero).
  highp ivec4 ic = min(ivec4(4 * zs) + ivec4(0, 1, 2, 3), ivec4(chan.y - 1)) / chan.x;
  highp vec4 acc = b_at(zs);
  highp ivec2 base = p * geom.xy - geom.zw;
  highp int wi = zs * kern.x * kern.y;
  for (highp int ky = 0; ky < kern.y; ky++) {
    highp int iy = base.y + ky * kern.w;
    bool row = iy >= 0 && iy < is.y;
    for (highp int kx = 0; kx < kern.x; kx++) {
      highp int ix = base.x + kx * kern.z;
      if (row && ix >= 0 && ix < is.x) {
        highp vec4 v = vec4(channel(ix, iy, z0, ic.x), channel(ix, iy, z0, ic.y),
                            channel(ix, iy, z0, ic.z), channel(ix, iy, z0, ic.w));
        acc += v * w_at(wi);
      }
      wi++;
    }
  }
  conv_write(ivec3(p, z), zs, acc);
}
