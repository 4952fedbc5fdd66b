/* Precision of what shaders store and read: an RGBA16F store rounds to the
 * nearest binary16 value (ties to even) on every driver, and binary16
 * buffers read back exactly through NAME_at. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gl_support.h"

/* A pool of one tensor of 2x1x1 texels in `format`; the program writes
 * uniform v0 to texel 0 and v1 to texel 1 (a buffer's first vec4s when it
 * has one). */
static const char *const k_store_src =
    "uniform highp vec4 v0, v1;\n"
    "void main() {\n"
    "  highp ivec3 p = ivec3(gl_GlobalInvocationID);\n"
    "  if (!dst_inside(p)) return;\n"
    "#ifdef FROM_BUFFER\n"
    "  dst_write(p, weights_at(p.x));\n"
    "#else\n"
    "  dst_write(p, p.x == 0 ? v0 : v1);\n"
    "#endif\n"
    "}\n";

typedef struct one_tensor {
  texmem_plan *plan;
  texmem_gl_pool *pool;
} one_tensor;

/* storage: OBJECTS (a texture) or BUFFER (a buffer arena of width 1). */
static one_tensor one_tensor_pool(texmem_gl_context *ctx, texmem_gl_format format,
                                  texmem_storage storage) {
  static const texmem_record r[] = {{0, {2, 1, 1}, 0, 0}};
  static const size_t of[] = {0};
  static const uint64_t row[] = {0};
  one_tensor t = {storage == TEXMEM_STORAGE_BUFFER ? tg_manual_arena_plan(r, 1, 3, 1, of, row, 1)
                                                   : tg_manual_plan(r, 1, 3, of, 1),
                  NULL};
  texmem_gl_pool_desc pd = {.plan = t.plan, .records = r, .record_count = 1, .dims = 3,
                            .format = format, .storage = storage};
  TG_OK(texmem_gl_pool_create(ctx, &pd, &t.pool, &tg_err_));
  return t;
}

static void one_tensor_free(one_tensor *t) {
  texmem_gl_pool_destroy(t->pool);
  texmem_plan_destroy(t->plan);
}

/* Stores v0, v1 through a program into an RGBA16F tensor; out: 8 floats. */
static void store_fp16(texmem_gl_context *ctx, texmem_storage storage, const float v0[4],
                       const float v1[4], float *out) {
  static const char *const dst[] = {"dst"};
  texmem_gl_program_desc d = {.name = "store", .source = k_store_src, .outputs = dst,
                              .n_outputs = 1, .local_size = {2, 1, 1}};
  texmem_gl_program prog;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  one_tensor t = one_tensor_pool(ctx, TEXMEM_GL_RGBA16F, storage);
  texmem_gl_uniform u[2] = {{.name = "v0", .type = TEXMEM_GL_VEC4},
                            {.name = "v1", .type = TEXMEM_GL_VEC4}};
  memcpy(u[0].f, v0, sizeof u[0].f);
  memcpy(u[1].f, v1, sizeof u[1].f);
  const size_t t0 = 0;
  texmem_gl_op op = {.program = prog, .outputs = &t0, .n_outputs = 1, .uniforms = u,
                     .n_uniforms = 2};
  TG_OK(texmem_gl_run(t.pool, &op, 1, NULL, &tg_err_));
  TG_OK(texmem_gl_tensor_read(t.pool, 0, out, &tg_err_));
  one_tensor_free(&t);
  texmem_gl_program_destroy(ctx, prog);
}

/* Values between two binary16 neighbours: a truncating store gives the
 * lower magnitude of each, round to nearest the one named; past the largest
 * half, both saturate. The same in a texture and in a buffer arena. */
Test(gl_precision, fp16_stores_round_to_nearest_even) {
  texmem_gl_context *ctx = tg_context();
  const float u10 = ldexpf(1.0f, -10), u24 = ldexpf(1.0f, -24);
  const float v0[4] = {1.0f + 0.75f * u10, 1.0f + 0.5f * u10, 1.0f + 1.5f * u10,
                       -(1.0f + 0.75f * u10)};
  const float v1[4] = {0.75f * u24, 1.5f * u24, 65519.0f, -70000.0f};
  const float want[8] = {
      1.0f + u10,    /* above the midpoint: up (truncation: 1) */
      1.0f,          /* a tie: to the even neighbour, 1 */
      1.0f + 2 * u10, /* a tie: to the even neighbour, up (truncation: 1 + u10) */
      -(1.0f + u10), /* the same magnitude rule below zero */
      u24,           /* subnormal: 0.75 of the step rounds up (truncation: 0) */
      2 * u24,       /* subnormal tie: to even (truncation: u24) */
      65504.0f,      /* below the midpoint to infinity: the largest half */
      -65504.0f};    /* past it: saturated, not infinite */
  for (int s = 0; s < 2; s++) {
    float out[8];
    store_fp16(ctx, s ? TEXMEM_STORAGE_BUFFER : TEXMEM_STORAGE_OBJECTS, v0, v1, out);
    for (int i = 0; i < 8; i++)
      cr_assert_eq(out[i], want[i], "%s value %d: stored %.9g, the nearest half is %.9g",
                   s ? "buffer" : "texture", i, out[i], want[i]);
  }
  texmem_gl_context_destroy(ctx);
}

/* A binary16 buffer read through NAME_at gives its halves exactly; a
 * half_buffers bit past the program's buffers is refused. */
Test(gl_precision, half_buffers_read_exactly) {
  texmem_gl_context *ctx = tg_context();
  static const char *const dst[] = {"dst"}, *const bufs[] = {"weights"};
  char src[1024];
  snprintf(src, sizeof src, "#define FROM_BUFFER 1\n%s", k_store_src);
  texmem_gl_program_desc d = {.name = "from_half_buffer", .source = src, .outputs = dst,
                              .n_outputs = 1, .buffers = bufs, .n_buffers = 1,
                              .local_size = {2, 1, 1}, .half_buffers = 1};
  texmem_gl_program prog;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  /* 1.5, -2.25, 65504, 2^-24; 0.1 (0x2E66), -0, 1024, 3.0 */
  const uint16_t halves[8] = {0x3E00, 0xC080, 0x7BFF, 0x0001, 0x2E66, 0x8000, 0x6400, 0x4200};
  const float want[8] = {1.5f, -2.25f, 65504.0f, ldexpf(1.0f, -24), 0.0999755859375f, -0.0f,
                         1024.0f, 3.0f};
  texmem_gl_buffer b;
  TG_OK(texmem_gl_buffer_create(ctx, halves, sizeof halves, &b, &tg_err_));
  one_tensor t = one_tensor_pool(ctx, TEXMEM_GL_RGBA32F, TEXMEM_STORAGE_OBJECTS);
  const size_t t0 = 0;
  texmem_gl_op op = {.program = prog, .outputs = &t0, .n_outputs = 1, .buffers = &b,
                     .n_buffers = 1};
  TG_OK(texmem_gl_run(t.pool, &op, 1, NULL, &tg_err_));
  float out[8];
  TG_OK(texmem_gl_tensor_read(t.pool, 0, out, &tg_err_));
  for (int i = 0; i < 8; i++)
    cr_assert(out[i] == want[i] && signbit(out[i]) == signbit(want[i]),
              "half %d (0x%04x): read %.9g, want %.9g", i, halves[i], out[i], want[i]);
  one_tensor_free(&t);
  texmem_gl_buffer_destroy(ctx, b);
  texmem_gl_program_destroy(ctx, prog);

  d.half_buffers = 2; /* buffer 1 does not exist */
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &prog, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "half_buffers"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
}

/* A scratch buffer: each of 32 work groups stores a word and counts itself
 * (NAME_store, NAME_add), and the one that counts last (a count that only
 * grows, so a multiple of 32 every run) reads every group's word and the
 * count (NAME_load) into dst: all 32 stores are seen there, in each of two
 * runs. A scratch bit past the buffers, or on a binary16 one, is refused. */
Test(gl_precision, scratch_buffers_seen_by_the_last_group) {
  static const char *const src =
      "shared bool last;\n"
      "void main() {\n"
      "  highp uint g = gl_WorkGroupID.x, n = gl_NumWorkGroups.x;\n"
      "  if (gl_LocalInvocationIndex == 0u) {\n"
      "    cnt_store(1 + int(g), g * 3u + 1u);\n"
      "    memoryBarrierBuffer();\n"
      "    last = (cnt_add(0, 1u) + 1u) % n == 0u;\n"
      "  }\n"
      "  barrier();\n"
      "  if (last && gl_LocalInvocationIndex == 0u) {\n"
      "    memoryBarrierBuffer();\n"
      "    highp uint sum = 0u;\n"
      "    for (highp int i = 1; i <= int(n); i++) sum += cnt_load(i);\n"
      "    dst_write(ivec3(0), vec4(float(cnt_load(0)), float(sum), 0.0, 0.0));\n"
      "  }\n"
      "}\n";
  texmem_gl_context *ctx = tg_context();
  static const char *const dst[] = {"dst"}, *const bufs[] = {"cnt"};
  texmem_gl_program_desc d = {.name = "scratch",
                              .source = src,
                              .outputs = dst,
                              .n_outputs = 1,
                              .buffers = bufs,
                              .n_buffers = 1,
                              .local_size = {4, 1, 1},
                              .scratch_buffers = 1};
  texmem_gl_program prog;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  const uint32_t zeros[36] = {0};
  texmem_gl_buffer b;
  TG_OK(texmem_gl_buffer_create(ctx, zeros, sizeof zeros, &b, &tg_err_));
  one_tensor t = one_tensor_pool(ctx, TEXMEM_GL_RGBA32F, TEXMEM_STORAGE_OBJECTS);
  const size_t t0 = 0;
  texmem_gl_op op = {.program = prog,
                     .outputs = &t0,
                     .n_outputs = 1,
                     .buffers = &b,
                     .n_buffers = 1,
                     .groups = {32, 1, 1}};
  for (int run = 1; run <= 2; run++) {
    TG_OK(texmem_gl_run(t.pool, &op, 1, NULL, &tg_err_));
    float out[8];
    TG_OK(texmem_gl_tensor_read(t.pool, 0, out, &tg_err_));
    cr_assert(out[0] == 32.0f * run && out[1] == 3.0f * 496 + 32, "run %d: count %g, words' sum %g",
              run, out[0], out[1]);
  }
  one_tensor_free(&t);
  texmem_gl_buffer_destroy(ctx, b);
  texmem_gl_program_destroy(ctx, prog);

  texmem_error err = {0};
  d.scratch_buffers = 2; /* buffer 1 does not exist */
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &prog, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "scratch_buffers"), "%s", err.message);
  d.scratch_buffers = d.half_buffers = 1;
  cr_assert_eq(texmem_gl_program_create(ctx, &d, &prog, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert(strstr(err.message, "binary16 and scratch"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
}

/* A BUFFER "texture" (an SSBO of texels) uploads and reads back exactly in
 * both formats, through the same accessors as an image; its limits are on
 * its texels (width x height). */
Test(gl_precision, buffer_targets_round_trip) {
  texmem_gl_context *ctx = tg_context();
  const uint64_t dims[3] = {5, 3, 1};
  float *data = tg_fill(dims, 9); /* quarter steps in [-3, 12]: exact in binary16 */
  for (int fmt = 0; fmt < 2; fmt++) {
    texmem_gl_texture_desc d = {.dims = {5, 3, 1}, .target = TEXMEM_GL_TARGET_BUFFER,
                                .format = fmt ? TEXMEM_GL_RGBA16F : TEXMEM_GL_RGBA32F};
    texmem_gl_texture t;
    TG_OK(texmem_gl_texture_create(ctx, &d, &t, &tg_err_));
    TG_OK(texmem_gl_texture_upload(ctx, t, data, &tg_err_));
    float out[5 * 3 * 4];
    TG_OK(texmem_gl_texture_read(ctx, t, out, &tg_err_));
    for (int i = 0; i < 5 * 3 * 4; i++)
      cr_assert_eq(out[i], data[i], "format %d value %d: %g != %g", fmt, i, out[i], data[i]);
    texmem_gl_texture_destroy(ctx, t);
  }
  free(data);
  uint64_t max[3];
  texmem_gl_max_dims(ctx, TEXMEM_GL_TARGET_BUFFER, max);
  cr_assert_eq(max[0], 1);
  cr_assert_eq(max[2], 1);
  cr_assert_gt(max[1], 1u << 20, "SSBOs of at least 16 MiB (GLES 3.1 guarantees 128 MiB)");
  texmem_gl_texture_desc big = {.dims = {max[1], 2, 1}, .target = TEXMEM_GL_TARGET_BUFFER};
  texmem_gl_texture t;
  texmem_error err = {0};
  cr_assert_eq(texmem_gl_texture_create(ctx, &big, &t, &err), TEXMEM_STATUS_EXCEEDS_LIMITS);
  cr_assert(strstr(err.message, "BUFFER"), "%s", err.message);
  texmem_gl_context_destroy(ctx);
}
