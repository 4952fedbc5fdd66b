/* Driver memory: the context says which source it has (none on llvmpipe,
 * in words); an injected query stands for a driver's, so the reading path
 * runs without a GPU; a source that fails is an error, never a guess. */
#include <stdio.h>

#include "gl_support.h"

/* A fake driver count: each reading returns the next value. */
typedef struct fake {
  int64_t values[4];
  size_t n, next;
} fake;

static bool fake_query(void *user, int64_t *used) {
  fake *f = user;
  if (f->next >= f->n) return false;
  *used = f->values[f->next++];
  return true;
}

Test(gl_driver_memory, source_is_described) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_info in;
  texmem_gl_context_info(ctx, &in);
  const char *why = NULL;
  texmem_gl_memory_source s = texmem_gl_memory_support(ctx, &why);
  cr_assert(why && strstr(why, "driver memory: "), "%s", why ? why : "(null)");
  texmem_gl_memory_reading r;
  texmem_error err = {0};
  if (s == TEXMEM_GL_MEMORY_NONE) {
    cr_expect_not_null(strstr(why, "no query on this driver"), "%s", why);
    cr_expect_eq(texmem_gl_memory_read(ctx, &r, &err), TEXMEM_STATUS_UNSUPPORTED);
    cr_expect_not_null(strstr(err.message, "no query on this driver"), "%s", err.message);
  } else {
    TG_OK(texmem_gl_memory_read(ctx, &r, &tg_err_));
    cr_expect_neq(r.source, TEXMEM_GL_MEMORY_NONE);
  }
  if (strstr(in.renderer, "llvmpipe")) {
    cr_expect_eq(s, TEXMEM_GL_MEMORY_NONE);
    cr_expect_str_eq(why, "driver memory: no query on this driver (llvmpipe)");
  }
  texmem_gl_context_destroy(ctx);
}

Test(gl_driver_memory, injected_query) {
  texmem_gl_context *ctx = tg_context();
  fake f = {.values = {1000, 250000}, .n = 2};
  texmem__gl_memory_inject(ctx, fake_query, &f);
  const char *why = NULL;
  cr_expect_eq(texmem_gl_memory_support(ctx, &why), TEXMEM_GL_MEMORY_INJECTED);
  cr_expect_not_null(strstr(why, "injected"), "%s", why);
  texmem_gl_memory_reading r;
  TG_OK(texmem_gl_memory_read(ctx, &r, &tg_err_));
  cr_expect_eq(r.source, TEXMEM_GL_MEMORY_INJECTED);
  cr_expect_eq(r.used_bytes, 1000);
  TG_OK(texmem_gl_memory_read(ctx, &r, &tg_err_));
  cr_expect_eq(r.used_bytes, 250000);
  /* The query has no more figures: an error, not a guess. */
  texmem_error err = {0};
  cr_expect_eq(texmem_gl_memory_read(ctx, &r, &err), TEXMEM_STATUS_UNSUPPORTED);
  cr_expect_eq(r.source, TEXMEM_GL_MEMORY_NONE);
  cr_expect_not_null(strstr(err.message, "injected query failed"), "%s", err.message);
  /* Back to the driver's own sources. */
  texmem__gl_memory_inject(ctx, NULL, NULL);
  cr_expect_neq(texmem_gl_memory_support(ctx, NULL), TEXMEM_GL_MEMORY_INJECTED);
  texmem_gl_context_destroy(ctx);
}

Test(gl_driver_memory, names_and_bad_arguments) {
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_NONE), "none");
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_NVML_PROCESS), "nvml-process");
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_NVX), "nvx");
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_NVML_DEVICE), "nvml-device");
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_ATI), "ati");
  cr_expect_str_eq(texmem_gl_memory_source_name(TEXMEM_GL_MEMORY_INJECTED), "injected");
  texmem_error err = {0};
  texmem_gl_memory_reading r;
  cr_expect_eq(texmem_gl_memory_read(NULL, &r, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
  const char *why = NULL;
  cr_expect_eq(texmem_gl_memory_support(NULL, &why), TEXMEM_GL_MEMORY_NONE);
  cr_expect_not_null(why);
}
