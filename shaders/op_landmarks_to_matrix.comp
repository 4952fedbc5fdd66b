// MediaPipe's Landmarks2TransformMatrix v2. One invocation per matrix row
// (texel x = row, z = batch); each computes the whole crop, which is tiny.
// The angle makes the left->right landmark line point at the target
// rotation; the subset's box in that rotated frame gives the crop size and
// centre; the matrix maps output pixels to input coordinates:
// T(centre) * R(-rot) * S(scale * crop / output) * T(-output / 2).
// idx: the subset's landmark indices (as floats, 4 a vec4). Landmarks are
// read as landmarks.glsl reads them (through a RESHAPE and a MUL or not).
#include "elementwise.glsl"
#include "landmarks.glsl"
uniform highp ivec4 prm; // left index, right index, subset points, 0
uniform highp vec4 geo;  // scale_x, scale_y, output width, output height
uniform highp float target;

highp vec2 landmark(highp int i, highp int b) { return tm_landmark(i, b).xy; }

void main() {
  highp ivec3 p = ivec3(gl_GlobalInvocationID);
  if (!mat_inside(p)) return;
  highp int b = p.z;
  highp vec2 l = landmark(prm.x, b), r = landmark(prm.y, b);
  highp float rot = target - atan(r.y - l.y, r.x - l.x);
  highp float c = cos(rot), s = sin(rot);
  highp vec2 lo = vec2(0.0), hi = vec2(0.0);
  for (highp int k = 0; k < prm.z; k++) {
    highp vec2 q = landmark(int(tm_lane(idx_at(k >> 2), k & 3)), b);
    highp vec2 t = vec2(c * q.x - s * q.y, s * q.x + c * q.y);
    lo = k == 0 ? t : min(lo, t);
    hi = k == 0 ? t : max(hi, t);
  }
  highp vec2 mid = (lo + hi) * 0.5;
  highp float ci = cos(-rot), si = sin(-rot);
  highp vec2 centre = vec2(ci * mid.x - si * mid.y, si * mid.x + ci * mid.y);
  highp vec2 sc = geo.xy * (hi - lo) / geo.zw;
  highp vec2 half_out = geo.zw * 0.5;
  highp vec4 row = vec4(0.0, 0.0, 0.0, 1.0);
  if (p.x == 0)
    row = vec4(ci * sc.x, -si * sc.y, 0.0, centre.x - ci * sc.x * half_out.x + si * sc.y * half_out.y);
  else if (p.x == 1)
    row = vec4(si * sc.x, ci * sc.y, 0.0, centre.y - si * sc.x * half_out.x - ci * sc.y * half_out.y);
  else if (p.x == 2)
    row = vec4(0.0, 0.0, 1.0, 0.0);
  mat_write(p, row);
}
