// TM_Y_FLAT: the output binding y holds a RESHAPE of the operator's
// output to another height and width, of the same batch, channels and
// pixels (a detector's head flattened to anchors), which the dispatch
// stores instead (runtime/kernels_fusion.h: into). The kernel computes
// every texel at its own (x, y), with the shape y_shape() gives (the
// operator's, yflat), and y_write stores it at the same pixel index of the
// reshape: a copy of the values, bit for bit. Included first, after the
// bindings: y_shape, y_inside and y_write below are the binding's own.
#ifdef TM_Y_FLAT
uniform highp ivec4 yflat; // the operator's output width, height

highp ivec3 tm_yflat_shape() { return ivec3(yflat.xy, y_shape().z); }
bool tm_yflat_inside(highp ivec3 p) { return tm_inside(p, ivec4(tm_yflat_shape(), 0)); }
void tm_yflat_write(highp ivec3 p, highp vec4 v) {
  highp int i = p.y * yflat.x + p.x, w = y_shape().x;
  y_write(ivec3(i % w, i / w, p.z), v);
}
#define y_shape() tm_yflat_shape()
#define y_inside(p) tm_yflat_inside(p)
#define y_write(p, v) tm_yflat_write(p, v)
#endif
