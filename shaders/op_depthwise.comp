// DEPTHWISE_CONV_2D, depth multiplier 1: one invocation per output texel
// (work group z = batch * slices + slice; input and output have the same
// slices). w: one vec4 per (slice, ky, kx); b: bias vec4 per slice.
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, dilation x, dilation y

void main() {
  highp ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  highp int z = int(gl_WorkGroupID.z);
  highp ivec3 os = y_shape();
  if (p.x >= os.x || p.y >= os.y) return;
  highp ivec3 is = x_shape();
  highp int zs = z % (os.z / max(batch, 1)); // slice within the batch
  highp vec4 acc = b_at(zs);
  highp ivec2 base = p * geom.xy - geom.zw;
  highp int wi = zs * kern.x * kern.y;
  for (highp int ky = 0; ky < kern.y; ky++) {
    highp int iy = base.y + ky * kern.w;
    bool row = iy >= 0 && iy < is.y;
    for (highp int kx = 0; kx < kern.x; kx++) {
      highp int ix = base.x + kx * kern.z;
      if (row && ix >= 0 && ix < is.x) acc += x_read(ivec3(ix, iy, z)) * w_at(wi);
      wi++;
    }
  }
  conv_write(ivec3(p, z), zs, acc);
}
