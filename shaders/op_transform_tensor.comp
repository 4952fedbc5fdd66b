// MediaPipe's TransformTensorBilinear v2: output pixel (x, y) samples the
// input at the first two matrix rows applied to (x, y, 0, 1), corrected to
// align corners (half a pixel in, half out). A sample outside
// [0, W-1] x [0, H-1] is 0; inside, bilinear with neighbours past the edge
// read as 0 (their weight is then 0).
// mbatch: the matrix's batch (1 = one matrix for every batch).
uniform highp int batch;
uniform highp int mbatch;

highp vec4 tap(highp int x, highp int y, highp int z, highp ivec3 is) {
  return x < is.x && y < is.y ? src_read(ivec3(x, y, z)) : vec4(0.0);
}

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp ivec3 is = src_shape();
  highp int slices = is.z / max(batch, 1);
  highp int mb = mbatch > 1 ? p.z / slices : 0;
  highp vec4 m0 = mat_read(ivec3(0, 0, mb)), m1 = mat_read(ivec3(1, 0, mb));
  highp float x3 = m0.w + m0.x * 0.5 + m0.y * 0.5 - 0.5;
  highp float y3 = m1.w + m1.x * 0.5 + m1.y * 0.5 - 0.5;
  highp vec2 d = vec2(p.xy);
  highp vec2 tc = vec2(m0.x * d.x + m0.y * d.y + x3, m1.x * d.x + m1.y * d.y + y3);
  highp vec4 v = vec4(0.0);
  if (tc.x >= 0.0 && tc.x <= float(is.x - 1) && tc.y >= 0.0 && tc.y <= float(is.y - 1)) {
    highp vec2 f = floor(tc);
    highp ivec2 i = ivec2(f);
    highp vec2 w = tc - f;
    highp vec4 up = (1.0 - w.x) * tap(i.x, i.y, p.z, is) + w.x * tap(i.x + 1, i.y, p.z, is);
    highp vec4 dn = (1.0 - w.x) * tap(i.x, i.y + 1, p.z, is) + w.x * tap(i.x + 1, i.y + 1, p.z, is);
    v = w.y * dn + (1.0 - w.y) * up;
  }
  dst_write(p, v);
}
