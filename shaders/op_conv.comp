// CONV_2D, any kernel size, stride, dilation and padding. One invocation
// = 4 consecutive output pixels (row-major, rows wrap) x a group of 4
// output slices: each weight vec4 feeds 4 pixels, each texel read 4
// slices (loads dominate on llvmpipe). Invocations are flat (64-wide work
// groups, index split over the x and y work group counts) so small
// outputs keep lanes busy. w: 4x4 weight blocks per (group, ky, kx, input
// slice), see runtime/kernels_conv_common.h; b: bias, one vec4 per output
// slice.
#define PX 4
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, dilation x, dilation y
uniform highp int quads;  // ceil(batch * output W * H / 4)
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
  highp int g = i / quads, q = i - g * quads;
  highp int nb = max(batch, 1);
  highp int s0 = g * 4, oslices = os.z / nb;
  if (s0 >= oslices) return;
  highp ivec3 is = x_shape();
  highp int islices = is.z / nb;
  highp int npix = os.x * os.y, total = npix * nb;
  highp vec4 acc[PX * 4];
  for (int o = 0; o < 4; o++)
    for (int j = 0; j < PX; j++) acc[j * 4 + o] = b[s0 + o];
  // Window origin of each pixel (pixels past the end repeat the last one).
  highp ivec2 base[PX];
  highp int zin[PX]; // first input slice of each pixel's batch
  for (int j = 0; j < PX; j++) {
    highp int k = min(q * PX + j, total - 1);
    zin[j] = (k / npix) * islices;
    k = k % npix;
    base[j] = ivec2(k % os.x, k / os.x) * geom.xy - geom.zw;
  }
  highp int wi = g * kern.x * kern.y * islices * 16;
  for (highp int ky = 0; ky < kern.y; ky++) {
    for (highp int kx = 0; kx < kern.x; kx++) {
      // Taps outside the input read a valid texel and are masked to zero.
      highp ivec2 src[PX];
      highp float inside[PX];
      bool any_inside = false;
      for (int j = 0; j < PX; j++) {
        highp ivec2 t = base[j] + ivec2(kx, ky) * kern.zw;
        bool in_ = all(greaterThanEqual(t, ivec2(0))) && all(lessThan(t, is.xy));
        inside[j] = in_ ? 1.0 : 0.0;
        any_inside = any_inside || in_;
        src[j] = clamp(t, ivec2(0), is.xy - 1);
      }
      if (!any_inside) {
        wi += islices * 16;
        continue;
      }
      for (highp int s = 0; s < islices; s++) {
        highp vec4 v[PX];
        for (int j = 0; j < PX; j++) v[j] = x_read(ivec3(src[j], zin[j] + s)) * inside[j];
        for (int o = 0; o < 4; o++) {
          highp vec4 w0 = w[wi], w1 = w[wi + 1], w2 = w[wi + 2], w3 = w[wi + 3];
          for (int j = 0; j < PX; j++)
            acc[j * 4 + o] += v[j].x * w0 + v[j].y * w1 + v[j].z * w2 + v[j].w * w3;
          wi += 4;
        }
      }
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
