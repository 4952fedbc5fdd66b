/* Texture pool: one texture per shared object with exact byte counts,
 * failure injection at every texture creation with nothing leaked, stale
 * handles, upload / read back through every target, format and layout. */
#include <math.h>
#include <stdio.h>

#include "gl_support.h"

#define R3(w, h, d, f, l) {0, {(w), (h), (d)}, (f), (l)}

/* Five tensors, a chain: 0 -> 1 -> 2 -> 3 -> 4 (each read by the next). */
static const texmem_record chain_rec[] = {
    R3(5, 4, 3, 0, 1), R3(7, 2, 2, 1, 2), R3(3, 6, 1, 2, 3), R3(4, 4, 4, 3, 4), R3(2, 3, 5, 4, 5)};
static const size_t chain_obj[] = {0, 1, 0, 1, 0};

static uint64_t expected_bytes(const texmem_plan *p, unsigned bpt) {
  uint64_t sum = 0;
  for (size_t o = 0; o < texmem_plan_object_count(p); o++) {
    uint64_t d[3];
    texmem_plan_object_dims(p, o, d);
    sum += d[0] * d[1] * d[2] * bpt;
  }
  return sum;
}

Test(gl_pool, exact_bytes_and_destroy_natural_arrays) {
  texmem_gl_context *ctx = tg_context();
  texmem_plan *plan = tg_manual_plan(chain_rec, 5, 3, chain_obj, 2);
  /* Object 0: max of 5x4x3, 3x6x1, 2x3x5 = 5x6x5; object 1: 7x4x4. */
  const uint64_t bytes16 = (5 * 6 * 5 + 7 * 4 * 4) * 8;
  cr_assert_eq(expected_bytes(plan, 8), bytes16);
  for (int fmt = 0; fmt < 2; fmt++) {
    texmem_gl_pool_desc d = {.plan = plan, .records = chain_rec, .record_count = 5, .dims = 3,
                             .format = fmt ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F};
    texmem_gl_pool *pool = NULL;
    texmem_gl_counters_reset(ctx);
    TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
    uint64_t want = fmt ? bytes16 : bytes16 * 2;
    cr_assert_eq(texmem_gl_pool_bytes(pool), want);
    cr_assert_eq(texmem_gl_pool_object_count(pool), 2);
    cr_assert_eq(texmem_gl_pool_tensor_count(pool), 5);
    texmem_gl_counters c;
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.textures_created, 2);
    cr_assert_eq(c.textures_live, 2);
    cr_assert_eq(c.bytes_allocated, want);
    /* Tensors resolve to their object's texture; shapes are logical. */
    cr_assert_eq(texmem_gl_pool_tensor_texture(pool, 2).id, texmem_gl_pool_object_texture(pool, 0).id);
    cr_assert_eq(texmem_gl_pool_tensor_texture(pool, 3).id, texmem_gl_pool_object_texture(pool, 1).id);
    cr_assert_eq(texmem_gl_pool_tensor_texture(pool, 5).id, 0);
    uint64_t s[3];
    cr_assert(texmem_gl_tensor_shape(pool, 2, s));
    cr_assert(s[0] == 3 && s[1] == 6 && s[2] == 1);
    texmem_gl_texture_desc td;
    TG_OK(texmem_gl_texture_get_desc(ctx, texmem_gl_pool_object_texture(pool, 0), &td, &tg_err_));
    cr_assert(td.dims[0] == 5 && td.dims[1] == 6 && td.dims[2] == 5);
    cr_assert_eq(td.target, TEXMEM_GL_TARGET_2D_ARRAY);
    GLuint names[2];
    texmem_gl_texture h[2];
    for (int o = 0; o < 2; o++) {
      h[o] = texmem_gl_pool_object_texture(pool, (size_t)o);
      names[o] = texmem__gl_texture_name(ctx, h[o]);
      cr_assert(glIsTexture(names[o]));
      GLint immutable = 0;
      glBindTexture(GL_TEXTURE_2D_ARRAY, names[o]);
      glGetTexParameteriv(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
      glBindTexture(GL_TEXTURE_2D_ARRAY, 0);
      cr_assert(immutable, "pool textures use immutable storage");
    }
    /* A pool's texture cannot be destroyed from outside. */
    texmem_gl_texture_destroy(ctx, h[0]);
    cr_assert(glIsTexture(names[0]));
    texmem_gl_pool_destroy(pool);
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.textures_live, 0);
    cr_assert_eq(c.bytes_allocated, 0);
    for (int o = 0; o < 2; o++) {
      cr_assert_not(glIsTexture(names[o]));
      texmem_error err = {0};
      cr_assert_eq(texmem_gl_texture_get_desc(ctx, h[o], &td, &err), TEXMEM_STATUS_STALE_HANDLE);
      cr_assert(strstr(err.message, "stale"), "%s", err.message);
    }
  }
  texmem_gl_pool_destroy(NULL);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

Test(gl_pool, targets_3d_2d_and_linear_bytes) {
  texmem_gl_context *ctx = tg_context();
  /* 3-D textures. */
  texmem_plan *plan = tg_manual_plan(chain_rec, 5, 3, chain_obj, 2);
  texmem_gl_pool_desc d = {.plan = plan, .records = chain_rec, .record_count = 5, .dims = 3,
                           .array_target = TEXMEM_GL_TARGET_3D};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  cr_assert_eq(texmem_gl_pool_bytes(pool), expected_bytes(plan, 16));
  texmem_gl_texture_desc td;
  TG_OK(texmem_gl_texture_get_desc(ctx, texmem_gl_pool_object_texture(pool, 1), &td, &tg_err_));
  cr_assert_eq(td.target, TEXMEM_GL_TARGET_3D);
  texmem_gl_pool_destroy(pool);
  /* Per-object formats. */
  const texmem_gl_format fmts[] = {TEXMEM_GL_RGBA16F, TEXMEM_GL_RGBA32F};
  d = (texmem_gl_pool_desc){.plan = plan, .records = chain_rec, .record_count = 5, .dims = 3,
                            .object_formats = fmts};
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  cr_assert_eq(texmem_gl_pool_bytes(pool), 5 * 6 * 5 * 8 + 7 * 4 * 4 * 16);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);

  /* 2-D records: GL_TEXTURE_2D. */
  const texmem_record r2[] = {{0, {9, 4, 0}, 0, 1}, {1, {3, 8, 0}, 1, 2}, {2, {5, 5, 0}, 2, 3}};
  const size_t o2[] = {0, 1, 0};
  plan = tg_manual_plan(r2, 3, 2, o2, 2);
  d = (texmem_gl_pool_desc){.plan = plan, .records = r2, .record_count = 3, .dims = 2,
                            .format = TEXMEM_GL_RGBA16F};
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  cr_assert_eq(texmem_gl_pool_bytes(pool), (9 * 5 + 3 * 8) * 8);
  TG_OK(texmem_gl_texture_get_desc(ctx, texmem_gl_pool_object_texture(pool, 0), &td, &tg_err_));
  cr_assert_eq(td.target, TEXMEM_GL_TARGET_2D);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);

  /* Linear layout from the planner: W-wide 2-D textures. */
  plan = tt_plan(chain_rec, 5, 3,
                 (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE,
                                    .layout = TEXMEM_LAYOUT_LINEAR, .linear_width = 16});
  d = (texmem_gl_pool_desc){.plan = plan, .records = chain_rec, .record_count = 5, .dims = 3};
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  cr_assert_eq(texmem_gl_pool_bytes(pool), expected_bytes(plan, 16));
  cr_assert_eq(texmem_gl_pool_bytes(pool), texmem_plan_total(plan) * 16);
  TG_OK(texmem_gl_texture_get_desc(ctx, texmem_gl_pool_object_texture(pool, 0), &td, &tg_err_));
  cr_assert(td.target == TEXMEM_GL_TARGET_2D && td.dims[0] == 16 && td.dims[1] == 4);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

/* GL_OUT_OF_MEMORY at the k-th texture creation, for every k: an error,
 * no pool, counters back to zero, no GL texture left; then it succeeds. */
Test(gl_pool, failure_at_every_creation_leaks_nothing) {
  texmem_gl_context *ctx = tg_context();
  enum { N = 9 };
  texmem_record r[N];
  size_t of[N];
  for (size_t i = 0; i < N; i++) {
    r[i] = (texmem_record){i, {2 + i, 3, 1 + i % 3}, i, i + 1};
    of[i] = i % 6; /* objects 0..5, some shared by tensors i and i + 6 */
  }
  texmem_plan *plan = tg_manual_plan(r, N, 3, of, 6);
  texmem_gl_pool_desc d = {.plan = plan, .records = r, .record_count = N, .dims = 3};
  for (uint64_t k = 1; k <= 7; k++) {
    texmem_gl_counters_reset(ctx);
    texmem__gl_fail_texture_creation(ctx, k);
    texmem_gl_pool *pool = (texmem_gl_pool *)1;
    texmem_error err = {0};
    texmem_status st = texmem_gl_pool_create(ctx, &d, &pool, &err);
    if (k == 7) {
      cr_assert_eq(st, TEXMEM_STATUS_OK, "%s", err.message);
      cr_assert_eq(texmem_gl_pool_object_count(pool), 6);
      texmem_gl_pool_destroy(pool);
    } else {
      cr_assert_eq(st, TEXMEM_STATUS_GL_OUT_OF_MEMORY, "k=%llu: %s", (unsigned long long)k,
                   texmem_status_name(st));
      cr_assert_null(pool);
      char want[64];
      snprintf(want, sizeof want, "object %llu of 6", (unsigned long long)(k - 1));
      cr_assert(strstr(err.message, want) && strstr(err.message, "GL_OUT_OF_MEMORY"), "%s",
                err.message);
      texmem_gl_counters c;
      texmem_gl_counters_get(ctx, &c);
      cr_assert_eq(c.textures_created, k - 1, "k=%llu", (unsigned long long)k);
    }
    texmem_gl_counters c;
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.textures_live, 0);
    cr_assert_eq(c.bytes_allocated, 0);
    cr_assert_eq(ctx->textures.live, 0);
    tg_assert_no_textures(256);
  }
  texmem__gl_fail_texture_creation(ctx, 0);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

Test(gl_pool, rejects_bad_plans_before_any_gl_call) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_pool *pool = NULL;
  texmem_error err = {0};
  /* Valid for records whose lifetimes never overlap, but given the chain's
   * records, where tensors 0 and 1 overlap in time and share object 0. */
  texmem_record apart[5];
  for (size_t i = 0; i < 5; i++) {
    apart[i] = chain_rec[i];
    apart[i].first_task = apart[i].last_task = i;
  }
  const size_t bad[] = {0, 0, 1, 1, 0};
  texmem_plan *plan = tg_manual_plan(apart, 5, 3, bad, 2);
  texmem_gl_pool_desc d = {.plan = plan, .records = chain_rec, .record_count = 5, .dims = 3};
  texmem_gl_counters_reset(ctx);
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_PLAN, "%s",
               err.message);
  cr_assert_null(pool);
  texmem_plan_destroy(plan);
  plan = tg_manual_plan(chain_rec, 5, 3, chain_obj, 2);
  d.plan = plan;
  d.record_count = 4;
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  d.record_count = 5;
  d.dims = 1;
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_UNSUPPORTED);
  d.dims = 3;
  d.format = (texmem_gl_format)7;
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  d.format = TEXMEM_GL_RGBA32F;
  cr_assert_eq(texmem_gl_pool_create(ctx, NULL, &pool, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_plan_destroy(plan);
  /* An object over the 3-D texture limit (but within 2-D array limits). */
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  const texmem_record big[] = {{0, {(uint64_t)l.max_3d_size + 1, 1, 1}, 0, 1}, {1, {1, 1, 1}, 1, 2}};
  const size_t bo[] = {1, 0};
  plan = tg_manual_plan(big, 2, 3, bo, 2);
  d = (texmem_gl_pool_desc){.plan = plan, .records = big, .record_count = 2, .dims = 3,
                            .array_target = TEXMEM_GL_TARGET_3D};
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_EXCEEDS_LIMITS);
  cr_assert(strstr(err.message, "object 1"), "%s", err.message);
  texmem_plan_destroy(plan);
  /* Offsets plans are not texture plans. */
  const texmem_record r1[] = {{0, {64, 1, 1}, 0, 1}};
  plan = tt_plan(r1, 1, 1, (texmem_plan_desc){.kind = TEXMEM_PLAN_OFFSETS,
                                              .strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE});
  d = (texmem_gl_pool_desc){.plan = plan, .records = r1, .record_count = 1, .dims = 3};
  cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_UNSUPPORTED);
  texmem_plan_destroy(plan);
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.textures_created, 0);
  texmem_gl_context_destroy(ctx);
}

Test(gl_pool, stale_handles_detected) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_texture_desc td = {.dims = {4, 4, 2}};
  texmem_gl_texture a, b;
  TG_OK(texmem_gl_texture_create(ctx, &td, &a, &tg_err_));
  texmem_gl_texture_destroy(ctx, a);
  /* The slot is reused with a new generation: the old id stays stale. */
  TG_OK(texmem_gl_texture_create(ctx, &td, &b, &tg_err_));
  cr_assert_eq(a.id & 0xffff, b.id & 0xffff);
  cr_assert_neq(a.id, b.id);
  texmem_gl_texture_desc out;
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_texture_get_desc(ctx, a, &out, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert_eq(texmem_gl_texture_get_desc(ctx, b, &out, &err), TEXMEM_STATUS_OK);
  cr_assert_eq(texmem_gl_texture_get_desc(ctx, (texmem_gl_texture){0}, &out, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_gl_texture_get_desc(ctx, (texmem_gl_texture){0xffff0fffu}, &out, &err),
               TEXMEM_STATUS_STALE_HANDLE);
  float buf[4 * 4 * 2 * 4] = {0};
  cr_assert_eq(texmem_gl_texture_upload(ctx, a, buf, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert_eq(texmem_gl_texture_read(ctx, a, buf, &err), TEXMEM_STATUS_STALE_HANDLE);
  texmem_gl_texture_destroy(ctx, a); /* stale: ignored, b survives */
  cr_assert_eq(texmem_gl_texture_get_desc(ctx, b, &out, &err), TEXMEM_STATUS_OK);
  /* Buffers and programs too. */
  texmem_gl_buffer buf_h;
  TG_OK(texmem_gl_buffer_create(ctx, NULL, 64, &buf_h, &tg_err_));
  texmem_gl_buffer_destroy(ctx, buf_h);
  texmem_gl_buffer_destroy(ctx, buf_h);
  cr_assert_null(texmem__gl_buf_get(ctx, buf_h));
  cr_assert_eq(texmem_gl_buffer_create(ctx, NULL, 10, &buf_h, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  /* An imported texture destroyed under the pool. */
  const texmem_record r[] = {{0, {4, 4, 2}, 0, 1}};
  const size_t o[] = {0};
  texmem_plan *plan = tg_manual_plan(r, 1, 3, o, 1);
  texmem_gl_pool_desc d = {.plan = plan, .records = r, .record_count = 1, .dims = 3};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  size_t w;
  const uint64_t shape[3] = {4, 4, 2};
  TG_OK(texmem_gl_pool_import(pool, b, shape, &w, &tg_err_));
  cr_assert_eq(w, 1);
  cr_assert_eq(texmem_gl_pool_import(pool, a, shape, &w, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert_eq(texmem_gl_pool_import(pool, texmem_gl_pool_object_texture(pool, 0), shape, &w, &err),
               TEXMEM_STATUS_INVALID_ARGUMENT);
  const uint64_t too_big[3] = {5, 4, 2};
  cr_assert_eq(texmem_gl_pool_import(pool, b, too_big, &w, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_gl_texture_destroy(ctx, b);
  cr_assert_eq(texmem_gl_tensor_upload(pool, 1, buf, &err), TEXMEM_STATUS_STALE_HANDLE);
  cr_assert(strstr(err.message, "tensor 1"), "%s", err.message);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
}

/* Upload then read back, through a tensor smaller than its object. */
static void round_trip(texmem_gl_context *ctx, texmem_gl_pool *pool, size_t tensor, bool fp16) {
  uint64_t s[3];
  cr_assert(texmem_gl_tensor_shape(pool, tensor, s));
  float *in = tg_fill(s, tensor + 1);
  size_t n = (size_t)(s[0] * s[1] * s[2]) * 4;
  if (fp16) in[0] = 1.0f / 3.0f; /* not representable: rounds */
  float *out = calloc(n, sizeof *out);
  TG_OK(texmem_gl_tensor_upload(pool, tensor, in, &tg_err_));
  TG_OK(texmem_gl_tensor_read(pool, tensor, out, &tg_err_));
  for (size_t i = 0; i < n; i++) {
    float want = fp16 ? texmem__f16_to_f32(texmem__f32_to_f16(in[i])) : in[i];
    cr_assert_eq(out[i], want, "tensor %zu value %zu: %g != %g", tensor, i, out[i], want);
  }
  if (fp16) cr_assert_neq(out[0], 1.0f / 3.0f);
  free(in);
  free(out);
  (void)ctx;
}

Test(gl_pool, upload_read_back_every_target_format_layout) {
  texmem_gl_context *ctx = tg_context();
  for (int variant = 0; variant < 6; variant++) {
    bool fp16 = variant & 1;
    texmem_plan *plan;
    texmem_gl_pool_desc d = {.records = chain_rec, .record_count = 5, .dims = 3,
                             .format = fp16 ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F};
    if (variant < 2) {
      plan = tg_manual_plan(chain_rec, 5, 3, chain_obj, 2);
    } else if (variant < 4) {
      plan = tg_manual_plan(chain_rec, 5, 3, chain_obj, 2);
      d.array_target = TEXMEM_GL_TARGET_3D;
    } else {
      plan = tt_plan(chain_rec, 5, 3,
                     (texmem_plan_desc){.strategy = TEXMEM_STRATEGY_NAIVE,
                                        .layout = TEXMEM_LAYOUT_LINEAR, .linear_width = 7});
    }
    d.plan = plan;
    texmem_gl_pool *pool = NULL;
    TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
    for (size_t t = 0; t < 5; t++) round_trip(ctx, pool, t, fp16);
    texmem_gl_pool_destroy(pool);
    texmem_plan_destroy(plan);
  }
  /* 2-D records on GL_TEXTURE_2D. */
  const texmem_record r2[] = {{0, {9, 4, 0}, 0, 1}, {1, {3, 8, 0}, 1, 2}};
  const size_t o2[] = {0, 1};
  texmem_plan *plan = tg_manual_plan(r2, 2, 2, o2, 2);
  texmem_gl_pool_desc d = {.plan = plan, .records = r2, .record_count = 2, .dims = 2};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
  round_trip(ctx, pool, 0, false);
  round_trip(ctx, pool, 1, false);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  /* Whole standalone texture. */
  texmem_gl_texture_desc td = {.dims = {6, 5, 3}, .format = TEXMEM_GL_RGBA16F,
                               .target = TEXMEM_GL_TARGET_3D};
  texmem_gl_texture t;
  TG_OK(texmem_gl_texture_create(ctx, &td, &t, &tg_err_));
  float *in = tg_fill(td.dims, 99), out[6 * 5 * 3 * 4];
  TG_OK(texmem_gl_texture_upload(ctx, t, in, &tg_err_));
  TG_OK(texmem_gl_texture_read(ctx, t, out, &tg_err_));
  cr_assert_arr_eq(in, out, sizeof out); /* quarter steps: exact in fp16 */
  free(in);
  texmem_gl_context_destroy(ctx); /* frees t */
}

Test(gl_fp16, conversion_round_trips_and_rounds_to_even) {
  for (uint32_t h = 0; h < 65536; h++) {
    float f = texmem__f16_to_f32((uint16_t)h);
    if (isnan(f)) {
      cr_assert(isnan(texmem__f16_to_f32(texmem__f32_to_f16(f))));
      continue;
    }
    cr_assert_eq(texmem__f32_to_f16(f), h, "half 0x%04x", h);
  }
  cr_assert_eq(texmem__f32_to_f16(1.0f), 0x3c00);
  cr_assert_eq(texmem__f32_to_f16(65504.0f), 0x7bff);
  cr_assert_eq(texmem__f32_to_f16(65520.0f), 0x7c00);          /* rounds up to inf */
  cr_assert_eq(texmem__f32_to_f16(1.0f + 1.0f / 2048), 0x3c00); /* tie to even */
  cr_assert_eq(texmem__f32_to_f16(1.0f + 3.0f / 2048), 0x3c02);
  cr_assert_eq(texmem__f32_to_f16(ldexpf(1.0f, -25)), 0x0000); /* tie to even: 0 */
  cr_assert_eq(texmem__f32_to_f16(ldexpf(1.5f, -25)), 0x0001);
  cr_assert_eq(texmem__f32_to_f16(-2.0f), 0xc000);
  cr_assert_eq(texmem__f32_to_f16(1e-10f), 0);
}

/* Arena storage: exact bytes (W x rows per arena texture), tensors at their
 * base rows round-trip; with a small forced height the arena splits, and
 * GL_OUT_OF_MEMORY at the k-th arena texture, for every k, leaves nothing
 * behind; a bad arena plan is refused before any GL call. */
Test(gl_pool, arena_exact_bytes_split_and_failure_at_every_creation) {
  texmem_gl_context *ctx = tg_context();
  enum { N = 12 };
  texmem_record r[N];
  for (size_t i = 0; i < N; i++) r[i] = (texmem_record){i, {5 + i, 3, 1 + i % 3}, i, i + 2};
  texmem_plan_desc pd = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                         .linear_width = 16};
  texmem_plan *one = tt_plan(r, N, 3, pd);
  pd.max_dims[1] = 12;
  texmem_plan *split = tt_plan(r, N, 3, pd);
  size_t k = texmem_plan_object_count(split);
  cr_assert_eq(texmem_plan_object_count(one), 1);
  cr_assert_gt(k, 1);
  for (int which = 0; which < 2; which++) {
    texmem_plan *plan = which ? split : one;
    texmem_gl_pool_desc d = {.plan = plan, .storage = TEXMEM_STORAGE_ARENA, .records = r,
                             .record_count = N, .dims = 3, .format = TEXMEM_GL_RGBA16F,
                             .reuse_checker = true};
    texmem_gl_pool *pool = NULL;
    TG_OK(texmem_gl_pool_create(ctx, &d, &pool, &tg_err_));
    cr_assert_eq(texmem_gl_pool_bytes(pool), texmem_plan_total(plan) * 8);
    cr_assert_eq(texmem_gl_pool_object_count(pool), texmem_plan_object_count(plan));
    texmem_gl_texture_desc td;
    TG_OK(texmem_gl_texture_get_desc(ctx, texmem_gl_pool_object_texture(pool, 0), &td, &tg_err_));
    cr_assert(td.target == TEXMEM_GL_TARGET_2D && td.dims[0] == 16, "%llu",
              (unsigned long long)td.dims[0]);
    /* Tensors live together sit on disjoint rows: all of 0..2 round-trip. */
    for (size_t t = 0; t < 3; t++) {
      cr_assert_eq(texmem_gl_pool_tensor_texture(pool, t).id,
                   texmem_gl_pool_object_texture(pool, texmem_plan_tensor_object(plan, t)).id);
      round_trip(ctx, pool, t, true);
    }
    texmem_gl_pool_destroy(pool);
  }
  texmem_gl_pool_desc d = {.plan = split, .storage = TEXMEM_STORAGE_ARENA, .records = r,
                           .record_count = N, .dims = 3};
  for (uint64_t f = 1; f <= k + 1; f++) {
    texmem_gl_counters_reset(ctx);
    texmem__gl_fail_texture_creation(ctx, f);
    texmem_gl_pool *pool = (texmem_gl_pool *)1;
    texmem_error err = {0};
    texmem_status st = texmem_gl_pool_create(ctx, &d, &pool, &err);
    if (f == k + 1) {
      cr_assert_eq(st, TEXMEM_STATUS_OK, "%s", err.message);
      texmem_gl_pool_destroy(pool);
    } else {
      cr_assert_eq(st, TEXMEM_STATUS_GL_OUT_OF_MEMORY, "f=%llu: %s", (unsigned long long)f,
                   err.message);
      cr_assert_null(pool);
      char want[64];
      snprintf(want, sizeof want, "object %llu of %zu", (unsigned long long)(f - 1), k);
      cr_assert(strstr(err.message, want), "%s", err.message);
    }
    texmem_gl_counters c;
    texmem_gl_counters_get(ctx, &c);
    cr_assert_eq(c.textures_live, 0);
    cr_assert_eq(c.bytes_allocated, 0);
    cr_assert_eq(ctx->textures.live, 0);
    tg_assert_no_textures(256);
  }
  texmem__gl_fail_texture_creation(ctx, 0);
  /* Overlapping rows and rows past the texture: a plan made for other
   * records (valid for them) meets the real ones at the pool, whose
   * validator refuses it before any GL call. A misaligned base row cannot
   * reach the pool: texmem_plan_from_assignment refuses it. */
  texmem_gl_counters_reset(ctx);
  for (int bad = 0; bad < 3; bad++) {
    texmem_record lie[N];
    memcpy(lie, r, sizeof lie);
    size_t obj[N] = {0};
    uint64_t row[N] = {0};
    for (size_t i = 0; i < N; i++) lie[i].first_task = lie[i].last_task = i; /* all apart */
    if (bad == 2) lie[N - 1].dims[0] = 1; /* one row in the lie, more in truth */
    if (bad == 1) row[N - 1] = 1;
    texmem_plan_assignment a = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                                .linear_width = 16, .object_of = obj, .offset = row,
                                .alignment = bad == 1 ? 4 : 0};
    texmem_plan *p = NULL;
    texmem_error err = {0};
    texmem_status st = texmem_plan_from_assignment(lie, N, 3, &a, &p, &err);
    if (bad == 1) {
      cr_assert_eq(st, TEXMEM_STATUS_INVALID_PLAN, "%s", err.message);
      cr_assert(strstr(err.message, "alignment"), "%s", err.message);
      continue;
    }
    cr_assert_eq(st, TEXMEM_STATUS_OK, "%s", err.message);
    d.plan = p;
    texmem_gl_pool *pool = NULL;
    cr_assert_eq(texmem_gl_pool_create(ctx, &d, &pool, &err), TEXMEM_STATUS_INVALID_PLAN,
                 "case %d", bad);
    cr_assert_null(pool);
    cr_log_info("bad arena plan %d: %s", bad, err.message);
    texmem_plan_destroy(p);
  }
  texmem_gl_counters c;
  texmem_gl_counters_get(ctx, &c);
  cr_assert_eq(c.textures_created, 0);
  texmem_plan_destroy(one);
  texmem_plan_destroy(split);
  texmem_gl_context_destroy(ctx);
}
