// DEPTHWISE_CONV_2D 3x3, dilation 1, multiplier 1 (MobileNet's case):
// one invocation = 4 adjacent output pixels (x .. x+3) of one slice. Each
// kernel row reads the input columns the 4 windows span once ((4-1) *
// stride + 3 texels instead of 12): image loads cost far more than
// arithmetic. w: one vec4 per (slice, ky, kx); b: bias vec4 per slice.
// The columns and the 4 accumulators are named variables, never an array
// (tm_lane, tensor.glsl). TM_SX, the stride along x (1 or 2), is a
// compile-time constant: no loop over columns, no branch (rows and
// columns outside the input read a clamped texel and use zero), so a GPU
// compiler can issue all 9 weight and (3 * TM_SX + 3) * 3 texel loads at
// once. Each pixel's row sum is depthwise_common.glsl's dw_row3, which a
// 1x1 kernel folding this one runs for a single pixel (dw3_texel): the
// same additions in the same order, so the two agree bit for bit.
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
#define TM_DW_W(i) w_at(i)
#define TM_DW_B(s) b_at(s)
#include "depthwise_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top

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
    highp int x0 = base.x;
    highp vec4 c0 = dw_col(x0, iy, row_in, z, is), c1 = dw_col(x0 + 1, iy, row_in, z, is),
               c2 = dw_col(x0 + 2, iy, row_in, z, is), c3 = dw_col(x0 + 3, iy, row_in, z, is),
               c4 = dw_col(x0 + 4, iy, row_in, z, is), c5 = dw_col(x0 + 5, iy, row_in, z, is);
#if TM_SX == 2
    highp vec4 c6 = dw_col(x0 + 6, iy, row_in, z, is), c7 = dw_col(x0 + 7, iy, row_in, z, is),
               c8 = dw_col(x0 + 8, iy, row_in, z, is);
    a0 = dw_row3(a0, c0, c1, c2, w0, w1, w2);
    a1 = dw_row3(a1, c2, c3, c4, w0, w1, w2);
    a2 = dw_row3(a2, c4, c5, c6, w0, w1, w2);
    a3 = dw_row3(a3, c6, c7, c8, w0, w1, w2);
#else
    a0 = dw_row3(a0, c0, c1, c2, w0, w1, w2);
    a1 = dw_row3(a1, c1, c2, c3, w0, w1, w2);
    a2 = dw_row3(a2, c2, c3, c4, w0, w1, w2);
    a3 = dw_row3(a3, c3, c4, c5, w0, w1, w2);
#endif
  }
  highp ivec3 q = ivec3(p, z);
  store(q, zs, p.x, a0);
  store(q, zs, p.x + 1, a1);
  store(q, zs, p.x + 2, a2);
  store(q, zs, p.x + 3, a3);
}
