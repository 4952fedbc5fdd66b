// TM_HEADS FULLY_CONNECTED layers reading one input by rows (a landmark
// model's heads on one pooled feature vector), in one dispatch
// (runtime/kernels_fc.c): one invocation per output texel of any of them,
// flat over rows x the layers' slices, slice after slice. Weights and
// bias as op_fc.comp's, the layers' one after another (layer j's from its
// first slice first[j]); the dot product is op_fc.comp's, term for term,
// and so is the output stage: the layer's own activation (actJ), then,
// when a unary operator followed it (TM_UJ its tm_unary kind, -1 none),
// the value rounded as its store would (TM_ROUND_HALF), the operator and
// the padding lanes set to 0; outputs y, y1, y2, y3 in layer order.
#include "elementwise.glsl"
uniform highp ivec4 fc;    // input slices, all layers' output slices, 0, 0
uniform highp ivec4 first; // each layer's first slice among them
uniform highp ivec4 chans; // each layer's output channels
uniform highp vec4 alpha;  // each layer's LEAKY_RELU alpha
uniform highp vec4 act0, act1, act2, act3;

// Layer u's stored value for sum v at its slice s.
highp vec4 head_value(highp int u, highp vec4 v, highp vec4 a, highp float al, highp int s,
                      highp int ch) {
  v = tm_activate(v, a);
  if (u < 0) return v;
#ifdef TM_ROUND_HALF
  v = tm_half_rne(v);
#endif
  return tm_mask_pad(tm_unary(u, v, al), s, ch);
}

// Row r's texel of slice s in an output shaped os with `slices` a batch.
highp ivec3 head_texel(highp int r, highp int s, highp ivec3 os, highp int slices) {
  return ivec3(r % os.x, (r / os.x) % os.y, (r / (os.x * os.y)) * slices + s);
}

void main() {
  highp int i = int(gl_GlobalInvocationID.x);
  highp ivec3 os = y_shape();
  highp int rows = os.x * os.y * (os.z / ((chans.x + 3) >> 2));
  if (i >= rows * fc.y) return;
  highp int g = i % fc.y, r = i / fc.y;
  highp ivec3 is = x_shape();
  highp ivec3 q = ivec3(r % is.x, (r / is.x) % is.y, (r / (is.x * is.y)) * fc.x);
  highp vec4 acc = b_at(g);
  highp int wi = g * fc.x * 4;
  for (highp int k = 0; k < fc.x; k++) {
    highp vec4 v = x_read(ivec3(q.xy, q.z + k));
    acc += v.x * w_at(wi) + v.y * w_at(wi + 1) + v.z * w_at(wi + 2) + v.w * w_at(wi + 3);
    wi += 4;
  }
#if TM_HEADS > 3
  if (g >= first.w) {
    highp int s = g - first.w;
    y3_write(head_texel(r, s, os, (chans.w + 3) >> 2),
             head_value(TM_U3, acc, act3, alpha.w, s, chans.w));
    return;
  }
#endif
#if TM_HEADS > 2
  if (g >= first.z) {
    highp int s = g - first.z;
    y2_write(head_texel(r, s, os, (chans.z + 3) >> 2),
             head_value(TM_U2, acc, act2, alpha.z, s, chans.z));
    return;
  }
#endif
#if TM_HEADS > 1
  if (g >= first.y) {
    highp int s = g - first.y;
    y1_write(head_texel(r, s, os, (chans.y + 3) >> 2),
             head_value(TM_U1, acc, act1, alpha.y, s, chans.y));
    return;
  }
#endif
  y_write(head_texel(r, g, os, (chans.x + 3) >> 2),
          head_value(TM_U0, acc, act0, alpha.x, g, chans.x));
}
