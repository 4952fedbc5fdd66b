/* Helpers for the GL tests (header only).
 *
 * Skip policy: a GL test may skip only when no GLES 3.1 context can be
 * created; with TEXMEM_REQUIRE_GL=1 in the environment (CI) that is a
 * failure instead. */
#ifndef TEXMEM_TESTS_GL_SUPPORT_H
#define TEXMEM_TESTS_GL_SUPPORT_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"
#include "support.h"
#include "texmem/gl.h"

static inline bool tg_require_gl(void) {
  const char *v = getenv("TEXMEM_REQUIRE_GL");
  return v && strcmp(v, "0") != 0 && *v;
}

/* A fresh context (made current), or skip / fail as above. */
static inline texmem_gl_context *tg_context_desc(const texmem_gl_context_desc *desc) {
  texmem_gl_context *ctx = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_gl_context_create(desc, &ctx, &err);
  if (st != TEXMEM_STATUS_OK) {
    if (tg_require_gl())
      cr_assert_fail("TEXMEM_REQUIRE_GL is set but no GLES 3.1 context: %s: %s",
                     texmem_status_name(st), err.message);
    cr_skip_test("no GLES 3.1 context: %s", err.message);
  }
  cr_assert_not_null(ctx);
  return ctx;
}
static inline texmem_gl_context *tg_context(void) { return tg_context_desc(NULL); }

/* A test shader embedded from tests/shaders/ by file name; NULL if none. */
typedef struct texmem__shader_file {
  const char *name;
  const char *source;
} texmem__shader_file;
extern const texmem__shader_file tg_shader_files[];
static inline const char *tg_shader_source(const char *file_name) {
  for (const texmem__shader_file *f = tg_shader_files; f->name; f++)
    if (!strcmp(f->name, file_name)) return f->source;
  return NULL;
}

/* Asserts OK; call may use tg_err_ (a texmem_error) for its message. */
#define TG_OK(call)                                                                  \
  do {                                                                               \
    texmem_error tg_err_ = {0};                                                      \
    texmem_status tg_st_ = (call);                                                   \
    cr_assert_eq(tg_st_, TEXMEM_STATUS_OK, "%s: %s: %s", #call, texmem_status_name(tg_st_), \
                 tg_err_.message);                                                   \
  } while (0)

/* A shared-objects plan with a given tensor -> object assignment (so tests
 * control exactly which tensors share a texture), made and validated by
 * texmem_plan_from_assignment; k is the object count the test expects.
 * Free with texmem_plan_destroy. */
static inline texmem_plan *tg_manual_plan(const texmem_record *rec, size_t n, unsigned dims,
                                          const size_t *object_of, size_t k) {
  texmem_plan_assignment a = {.object_of = object_of};
  texmem_plan *p = NULL;
  TG_OK(texmem_plan_from_assignment(rec, n, dims, &a, &p, &tg_err_));
  cr_assert_eq(texmem_plan_object_count(p), k);
  return p;
}

/* An arena plan: width w, tensor i in arena texture object_of[i] at base
 * row row[i]; each texture as tall as its tensors reach (validated). */
static inline texmem_plan *tg_manual_arena_plan(const texmem_record *rec, size_t n,
                                                unsigned dims, uint64_t w,
                                                const size_t *object_of, const uint64_t *row,
                                                size_t k) {
  texmem_plan_assignment a = {.kind = TEXMEM_PLAN_OFFSETS, .layout = TEXMEM_LAYOUT_LINEAR,
                              .linear_width = w, .object_of = object_of, .offset = row};
  texmem_plan *p = NULL;
  TG_OK(texmem_plan_from_assignment(rec, n, dims, &a, &p, &tg_err_));
  cr_assert_eq(texmem_plan_object_count(p), k);
  return p;
}

/* A pool of one always-live tensor of shape (w, h, d) in a texture of its
 * own, of format; *plan is its plan (destroy it after the pool). */
static inline texmem_gl_pool *tg_single_tensor_pool(texmem_gl_context *ctx, uint64_t w,
                                                    uint64_t h, uint64_t d,
                                                    texmem_gl_format format,
                                                    texmem_plan **plan) {
  const texmem_record r[] = {{0, {w, h, d}, 0, 0}};
  const size_t of[] = {0};
  *plan = tg_manual_plan(r, 1, 3, of, 1);
  texmem_gl_pool_desc pd = {.plan = *plan, .records = r, .record_count = 1, .dims = 3,
                            .format = format};
  texmem_gl_pool *pool = NULL;
  TG_OK(texmem_gl_pool_create(ctx, &pd, &pool, &tg_err_));
  return pool;
}

/* Deterministic test data: value of texel component c of tensor `salt`. */
static inline float tg_value(uint64_t salt, size_t i, int c) {
  return (float)((salt * 131 + i * 7 + (size_t)c * 3) % 61) * 0.25f - 3.0f;
}

static inline float *tg_fill(const uint64_t shape[3], uint64_t salt) {
  size_t n = (size_t)(shape[0] * shape[1] * shape[2]);
  float *d = malloc(n * 4 * sizeof *d);
  cr_assert_not_null(d);
  for (size_t i = 0; i < n; i++)
    for (int c = 0; c < 4; c++) d[i * 4 + c] = tg_value(salt, i, c);
  return d;
}

/* No GL texture name in 1..max exists (nothing leaked in GL). */
static inline void tg_assert_no_textures(GLuint max) {
  for (GLuint name = 1; name <= max; name++)
    cr_assert_not(glIsTexture(name), "GL texture %u still exists", name);
}

#endif
