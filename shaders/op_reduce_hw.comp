// A whole H x W plane reduced to one texel, for GPUs (runtime/kernels_pool.c
// and kernels_mean.c pick it where the window is the plane: global
// AVERAGE_POOL_2D / MAX_POOL_2D, MEAN over H and W). op_pool.comp and
// op_mean.comp give each output texel one invocation that walks the plane
// alone: on a GPU a few dozen invocations then read 16K texels each in a
// row (180-330 us a dispatch on an H200). Here a work group of TM_RN
// invocations takes output texel z = gl_WorkGroupID.x: invocation i folds
// the plane's texels i, i + TM_RN, ... (row-major), then the group folds
// the TM_RN partials pairwise in shared memory, halving each step. The
// order is fixed, so every run and every storage gives the same bits.
// mode = (kind: 0 max, 1 mean, 0, 0); count divides a mean; act = clamp
// min, clamp max, tanh if > 0 (pools' fused activation; MEAN passes none).
uniform highp ivec4 mode;
uniform highp float count;
uniform highp vec4 act;

shared highp vec4 part[TM_RN];

highp vec4 fold(highp vec4 a, highp vec4 b) { return mode.x == 0 ? max(a, b) : a + b; }

void main() {
  highp int z = int(gl_WorkGroupID.x), lid = int(gl_LocalInvocationIndex);
  highp ivec3 is = src_shape();
  highp int n = is.x * is.y;
  highp vec4 acc = mode.x == 0 ? vec4(-3.402823466e38) : vec4(0.0);
  for (highp int i = lid; i < n; i += TM_RN) acc = fold(acc, src_read(ivec3(i % is.x, i / is.x, z)));
  part[lid] = acc;
  barrier();
  for (highp int h = TM_RN / 2; h > 0; h /= 2) {
    if (lid < h) part[lid] = fold(part[lid], part[lid + h]);
    barrier();
  }
  if (lid != 0) return;
  highp vec4 r = mode.x == 0 ? part[0] : part[0] / count;
  r = clamp(r, act.x, act.y);
  if (act.z > 0.0) r = tanh(r);
  // Padding channels of src are 0: max, mean and every activation keep 0.
  dst_write(ivec3(0, 0, z), r);
}
