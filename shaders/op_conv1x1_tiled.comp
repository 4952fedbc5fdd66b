// CONV_2D with a 1x1 kernel for GPUs with fast shared memory (CPU drivers
// take op_conv1x1.comp; runtime/kernels_conv.c picks). A matrix product
// of pixels x input channels by input x output channels, tiled: a work
// group of TM_PQ * TM_SG * TM_KS invocations computes 4*TM_PQ output
// pixels x 4*TM_SG output slices. For each chunk of 4 input slices the
// group stages the tile's input texels and the weight blocks in shared
// memory (each loaded once from the image / SSBO, coalesced), waits, and
// every invocation accumulates 4 pixels x 4 output slices (16 vec4, named
// variables) from shared memory. TM_KS > 1 splits the chunk's input
// slices between TM_KS parts of the group (more invocations for small
// outputs), whose sums are added in a fixed order at the end, so results
// are deterministic. An invocation's pixels are TM_PQ apart, so adjacent
// invocations read adjacent shared texels and write adjacent pixels.
// Weight and bias layout as op_conv.comp (4x4 blocks per group of 4
// output slices and input slice, one bias vec4 per output slice).
// Shared arrays are the only subscripted objects (shared memory is one
// per work group, not per thread; see tm_lane in tensor.glsl).
#include "elementwise.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pixel tiles, weight groups

#define TM_N (TM_PQ * TM_SG * TM_KS) // invocations a work group
#define TM_TP (4 * TM_PQ)            // pixels a tile
#define TM_XL (16 * TM_PQ / TM_N)    // input texels each invocation stages
#define TM_WL (64 * TM_SG / TM_N)    // weight vec4s each invocation stages

// Texel of input slice j of the chunk for tile pixel t at xs[j * TM_TP + t].
shared highp vec4 xs[4 * TM_TP];
// Weight block vec4 m (output lane block o*4 + input lane k) of tile group
// g, chunk slice j at ws[(g * 4 + j) * 16 + m].
shared highp vec4 ws[64 * TM_SG];
#if TM_KS > 1
// Partial sums: accumulator a of invocation (g, q) in part h of the upper
// half at rs[(a * (TM_KS / 2) + h) * TM_PQ * TM_SG + g * TM_PQ + q].
shared highp vec4 rs[16 * (TM_KS / 2) * TM_PQ * TM_SG];
#endif

#define MAC(acc, v) acc += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3
#define BLOCK(o) \
  w0 = ws[wb + 4 * o]; w1 = ws[wb + 4 * o + 1]; w2 = ws[wb + 4 * o + 2]; w3 = ws[wb + 4 * o + 3]
#define ACCS(F) \
  F(0, a00) F(1, a01) F(2, a02) F(3, a03) F(4, a10) F(5, a11) F(6, a12) F(7, a13) \
  F(8, a20) F(9, a21) F(10, a22) F(11, a23) F(12, a30) F(13, a31) F(14, a32) F(15, a33)
#define PUT(a, acc) rs[((a) * (TM_KS / 2) + part - hp) * TM_PQ * TM_SG + slot] = acc;
#define ADD(a, acc) acc += rs[((a) * (TM_KS / 2) + part) * TM_PQ * TM_SG + slot];

// Stages input texel number e of the tile (e = j * TM_TP + t) for chunk
// c from its source texel src; slices past the input read as zero.
void stage_x(highp int e, highp ivec3 src, highp int c, highp int islices) {
  highp int j = e / TM_TP, s = c * 4 + j;
  xs[e] = s < islices ? x_read(src + ivec3(0, 0, s)) : vec4(0.0);
}

// Stages weight vec4 number e of the tile for chunk c (zero past the
// input slices or the weight groups).
void stage_w(highp int e, highp int g0, highp int c, highp int islices) {
  highp int g = g0 + e / 64, j = (e / 16) % 4, s = c * 4 + j;
  bool in_range = s < islices && g < geom.w;
  ws[e] = in_range ? w_at((g * islices + s) * 16 + e % 16) : vec4(0.0);
}

void main() {
  highp int wg = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  highp int lid = int(gl_LocalInvocationIndex);
  highp int q = lid % TM_PQ, gi = (lid / TM_PQ) % TM_SG, part = lid / (TM_PQ * TM_SG);
  highp int slot = gi * TM_PQ + q;
  highp int st = wg / geom.z, p0 = (wg - st * geom.z) * TM_TP;
  highp ivec3 os = y_shape();
  highp int nb = max(batch, 1), oslices = os.z / nb, islices = x_shape().z / nb;
  highp int npix = os.x * os.y, total = npix * nb;
  highp int g0 = st * TM_SG, s0 = (g0 + gi) * 4;
  // This invocation's staging sources (fixed over the chunks).
  highp ivec3 src0 = conv_source(p0 + lid % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src1 = conv_source(p0 + (lid + TM_N) % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src2 = conv_source(p0 + (lid + 2 * TM_N) % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src3 = conv_source(p0 + (lid + 3 * TM_N) % TM_TP, total, npix, islices, os.x, geom.xy);
  // aPS: pixel p0 + q + P * TM_PQ, output slice s0 + S; the bias once.
  highp vec4 zero = vec4(0.0);
  highp vec4 a00 = part == 0 && s0 < oslices ? b_at(s0) : zero;
  highp vec4 a01 = part == 0 && s0 + 1 < oslices ? b_at(s0 + 1) : zero;
  highp vec4 a02 = part == 0 && s0 + 2 < oslices ? b_at(s0 + 2) : zero;
  highp vec4 a03 = part == 0 && s0 + 3 < oslices ? b_at(s0 + 3) : zero;
  highp vec4 a10 = a00, a11 = a01, a12 = a02, a13 = a03;
  highp vec4 a20 = a00, a21 = a01, a22 = a02, a23 = a03;
  highp vec4 a30 = a00, a31 = a01, a32 = a02, a33 = a03;
  highp vec4 w0, w1, w2, w3;
  highp int chunks = (islices + 3) / 4;
  for (highp int c = 0; c < chunks; c++) {
    barrier(); // the previous chunk's reads are done
    stage_x(lid, src0, c, islices);
    if (TM_XL > 1) stage_x(lid + TM_N, src1, c, islices);
    if (TM_XL > 2) stage_x(lid + 2 * TM_N, src2, c, islices);
    if (TM_XL > 3) stage_x(lid + 3 * TM_N, src3, c, islices);
    for (highp int r = 0; r < TM_WL; r++) stage_w(lid + r * TM_N, g0, c, islices);
    barrier();
    for (highp int j = part; j < 4; j += TM_KS) {
      highp int xb = j * TM_TP + q, wb = (gi * 4 + j) * 16;
      highp vec4 v0 = xs[xb], v1 = xs[xb + TM_PQ], v2 = xs[xb + 2 * TM_PQ],
                 v3 = xs[xb + 3 * TM_PQ];
      BLOCK(0);
      MAC(a00, v0); MAC(a10, v1); MAC(a20, v2); MAC(a30, v3);
      BLOCK(1);
      MAC(a01, v0); MAC(a11, v1); MAC(a21, v2); MAC(a31, v3);
      BLOCK(2);
      MAC(a02, v0); MAC(a12, v1); MAC(a22, v2); MAC(a32, v3);
      BLOCK(3);
      MAC(a03, v0); MAC(a13, v1); MAC(a23, v2); MAC(a33, v3);
    }
  }
#if TM_KS > 1
  // Parts [hp, 2*hp) hand their sums to parts [0, hp): with 4
  // parts, (0 + 2) + (1 + 3).
  for (highp int hp = TM_KS / 2; hp >= 1; hp /= 2) {
    if (part >= hp && part < 2 * hp) {
      ACCS(PUT)
    }
    barrier();
    if (part < hp) {
      ACCS(ADD)
    }
    barrier();
  }
#endif
  if (part != 0 || s0 >= oslices) return;
  highp int k = p0 + q;
  conv_store4(k, s0, a00, a01, a02, a03);
  conv_store4(k + TM_PQ, s0, a10, a11, a12, a13);
  conv_store4(k + 2 * TM_PQ, s0, a20, a21, a22, a23);
  conv_store4(k + 3 * TM_PQ, s0, a30, a31, a32, a33);
}
