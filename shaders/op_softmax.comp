// SOFTMAX over the channels (the last axis) of each pixel, as TFLite's
// float kernel: m = max over the row, e = exp((x - m) * beta), y = e /
// sum(e). One invocation per output texel reads its pixel's whole row
// (every slice of its batch) in a fixed order, so results are
// deterministic. cfg = (channels, 0, 0, 0); padding lanes written as 0.
uniform highp ivec4 cfg;
uniform highp float beta;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int sl = (cfg.x + 3) >> 2, z0 = (p.z / sl) * sl;
  highp float m = -3.402823466e38;
  for (highp int k = 0; k < sl; k++) {
    highp vec4 v = src_read(ivec3(p.xy, z0 + k));
    for (highp int l = 0; l < 4; l++)
      if (4 * k + l < cfg.x) m = max(m, v[l]);
  }
  highp float sum = 0.0;
  for (highp int k = 0; k < sl; k++) {
    highp vec4 v = src_read(ivec3(p.xy, z0 + k));
    for (highp int l = 0; l < 4; l++)
      if (4 * k + l < cfg.x) sum += exp((v[l] - m) * beta);
  }
  highp vec4 v = src_read(p), r = vec4(0.0);
  highp int c0 = 4 * (p.z - z0);
  for (highp int l = 0; l < 4; l++)
    if (c0 + l < cfg.x) r[l] = exp((v[l] - m) * beta) / sum;
  dst_write(p, r);
}
