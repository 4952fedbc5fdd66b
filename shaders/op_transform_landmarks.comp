// MediaPipe's TransformLandmarks v2: each landmark (x, y[, z]) becomes
// (row0 . (x, y, 0, 1), row1 . (x, y, 0, 1)[, z]). One texel a landmark
// (2 or 3 channels: one slice, z = batch); the padding lanes stay 0.
// Landmarks are read as landmarks.glsl reads them (through a RESHAPE and
// a MUL or not). mbatch: the matrix's batch (1 = one matrix for every
// batch). TM_TL_FLAT: dst is a RESHAPE of the output that is never stored
// (runtime/kernels_fusion.h: into; the landmarks flattened to a graph
// output): one invocation a texel of it, each lane the moved landmark's
// value that the dense BHWC order puts there, of tlflat.x channels.
// TM_MAT_SCALE: the matrix is a MUL of mat by a constant (buffer matc: a
// 4x4 one row by row, or one value) that is never stored
// (runtime/kernels_fusion.h: through): each row multiplied and
// activated as op_binary.comp does, rounded as its store would
// (TM_MAT_ROUND).
#include "elementwise.glsl"
#include "landmarks.glsl"
uniform highp int mbatch;
#ifdef TM_TL_FLAT
uniform highp ivec4 tlflat; // channels of dst, 0, 0, 0
#endif
#ifdef TM_MAT_SCALE
uniform highp int matcrow; // 1: matc holds a row a texel; 0: one value
uniform highp vec4 matact;
#endif

// Row r of batch mb's matrix.
highp vec4 matrix_row(highp int r, highp int mb) {
  highp vec4 v = mat_read(ivec3(r, 0, mb));
#ifdef TM_MAT_SCALE
  highp vec4 c = matc_at(r * matcrow);
  v = tm_activate(tm_binary(1, v, matcrow != 0 ? c : c.xxxx), matact);
#ifdef TM_MAT_ROUND
  v = tm_half_rne(v);
#endif
#endif
  return v;
}

// Landmark i of batch b, moved by its matrix.
highp vec4 moved(highp int i, highp int b) {
  highp int mb = mbatch > 1 ? b : 0;
  highp vec4 m0 = matrix_row(0, mb), m1 = matrix_row(1, mb);
  highp vec4 q = tm_landmark(i, b);
  return vec4(m0.x * q.x + m0.y * q.y + m0.w, m1.x * q.x + m1.y * q.y + m1.w, q.z, 0.0);
}

#ifdef TM_TL_FLAT
// Output element e (dense BHWC order): value e % C of landmark e / C; 0
// past the channels (padding lanes).
highp float moved_value(highp int e, bool inside) {
  if (!inside) return 0.0;
  highp int l = e / lmgeo.y, b = l / lmgeo.x;
  return tm_lane(moved(l - b * lmgeo.x, b), e - l * lmgeo.y);
}
#endif

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!dst_inside(p)) return;
#ifndef TM_TL_FLAT
  dst_write(p, moved(p.x, p.z));
#else
  highp ivec3 os = dst_shape();
  highp int oc = tlflat.x, sl = (oc + 3) >> 2, ob = p.z / sl, c0 = 4 * (p.z - ob * sl);
  highp int e = ((ob * os.y + p.y) * os.x + p.x) * oc + c0;
  dst_write(p, vec4(moved_value(e, c0 < oc), moved_value(e + 1, c0 + 1 < oc),
                    moved_value(e + 2, c0 + 2 < oc), moved_value(e + 3, c0 + 3 < oc)));
#endif
}
