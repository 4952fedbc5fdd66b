// One depthwise output texel's window sum (multiplier 1), shared by the
// depthwise kernels (op_depthwise3x3.comp, op_depthwise.comp) and a 1x1
// convolution that folds the depthwise one making its input
// (op_conv1x1_tiled.comp with TM_FUSE_DW): both run this code, so the
// folded value equals the stored one bit for bit. The sums read the
// input through x_read, the weights (one vec4 per slice, ky, kx) through
// TM_DW_W(i) and the bias vec4 of slice s through TM_DW_B(s); a kernel
// defines both before including this file.

// Kernel row (w0, w1, w2) over the input columns v0, v1, v2 of a 3x3
// window, added to acc in that order.
highp vec4 dw_row3(highp vec4 acc, highp vec4 v0, highp vec4 v1, highp vec4 v2, highp vec4 w0,
                   highp vec4 w1, highp vec4 w2) {
  acc += v0 * w0;
  acc += v1 * w1;
  acc += v2 * w2;
  return acc;
}

// Input texel (ix, iy) of slice z, zero outside the input (row_in: iy is
// inside); the load is clamped so every lane reads, without a branch.
highp vec4 dw_col(highp int ix, highp int iy, bool row_in, highp int z, highp ivec3 is) {
  highp vec4 v = x_read(ivec3(clamp(ix, 0, is.x - 1), iy, z));
  return row_in && ix >= 0 && ix < is.x ? v : vec4(0.0);
}

// The 3x3 window sum (dilation 1) of output texel p of slice z (zs within
// its batch): g = stride x, stride y, pad left, pad top.
highp vec4 dw3_texel(highp ivec2 p, highp int z, highp int zs, highp ivec4 g) {
  highp ivec3 is = x_shape();
  highp vec4 acc = TM_DW_B(zs);
  highp ivec2 base = p * g.xy - g.zw;
  highp int wi = zs * 9;
  for (highp int ky = 0; ky < 3; ky++) {
    highp int iy = base.y + ky;
    bool row_in = iy >= 0 && iy < is.y;
    iy = clamp(iy, 0, is.y - 1);
    acc = dw_row3(acc, dw_col(base.x, iy, row_in, z, is), dw_col(base.x + 1, iy, row_in, z, is),
                  dw_col(base.x + 2, iy, row_in, z, is), TM_DW_W(wi + ky * 3),
                  TM_DW_W(wi + ky * 3 + 1), TM_DW_W(wi + ky * 3 + 2));
  }
  return acc;
}

// Any window: g as above, k = kernel w, kernel h, dilation x, dilation y;
// taps outside the input are skipped.
highp vec4 dw_texel(highp ivec2 p, highp int z, highp int zs, highp ivec4 g, highp ivec4 k) {
  highp ivec3 is = x_shape();
  highp vec4 acc = TM_DW_B(zs);
  highp ivec2 base = p * g.xy - g.zw;
  highp int wi = zs * k.x * k.y;
  for (highp int ky = 0; ky < k.y; ky++) {
    highp int iy = base.y + ky * k.w;
    bool row = iy >= 0 && iy < is.y;
    for (highp int kx = 0; kx < k.x; kx++) {
      highp int ix = base.x + kx * k.z;
      if (row && ix >= 0 && ix < is.x) acc += x_read(ivec3(ix, iy, z)) * TM_DW_W(wi);
      wi++;
    }
  }
  return acc;
}
