// The landmarks a MediaPipe operator reads (binding lm), included by
// op_landmarks_to_matrix.comp and op_transform_landmarks.comp after
// elementwise.glsl. Landmark i of batch b is (x, y, z or 0, 0): one texel
// (i, 0, b) of a (B, N, 2 or 3) tensor. Two folds read through the
// operators that made it (runtime/kernels_fusion.h: through), neither
// of which is run:
// - TM_LM_THRU: lm is the input of a RESHAPE (a head's flat output), of
//   lmgeo.z channels, and each value is found where the dense BHWC order
//   puts it, as op_reshape.comp finds it: a copy, so values are the same;
// - TM_LM_SCALE: the landmarks are a MUL by the scalar constant lmscale
//   (binary16 in fp16 runs, as the MUL's constant buffer holds it),
//   multiplied and activated as op_binary.comp does and rounded as its
//   store would (TM_LM_ROUND), so the operator sees the values stored.
uniform highp ivec4 lmgeo; // landmarks a batch, values a landmark, channels of lm (TM_LM_THRU), 0
#ifdef TM_LM_SCALE
uniform highp float lmscale;
uniform highp vec4 lmact; // the MUL's activation (tm_activate)
#endif

#ifdef TM_LM_THRU
// Element e of the reshape's input in dense BHWC order.
highp float tm_lm_value(highp int e) {
  highp ivec3 is = lm_shape();
  highp int cs = lmgeo.z, plane = is.x * is.y, ci = e % cs, t = e / cs, b = t / plane;
  highp int r = t - b * plane;
  return tm_lane(lm_read(ivec3(r % is.x, r / is.x, b * ((cs + 3) >> 2) + (ci >> 2))), ci & 3);
}
#endif

highp vec4 tm_landmark(highp int i, highp int b) {
#ifdef TM_LM_THRU
  highp int e = (b * lmgeo.x + i) * lmgeo.y;
  highp vec4 v = vec4(tm_lm_value(e), tm_lm_value(e + 1), lmgeo.y > 2 ? tm_lm_value(e + 2) : 0.0,
                      0.0);
#else
  highp vec4 v = lm_read(ivec3(i, 0, b));
#endif
#ifdef TM_LM_SCALE
  v = tm_mask_pad(tm_activate(tm_binary(1, v, vec4(lmscale)), lmact), 0, lmgeo.y);
#ifdef TM_LM_ROUND
  v = tm_half_rne(v);
#endif
#endif
  return v;
}
