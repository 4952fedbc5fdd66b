// DEPTHWISE_CONV_2D, depth multiplier 1: one invocation per output texel
// (work group z = batch * slices + slice; input and output have the same
// slices). w: one vec4 per (slice, ky, kx); b: bias vec4 per slice. The
// window sum is depthwise_common.glsl's, which a folding 1x1 kernel runs too.
#include "elementwise.glsl"
#include "bilinear.glsl"
#include "conv_common.glsl"
#define TM_DW_W(i) w_at(i)
#define TM_DW_B(s) b_at(s)
#include "depthwise_common.glsl"
uniform highp ivec4 geom; // stride x, stride y, pad left, pad top
uniform highp ivec4 kern; // kernel w, kernel h, dilation x, dilation y

void main() {
  highp ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  highp int z = int(gl_WorkGroupID.z);
  highp ivec3 os = y_shape();
  if (p.x >= os.x || p.y >= os.y) return;
  highp int zs = z % (os.z / max(batch, 1)); // slice within the batch
  conv_write(ivec3(p, z), zs, dw_texel(p, z, zs, geom, kern));
}
