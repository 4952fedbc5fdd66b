// CONV_2D with a 1x1 kernel for GPUs with fast shared memory (CPU drivers
// take op_conv1x1.comp; runtime/kernels_conv.c picks). A matrix product
// of pixels x input channels by input x output channels, tiled: a work
// group of TM_KS parts of TM_PQ * TM_SG invocations computes 4*TM_PQ
// output pixels x 4*TM_SG output slices. The input slices come in chunks
// of 4; part h takes chunks h, h + TM_KS, ..., so a small layer split in
// TM_KS parts waits on TM_KS times fewer chunks in a row. Per chunk each
// part stages its tile's input texels in shared memory (each loaded once,
// coalesced), waits, and every invocation accumulates 4 pixels x 4 output
// slices (16 vec4, named variables) from it, with the weights read from
// the SSBO (the same block for every invocation of a slice group, so the
// cache serves it). The next chunk's texels are loaded into registers
// before the current chunk's arithmetic, hiding the load behind it. The
// parts' sums are added in a fixed order at the end, so results are
// deterministic. An invocation's pixels are TM_PQ apart, so adjacent
// invocations read adjacent shared texels and write adjacent pixels.
// Weight and bias layout as op_conv.comp (4x4 blocks per group of 4
// output slices and input slice, one bias vec4 per output slice), with
// each group's input slices padded with zero blocks to whole chunks: a
// chunk's 4 slices then run without a bound check, and all 16 weight
// loads of a chunk can be in flight together (a small layer has few work
// groups to hide their latency with).
// With TM_WSTAGE (binary16 weights, tiles of one part: the runtime sets
// it), each chunk's weight blocks of the work group's slice groups are
// unpacked once a work group into shared memory, beside the texels, and
// the arithmetic reads them there: read from the SSBO, each block's halves
// were unpacked by all TM_PQ invocations of its slice group, 2 unpacks a
// vec4, as many as the chunk's 256 multiply-adds of a slice group over 4
// pixels take instructions. Staged, an invocation unpacks 4 vec4s a chunk.
// With TM_FUSE_DW (3: a 3x3 window, 1: any) the input is a depthwise
// convolution's output that is never stored: x is the depthwise
// convolution's input, and each staged texel is computed as that
// convolution's kernel computes it (depthwise_common.glsl, the same code),
// activated and rounded as its store would (TM_DW_ROUND: binary16), so
// the outputs equal the two dispatches' bit for bit. Its weights and bias
// are the buffer dw.
// With TM_FUSE_SCALE the input is a MUL's output that is never stored: x
// its full-shape operand, s its per-channel one (one pixel, x's batch and
// channels), each staged texel their product, activated (sact) and
// rounded as the MUL's store would (TM_SC_ROUND: binary16).
// With TM_HEADS (2, 3: runtime/kernels_merge_conv_heads.c) the product is
// that many convolutions of x (a detector's heads), their weights and
// biases one after another, each padded to whole groups of 4 output
// slices: group g belongs to the last head h with hfirst[h] <= g, and is
// stored as that head's own dispatch stores it, by its activation (act,
// act1, act2) to its output (y, y1, y2).
// Shared arrays are the only subscripted objects (shared memory is one
// per work group, not per thread; see tm_lane in tensor.glsl).
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pixel tiles, weight groups

#ifdef TM_FUSE_DW
uniform highp int dbias;   // the depthwise bias's first vec4 in dw (weights before it)
uniform highp ivec4 dgeom; // its stride x, stride y, pad left, pad top
uniform highp ivec4 dkern; // its kernel w, kernel h, dilation x, dilation y
uniform highp vec4 dact;   // its activation
#define TM_DW_W(i) dw_at(i)
#define TM_DW_B(s) dw_at(dbias + (s))
#include "depthwise_common.glsl"

// The depthwise output at texel p (slice p.z; zs within its batch) as its
// kernel would have stored it.
highp vec4 dw_value(highp ivec3 p, highp int zs) {
#if TM_FUSE_DW == 3
  highp vec4 v = dw3_texel(p.xy, p.z, zs, dgeom);
#else
  highp vec4 v = dw_texel(p.xy, p.z, zs, dgeom, dkern);
#endif
  v = tm_activate(v, dact);
#ifdef TM_DW_ROUND
  v = tm_half_rne(v);
#endif
  return v;
}
#endif

#ifdef TM_FUSE_SCALE
uniform highp vec4 sact; // the MUL's activation
#ifdef TM_FUSE_SCALE_ADD
uniform highp vec4 saact; // the ADD's
#endif

// The MUL's output at texel p (slice p.z, batch included) as its kernel
// would have stored it; with TM_FUSE_SCALE_ADD (1: the MUL's output was
// the ADD's second operand) the ADD's of it and sb, as op_binary.comp
// computes it and its store rounds it.
highp vec4 sc_value(highp ivec3 p) {
  highp vec4 v = tm_activate(x_read(p) * s_read(ivec3(0, 0, p.z)), sact);
#ifdef TM_SC_ROUND
  v = tm_half_rne(v);
#endif
#ifdef TM_FUSE_SCALE_ADD
  v = conv_fused_binary(0, TM_FUSE_SCALE_ADD != 0, TM_SA_TANH != 0, v, sb_read(p),
                        saact);
#ifdef TM_SC_ROUND
  v = tm_half_rne(v);
#endif
#endif
  return v;
}
#endif

#ifdef TM_HEADS
uniform highp ivec4 hfirst; // each head's first group of 4 slices; past the last, INT32_MAX
uniform highp vec4 act1, act2;

highp ivec3 head_shape(highp int h) {
#if TM_HEADS > 2
  if (h == 2) return y2_shape();
#endif
  return h == 1 ? y1_shape() : y_shape();
}

void head_write(highp int h, highp ivec3 p, highp vec4 v) {
#if TM_HEADS > 2
  if (h == 2) {
    y2_write(p, tm_activate(v, act2));
    return;
  }
#endif
  if (h == 1) y1_write(p, tm_activate(v, act1));
  else y_write(p, tm_activate(v, act));
}

// conv_store4 for group g of the merged product: its head's slices.
void head_store4(highp int k, highp int g, highp vec4 c0, highp vec4 c1, highp vec4 c2,
                 highp vec4 c3) {
  highp int h = g >= hfirst.z ? 2 : g >= hfirst.y ? 1 : 0;
  highp ivec3 p;
  highp int n = conv_texel(k, (g - (h == 2 ? hfirst.z : h == 1 ? hfirst.y : 0)) * 4,
                           head_shape(h), p);
  for (highp int j = 0; j < n; j++)
    head_write(h, p + ivec3(0, 0, j), j == 0 ? c0 : j == 1 ? c1 : j == 2 ? c2 : c3);
}
#endif

#define TM_NP (TM_PQ * TM_SG)      // invocations a part
#define TM_N (TM_NP * TM_KS)       // invocations a work group
#define TM_TP (4 * TM_PQ)          // pixels a tile
#define TM_XL (16 * TM_PQ / TM_NP) // input texels each invocation stages a chunk
#if TM_XL > 4 || TM_XL * TM_NP != 16 * TM_PQ
#error "a tile's invocations stage its texels 1 to 4 each"
#endif

// Texel of input slice j of part h's chunk for tile pixel t at
// xs[(h * 4 + j) * TM_TP + t].
shared highp vec4 xs[4 * TM_TP * TM_KS];
#if TM_KS > 1
// Partial sums: accumulator a of invocation (g, q) in part h of the upper
// half at rs[(a * (TM_KS / 2) + h) * TM_NP + g * TM_PQ + q].
shared highp vec4 rs[16 * (TM_KS / 2) * TM_NP];
#endif

#ifdef TM_WSTAGE
#if TM_KS != 1 || TM_SG != 4 || TM_NP != 64
#error "weights are staged by tiles of one part: 4 slice groups, 64 invocations"
#endif
// The chunk's weights: slice group gi's 64 vec4s at ws[gi * 64 ..] (its
// block for input slice j at + j * 16, as in the SSBO).
shared highp vec4 ws[4 * 64];
#define W_AT(i) ws[i]
#define W_BASE(j) (gi * 64 + (j) * 16)
#else
#define W_AT(i) w_at(i)
#define W_BASE(j) (((gw * chunks + c) * 4 + (j)) * 16)
#endif

// Input slice c * 4 + j of the chunk: its texels (zero past the input's
// slices) times its weight blocks (zero there too).
#define STEP(j) \
  { \
    highp int xb = xo + (j) * TM_TP + q, wb = W_BASE(j); \
    highp vec4 v0 = xs[xb], v1 = xs[xb + TM_PQ], v2 = xs[xb + 2 * TM_PQ], \
               v3 = xs[xb + 3 * TM_PQ]; \
    TM_BLOCK(W_AT, 0); \
    TM_MAC(a00, v0); TM_MAC(a10, v1); TM_MAC(a20, v2); TM_MAC(a30, v3); \
    TM_BLOCK(W_AT, 1); \
    TM_MAC(a01, v0); TM_MAC(a11, v1); TM_MAC(a21, v2); TM_MAC(a31, v3); \
    TM_BLOCK(W_AT, 2); \
    TM_MAC(a02, v0); TM_MAC(a12, v1); TM_MAC(a22, v2); TM_MAC(a32, v3); \
    TM_BLOCK(W_AT, 3); \
    TM_MAC(a03, v0); TM_MAC(a13, v1); TM_MAC(a23, v2); TM_MAC(a33, v3); \
  }
#define ACCS(F) \
  F(0, a00) F(1, a01) F(2, a02) F(3, a03) F(4, a10) F(5, a11) F(6, a12) F(7, a13) \
  F(8, a20) F(9, a21) F(10, a22) F(11, a23) F(12, a30) F(13, a31) F(14, a32) F(15, a33)
#define PUT(a, acc) rs[((a) * (TM_KS / 2) + part - hp) * TM_NP + slot] = acc;
#define ADD(a, acc) acc += rs[((a) * (TM_KS / 2) + part) * TM_NP + slot];

// Input texel e of the tile's chunk c (e = j * TM_TP + t) from its source
// texel src: zero past the input slices (and for chunks past the last).
highp vec4 fetch_x(highp int e, highp ivec3 src, highp int c, highp int islices) {
  highp int s = c * 4 + e / TM_TP;
#ifdef TM_FUSE_DW
  return s < islices ? dw_value(src + ivec3(0, 0, s), s) : vec4(0.0);
#elif defined(TM_FUSE_SCALE)
  return s < islices ? sc_value(src + ivec3(0, 0, s)) : vec4(0.0);
#else
  return s < islices ? x_read(src + ivec3(0, 0, s)) : vec4(0.0);
#endif
}

#ifdef TM_WSTAGE
// Vec4 li of slice group r's weights for chunk c (zero past the last
// chunk): the work group's 64 invocations load each group's 64 together.
highp vec4 fetch_w(highp int st, highp int r, highp int li, highp int c, highp int chunks) {
  highp int g = min(st * TM_SG + r, geom.w - 1);
  return c < chunks ? w_at((g * chunks + c) * 64 + li) : vec4(0.0);
}
#endif

void main() {
  highp int wg = int(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  highp int lid = int(gl_LocalInvocationIndex);
  highp int li = lid % TM_NP, part = lid / TM_NP;
  highp int q = li % TM_PQ, gi = li / TM_PQ, slot = li;
  highp int st = wg / geom.z, p0 = (wg - st * geom.z) * TM_TP;
  highp ivec3 os = y_shape();
  highp int nb = max(batch, 1), oslices = os.z / nb, islices = x_shape().z / nb;
#ifdef TM_HEADS
  oslices = geom.w * 4; // every head's, padded: zero biases past each one's own
#endif
  highp int npix = os.x * os.y, total = npix * nb;
  highp int g = st * TM_SG + gi, s0 = g * 4;
  // Invocations past the last group of 4 output slices read its weights
  // and store nothing.
  highp int gw = min(g, geom.w - 1);
  // This invocation's staging sources (fixed over the chunks).
  highp ivec3 src0 = conv_source(p0 + li % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src1 = conv_source(p0 + (li + TM_NP) % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src2 = conv_source(p0 + (li + 2 * TM_NP) % TM_TP, total, npix, islices, os.x, geom.xy);
  highp ivec3 src3 = conv_source(p0 + (li + 3 * TM_NP) % TM_TP, total, npix, islices, os.x, geom.xy);
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
  highp int chunks = (islices + 3) / 4, xo = part * 4 * TM_TP;
  // Chunk c = part + it * TM_KS is staged in pass it + 1 and computed
  // there, while pass it + 1 fetches the next one, its texels in flight
  // during the arithmetic; pass 0 only fetches (one copy of the fetch
  // code, not a second one before the loop).
  highp int c = part - TM_KS;
  highp vec4 n0 = zero, n1 = zero, n2 = zero, n3 = zero;
#ifdef TM_WSTAGE
  highp vec4 m0 = zero, m1 = zero, m2 = zero, m3 = zero;
#endif
  for (highp int it = 0; it <= (chunks + TM_KS - 1) / TM_KS; it++) {
    barrier(); // the previous chunk's reads are done
    xs[xo + li] = n0;
    if (TM_XL > 1) xs[xo + li + TM_NP] = n1;
    if (TM_XL > 2) xs[xo + li + 2 * TM_NP] = n2;
    if (TM_XL > 3) xs[xo + li + 3 * TM_NP] = n3;
#ifdef TM_WSTAGE
    ws[li] = m0;
    ws[64 + li] = m1;
    ws[128 + li] = m2;
    ws[192 + li] = m3;
#endif
    barrier();
    n0 = fetch_x(li, src0, c + TM_KS, islices);
    if (TM_XL > 1) n1 = fetch_x(li + TM_NP, src1, c + TM_KS, islices);
    if (TM_XL > 2) n2 = fetch_x(li + 2 * TM_NP, src2, c + TM_KS, islices);
    if (TM_XL > 3) n3 = fetch_x(li + 3 * TM_NP, src3, c + TM_KS, islices);
#ifdef TM_WSTAGE
    m0 = fetch_w(st, 0, li, c + TM_KS, chunks);
    m1 = fetch_w(st, 1, li, c + TM_KS, chunks);
    m2 = fetch_w(st, 2, li, c + TM_KS, chunks);
    m3 = fetch_w(st, 3, li, c + TM_KS, chunks);
#endif
    if (c >= 0 && c < chunks) { // the same for a whole part
      STEP(0) STEP(1) STEP(2) STEP(3)
    }
    c += TM_KS;
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
#ifdef TM_HEADS
  head_store4(k, g, a00, a01, a02, a03);
  head_store4(k + TM_PQ, g, a10, a11, a12, a13);
  head_store4(k + 2 * TM_PQ, g, a20, a21, a22, a23);
  head_store4(k + 3 * TM_PQ, g, a30, a31, a32, a33);
#else
  conv_store4(k, s0, a00, a01, a02, a03);
  conv_store4(k + TM_PQ, s0, a10, a11, a12, a13);
  conv_store4(k + 2 * TM_PQ, s0, a20, a21, a22, a23);
  conv_store4(k + 3 * TM_PQ, s0, a30, a31, a32, a33);
#endif
}
