// RELU (kind 0), RELU6 (1), LOGISTIC (2), HARD_SWISH (3), TANH (4),
// LEAKY_RELU (5: x > 0 ? x : alpha * x), one texel per invocation; padding
// channels (c >= channels) written as 0.
uniform highp int kind;
uniform highp int channels;
uniform highp float alpha;

highp vec4 mask_pad(highp vec4 v, highp int z) {
  highp int n = channels - 4 * z;
  return n >= 4 ? v : vec4(v.x, n > 1 ? v.y : 0.0, n > 2 ? v.z : 0.0, 0.0);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp vec4 v = src_read(p);
  highp vec4 r;
  if (kind == 0) {
    r = max(v, vec4(0.0));
  } else if (kind == 1) {
    r = clamp(v, vec4(0.0), vec4(6.0));
  } else if (kind == 2) {
    r = vec4(1.0) / (vec4(1.0) + exp(-v));
  } else if (kind == 3) {
    r = v * clamp(v + vec4(3.0), vec4(0.0), vec4(6.0)) / 6.0;
  } else if (kind == 4) {
    r = tanh(v);
  } else {
    r = mix(v * alpha, v, greaterThan(v, vec4(0.0)));
  }
  dst_write(p, mask_pad(r, p.z % ((channels + 3) >> 2))); // z = batch * slices + slice
}
