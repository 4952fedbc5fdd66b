// FULLY_CONNECTED where a row is the input's last dimension (depth == C):
// one invocation per output texel (flat index, local size 64x1x1), a dot
// product over the row's slices. w: per (output slice, input slice) 4 vec4
// (input channel lane k -> 4 output channels); b: bias vec4 per slice.
// Output texel -> row: rows are the output's (b, h, w) in order, and the
// same row's texel in the input is at its (w, h, b). The output stage is
// the convolutions' (conv_common.glsl): the activation, and a unary
// operator fused after the layer (a classifier's LOGISTIC).
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 fc; // input slices, output slices, 0, 0

void main() {
  highp int i = int(gl_GlobalInvocationID.x);
  highp ivec3 os = y_shape();
  if (i >= os.x * os.y * os.z) return;
  highp ivec3 p = ivec3(i % os.x, (i / os.x) % os.y, i / (os.x * os.y));
  highp int s = p.z % fc.y;
  highp int r = ((p.z / fc.y) * os.y + p.y) * os.x + p.x;
  highp ivec3 is = x_shape();
  highp ivec3 q = ivec3(r % is.x, (r / is.x) % is.y, (r / (is.x * is.y)) * fc.x);
  highp vec4 acc = b_at(s);
  highp int wi = s * fc.x * 4;
  for (highp int k = 0; k < fc.x; k++) {
    highp vec4 v = x_read(ivec3(q.xy, q.z + k));
    acc += v.x * w_at(wi) + v.y * w_at(wi + 1) + v.z * w_at(wi + 2) + v.w * w_at(wi + 3);
    wi += 4;
  }
  y_write(p, conv_value(p, s, acc));
}
