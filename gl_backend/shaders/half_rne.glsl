// Binary16 rounding, prepended to every texmem compute shader (after
// tensor.glsl) and given to callers by texmem_gl_glsl_half_rne(), for their
// own shaders that store fp16 tensors texmem reads (graph inputs written on
// the GPU): the same function, so their stores round as texmem's do.
// v rounded to the nearest binary16 value, ties to even, for a store to an
// RGBA16F image: the float-to-half conversion of imageStore is left to the
// driver by GLES, and llvmpipe and NVIDIA truncate toward zero, which biases
// every fp16 tensor low by about 2^-12 of its values and adds up through a
// network. A value rounded here is exact in binary16, so any conversion then
// keeps it. Normal halves (|v| >= 2^-14) keep 10 of the float's 23 mantissa
// bits: add just under half of the dropped 13 bits' unit (plus the kept
// lowest bit, for ties to even) and clear them; a carry into the exponent is
// the right result. Below 2^-14 the step is 2^-24 whatever the exponent:
// scale, round, scale back (both exact). Magnitudes past the largest half
// saturate to +-65504, as a truncating image store does: texture and
// buffer storage then hold the same values on every driver.
highp vec4 tm_half_rne(highp vec4 v) {
  highp uvec4 u = floatBitsToUint(v);
  highp vec4 n = uintBitsToFloat((u + 0x0FFFu + ((u >> 13u) & 1u)) & 0xFFFFE000u);
  highp vec4 s = roundEven(v * 16777216.0) * (1.0 / 16777216.0);
  return clamp(mix(n, s, lessThan(abs(v), vec4(6.103515625e-05))), -65504.0, 65504.0);
}
