// FULLY_CONNECTED where rows cut across the input's channels (depth !=
// C, e.g. a flattened HxWxC input): each row element is gathered from its
// own texel. w: one vec4 (4 output channels) per (output slice, depth
// element); b: bias vec4 per slice. Output texel -> row as op_fc.comp.
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 fc; // input channels C, output slices, depth, 0

void main() {
  highp int i = int(gl_GlobalInvocationID.x);
  highp ivec3 os = y_shape();
  if (i >= os.x * os.y * os.z) return;
  highp ivec3 p = ivec3(i % os.x, (i / os.x) % os.y, i / (os.x * os.y));
  highp int s = p.z % fc.y;
  highp int r = ((p.z / fc.y) * os.y + p.y) * os.x + p.x;
  highp ivec3 is = x_shape();
  highp int islices = (fc.x + 3) / 4;
  highp vec4 acc = b_at(s);
  highp int wi = s * fc.z;
  highp int f = r * fc.z; // flat BHWC index of the row's first element
  for (highp int k = 0; k < fc.z; k++, f++) {
    highp int c = f % fc.x, t = f / fc.x;
    highp int x = t % is.x, y = (t / is.x) % is.y, bb = t / (is.x * is.y);
    acc += tm_lane(x_read(ivec3(x, y, bb * islices + c / 4)), c % 4) * w_at(wi + k);
  }
  y_write(p, conv_value(p, s, acc));
}
