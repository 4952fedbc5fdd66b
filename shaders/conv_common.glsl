// Shared by the convolution shaders (op_conv*.comp, op_depthwise*.comp),
// included after elementwise.glsl and bilinear.glsl: the batch split, the
// 1x1 kernels' pixel addressing, an input read through a folded resize
// (TM_X_RESIZE) and the output stage. The output stage applies the
// convolution's fused activation and, in a fused program, the
// element-wise operator that followed the convolution in the model
// (runtime/kernels_conv_fuse*.c): TM_FUSE_UNARY (tm_unary kind TM_FUSE_OP),
// TM_FUSE_IMAGE (tm_binary mode TM_FUSE_OP with the image `e`, same shape
// as the output; with TM_FUSE_PAD the input of a PAD that made it, fewer
// channels, zeros read past them; with TM_FUSE_POOL the input of a
// MAX_POOL that made it or the PAD's input, each window's maximum read;
// with TM_FUSE_RESIZE the input of a RESIZE_BILINEAR that made it,
// interpolated as bilinear.glsl does) or TM_FUSE_CONST (the same with the
// SSBO `f`, broadcast by fbc from dims fdim as op_binary.comp reads its
// constant) or TM_FUSE_AFFINE (a DEPTHWISE_CONV_2D of a 1x1 window: the
// SSBO `f` holds its weights and biases, TM_PER_TEXEL_DW below).
// TM_FUSE_SWAP: the convolution's output was the operator's second
// operand; TM_FUSE_TANH: the operator's own activation ends in tanh. A
// second operator may follow in the same program: TM_FUSE2_UNARY,
// TM_FUSE2_CONST (its constant in the SSBO `g`), TM_FUSE2_AFFINE or, when the first binds
// no tensor, TM_FUSE2_IMAGE (e read as above, a resize folded or not),
// with TM_FUSE2_OP, TM_FUSE2_SWAP, TM_FUSE2_TANH and uniforms f2* as above. The
// operator and its options are compile-time constants, so a CPU driver
// (which runs both sides of a branch it cannot prove uniform) computes
// only the one operator; the arithmetic is elementwise.glsl's, as in the
// unfused kernels. The operator sees the value the unfused program would
// have stored and read back: rounded to binary16 first when the tensors
// are fp16 (TM_ROUND_HALF), so fused and unfused runs agree bit for bit.
// With TM_Y_FLAT, y is a RESHAPE of the output (y_flat.glsl).
#include "y_flat.glsl"
uniform highp vec4 act;  // the convolution's: clamp min, clamp max, tanh if > 0
uniform highp int batch; // z = batch * slices + slice; 0 = 1
#if defined(TM_FUSE_UNARY) || defined(TM_FUSE_IMAGE) || defined(TM_FUSE_CONST) || \
    defined(TM_FUSE_AFFINE)
uniform highp int fchannels; // output channels
uniform highp vec4 fact;     // the fused operator's own activation
uniform highp float falpha; // LEAKY_RELU's alpha
#endif
#ifdef TM_FUSE_PAD
uniform highp int fslices; // the slices of e, a PAD's input (zeros past them)
#endif
#ifdef TM_FUSE_POOL
uniform highp ivec4 fpool;    // e is a MAX_POOL's input: filter w, h, stride w, h
uniform highp ivec4 fpoolpad; // its padding before (left, top)
#endif
#ifdef TM_FUSE_RESIZE
uniform highp vec4 frs; // e is a RESIZE_BILINEAR's input: its scale (bilinear.glsl)
#endif
#ifdef TM_FUSE_CONST
uniform highp ivec4 fdim; // the constant's (w, h, slices, 0)
uniform highp ivec4 fbc;  // its broadcast flags (tm_bcast)
#endif
#if defined(TM_FUSE2_UNARY) || defined(TM_FUSE2_CONST) || defined(TM_FUSE2_IMAGE) || \
    defined(TM_FUSE2_AFFINE)
uniform highp vec4 f2act;
uniform highp float f2alpha;
#endif
#ifdef TM_FUSE2_CONST
uniform highp ivec4 f2dim;
uniform highp ivec4 f2bc;
#endif

#if defined(TM_FUSE_CONST) || defined(TM_FUSE2_CONST)
// Index of a fused constant's texel for output texel p (slice zs within
// its batch), as op_binary.comp reads its constant: dims dim, broadcast bc.
highp int conv_const_index(highp ivec3 p, highp int zs, highp ivec4 dim, highp ivec4 bc) {
  highp int oslices = (fchannels + 3) >> 2, ob = p.z / oslices;
  return tm_const_index(tm_bcast(ivec4(p.xy, ob, zs), oslices, bc), dim);
}
#endif

// A 1x1 convolution's multiply-add of input texel v into the accumulator
// of one output slice, with that slice's 4x4 weight block w0..w3 (one vec4
// per input lane) as TM_BLOCK loads it from W_AT(wb + 4 * o ..): one text
// for op_conv1x1_tiled.comp and op_squeeze.comp, which must add alike.
#define TM_MAC(acc, v) acc += v.x * w0 + v.y * w1 + v.z * w2 + v.w * w3
#define TM_BLOCK(W_AT, o) \
  w0 = W_AT(wb + 4 * o); w1 = W_AT(wb + 4 * o + 1); w2 = W_AT(wb + 4 * o + 2); \
  w3 = W_AT(wb + 4 * o + 3)

// Source texel of flat output pixel k of a 1x1 convolution with strides
// geom.xy (clamped to the last pixel: pixels past the end read a valid
// texel and are never written): (x, y, first input slice).
highp ivec3 conv_source(highp int k, highp int total, highp int npix, highp int islices,
                        highp int ow, highp ivec2 stride) {
  k = min(k, total - 1);
  highp int b = k / npix;
  k -= b * npix;
  return ivec3(ivec2(k % ow, k / ow) * stride, b * islices);
}

#if defined(TM_X_RESIZE) || defined(TM_FUSE_RESIZE)
// Texel (d, z) of a RESIZE_BILINEAR's output that is never stored, from
// its input: what op_resize.comp computes, rounded as its store would
// (TM_RS_ROUND: binary16). R_READ reads the input, R_SIZE is its size.
#ifdef TM_RS_ROUND
#define TM_RS_STORED(v) tm_half_rne(v)
#else
#define TM_RS_STORED(v) (v)
#endif
#define TM_RESIZED(R_READ, R_SIZE, scale, d, z, out_v) \
  { \
    highp ivec2 lo_, hi_; \
    highp vec2 f_; \
    tm_bilinear_taps(d, scale, R_SIZE, lo_, hi_, f_); \
    out_v = TM_RS_STORED(tm_bilinear_mix(R_READ(ivec3(lo_.x, lo_.y, z)), \
                                         R_READ(ivec3(lo_.x, hi_.y, z)), \
                                         R_READ(ivec3(hi_.x, lo_.y, z)), \
                                         R_READ(ivec3(hi_.x, hi_.y, z)), f_)); \
  }
#endif

#ifdef TM_X_RESIZE
// The convolution's input is a RESIZE_BILINEAR's output that is never
// stored (a 1x1 convolution's, folded: runtime/kernels_fusion.h): the
// binding xr holds the resize's input, and x reads through it.
uniform highp vec4 xrs;    // the resize's scale (bilinear.glsl)
uniform highp ivec4 xrout; // its output's width, height
highp ivec3 x_shape() { return ivec3(xrout.xy, xr_shape().z); }
highp vec4 x_read(highp ivec3 p) {
  highp vec4 v;
  TM_RESIZED(xr_read, xr_shape().xy, xrs, p.xy, p.z, v)
  return v;
}
#endif

#ifdef TM_X_D2S
// The convolution's input is a DEPTH_TO_SPACE's output that is never
// stored (its own input, or a folded PAD's or depthwise convolution's):
// the binding xd holds the DEPTH_TO_SPACE's input, and x reads each texel
// where op_depth_to_space.comp takes it (DCR order; with TM_D2S_ALIGNED,
// channels a multiple of 4, a texel is one of xd's).
uniform highp ivec4 xds; // block size, channels, output width, height
#ifndef TM_D2S_ALIGNED
// Lane i of the texel whose first channel c0 is at channel base of xd's
// pixel q (batch at slice z0): 0 past the channels.
highp float d2s_lane(highp ivec2 q, highp int z0, highp int base, highp int c0, highp int i) {
  highp int ic = base + i;
  return c0 + i < xds.y ? tm_lane(xd_read(ivec3(q, z0 + (ic >> 2))), ic & 3) : 0.0;
}
#endif
highp ivec3 x_shape() {
  highp int oslices = (xds.y + 3) >> 2, islices = (xds.y * xds.x * xds.x + 3) >> 2;
  return ivec3(xds.zw, xd_shape().z / islices * oslices);
}
highp vec4 x_read(highp ivec3 p) {
  highp int bs = xds.x, oslices = (xds.y + 3) >> 2, islices = (xds.y * bs * bs + 3) >> 2;
  highp int ob = p.z / oslices, zs = p.z - ob * oslices, z0 = ob * islices;
  highp ivec2 q = p.xy / bs;
  highp int base = ((p.y % bs) * bs + p.x % bs) * xds.y + 4 * zs;
#ifdef TM_D2S_ALIGNED
  return xd_read(ivec3(q, z0 + (base >> 2)));
#else
  return vec4(d2s_lane(q, z0, base, 4 * zs, 0), d2s_lane(q, z0, base, 4 * zs, 1),
              d2s_lane(q, z0, base, 4 * zs, 2), d2s_lane(q, z0, base, 4 * zs, 3));
#endif
}
#endif

// A DEPTHWISE_CONV_2D of a 1x1 window (multiplier 1) at slice zs of value
// v, as op_depthwise.comp computes its one tap (bias, then += v * weight;
// then its activation a): W_AT holds its weights, one vec4 for each of the
// `slices`, then its biases (kernels_depthwise.c).
#define TM_PER_TEXEL_DW(W_AT, v, zs, slices, a) \
  tm_activate(W_AT((slices) + (zs)) + (v) * W_AT(zs), (a))

#ifdef TM_X_AFFINE
// The convolution's input is a per-texel DEPTHWISE_CONV_2D's output that
// is never stored (runtime/kernels_fusion.h: inaff): the binding xa
// holds its input, the SSBO xw its weights then biases, and x reads each
// texel as op_depthwise.comp computes it (bias, += input * weight, its
// activation xaact), rounded as its store would (TM_XA_ROUND: binary16).
// Padding lanes stay 0: input, weight and bias are 0 there.
uniform highp vec4 xaact;
highp ivec3 x_shape() { return xa_shape(); }
highp vec4 x_read(highp ivec3 p) {
  highp int sl = xa_shape().z / max(batch, 1), zs = p.z % sl;
  highp vec4 v = TM_PER_TEXEL_DW(xw_at, xa_read(p), zs, sl, xaact);
#ifdef TM_XA_ROUND
  v = tm_half_rne(v);
#endif
  return v;
}
#endif

#ifdef TM_FUSE_E_IS_X
// The operand is the tensor bound as x, read there as it is (the
// convolution's own input: a residual around a stride-1 depthwise one; or
// a folded depthwise convolution's input that the fused operator reads
// too): one binding serves both.
#define e_read x_read
#define e_shape x_shape
#endif

#if defined(TM_FUSE_IMAGE) || defined(TM_FUSE2_IMAGE)
// The fused operator's tensor operand at pixel q, slice z of e: e's
// texel, or with TM_FUSE_POOL the maximum over the folded MAX_POOL's
// window, as op_pool.comp takes it (valid texels only, then its clamp;
// the maximum is one of e's stored values, so no rounding follows), or
// with TM_FUSE_RESIZE the folded RESIZE_BILINEAR's value there.
highp vec4 conv_operand(highp ivec2 q, highp int z) {
#ifdef TM_FUSE_POOL
  highp ivec3 is = e_shape();
  highp int x0 = q.x * fpool.z - fpoolpad.x, y0 = q.y * fpool.w - fpoolpad.y;
  highp int kx0 = max(-x0, 0), ky0 = max(-y0, 0);
  highp int kx1 = min(fpool.x, is.x - x0), ky1 = min(fpool.y, is.y - y0);
  highp vec4 mx = vec4(-3.402823466e38);
  for (highp int ky = ky0; ky < ky1; ky++)
    for (highp int kx = kx0; kx < kx1; kx++) mx = max(mx, e_read(ivec3(x0 + kx, y0 + ky, z)));
  return clamp(mx, -3.402823466e38, 3.402823466e38);
#elif defined(TM_FUSE_RESIZE)
  highp vec4 v;
  TM_RESIZED(e_read, e_shape().xy, frs, q, z, v)
  return v;
#else
  return e_read(ivec3(q, z));
#endif
}
#endif

// A fused binary operator's arithmetic and its own activation, as
// op_binary.comp does them: op(v, o), or op(o, v) when the convolution's
// side was the second operand; then tanh, or a clamp (tm_activate without
// its tanh). The flags are compile-time constants at every call.
highp vec4 conv_fused_binary(highp int op, bool swapped, bool th, highp vec4 v, highp vec4 o,
                             highp vec4 a) {
  v = swapped ? tm_binary(op, o, v) : tm_binary(op, v, o);
  return th ? tm_activate(v, a) : clamp(v, a.x, a.y);
}

// The value of the first fused operator (or the convolution's, activated)
// at output texel p (slice zs within its batch) for the accumulated sum v.
highp vec4 conv_value1(highp ivec3 p, highp int zs, highp vec4 v) {
  v = tm_activate(v, act);
#if defined(TM_FUSE_UNARY) || defined(TM_FUSE_IMAGE) || defined(TM_FUSE_CONST) || \
    defined(TM_FUSE_AFFINE)
#ifdef TM_ROUND_HALF
  v = tm_half_rne(v);
#endif
#if defined(TM_FUSE_UNARY)
  v = tm_unary(TM_FUSE_OP, v, falpha);
#elif defined(TM_FUSE_AFFINE)
  v = TM_PER_TEXEL_DW(f_at, v, zs, (fchannels + 3) >> 2, fact);
#else
#if defined(TM_FUSE_IMAGE) && defined(TM_FUSE_PAD)
  // e is a PAD's input (or its pool's), the PAD adding zero channels after
  // its own.
  highp int ob = p.z / ((fchannels + 3) >> 2);
  highp vec4 o = zs < fslices ? conv_operand(p.xy, ob * fslices + zs) : vec4(0.0);
#elif defined(TM_FUSE_IMAGE)
  highp vec4 o = conv_operand(p.xy, p.z);
#else
  highp vec4 o = f_at(conv_const_index(p, zs, fdim, fbc));
  if (fbc.z != 0) o = o.xxxx;
#endif
  v = conv_fused_binary(TM_FUSE_OP, TM_FUSE_SWAP != 0, TM_FUSE_TANH != 0, v, o, fact);
#endif
  v = tm_mask_pad(v, zs, fchannels);
#endif
  return v;
}

// The value stored at output texel p for v1, conv_value1's: the second
// fused operator's, if any.
highp vec4 conv_value2(highp ivec3 p, highp int zs, highp vec4 v) {
#if defined(TM_FUSE2_UNARY) || defined(TM_FUSE2_CONST) || defined(TM_FUSE2_IMAGE) || \
    defined(TM_FUSE2_AFFINE)
  // The second operator sees the first one's output as stored: rounded.
#ifdef TM_ROUND_HALF
  v = tm_half_rne(v);
#endif
#if defined(TM_FUSE2_UNARY)
  v = tm_unary(TM_FUSE2_OP, v, f2alpha);
#elif defined(TM_FUSE2_AFFINE)
  v = TM_PER_TEXEL_DW(g_at, v, zs, (fchannels + 3) >> 2, f2act);
#else
#ifdef TM_FUSE2_IMAGE
  highp vec4 o2 = conv_operand(p.xy, p.z);
#else
  highp vec4 o2 = g_at(conv_const_index(p, zs, f2dim, f2bc));
  if (f2bc.z != 0) o2 = o2.xxxx;
#endif
  v = conv_fused_binary(TM_FUSE2_OP, TM_FUSE2_SWAP != 0, TM_FUSE2_TANH != 0, v, o2, f2act);
#endif
  v = tm_mask_pad(v, zs, fchannels);
#endif
  return v;
}

highp vec4 conv_value(highp ivec3 p, highp int zs, highp vec4 v) {
  return conv_value2(p, zs, conv_value1(p, zs, v));
}

// Stores output texel p; with TM_FUSE_KEEP the first fused operator's
// output too (y1), which other operators read.
void conv_write(highp ivec3 p, highp int zs, highp vec4 v) {
  v = conv_value1(p, zs, v);
#ifdef TM_FUSE_KEEP
  y1_write(p, v);
#endif
  y_write(p, conv_value2(p, zs, v));
}

// The texel p of flat pixel k (over batch * W * H) at slice s0 of an
// output shaped os; returns how many of slices s0 .. s0+3 the output has
// there (0 past its pixels).
highp int conv_texel(highp int k, highp int s0, highp ivec3 os, out highp ivec3 p) {
  highp int nb = max(batch, 1), oslices = os.z / nb, npix = os.x * os.y;
  p = ivec3(0);
  if (k >= npix * nb) return 0;
  highp int b = k / npix;
  k -= b * npix;
  p = ivec3(k % os.x, k / os.x, b * oslices + s0);
  return min(4, oslices - s0);
}

// Stores the 4 slices (s0 .. s0+3, those below the output's) of flat
// output pixel k (over batch * W * H), if it exists.
void conv_store4(highp int k, highp int s0, highp vec4 c0, highp vec4 c1, highp vec4 c2,
                 highp vec4 c3) {
  highp ivec3 p;
  // One copy of the store code, not four: the slices left are known at
  // run time only, so compilers keep the loop (a fused epilogue inlined
  // 16 times a kernel made llvmpipe's compile the slow part of a run).
  highp int n = conv_texel(k, s0, y_shape(), p);
  for (highp int j = 0; j < n; j++)
    conv_write(p + ivec3(0, 0, j), s0 + j, j == 0 ? c0 : j == 1 ? c1 : j == 2 ? c2 : c3);
}
