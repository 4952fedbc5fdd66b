// Transposed convolution (MediaPipe Convolution2DTransposeBias, TFLite
// TRANSPOSE_CONV) as a gather: output pixel o takes
// input pixel i through tap k where i * stride - pad + k = o. One
// invocation = one output pixel x a group of 4 output slices (work group
// z = batch * groups + group). Weight and bias layout as op_conv.comp.
// The output stage is the convolutions' (conv_common.glsl): the
// activation, and a unary operator fused after the layer (the selfie
// models' LOGISTIC on the upsampled mask).
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, 0, 0

void main() {
  highp ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  highp ivec3 os = y_shape();
  if (p.x >= os.x || p.y >= os.y) return;
  highp ivec3 is = x_shape();
  highp int nb = max(batch, 1), oslices = os.z / nb, islices = is.z / nb;
  highp int ng = (oslices + 3) / 4;
  highp int bi = int(gl_WorkGroupID.z) / ng, g = int(gl_WorkGroupID.z) - bi * ng;
  highp int s0 = g * 4, zi = bi * islices, zo = bi * oslices + s0;
  highp vec4 a0 = b_at(s0), a1 = b_at(s0 + 1), a2 = b_at(s0 + 2), a3 = b_at(s0 + 3);
  highp ivec2 q = p + geom.zw; // >= 0: the taps that land here are q - i * stride
  highp int blocks = islices * 16;
  highp int wg = g * kern.x * kern.y * blocks;
  for (highp int ky = q.y % geom.y; ky < kern.y; ky += geom.y) {
    highp int iy = (q.y - ky) / geom.y;
    if (iy >= is.y || q.y < ky) continue;
    for (highp int kx = q.x % geom.x; kx < kern.x; kx += geom.x) {
      highp int ix = (q.x - kx) / geom.x;
      if (ix >= is.x || q.x < kx) continue;
      highp int wi = wg + (ky * kern.x + kx) * blocks;
      for (highp int s = 0; s < islices; s++) {
        highp vec4 v = x_read(ivec3(ix, iy, zi + s));
        a0 += v.x * w_at(wi) + v.y * w_at(wi + 1) + v.z * w_at(wi + 2) + v.w * w_at(wi + 3);
        a1 += v.x * w_at(wi + 4) + v.y * w_at(wi + 5) + v.z * w_at(wi + 6) + v.w * w_at(wi + 7);
        a2 += v.x * w_at(wi + 8) + v.y * w_at(wi + 9) + v.z * w_at(wi + 10) + v.w * w_at(wi + 11);
        a3 += v.x * w_at(wi + 12) + v.y * w_at(wi + 13) + v.z * w_at(wi + 14) + v.w * w_at(wi + 15);
        wi += 16;
      }
    }
  }
  highp ivec3 o = ivec3(p, zo);
  conv_write(o, s0, a0);
  if (s0 + 1 < oslices) conv_write(o + ivec3(0, 0, 1), s0 + 1, a1);
  if (s0 + 2 < oslices) conv_write(o + ivec3(0, 0, 2), s0 + 2, a2);
  if (s0 + 3 < oslices) conv_write(o + ivec3(0, 0, 3), s0 + 3, a3);
}
