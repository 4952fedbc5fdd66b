// Element-wise arithmetic shared by op_unary.comp, op_binary.comp and the
// convolutions' fused output stage (conv_common.glsl), included by them:
// one definition of each operator, so a convolution with an operator
// fused into it computes what the two dispatches compute.

// Fused activation act = (clamp min, clamp max, tanh if > 0, 0).
highp vec4 tm_activate(highp vec4 v, highp vec4 act) {
  v = clamp(v, act.x, act.y);
  return act.z > 0.0 ? tanh(v) : v;
}

// RELU (kind 0), RELU6 (1), LOGISTIC (2), HARD_SWISH (3), TANH (4),
// LEAKY_RELU (5: x > 0 ? x : alpha * x).
highp vec4 tm_unary(highp int kind, highp vec4 v, highp float alpha) {
  if (kind == 0) return max(v, vec4(0.0));
  if (kind == 1) return clamp(v, vec4(0.0), vec4(6.0));
  if (kind == 2) return vec4(1.0) / (vec4(1.0) + exp(-v));
  if (kind == 3) return v * clamp(v + vec4(3.0), vec4(0.0), vec4(6.0)) / 6.0;
  if (kind == 4) return tanh(v);
  return mix(v * alpha, v, greaterThan(v, vec4(0.0)));
}

// ADD, MUL, SUB, DIV, MAXIMUM, MINIMUM, PRELU (mode 0..6) of va and vb.
highp vec4 tm_binary(highp int mode, highp vec4 va, highp vec4 vb) {
  if (mode == 0) return va + vb;
  if (mode == 1) return va * vb;
  if (mode == 2) return va - vb;
  if (mode == 3) return va / vb;
  if (mode == 4) return max(va, vb);
  if (mode == 5) return min(va, vb);
  return mix(va * vb, va, greaterThanEqual(va, vec4(0.0))); // PRELU
}

// v with the lanes of slice z at channels >= channels set to 0 (padding).
highp vec4 tm_mask_pad(highp vec4 v, highp int z, highp int channels) {
  highp int n = channels - 4 * z;
  return n >= 4 ? v : vec4(v.x, n > 1 ? v.y : 0.0, n > 2 ? v.z : 0.0, 0.0);
}

// Broadcasting: (x, y, batch, slice) of the output -> an operand's texel,
// bc = (w is 1, h is 1, c is 1, batch is 1) for that operand: a broadcast
// dimension reads coordinate 0. Batch b of a tensor with S slices is at
// z = b*S + s.
highp ivec3 tm_bcast(highp ivec4 p, highp int oslices, highp ivec4 bc) {
  highp int sl = bc.z != 0 ? 1 : oslices;
  return ivec3(bc.x != 0 ? 0 : p.x, bc.y != 0 ? 0 : p.y,
               (bc.w != 0 ? 0 : p.z) * sl + (bc.z != 0 ? 0 : p.w));
}

// Index of texel q of a constant in PHWC4 order of its own dims
// bdim = (w, h, slices, 0), batches one after another.
highp int tm_const_index(highp ivec3 q, highp ivec4 bdim) {
  return ((q.z / bdim.z) * bdim.y + q.y) * bdim.x * bdim.z + q.x * bdim.z + q.z % bdim.z;
}
