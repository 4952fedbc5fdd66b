// Squeeze-and-excitation's squeeze in one dispatch (runtime/kernels_squeeze.c;
// kernels_fusion.h: insq): a global pool of x, a 1x1 convolution of the
// pooled pixel (its weights then biases in the SSBO sw, its activation
// act1, its fused unary operator TM_SQ_OP), and the 1x1 convolution whose
// dispatch this is (weights w, bias b, activation and fused operators as
// conv_common.glsl's output stage applies them), which stores y. Three
// dispatches before, each of a few work groups on a one-pixel plane.
// Without a first convolution (TM_SQ_ONE) op's reads the pool's output.
// With TM_SQ_ADD the pool's input is an ADD of x and xb, added here.
// Work group (g * TM_RR + r, b) of TM_RL invocations pools slices 4g ..
// 4g+3 of batch b, its share r of the TM_RN invocations the reduction
// takes, into the scratch sqs (one pass of the pool below: the passes one
// work group of TM_RN took in turn run side by side, a large plane's in
// TM_RR groups); the last group of a batch to finish, elected by an atomic
// count, folds the shares and runs both convolutions from there.
// The count of batch b (sqs word b) only grows: the groups a batch,
// gl_NumWorkGroups.x, are a power of two, so the last group of every run
// sees a multiple of it, with no reset between runs. The shares' partials
// follow the counts, 4 words each (their bits). Every step adds its
// terms in the order its own kernel did and rounds what that kernel stored
// (TM_SQ_ROUND: binary16), so y equals the three dispatches' bit for bit:
// - the pool as op_reduce_hw.comp: invocation i folds the plane's texels
//   i, i + TM_RN, ... of a slice, then the partials are folded pairwise in
//   shared memory, halving each step; four slices a pass, each invocation
//   reading the four (TM_RN, a power of two up to TM_SQ_PART, grows with
//   the plane as op_reduce_hw.comp's: kernels_util.h), their partials
//   folded as many slices at once as the shared array holds; a group's
//   tree takes the steps that pair invocations TM_RR or more apart, the
//   elected group the last log2(TM_RR) (pooled()).
// - each convolution as op_conv1x1_tiled.comp adds one pixel's terms when
//   the runtime's tile splits the input slices in KS parts (sqt.x, sqt.y):
//   part h sums chunks h, h + KS, ... (4 input slices each, a slice's
//   texel times its 4x4 weight block, bias first in part 0), then parts
//   [hp, 2hp) are added to [0, hp), hp = KS/2 down to 1. Here invocation
//   (g, h) computes part h of output group g (4 slices), and one
//   invocation a group adds the parts in that order.
// Shared arrays are the only subscripted objects (sqs: sqs_load, _store,
// _add).
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"

uniform highp ivec4 sq;     // input slices S0, middle slices S1, output slices S2, sw's first bias vec4
uniform highp ivec4 sqt;    // parts of the first and the second convolution, pool (0 max, 1 mean), middle channels
uniform highp float pcount; // the mean's divisor (the plane's texels)
uniform highp vec4 pact;    // the pool's activation
#ifndef TM_SQ_ONE
uniform highp vec4 act1;    // the first convolution's
#endif
#ifdef TM_SQ_UNARY
uniform highp float sqalpha; // its fused unary operator's alpha
#endif

// The pool's partials (TM_RL a slice), then the convolutions'
// parts (group g, part h: its 4 sums at (g * KS + h) * 4).
shared highp vec4 part[TM_SQ_PART];
shared highp vec4 pv[TM_SQ_P0]; // the pooled texels, zero past S0
#ifndef TM_SQ_ONE
shared highp vec4 hv[TM_SQ_P1]; // the first convolution's output, zero past S1
#endif

#ifdef TM_SQ_ROUND
#define SQ_STORED(v) tm_half_rne(v)
#else
#define SQ_STORED(v) (v)
#endif

highp vec4 fold(highp vec4 a, highp vec4 b) { return sqt.z == 0 ? max(a, b) : a + b; }

#ifdef TM_SQ_ADD
uniform highp vec4 sqaact; // the ADD's activation

// The pool's input texel q: with TM_SQ_ADD an ADD's output that is never
// stored, x + xb as op_binary.comp computes it (its padding lanes 0 + 0,
// kept 0 by every activation), rounded as its store would.
highp vec4 sq_read(highp ivec3 q) {
  return SQ_STORED(tm_activate(tm_binary(TM_SQ_ADD, x_read(q), xb_read(q)), sqaact));
}
#else
#define sq_read x_read
#endif

// Folds n sets of partials at once, part[j * TM_RL + lid] for j < n,
// pairwise, halving each step (op_reduce_hw.comp's order).
void tree_pass(highp int n, highp int lid) {
  barrier();
  for (highp int h = TM_RL / 2; h > 0; h /= 2) {
    if (lid < h)
      for (highp int j = 0; j < n; j++)
        part[j * TM_RL + lid] = fold(part[j * TM_RL + lid], part[j * TM_RL + lid + h]);
    barrier();
  }
}

// The four slices' partials a0 .. a3 folded, as many slices a pass as part
// holds (4 of 128 invocations, one of 512: a pass's barriers are what a
// small plane's pool costs); every invocation gets the results.
// TM_RL is the work group's size, TM_RN / TM_RR.
void trees(inout highp vec4 a0, inout highp vec4 a1, inout highp vec4 a2, inout highp vec4 a3,
           highp int lid) {
#if TM_RL * 4 <= TM_SQ_PART
  part[lid] = a0;
  part[TM_RL + lid] = a1;
  part[2 * TM_RL + lid] = a2;
  part[3 * TM_RL + lid] = a3;
  tree_pass(4, lid);
  a0 = part[0];
  a1 = part[TM_RL];
  a2 = part[2 * TM_RL];
  a3 = part[3 * TM_RL];
#elif TM_RL * 2 <= TM_SQ_PART
  part[lid] = a0;
  part[TM_RL + lid] = a1;
  tree_pass(2, lid);
  a0 = part[0];
  a1 = part[TM_RL];
  barrier();
  part[lid] = a2;
  part[TM_RL + lid] = a3;
  tree_pass(2, lid);
  a2 = part[0];
  a3 = part[TM_RL];
#else
  part[lid] = a0;
  tree_pass(1, lid);
  a0 = part[0];
  barrier();
  part[lid] = a1;
  tree_pass(1, lid);
  a1 = part[0];
  barrier();
  part[lid] = a2;
  tree_pass(1, lid);
  a2 = part[0];
  barrier();
  part[lid] = a3;
  tree_pass(1, lid);
  a3 = part[0];
#endif
  barrier(); // part is reused
}

// Slice z's partial r of batch b in sqs (the batches' counts first).
highp int sq_at(highp int b, highp int z, highp int r) {
  return int(gl_NumWorkGroups.y) + ((b * TM_SQ_P0 + z) * TM_RR + r) * 4;
}

highp vec4 sq_get(highp int at) {
  return uintBitsToFloat(uvec4(sqs_load(at), sqs_load(at + 1), sqs_load(at + 2), sqs_load(at + 3)));
}

void sq_put(highp int at, highp vec4 v) {
  highp uvec4 u = floatBitsToUint(v);
  sqs_store(at, u.x);
  sqs_store(at + 1, u.y);
  sqs_store(at + 2, u.z);
  sqs_store(at + 3, u.w);
}

// Slices z0 .. z0+3 (those below S0) of batch b: this group's partials r
// (TM_RR groups a slice group: the reduction's invocations r, r + TM_RR,
// ..., whose first tree steps pair invocations TM_RR or more apart, all
// of them in this group) into sqs.
void pool4(highp int b, highp int z0, highp int r, highp int lid) {
  highp ivec3 is = x_shape();
  highp int n = is.x * is.y, z = b * sq.x + z0;
  bool h1 = z0 + 1 < sq.x, h2 = z0 + 2 < sq.x, h3 = z0 + 3 < sq.x;
  highp vec4 a0 = sqt.z == 0 ? vec4(-3.402823466e38) : vec4(0.0), a1 = a0, a2 = a0, a3 = a0;
  for (highp int i = r + lid * TM_RR; i < n; i += TM_RN) {
    highp ivec3 q = ivec3(i % is.x, i / is.x, z);
    a0 = fold(a0, sq_read(q));
    if (h1) a1 = fold(a1, sq_read(q + ivec3(0, 0, 1)));
    if (h2) a2 = fold(a2, sq_read(q + ivec3(0, 0, 2)));
    if (h3) a3 = fold(a3, sq_read(q + ivec3(0, 0, 3)));
  }
  trees(a0, a1, a2, a3, lid); // slices past S0 too: barriers in uniform control flow
  if (lid < 4 && z0 + lid < sq.x)
    sq_put(sq_at(b, z0 + lid, r), lid == 0 ? a0 : lid == 1 ? a1 : lid == 2 ? a2 : a3);
}

// Pooled slice z of batch b: its TM_RR partials folded as the reduction's
// last steps fold invocations 0 .. TM_RR-1 (pairwise, halving), then
// averaged, activated and rounded as the pool's store would.
highp vec4 pooled(highp int b, highp int z) {
#if TM_RR == 1
  highp vec4 r = sq_get(sq_at(b, z, 0));
#elif TM_RR == 2
  highp vec4 r = fold(sq_get(sq_at(b, z, 0)), sq_get(sq_at(b, z, 1)));
#elif TM_RR == 4
  highp vec4 r = fold(fold(sq_get(sq_at(b, z, 0)), sq_get(sq_at(b, z, 2))),
                      fold(sq_get(sq_at(b, z, 1)), sq_get(sq_at(b, z, 3))));
#else
#error "TM_RR: 1, 2 or 4 shares (kernels_squeeze.c)"
#endif
  r = sqt.z == 0 ? r : r / pcount;
  r = clamp(r, pact.x, pact.y);
  if (pact.z > 0.0) r = tanh(r);
  return SQ_STORED(r);
}

// The parts of a 1x1 convolution of the texels IN_AT (islices, zero past
// them up to whole chunks) to oslices, weights W_AT, biases BIAS, in ks
// parts, ng groups of 4 output slices, each summed into its first part.
#define CONV_PARTS(IN_AT, W_AT, BIAS, ks, ng, islices, oslices) \
  for (highp int pr = lid; pr < (ng) * (ks); pr += TM_RL) { \
    highp int g = pr / (ks), h = pr - g * (ks), s0 = g * 4, chunks = ((islices) + 3) / 4; \
    highp vec4 zero = vec4(0.0), w0, w1, w2, w3; \
    highp vec4 a0 = h == 0 && s0 < (oslices) ? BIAS(s0) : zero; \
    highp vec4 a1 = h == 0 && s0 + 1 < (oslices) ? BIAS(s0 + 1) : zero; \
    highp vec4 a2 = h == 0 && s0 + 2 < (oslices) ? BIAS(s0 + 2) : zero; \
    highp vec4 a3 = h == 0 && s0 + 3 < (oslices) ? BIAS(s0 + 3) : zero; \
    for (highp int c = h; c < chunks; c += (ks)) \
      for (highp int j = 0; j < 4; j++) { \
        highp vec4 v = IN_AT(c * 4 + j); \
        highp int wb = ((g * chunks + c) * 4 + j) * 16; \
        TM_BLOCK(W_AT, 0); \
        TM_MAC(a0, v); \
        TM_BLOCK(W_AT, 1); \
        TM_MAC(a1, v); \
        TM_BLOCK(W_AT, 2); \
        TM_MAC(a2, v); \
        TM_BLOCK(W_AT, 3); \
        TM_MAC(a3, v); \
      } \
    part[pr * 4] = a0; \
    part[pr * 4 + 1] = a1; \
    part[pr * 4 + 2] = a2; \
    part[pr * 4 + 3] = a3; \
  } \
  barrier(); \
  if (lid < (ng)) \
    for (highp int hp = (ks) / 2; hp >= 1; hp /= 2) \
      for (highp int h = 0; h < hp; h++) { \
        highp int d = (lid * (ks) + h) * 4, e = d + hp * 4; \
        part[d] += part[e]; \
        part[d + 1] += part[e + 1]; \
        part[d + 2] += part[e + 2]; \
        part[d + 3] += part[e + 3]; \
      }

#define PV_AT(i) pv[i]
#define W2_AT(i) w_at(i)
#define B2_AT(s) b_at(s)

#ifndef TM_SQ_ONE
#define HV_AT(i) hv[i]
#define SW_AT(i) sw_at(i)
#define SW_BIAS(s) sw_at(sq.w + (s))

// The first convolution's output texel (slice s) for its sum v, as its
// dispatch stored it: activated, its fused unary operator applied to the
// rounded value (conv_common.glsl's first stage), rounded.
highp vec4 first_value(highp int s, highp vec4 v) {
  v = tm_activate(v, act1);
#ifdef TM_SQ_UNARY
#ifdef TM_SQ_ROUND
  v = tm_half_rne(v);
#endif
  v = tm_mask_pad(tm_unary(TM_SQ_OP, v, sqalpha), s, sqt.w);
#endif
  return SQ_STORED(v);
}
#endif

shared bool last; // this work group is its batch's last to pool

void main() {
  highp int b = int(gl_WorkGroupID.y), lid = int(gl_LocalInvocationIndex);
  highp int z0 = int(gl_WorkGroupID.x) / TM_RR * 4, r = int(gl_WorkGroupID.x) % TM_RR;
  if (z0 < sq.x) pool4(b, z0, r, lid); // groups past S0 only count
  memoryBarrierBuffer(); // the pooled texels are written before the count
  barrier();
  if (lid == 0) last = (sqs_add(b, 1u) + 1u) % gl_NumWorkGroups.x == 0u;
  barrier();
  if (last) {
    memoryBarrierBuffer();
    for (highp int i = lid; i < TM_SQ_P0; i += TM_RL) pv[i] = i < sq.x ? pooled(b, i) : vec4(0.0);
#ifndef TM_SQ_ONE
    for (highp int i = lid; i < TM_SQ_P1; i += TM_RL) hv[i] = vec4(0.0);
#endif
    barrier();
#ifdef TM_SQ_ONE
    CONV_PARTS(PV_AT, W2_AT, B2_AT, sqt.y, (sq.z + 3) / 4, sq.x, sq.z)
#else
    CONV_PARTS(PV_AT, SW_AT, SW_BIAS, sqt.x, (sq.y + 3) / 4, sq.x, sq.y)
    if (lid < (sq.y + 3) / 4)
      for (highp int o = 0; o < 4; o++) {
        highp int s = lid * 4 + o;
        if (s < sq.y) hv[s] = first_value(s, part[lid * sqt.x * 4 + o]);
      }
    barrier();
    CONV_PARTS(HV_AT, W2_AT, B2_AT, sqt.y, (sq.z + 3) / 4, sq.y, sq.z)
#endif
    if (lid < (sq.z + 3) / 4) {
      highp int s0 = lid * 4, d = lid * sqt.y * 4;
      highp ivec3 p = ivec3(0, 0, b * sq.z + s0);
      conv_write(p, s0, part[d]);
      if (s0 + 1 < sq.z) conv_write(p + ivec3(0, 0, 1), s0 + 1, part[d + 1]);
      if (s0 + 2 < sq.z) conv_write(p + ivec3(0, 0, 2), s0 + 2, part[d + 2]);
      if (s0 + 3 < sq.z) conv_write(p + ivec3(0, 0, 3), s0 + 3, part[d + 3]);
    }
  }
}
