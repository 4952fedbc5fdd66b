// CONV_2D with a 1x1 kernel (no padding, any stride): the bulk of
// MobileNet's work. One invocation = 4 consecutive output pixels (row-
// major, so rows wrap; no waste on narrow outputs) x a group of 4 output
// slices. Invocations are flat (64-wide work groups, index split over
// the x and y work group counts): on 7x7 outputs a 2-D work group would
// leave most lanes idle. On llvmpipe the weight (SSBO) and image loads
// cost far more than the math, so each weight vec4 feeds 4 pixels and
// each texel read 4 slices. Weight and bias layout as op_conv.comp.
#define PX 4
uniform highp ivec4 geom; // stride x, stride y, pixel quads (ceil(batch*W*H/4)), 0
uniform highp vec4 act;   // clamp min, clamp max, tanh if > 0
uniform highp int batch;  // pixels run over batch * W * H (0 = 1)

vec4 activate(vec4 v) {
  v = clamp(v, act.x, act.y);
  return act.z > 0.0 ? tanh(v) : v;
}

void main() {
  highp int i = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
                    gl_LocalInvocationIndex);
  highp ivec3 os = y_shape();
  highp int g = i / geom.z, q = i - g * geom.z;
  highp int nb = max(batch, 1);
  highp int s0 = g * 4, oslices = os.z / nb;
  if (s0 >= oslices) return;
  highp ivec3 is = x_shape();
  highp int islices = is.z / nb;
  highp int npix = os.x * os.y, total = npix * nb;
  highp vec4 acc[PX * 4];
  for (int o = 0; o < 4; o++)
    for (int j = 0; j < PX; j++) acc[j * 4 + o] = b[s0 + o];
  // Pixels past the end read a valid texel; never written.
  highp ivec2 src[PX];
  highp int zin[PX]; // first input slice of each pixel's batch
  for (int j = 0; j < PX; j++) {
    highp int k = min(q * PX + j, total - 1);
    zin[j] = (k / npix) * islices;
    k = k % npix;
    src[j] = ivec2(k % os.x, k / os.x) * geom.xy;
  }
  highp int wi = g * islices * 16;
  for (highp int s = 0; s < islices; s++) {
    highp vec4 v[PX];
    for (int j = 0; j < PX; j++) v[j] = x_read(ivec3(src[j], zin[j] + s));
    for (int o = 0; o < 4; o++) {
      highp vec4 w0 = w[wi], w1 = w[wi + 1], w2 = w[wi + 2], w3 = w[wi + 3];
      for (int j = 0; j < PX; j++)
        acc[j * 4 + o] += v[j].x * w0 + v[j].y * w1 + v[j].z * w2 + v[j].w * w3;
      wi += 4;
    }
  }
  for (int j = 0; j < PX; j++) {
    highp int k = q * PX + j;
    if (k >= total) break;
    highp int zo = (k / npix) * oslices + s0;
    k = k % npix;
    highp ivec2 p = ivec2(k % os.x, k / os.x);
    for (int o = 0; o < 4; o++)
      if (s0 + o < oslices) y_write(ivec3(p, zo + o), activate(acc[j * 4 + o]));
  }
}
