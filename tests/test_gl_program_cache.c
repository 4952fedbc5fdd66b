/* The program cache (texmem_gl_program_cache): a second context loads
 * the binaries the first compiled and stored, and runs them to the same
 * results; damaged, short, oversized or refused entries compile again and
 * are stored anew; no cache, no calls. On a driver that keeps no binaries
 * (Mesa's with its disk cache off) the cache is never called. */
#include <criterion/criterion.h>
#include <string.h>

#include "gl_support.h"

enum { MAX_ENTRIES = 16 };

typedef struct entry {
  uint8_t key[16];
  uint8_t *value;
  size_t size;
} entry;

/* An in-memory cache, as an application might keep one in files. */
typedef struct mem_cache {
  entry e[MAX_ENTRIES];
  size_t n;
  int stores, loads;
  size_t fake_size; /* nonzero: every load reports this size */
} mem_cache;

static entry *find(mem_cache *c, const uint8_t key[16]) {
  for (size_t i = 0; i < c->n; i++)
    if (!memcmp(c->e[i].key, key, 16)) return &c->e[i];
  return NULL;
}

static size_t mc_load(void *user, const uint8_t key[16], void *value, size_t capacity) {
  mem_cache *c = user;
  c->loads++;
  if (c->fake_size) return c->fake_size;
  entry *e = find(c, key);
  if (!e) return 0;
  if (capacity >= e->size) memcpy(value, e->value, e->size);
  return e->size;
}

static void mc_store(void *user, const uint8_t key[16], const void *value, size_t size) {
  mem_cache *c = user;
  entry *e = find(c, key);
  if (!e) {
    cr_assert_lt(c->n, MAX_ENTRIES);
    e = &c->e[c->n++];
    memcpy(e->key, key, 16);
  }
  free(e->value);
  e->value = malloc(size);
  cr_assert_not_null(e->value);
  memcpy(e->value, value, size);
  e->size = size;
  c->stores++;
}

static const char k_src[] =
    "uniform highp float scale;\n"
    "void main() {\n"
    "  highp ivec3 p = ivec3(gl_GlobalInvocationID);\n"
    "  if (dst_inside(p)) dst_write(p, vec4(float(p.x), 1.5, -2.0, float(p.y)) * scale);\n"
    "}\n";

typedef struct counts {
  uint64_t compiled, loaded;
} counts;

/* A fresh context with cache c (NULL: none) makes the program, runs it
 * on a 5x3 tensor and checks every texel; the counts of its programs. */
static counts run_in_new_context(const texmem_gl_program_cache *c) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_context_set_program_cache(ctx, c);
  texmem_gl_counters_reset(ctx);
  static const char *const dst[] = {"dst"};
  texmem_gl_program_desc d = {.name = "cached", .source = k_src, .outputs = dst,
                              .n_outputs = 1};
  texmem_gl_program prog;
  TG_OK(texmem_gl_program_create(ctx, &d, &prog, &tg_err_));
  texmem_plan *plan = NULL;
  texmem_gl_pool *pool = tg_single_tensor_pool(ctx, 5, 3, 1, TEXMEM_GL_RGBA32F, &plan);
  const size_t t0 = 0;
  const texmem_gl_uniform u = {.name = "scale", .type = TEXMEM_GL_FLOAT, .f = {3.0f}};
  texmem_gl_op op = {.program = prog, .outputs = &t0, .n_outputs = 1, .uniforms = &u,
                     .n_uniforms = 1};
  TG_OK(texmem_gl_dispatch(pool, &op, &tg_err_));
  float out[5 * 3 * 4];
  TG_OK(texmem_gl_tensor_read(pool, 0, out, &tg_err_));
  for (int y = 0; y < 3; y++)
    for (int x = 0; x < 5; x++) {
      const float *t = &out[(y * 5 + x) * 4], want[4] = {3.0f * (float)x, 4.5f, -6.0f,
                                                         3.0f * (float)y};
      for (int k = 0; k < 4; k++) cr_assert_eq(t[k], want[k], "texel %d,%d.%d", x, y, k);
    }
  texmem_gl_counters n;
  texmem_gl_counters_get(ctx, &n);
  texmem_gl_pool_destroy(pool);
  texmem_plan_destroy(plan);
  texmem_gl_context_destroy(ctx);
  return (counts){n.programs_compiled, n.programs_loaded};
}

/* GL_NUM_PROGRAM_BINARY_FORMATS > 0. */
static bool driver_keeps_binaries(void) {
  texmem_gl_context *ctx = tg_context();
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  texmem_gl_context_destroy(ctx);
  cr_assert_geq(l.program_binary_formats, 0);
  return l.program_binary_formats > 0;
}

static void free_cache(mem_cache *c) {
  for (size_t i = 0; i < c->n; i++) free(c->e[i].value);
}

Test(gl_program_cache, a_second_context_loads_what_the_first_compiled) {
  mem_cache mc = {0};
  const texmem_gl_program_cache c = {.user = &mc, .load = mc_load, .store = mc_store};
  counts a = run_in_new_context(&c);
  cr_assert_gt(a.compiled, 0);
  cr_assert_eq(a.loaded, 0);
  if (!driver_keeps_binaries()) {
    counts b = run_in_new_context(&c);
    cr_assert_eq(b.compiled, a.compiled);
    cr_assert_eq(mc.loads + mc.stores, 0, "a driver without binary formats: no calls");
    return;
  }
  cr_assert_eq(mc.stores, (int)a.compiled, "every program compiled is stored");
  cr_assert_eq(mc.n, a.compiled);
  counts b = run_in_new_context(&c);
  cr_assert_eq(b.compiled, 0, "a context with the cache compiles nothing");
  cr_assert_eq(b.loaded, a.compiled);
  cr_assert_eq(mc.stores, (int)a.compiled, "nothing loaded is stored again");
  counts n = run_in_new_context(NULL);
  cr_assert_eq(n.compiled, a.compiled);
  cr_assert_eq(n.loaded, 0);
  cr_assert_eq(mc.stores, (int)a.compiled);
  /* A cache without a store callback is no cache. */
  const texmem_gl_program_cache half = {.user = &mc, .load = mc_load};
  counts h = run_in_new_context(&half);
  cr_assert_eq(h.loaded, 0);
  free_cache(&mc);
}

/* Each kind of bad entry is compiled over, stored anew, and the entries
 * stored load in the next context. */
Test(gl_program_cache, bad_entries_compile_and_are_stored_again) {
  mem_cache mc = {0};
  const texmem_gl_program_cache c = {.user = &mc, .load = mc_load, .store = mc_store};
  if (!driver_keeps_binaries()) return; /* nothing stored: the test above */
  counts a = run_in_new_context(&c);
  for (int bad = 0; bad < 5; bad++) {
    int stores = mc.stores;
    for (size_t i = 0; i < mc.n; i++) {
      entry *e = &mc.e[i];
      if (bad == 0) e->value[e->size - 1] ^= 0x5a; /* damaged: the checksum fails */
      if (bad == 1) e->size = 16;                    /* the header alone */
      if (bad == 2) memset(e->value + 4, 0xee, 4);   /* a format the driver does not know */
      if (bad == 4) e->value[8] ^= 1; /* the binary intact, its checksum not: texmem's check */
    }
    if (bad == 3) mc.fake_size = ((size_t)64 << 20) + 17; /* past 64 MiB: never read */
    counts b = run_in_new_context(&c);
    cr_assert_eq(b.loaded, 0, "bad entry %d loaded", bad);
    cr_assert_eq(b.compiled, a.compiled, "bad entry %d", bad);
    cr_assert_eq(mc.stores, stores + (int)a.compiled, "bad entry %d: stored anew", bad);
    cr_assert_eq(mc.n, a.compiled, "entries replaced, not added");
    mc.fake_size = 0;
    counts again = run_in_new_context(&c);
    cr_assert_eq(again.loaded, a.compiled, "after bad entry %d", bad);
    cr_assert_eq(again.compiled, 0);
  }
  free_cache(&mc);
}
