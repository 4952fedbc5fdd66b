// DEPTHWISE_CONV_2D 3x3, dilation 1, multiplier 1 (MobileNet's case):
// one invocation = 4 adjacent output pixels (x .. x+3) of one slice. Each kernel row reads the input columns the 4 windows
// span once ((4-1) * stride + 3 texels instead of 12): image loads cost
// far more than the selects that route a column to its windows.
// w: one vec4 per (slice, ky, kx); b: bias vec4 per slice. The 4
// accumulators are named variables, never an array (tm_lane, tensor.glsl).
// TM_SX, the stride along x, is a compile-time constant: every loop has a
// fixed count and no branch (rows and columns outside the input read a
// clamped texel and use zero), so a GPU compiler can unroll them and issue
// all 9 weight and (3 * TM_SX + 3) * 3 texel loads at once instead of one
// row's or one column's at a time.
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top

// The contribution of input column v to the window whose tap kx it is
// (0, 1 or 2; any other kx: none).
highp vec4 tap(highp int kx, highp vec4 v, highp vec4 w0, highp vec4 w1, highp vec4 w2) {
  return kx == 0 ? v * w0 : kx == 1 ? v * w1 : kx == 2 ? v * w2 : vec4(0.0);
}

void store(highp ivec3 p, highp int zs, highp int x, highp vec4 acc) {
  if (x < y_shape().x) conv_write(ivec3(x, p.y, p.z), zs, acc);
}

void main() {
  // Flat invocations (64-wide work groups, index split over the x and y
  // work group counts) over (slice, row, column quad): a 2-D work group
  // would leave most lanes idle on 7x7 outputs.
  highp int i = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
                    gl_LocalInvocationIndex);
  highp ivec3 os = y_shape();
  highp int quads = (os.x + 3) / 4;
  highp int row = i / quads;
  highp ivec2 p = ivec2((i - row * quads) * 4, row % os.y);
  highp int z = row / os.y;
  if (z >= os.z) return;
  highp ivec3 is = x_shape();
  highp int zs = z % (os.z / max(batch, 1)); // slice within the batch
  highp vec4 a0 = b_at(zs), a1 = a0, a2 = a0, a3 = a0;
  highp ivec2 base = p * geom.xy - geom.zw;
  highp int wi = zs * 9;
  for (highp int ky = 0; ky < 3; ky++) {
    highp int iy = base.y + ky;
    bool row_in = iy >= 0 && iy < is.y;
    iy = clamp(iy, 0, is.y - 1);
    highp vec4 w0 = w_at(wi + ky * 3), w1 = w_at(wi + ky * 3 + 1), w2 = w_at(wi + ky * 3 + 2);
    for (highp int c = 0; c < 3 * TM_SX + 3; c++) {
      highp int ix = base.x + c;
      highp vec4 v = x_read(ivec3(clamp(ix, 0, is.x - 1), iy, z));
      v = row_in && ix >= 0 && ix < is.x ? v : vec4(0.0);
      a0 += tap(c, v, w0, w1, w2);
      a1 += tap(c - TM_SX, v, w0, w1, w2);
      a2 += tap(c - 2 * TM_SX, v, w0, w1, w2);
      a3 += tap(c - 3 * TM_SX, v, w0, w1, w2);
    }
  }
  highp ivec3 q = ivec3(p, z);
  store(q, zs, p.x, a0);
  store(q, zs, p.x + 1, a1);
  store(q, zs, p.x + 2, a2);
  store(q, zs, p.x + 3, a3);
}
