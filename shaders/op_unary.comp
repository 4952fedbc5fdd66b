// RELU, RELU6, LOGISTIC, HARD_SWISH, TANH, LEAKY_RELU (kind 0..5, see
// tm_unary), one texel per invocation; padding channels (c >= channels)
// written as 0.
#include "elementwise.glsl"
uniform highp int kind;
uniform highp int channels;
uniform highp float alpha;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp vec4 r = tm_unary(kind, src_read(p), alpha);
  dst_write(p, tm_mask_pad(r, p.z % ((channels + 3) >> 2), channels)); // z = batch * slices + slice
}
