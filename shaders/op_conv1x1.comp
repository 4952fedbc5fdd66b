// CONV_2D with a 1x1 kernel (no padding, any stride): the bulk of
// MobileNet's work. One invocation = 4 consecutive output pixels (row-
// major, so rows wrap; no waste on narrow outputs) x a group of 4 output
// slices. Invocations are flat (64-wide work groups, index split over
// the x and y work group counts): on 7x7 outputs a 2-D work group would
// leave most lanes idle. On llvmpipe the weight (SSBO) and image loads
// cost far more than the math, so each weight vec4 feeds 4 pixels and
// each texel read 4 slices. Weight and bias layout as op_conv.comp.
// GPUs with fast shared memory take op_conv1x1_tiled.comp instead.
// The 16 accumulators are named variables, never an array: see
// tm_lane in tensor.glsl for why.
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pixel quads (ceil(batch*W*H/4)), 0

// acc (4 output channels) += the 4 input channels of v through one 4x4
// weight block (columns w0..w3, one per input channel).
#define MAC(acc, v) acc += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3
#define BLOCK(o) \
  w0 = w_at(wi + 4 * o); w1 = w_at(wi + 4 * o + 1); w2 = w_at(wi + 4 * o + 2); w3 = w_at(wi + 4 * o + 3)

void main() {
  highp int i = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
                    gl_LocalInvocationIndex);
  highp ivec3 os = y_shape();
  highp int g = i / geom.z, q = i - g * geom.z;
  highp int nb = max(batch, 1);
  highp int s0 = g * 4, oslices = os.z / nb;
  if (s0 >= oslices) return;
  highp int islices = x_shape().z / nb;
  highp int npix = os.x * os.y, total = npix * nb, k = q * 4;
  highp ivec3 p0 = conv_source(k, total, npix, islices, os.x, geom.xy);
  highp ivec3 p1 = conv_source(k + 1, total, npix, islices, os.x, geom.xy);
  highp ivec3 p2 = conv_source(k + 2, total, npix, islices, os.x, geom.xy);
  highp ivec3 p3 = conv_source(k + 3, total, npix, islices, os.x, geom.xy);
  // aPS: pixel P, output slice s0 + S.
  highp vec4 a00 = b_at(s0), a01 = b_at(s0 + 1), a02 = b_at(s0 + 2), a03 = b_at(s0 + 3);
  highp vec4 a10 = a00, a11 = a01, a12 = a02, a13 = a03;
  highp vec4 a20 = a00, a21 = a01, a22 = a02, a23 = a03;
  highp vec4 a30 = a00, a31 = a01, a32 = a02, a33 = a03;
  highp vec4 w0, w1, w2, w3;
  highp int wi = g * islices * 16;
  for (highp int s = 0; s < islices; s++) {
    highp ivec3 dz = ivec3(0, 0, s);
    highp vec4 v0 = x_read(p0 + dz), v1 = x_read(p1 + dz), v2 = x_read(p2 + dz),
               v3 = x_read(p3 + dz);
    BLOCK(0);
    MAC(a00, v0); MAC(a10, v1); MAC(a20, v2); MAC(a30, v3);
    BLOCK(1);
    MAC(a01, v0); MAC(a11, v1); MAC(a21, v2); MAC(a31, v3);
    BLOCK(2);
    MAC(a02, v0); MAC(a12, v1); MAC(a22, v2); MAC(a32, v3);
    BLOCK(3);
    MAC(a03, v0); MAC(a13, v1); MAC(a23, v2); MAC(a33, v3);
    wi += 16;
  }
  conv_store4(k, s0, a00, a01, a02, a03);
  conv_store4(k + 1, s0, a10, a11, a12, a13);
  conv_store4(k + 2, s0, a20, a21, a22, a23);
  conv_store4(k + 3, s0, a30, a31, a32, a33);
}
