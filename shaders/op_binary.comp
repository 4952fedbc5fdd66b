// ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM, PRELU (mode.x 0..6, see
// tm_binary; mode.y: the operands were swapped to keep a constant second,
// swap them back) with broadcasting, then the fused activation (none for
// the last three). Per operand, bc = (w is 1, h is 1, c is 1, batch is 1)
// (tm_bcast); a single channel is spread to every lane.
// Variants: TM_B_CONST (b is an SSBO `bconst` in PHWC4 order of its own
// dims bdim = (w, h, slices, 0), batches one after another), TM_SELF (b
// is a itself).
#include "elementwise.glsl"
uniform highp ivec4 mode;
uniform highp int channels;
uniform highp vec4 act; // clamp min, clamp max, tanh if > 0
uniform highp ivec4 abc;
uniform highp ivec4 bbc;
#ifdef TM_B_CONST
uniform highp ivec4 bdim;
#endif

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int oslices = (channels + 3) >> 2, ob = p.z / oslices;
  highp ivec4 pb = ivec4(p.xy, ob, p.z - ob * oslices);
  highp vec4 va = a_read(tm_bcast(pb, oslices, abc));
  if (abc.z != 0) va = va.xxxx;
  highp ivec3 q = tm_bcast(pb, oslices, bbc);
#if defined(TM_B_CONST)
  highp vec4 vb = bconst_at(tm_const_index(q, bdim));
#elif defined(TM_SELF)
  highp vec4 vb = a_read(q);
#else
  highp vec4 vb = b_read(q);
#endif
  if (bbc.z != 0) vb = vb.xxxx;
  if (mode.y != 0) {
    highp vec4 t = va;
    va = vb;
    vb = t;
  }
  highp vec4 r = tm_activate(tm_binary(mode.x, va, vb), act);
  dst_write(p, tm_mask_pad(r, pb.w, channels));
}
