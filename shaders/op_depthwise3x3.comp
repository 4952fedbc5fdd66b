// DEPTHWISE_CONV_2D 3x3, dilation 1, multiplier 1 (MobileNet's case):
// one invocation = 4 adjacent output pixels (x .. x+3) of one slice. Each kernel row reads the input columns the 4 windows
// span once ((4-1) * stride + 3 texels instead of 12): image loads cost
// far more than the selects that route a column to its windows.
// w: one vec4 per (slice, ky, kx); b: bias vec4 per slice.
#define PX 4
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp vec4 act;   // clamp min, clamp max, tanh if > 0
uniform highp int batch;  // z = batch * slices + slice; 0 = 1

void main() {
  // Flat invocations (64-wide work groups, index split over the x and y
  // work group counts) over (slice, row, column quad): a 2-D work group
  // would leave most lanes idle on 7x7 outputs.
  highp int i = int((gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 64u +
                    gl_LocalInvocationIndex);
  highp ivec3 os = y_shape();
  highp int quads = (os.x + PX - 1) / PX;
  highp int row = i / quads;
  highp ivec2 p = ivec2((i - row * quads) * PX, row % os.y);
  highp int z = row / os.y;
  if (z >= os.z) return;
  highp ivec3 is = x_shape();
  highp int zs = z % (os.z / max(batch, 1)); // slice within the batch
  highp vec4 acc[PX];
  for (int j = 0; j < PX; j++) acc[j] = b[zs];
  highp ivec2 base = p * geom.xy - geom.zw;
  highp int cols = (PX - 1) * geom.x + 3;
  highp int wi = zs * 9;
  for (highp int ky = 0; ky < 3; ky++) {
    highp int iy = base.y + ky;
    if (iy < 0 || iy >= is.y) continue;
    highp vec4 w0 = w[wi + ky * 3], w1 = w[wi + ky * 3 + 1], w2 = w[wi + ky * 3 + 2];
    for (highp int c = 0; c < cols; c++) {
      highp int ix = base.x + c;
      highp vec4 v = x_read(ivec3(clamp(ix, 0, is.x - 1), iy, z));
      v = ix >= 0 && ix < is.x ? v : vec4(0.0);
      for (int j = 0; j < PX; j++) {
        highp int kx = c - j * geom.x;
        acc[j] += kx == 0 ? v * w0 : kx == 1 ? v * w1 : kx == 2 ? v * w2 : vec4(0.0);
      }
    }
  }
  for (int j = 0; j < PX; j++) {
    if (p.x + j >= os.x) break;
    highp vec4 r = clamp(acc[j], act.x, act.y);
    y_write(ivec3(p.x + j, p.y, z), act.z > 0.0 ? tanh(r) : r);
  }
}
