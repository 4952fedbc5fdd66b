// MediaPipe's TransformLandmarks v2: each landmark (x, y[, z]) becomes
// (row0 . (x, y, 0, 1), row1 . (x, y, 0, 1)[, z]). One texel a landmark
// (2 or 3 channels: one slice, z = batch); the padding lanes stay 0.
// mbatch: the matrix's batch (1 = one matrix for every batch).
uniform highp int mbatch;

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
  highp int mb = mbatch > 1 ? p.z : 0;
  highp vec4 m0 = mat_read(ivec3(0, 0, mb)), m1 = mat_read(ivec3(1, 0, mb));
  highp vec4 q = src_read(p);
  dst_write(p, vec4(m0.x * q.x + m0.y * q.y + m0.w, m1.x * q.x + m1.y * q.y + m1.w, q.z, 0.0));
}
