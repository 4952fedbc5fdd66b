/* GPU timer queries (GL_EXT_disjoint_timer_query): a set of intervals,
 * each a pair of GL_TIMESTAMP_EXT counters or one GL_TIME_ELAPSED_EXT
 * query, read back after the work and discarded on a disjoint event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

enum { IDLE = 0, BEGUN = 1, ENDED = 2 };

struct texmem_gl_timer {
  texmem_gl_context *ctx;
  texmem_gl_timer_kind kind;
  size_t cap;
  GLuint *queries;      /* timestamps: 2 an interval (begin, end); elapsed: 1 */
  unsigned char *state; /* IDLE, BEGUN or ENDED, an interval */
  bool open;            /* elapsed: a query is active */
};

static const char *short_renderer(const texmem_gl_context *ctx, char *buf, size_t size) {
  const char *r = ctx->renderer ? ctx->renderer : "unknown renderer";
  const char *paren = strstr(r, " (");
  int n = paren ? (int)(paren - r) : (int)strlen(r);
  snprintf(buf, size, "%.*s", n, r);
  return buf;
}

void texmem__gl_timer_detect(texmem_gl_context *ctx) {
  char rn[64];
  short_renderer(ctx, rn, sizeof rn);
  ctx->timer_kind = TEXMEM_GL_TIMER_NONE;
  if (!GLAD_GL_EXT_disjoint_timer_query || !glQueryCounterEXT || !glGetQueryObjectui64vEXT ||
      !glGetQueryivEXT) {
    snprintf(ctx->timer_why, sizeof ctx->timer_why,
             "no GPU timer queries on this driver (%s): GL_EXT_disjoint_timer_query is missing",
             rn);
    return;
  }
  GLint ts_bits = 0, el_bits = 0;
  glGetQueryivEXT(GL_TIMESTAMP_EXT, GL_QUERY_COUNTER_BITS_EXT, &ts_bits);
  glGetQueryivEXT(GL_TIME_ELAPSED_EXT, GL_QUERY_COUNTER_BITS_EXT, &el_bits);
  texmem__gl_drain(); /* a driver that rejects one of the targets */
  if (ts_bits > 0) {
    ctx->timer_kind = TEXMEM_GL_TIMER_TIMESTAMPS;
    snprintf(ctx->timer_why, sizeof ctx->timer_why,
             "GL_EXT_disjoint_timer_query on %s: GL_TIMESTAMP_EXT pairs (%d bits)", rn,
             (int)ts_bits);
  } else if (el_bits > 0) {
    ctx->timer_kind = TEXMEM_GL_TIMER_ELAPSED;
    snprintf(ctx->timer_why, sizeof ctx->timer_why,
             "GL_EXT_disjoint_timer_query on %s: GL_TIME_ELAPSED_EXT (%d bits; no timestamps)",
             rn, (int)el_bits);
  } else {
    snprintf(ctx->timer_why, sizeof ctx->timer_why,
             "no GPU timer queries on this driver (%s): GL_EXT_disjoint_timer_query counters "
             "have 0 bits",
             rn);
  }
}

void texmem__gl_timer_hide(texmem_gl_context *ctx) {
  ctx->timer_kind = TEXMEM_GL_TIMER_NONE;
  snprintf(ctx->timer_why, sizeof ctx->timer_why,
           "no GPU timer queries on this driver (hidden by a test)");
}

void texmem__gl_timer_fake_disjoint(texmem_gl_context *ctx, uint32_t n) {
  ctx->timer_fake_disjoint = n;
}

texmem_gl_timer_kind texmem_gl_timer_support(const texmem_gl_context *ctx, const char **why) {
  if (why) *why = ctx ? ctx->timer_why : "no context";
  return ctx ? ctx->timer_kind : TEXMEM_GL_TIMER_NONE;
}

const char *texmem_gl_timer_kind_name(texmem_gl_timer_kind k) {
  switch (k) {
    case TEXMEM_GL_TIMER_TIMESTAMPS: return "timestamps";
    case TEXMEM_GL_TIMER_ELAPSED: return "elapsed";
    default: return "none";
  }
}

static size_t queries_per_interval(texmem_gl_timer_kind k) {
  return k == TEXMEM_GL_TIMER_TIMESTAMPS ? 2 : 1;
}

texmem_status texmem_gl_timer_create(texmem_gl_context *ctx, size_t intervals,
                                     texmem_gl_timer **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context is NULL");
  if (ctx->timer_kind == TEXMEM_GL_TIMER_NONE)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "%s", ctx->timer_why);
  size_t per = queries_per_interval(ctx->timer_kind);
  if (intervals == 0 || intervals > (size_t)INT32_MAX / per)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%zu timer intervals (1 .. %zu)", intervals, (size_t)INT32_MAX / per);
  texmem_gl_timer *t = calloc(1, sizeof *t);
  if (t) {
    t->queries = calloc(intervals * per, sizeof *t->queries);
    t->state = calloc(intervals, 1);
  }
  if (!t || !t->queries || !t->state) {
    if (t) free(t->queries);
    if (t) free(t->state);
    free(t);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  t->ctx = ctx;
  t->kind = ctx->timer_kind;
  t->cap = intervals;
  texmem__gl_drain();
  glGenQueries((GLsizei)(intervals * per), t->queries);
  texmem_status st = texmem__gl_check(err, "glGenQueries");
  if (st) {
    texmem_gl_timer_destroy(t);
    return st;
  }
  *out = t;
  return TEXMEM_STATUS_OK;
}

void texmem_gl_timer_destroy(texmem_gl_timer *t) {
  if (!t) return;
  if (t->open) glEndQuery(GL_TIME_ELAPSED_EXT);
  glDeleteQueries((GLsizei)(t->cap * queries_per_interval(t->kind)), t->queries);
  free(t->queries);
  free(t->state);
  free(t);
}

/* Reading the flag clears it (the extension's rule). */
static bool disjoint_now(void) {
  GLint d = 0;
  glGetIntegerv(GL_GPU_DISJOINT_EXT, &d);
  return d != 0;
}

void texmem_gl_timer_reset(texmem_gl_timer *t) {
  if (!t) return;
  if (t->open) glEndQuery(GL_TIME_ELAPSED_EXT);
  t->open = false;
  memset(t->state, IDLE, t->cap);
  (void)disjoint_now();
}

static texmem_status check_index(const texmem_gl_timer *t, size_t i, const char *what,
                                 texmem_error *err) {
  if (!t) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "timer is NULL");
  if (i >= t->cap)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "timer %s: interval %zu of %zu", what, i, t->cap);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_timer_begin(texmem_gl_timer *t, size_t i, texmem_error *err) {
  texmem_status st = check_index(t, i, "begin", err);
  if (st) return st;
  if (t->kind == TEXMEM_GL_TIMER_ELAPSED) {
    if (t->open)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "timer begin: interval %zu overlaps an open one (GL_TIME_ELAPSED_EXT "
                          "queries cannot nest)",
                          i);
    glBeginQuery(GL_TIME_ELAPSED_EXT, t->queries[i]);
    t->open = true;
  } else {
    glQueryCounterEXT(t->queries[2 * i], GL_TIMESTAMP_EXT);
  }
  t->state[i] = BEGUN;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_timer_end(texmem_gl_timer *t, size_t i, texmem_error *err) {
  texmem_status st = check_index(t, i, "end", err);
  if (st) return st;
  if (t->state[i] != BEGUN)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "timer end: interval %zu was not begun since the reset", i);
  if (t->kind == TEXMEM_GL_TIMER_ELAPSED) {
    glEndQuery(GL_TIME_ELAPSED_EXT);
    t->open = false;
  } else {
    glQueryCounterEXT(t->queries[2 * i + 1], GL_TIMESTAMP_EXT);
  }
  t->state[i] = ENDED;
  return TEXMEM_STATUS_OK;
}

static uint64_t result(GLuint q) {
  GLuint64 v = 0;
  glGetQueryObjectui64vEXT(q, GL_QUERY_RESULT, &v);
  return (uint64_t)v;
}

texmem_status texmem_gl_timer_read(texmem_gl_timer *t, uint64_t *ns, size_t n, bool *disjoint,
                                   texmem_error *err) {
  if (!t || (n && !ns) || !disjoint)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "timer, ns or disjoint is NULL");
  if (n > t->cap)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "timer read: %zu intervals of %zu",
                        n, t->cap);
  texmem__gl_drain();
  for (size_t i = 0; i < n; i++) {
    ns[i] = 0;
    if (t->state[i] != ENDED) continue;
    if (t->kind == TEXMEM_GL_TIMER_ELAPSED) {
      ns[i] = result(t->queries[i]);
    } else {
      uint64_t a = result(t->queries[2 * i]), b = result(t->queries[2 * i + 1]);
      ns[i] = b > a ? b - a : 0;
    }
  }
  texmem_status st = texmem__gl_check(err, "glGetQueryObjectui64vEXT");
  if (st) return st;
  /* Checked after the results: a disjoint event while they were made
   * shows now. */
  *disjoint = disjoint_now();
  if (t->ctx->timer_fake_disjoint) {
    t->ctx->timer_fake_disjoint--;
    *disjoint = true;
  }
  if (*disjoint)
    for (size_t i = 0; i < n; i++) ns[i] = 0;
  return TEXMEM_STATUS_OK;
}
