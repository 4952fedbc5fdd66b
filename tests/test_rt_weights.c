/* The runtime's constant buffers packed into slabs (runtime/weights.c):
 * every buffer reads back its own bytes through its view, in fp32 and
 * binary16, across slabs closed at their size limit; a runtime's
 * constants take one GL buffer; tokens are checked. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__f32_to_f16 */
#include "gl_support.h"
#include "texmem/mobilenet.h"
#include "texmem/runtime.h"
#include "weights.h"

/* Copies buffer `weights` (n vec4s) to an n x 1 x 1 RGBA32F texture. */
static const char k_copy_src[] =
    "void main() {\n"
    "  highp ivec3 p = ivec3(gl_GlobalInvocationID);\n"
    "  if (dst_inside(p)) dst_write(p, weights_at(p.x));\n"
    "}\n";

/* What buffer b reads as: n vec4s. */
static void read_buffer(texmem_gl_context *ctx, texmem_gl_buffer b, bool half, size_t n,
                        float *out) {
  static const char *const dst[] = {"dst"}, *const bufs[] = {"weights"};
  texmem_gl_program_desc d = {.name = "copy_buffer", .source = k_copy_src, .outputs = dst,
                              .n_outputs = 1, .buffers = bufs, .n_buffers = 1,
                              .local_size = {8, 1, 1}, .half_buffers = half ? 1u : 0u};
  texmem_gl_program prog;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  texmem_plan *plan = NULL;
  texmem_gl_pool *pool = tg_single_tensor_pool(ctx, n, 1, 1, TEXMEM_GL_RGBA32F, &plan);
  const size_t t0 = 0;
  texmem_gl_op op = {.program = prog, .outputs = &t0, .n_outputs = 1, .buffers = &b,
                     .n_buffers = 1};
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  TG_OK(texmem_gl_tensor_read(pool, 0, out, &tg_err_));
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_program_destroy(ctx, prog);
}

/* Buffers of 1, 3, 2, 5, 64, 1 and 7 vec4s, slabs closed past the
 * 64-vec4 one's bytes (it gets a slab of its own): each view reads its
 * own values, fp32 and binary16. */
static void packs(bool half) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_counters c0;
  texmem_gl_counters_get(ctx, &c0);
  texmem__weights *w = NULL;
  TG_OK(texmem__weights_create(ctx, half ? 512 : 1024, &w, &tg_err_));
  enum { N = 7 };
  const size_t vec4s[N] = {1, 3, 2, 5, 64, 1, 7};
  texmem_gl_buffer tok[N];
  float *vals[N];
  for (size_t i = 0; i < N; i++) {
    size_t n = vec4s[i] * 4;
    vals[i] = malloc(n * sizeof(float));
    uint16_t *h = malloc(n * sizeof(uint16_t));
    for (size_t k = 0; k < n; k++) {
      vals[i][k] = (float)(i * 100 + k) - 0.5f; /* exact in binary16 */
      h[k] = texmem__f32_to_f16(vals[i][k]);
    }
    size_t bytes = n * (half ? 2 : 4);
    void *dst = NULL;
    TG_OK(texmem__weights_add(w, bytes, &dst, &tok[i], &tg_err_));
    memcpy(dst, half ? (const void *)h : (const void *)vals[i], bytes);
    free(h);
  }
  texmem_gl_buffer v;
  texmem_error err = {0};
  cr_assert_eq(texmem__weights_view(w, tok[N - 1], &v, &err), TEXMEM_STATUS_INVALID_ARGUMENT,
               "the open slab's tokens are not views yet");
  TG_OK(texmem__weights_commit(w, &tg_err_));
  uint64_t slab_bytes = 0;
  size_t slabs = texmem__weights_slabs(w, &slab_bytes);
  texmem_gl_counters c1;
  texmem_gl_counters_get(ctx, &c1);
  cr_assert_eq(c1.buffers_live - c0.buffers_live, slabs, "one GL buffer a slab");
  cr_assert_geq(slabs, 3, "%zu slabs", slabs);
  cr_assert_lt(slabs, N);
  size_t total = 0;
  for (size_t i = 0; i < N; i++) total += vec4s[i] * (half ? 8 : 16);
  cr_assert_eq(texmem__weights_bytes(w), total);
  cr_assert_geq(slab_bytes, total);
  for (size_t i = 0; i < N; i++) {
    TG_OK(texmem__weights_view(w, tok[i], &v, &tg_err_));
    float out[64 * 4];
    read_buffer(ctx, v, half, vec4s[i], out);
    for (size_t k = 0; k < vec4s[i] * 4; k++)
      cr_assert_eq(out[k], vals[i][k], "buffer %zu value %zu: %g != %g", i, k, out[k],
                   vals[i][k]);
    free(vals[i]);
  }
  cr_assert_eq(texmem__weights_view(w, (texmem_gl_buffer){0}, &v, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  void *dst = tok;
  cr_assert_eq(texmem__weights_add(w, 12, &dst, &v, &err), TEXMEM_STATUS_INVALID_ARGUMENT,
               "12 bytes is not whole binary16 vec4s");
  cr_assert_null(dst);
  texmem__weights_destroy(w);
  texmem__weights_destroy(NULL);
  texmem_gl_counters_get(ctx, &c1);
  cr_assert_eq(c1.buffers_live, c0.buffers_live);
  texmem_gl_context_destroy(ctx);
}

Test(rt_weights, views_read_their_own_bytes_fp32) { packs(false); }
Test(rt_weights, views_read_their_own_bytes_fp16) { packs(true); }

/* MobileNet's hundred-odd weight and bias buffers: one GL buffer. */
Test(rt_weights, a_runtime_packs_its_constants_in_one_buffer) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = NULL;
  TG_OK(texmem_model_mobilenet_v2_sized(5, 32, &m, &tg_err_));
  texmem_gl_counters c0, c1;
  texmem_gl_counters_get(ctx, &c0);
  texmem_runtime_desc d = {.storage = TEXMEM_STORAGE_OBJECTS}; /* tensors in textures */
  texmem_runtime *rt = NULL;
  TG_OK(texmem_runtime_create(ctx, m, &d, &rt, &tg_err_));
  texmem_gl_counters_get(ctx, &c1);
  texmem_runtime_stats s;
  texmem_runtime_get_stats(rt, &s);
  cr_assert_eq(s.weight_buffers, 1);
  cr_assert_eq(c1.buffers_live - c0.buffers_live, 1);
  cr_assert_gt(s.weights_bytes, 3000000 / 2);
  texmem_runtime_destroy(rt);
  texmem_gl_counters_get(ctx, &c1);
  cr_assert_eq(c1.buffers_live, c0.buffers_live);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}
