// ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM, PRELU (mode.x 0..6; mode.y: the
// operands were swapped to keep a constant second, swap them back) with
// broadcasting, then the fused activation (none for the last three). Per operand, bc = (w is 1, h is 1, c is 1, batch is 1): a
// broadcast dimension reads coordinate 0; a single channel is spread to
// every lane. Batch b of a tensor with S slices is at z = b*S + s.
// Variants: TM_B_CONST (b is an SSBO `bconst` in PHWC4 order of its own
// dims bdim = (w, h, slices, 0), batches one after another), TM_SELF (b
// is a itself).
uniform highp ivec4 mode;
uniform highp int channels;
uniform highp vec4 act; // clamp min, clamp max, tanh if > 0
uniform highp ivec4 abc;
uniform highp ivec4 bbc;
#ifdef TM_B_CONST
uniform highp ivec4 bdim;
#endif

highp vec4 mask_pad(highp vec4 v, highp int z) {
  highp int n = channels - 4 * z;
  return n >= 4 ? v : vec4(v.x, n > 1 ? v.y : 0.0, n > 2 ? v.z : 0.0, 0.0);
}

// (x, y, batch, slice) of the output -> the operand's texel.
highp ivec3 bcast(highp ivec4 p, highp int oslices, highp ivec4 bc) {
  highp int sl = bc.z != 0 ? 1 : oslices;
  return ivec3(bc.x != 0 ? 0 : p.x, bc.y != 0 ? 0 : p.y,
               (bc.w != 0 ? 0 : p.z) * sl + (bc.z != 0 ? 0 : p.w));
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int oslices = (channels + 3) >> 2, ob = p.z / oslices;
  highp ivec4 pb = ivec4(p.xy, ob, p.z - ob * oslices);
  highp vec4 va = a_read(bcast(pb, oslices, abc));
  if (abc.z != 0) va = va.xxxx;
  highp ivec3 q = bcast(pb, oslices, bbc);
#if defined(TM_B_CONST)
  // q.z = batch * (1 or slices) + slice; bdim.z is the constant's slices.
  highp vec4 vb = bconst_at(((q.z / bdim.z) * bdim.y + q.y) * bdim.x * bdim.z + q.x * bdim.z +
                         q.z % bdim.z);
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
  highp vec4 r;
  switch (mode.x) {
    case 0: r = va + vb; break;
    case 1: r = va * vb; break;
    case 2: r = va - vb; break;
    case 3: r = va / vb; break;
    case 4: r = max(va, vb); break;
    case 5: r = min(va, vb); break;
    default: r = mix(va * vb, va, greaterThanEqual(va, vec4(0.0))); break; // PRELU
  }
  r = clamp(r, act.x, act.y);
  if (act.z > 0.0) r = tanh(r);
  dst_write(p, mask_pad(r, pb.w));
}
