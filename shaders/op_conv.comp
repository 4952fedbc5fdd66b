// CONV_2D, any kernel size, stride, dilation and padding. One invocation
// = 4 consecutive output pixels (row-major, rows wrap) x a group of 4
// output slices: each weight vec4 feeds 4 pixels, each texel read 4
// slices (loads dominate on llvmpipe). Invocations are flat (64-wide work
// groups, index split over the x and y work group counts) so small
// outputs keep lanes busy. w: 4x4 weight blocks per (group, ky, kx, input
// slice), see runtime/kernels_conv_common.h; b: bias, one vec4 per output
// slice. The 16 accumulators and the 4 pixels' windows are named
// variables, never arrays: see tm_lane in tensor.glsl for why.
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, dilation x, dilation y
uniform highp int quads;  // ceil(batch * output W * H / 4)

// Window origin of flat output pixel k (clamped to the last: pixels past
// the end read valid texels and are never written): (x, y, first input
// slice).
highp ivec3 origin(highp int k, highp int total, highp int npix, highp int islices, highp int ow) {
  k = min(k, total - 1);
  highp int b = k / npix;
  k -= b * npix;
  return ivec3(ivec2(k % ow, k / ow) * geom.xy - geom.zw, b * islices);
}

// The tap at offset d of a window: the texel to read (clamped into the
// input) and whether it lies inside (outside taps count as zero).
highp ivec3 tap(highp ivec3 o, highp ivec2 d, highp ivec2 size, out bool inside) {
  highp ivec2 t = o.xy + d;
  inside = all(greaterThanEqual(t, ivec2(0))) && all(lessThan(t, size));
  return ivec3(clamp(t, ivec2(0), size - 1), o.z);
}

// acc (4 output channels) += the 4 input channels of v through one 4x4
// weight block (columns w0..w3, one per input channel).
#define MAC(acc, v) acc += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3
#define BLOCK(o) \
  w0 = w_at(wi + 4 * o); w1 = w_at(wi + 4 * o + 1); w2 = w_at(wi + 4 * o + 2); w3 = w_at(wi + 4 * o + 3)

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
  highp int npix = os.x * os.y, total = npix * nb, k = q * 4;
  highp ivec3 o0 = origin(k, total, npix, islices, os.x);
  highp ivec3 o1 = origin(k + 1, total, npix, islices, os.x);
  highp ivec3 o2 = origin(k + 2, total, npix, islices, os.x);
  highp ivec3 o3 = origin(k + 3, total, npix, islices, os.x);
  // aPS: pixel P, output slice s0 + S.
  highp vec4 a00 = b_at(s0), a01 = b_at(s0 + 1), a02 = b_at(s0 + 2), a03 = b_at(s0 + 3);
  highp vec4 a10 = a00, a11 = a01, a12 = a02, a13 = a03;
  highp vec4 a20 = a00, a21 = a01, a22 = a02, a23 = a03;
  highp vec4 a30 = a00, a31 = a01, a32 = a02, a33 = a03;
  highp vec4 w0, w1, w2, w3;
  highp int wi = g * kern.x * kern.y * islices * 16;
  for (highp int ky = 0; ky < kern.y; ky++) {
    for (highp int kx = 0; kx < kern.x; kx++) {
      highp ivec2 d = ivec2(kx, ky) * kern.zw;
      bool in0, in1, in2, in3;
      highp ivec3 t0 = tap(o0, d, is.xy, in0), t1 = tap(o1, d, is.xy, in1),
                  t2 = tap(o2, d, is.xy, in2), t3 = tap(o3, d, is.xy, in3);
      if (!(in0 || in1 || in2 || in3)) {
        wi += islices * 16;
        continue;
      }
      for (highp int s = 0; s < islices; s++) {
        highp ivec3 dz = ivec3(0, 0, s);
        // Clamped taps read a valid texel; selects keep the loop branch-free.
        highp vec4 v0 = x_read(t0 + dz), v1 = x_read(t1 + dz), v2 = x_read(t2 + dz),
                   v3 = x_read(t3 + dz);
        v0 = in0 ? v0 : vec4(0.0);
        v1 = in1 ? v1 : vec4(0.0);
        v2 = in2 ? v2 : vec4(0.0);
        v3 = in3 ? v3 : vec4(0.0);
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
    }
  }
  conv_store4(k, s0, a00, a01, a02, a03);
  conv_store4(k + 1, s0, a10, a11, a12, a13);
  conv_store4(k + 2, s0, a20, a21, a22, a23);
  conv_store4(k + 3, s0, a30, a31, a32, a33);
}
