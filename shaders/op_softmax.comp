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
    highp vec4 v = mix(vec4(m), src_read(ivec3(p.xy, z0 + k)), tm_lanes_below(k, cfg.x));
    m = max(max(m, max(v.x, v.y)), max(v.z, v.w));
  }
  highp float sum = 0.0;
  for (highp int k = 0; k < sl; k++) {
    highp vec4 e = exp((src_read(ivec3(p.xy, z0 + k)) - m) * beta);
    e = mix(vec4(0.0), e, tm_lanes_below(k, cfg.x));
    sum += e.x; // lane by lane, in channel order
    sum += e.y;
    sum += e.z;
    sum += e.w;
  }
  highp vec4 r = exp((src_read(p) - m) * beta) / sum;
  dst_write(p, mix(vec4(0.0), r, tm_lanes_below(p.z - z0, cfg.x)));
}
