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
static inline texmem_gl_context *tg_context(void) {
  texmem_gl_context *ctx = NULL;
  texmem_error err = {0};
  texmem_status st = texmem_gl_context_create(NULL, &ctx, &err);
  if (st != TEXMEM_STATUS_OK) {
    if (tg_require_gl())
      cr_assert_fail("TEXMEM_REQUIRE_GL is set but no GLES 3.1 context: %s: %s",
                     texmem_status_name(st), err.message);
    cr_skip_test("no GLES 3.1 context: %s", err.message);
  }
  cr_assert_not_null(ctx);
  return ctx;
}

/* Asserts OK; call may use tg_err_ (a texmem_error) for its message. */
#define TG_OK(call)                                                                  \
  do {                                                                               \
    texmem_error tg_err_ = {0};                                                      \
    texmem_status tg_st_ = (call);                                                   \
    cr_assert_eq(tg_st_, TEXMEM_STATUS_OK, "%s: %s: %s", #call, texmem_status_name(tg_st_), \
                 tg_err_.message);                                                   \
  } while (0)

/* A shared-objects plan with a given tensor -> object assignment, made by
 * hand (so tests control exactly which tensors share a texture). Object
 * dims are the per-dimension max of their tensors. It is run through the
 * validator when expect_valid; free with texmem_plan_destroy. */
static inline texmem_plan *tg_manual_plan(const texmem_record *rec, size_t n, unsigned dims,
                                          const size_t *object_of, size_t k, bool expect_valid) {
  texmem_plan *p = calloc(1, sizeof *p);
  cr_assert_not_null(p);
  p->object_dims = calloc(k ? k : 1, sizeof *p->object_dims);
  p->object_size = calloc(k ? k : 1, sizeof *p->object_size);
  p->object_of = calloc(n ? n : 1, sizeof *p->object_of);
  p->offset = calloc(n ? n : 1, sizeof *p->offset);
  cr_assert(p->object_dims && p->object_size && p->object_of && p->offset);
  p->kind = TEXMEM_PLAN_OBJECTS;
  p->strategy = TEXMEM_STRATEGY_NAIVE;
  p->layout = TEXMEM_LAYOUT_NATURAL;
  p->dims = dims;
  p->n_tensors = n;
  p->n_objects = k;
  p->alignment = 1;
  for (size_t i = 0; i < n; i++) {
    cr_assert_lt(object_of[i], k);
    p->object_of[i] = object_of[i];
    for (unsigned j = 0; j < 3; j++) {
      uint64_t d = j < dims && rec[i].dims[j] ? rec[i].dims[j] : 1;
      if (d > p->object_dims[object_of[i]][j]) p->object_dims[object_of[i]][j] = d;
    }
  }
  for (size_t o = 0; o < k; o++) {
    for (unsigned j = 0; j < 3; j++)
      if (!p->object_dims[o][j]) p->object_dims[o][j] = 1;
    p->object_size[o] = p->object_dims[o][0] * p->object_dims[o][1] * p->object_dims[o][2];
    p->total += p->object_size[o];
  }
  if (expect_valid) {
    texmem_error err = {0};
    cr_assert_eq(texmem_plan_validate(rec, n, dims, p, &err), TEXMEM_STATUS_OK,
                 "hand-made plan is invalid: %s", err.message);
  }
  return p;
}

/* A hand-made arena plan: width w, tensor i in arena texture object_of[i]
 * at base row row[i]; each texture as tall as its tensors reach. Run
 * through the validator when expect_valid; free with texmem_plan_destroy. */
static inline texmem_plan *tg_manual_arena_plan(const texmem_record *rec, size_t n,
                                                unsigned dims, uint64_t w,
                                                const size_t *object_of, const uint64_t *row,
                                                size_t k, bool expect_valid) {
  texmem_plan *p = calloc(1, sizeof *p);
  cr_assert_not_null(p);
  p->object_dims = calloc(k ? k : 1, sizeof *p->object_dims);
  p->object_size = calloc(k ? k : 1, sizeof *p->object_size);
  p->object_of = calloc(n ? n : 1, sizeof *p->object_of);
  p->offset = calloc(n ? n : 1, sizeof *p->offset);
  cr_assert(p->object_dims && p->object_size && p->object_of && p->offset);
  p->kind = TEXMEM_PLAN_OFFSETS;
  p->strategy = TEXMEM_STRATEGY_GREEDY_BY_SIZE;
  p->layout = TEXMEM_LAYOUT_LINEAR;
  p->dims = dims;
  p->n_tensors = n;
  p->n_objects = k;
  p->alignment = 1;
  p->linear_width = w;
  for (size_t i = 0; i < n; i++) {
    cr_assert_lt(object_of[i], k);
    uint64_t v = 1;
    for (unsigned j = 0; j < dims; j++) v *= rec[i].dims[j] ? rec[i].dims[j] : 1;
    uint64_t end = row[i] + (v + w - 1) / w;
    p->object_of[i] = object_of[i];
    p->offset[i] = row[i];
    if (end > p->object_dims[object_of[i]][1]) p->object_dims[object_of[i]][1] = end;
  }
  for (size_t o = 0; o < k; o++) {
    p->object_dims[o][0] = w;
    p->object_dims[o][2] = 1;
    p->object_size[o] = w * p->object_dims[o][1];
    p->total += p->object_size[o];
  }
  if (expect_valid) {
    texmem_error err = {0};
    cr_assert_eq(texmem_plan_validate(rec, n, dims, p, &err), TEXMEM_STATUS_OK,
                 "hand-made arena plan is invalid: %s", err.message);
  }
  return p;
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
