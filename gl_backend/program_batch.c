/* Compiling a runtime's programs in one batch, before its first run.
 *
 * A program variant compiles at its first dispatch unless made earlier
 * (then as a batch of one), and a compile followed at once by the status
 * queries that wait for it runs one program at a time, on one core. On NVIDIA's driver a
 * texmem kernel takes about a second to compile (H100, 2026-11-26), so a
 * model's first run took half a minute. Here every missing variant of a
 * list is compiled in three passes: all glCompileShader calls, then all
 * glLinkProgram calls, then the status reads. A driver with
 * GL_KHR_parallel_shader_compile (its threads raised to the most at context
 * creation, context.c) may then work on the whole batch at once; any other
 * driver compiles as before, in the same total time, moved from the first
 * run to the call that asks for it. NVIDIA's did not (a core busy, the rest
 * idle): so a context texmem created compiles the batch on several threads
 * instead, each with a context sharing its objects (program_threads.c),
 * and reads the statuses once they are done.
 *
 * With a program cache set (program_cache.c), a leader whose binary the
 * cache holds is loaded instead of compiled, and every leader compiled is
 * offered to it once linked.
 *
 * A variant whose source the context already linked takes that program
 * (program_share.c), and two entries of one source compile once: the
 * first is the leader, the others follow it. The first failure is the
 * status returned, with its info log; every entry before it that compiled
 * is kept, the rest are dropped, so a dispatch can still compile them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_internal.h"

/* ---- a program's variants ---- */
static void set_log(texmem_gl_context *ctx, const char *log) {
  free(ctx->log);
  ctx->log = texmem__strdup(log ? log : "");
}

/* The shader's or program's info log as ctx's log. */
static void info_log(texmem_gl_context *ctx, GLuint obj, bool link) {
  GLint len = 0;
  if (link) glGetProgramiv(obj, GL_INFO_LOG_LENGTH, &len);
  else glGetShaderiv(obj, GL_INFO_LOG_LENGTH, &len);
  char *log = malloc(len > 0 ? (size_t)len + 1 : 1);
  if (log) {
    log[0] = 0;
    if (len > 0 && link) glGetProgramInfoLog(obj, len, NULL, log);
    else if (len > 0) glGetShaderInfoLog(obj, len, NULL, log);
    set_log(ctx, log);
    free(log);
  }
}

texmem__gl_variant *texmem__gl_variant_find(texmem__gl_prog *p, const uint8_t *key) {
  for (size_t i = 0; i < p->n_variants; i++)
    if (!memcmp(p->variants[i].key, key, p->n_inputs + p->n_outputs)) return &p->variants[i];
  return NULL;
}

/* Adds the variant of `key` holding one reference to `prog` (released on
 * failure); *out may be NULL. */
static texmem_status variant_add(texmem_gl_context *ctx, texmem__gl_prog *p, const uint8_t *key,
                                 GLuint prog, texmem__gl_variant **out, texmem_error *err) {
  size_t n_img = p->n_inputs + p->n_outputs;
  void *grown = texmem__grow(p->variants, &p->cap_variants, p->n_variants + 1,
                             sizeof *p->variants);
  if (!grown) {
    texmem__gl_shared_release(ctx, prog);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  p->variants = grown;
  texmem__gl_variant *v = &p->variants[p->n_variants++];
  memset(v, 0, sizeof *v);
  memcpy(v->key, key, n_img);
  v->program = prog;
  for (size_t i = 0; i < n_img; i++) {
    char u[80];
    snprintf(u, sizeof u, "tm_t_%s", p->images[i]);
    v->tensor_loc[i] = glGetUniformLocation(prog, u);
    snprintf(u, sizeof u, "tm_r_%s", p->images[i]);
    v->row_loc[i] = glGetUniformLocation(prog, u);
  }
  set_log(ctx, "");
  if (out) *out = v;
  return TEXMEM_STATUS_OK;
}

typedef struct pending {
  texmem__gl_prog *p;
  const uint8_t *key;
  char *src;     /* owned until the shared table takes it */
  size_t leader; /* the entry compiling this source; SIZE_MAX: linked before */
  GLuint sh, prog;
  GLuint held;   /* the program this entry holds a reference to, or 0 */
  bool unshared; /* a leader whose program the table could not take */
  bool loaded;   /* a leader made from the program cache's binary */
  bool settled;  /* a leader whose program is made (held) */
  uint8_t ckey[16]; /* its program cache key, with a cache on */
} pending;

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Entries to make: variants not made yet, each once, with their sources;
 * a source linked before is taken by reference now. */
static texmem_status collect(texmem_gl_context *ctx, texmem__gl_prog *const *progs,
                             const uint8_t (*keys)[TEXMEM__GL_MAX_IMAGES], size_t n, pending *q,
                             size_t *n_out, texmem_error *err) {
  size_t m = 0;
  texmem_status st = TEXMEM_STATUS_OK;
  for (size_t i = 0; i < n && !st; i++) {
    texmem__gl_prog *p = progs[i];
    size_t n_img = p->n_inputs + p->n_outputs;
    if (texmem__gl_variant_find(p, keys[i])) continue;
    bool seen = false;
    for (size_t j = 0; j < m && !seen; j++)
      seen = q[j].p == p && !memcmp(q[j].key, keys[i], n_img);
    if (seen) continue;
    char *src = texmem__gl_build_source(p, keys[i]);
    if (!src) {
      st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
      break;
    }
    pending e = {.p = p, .key = keys[i], .src = src, .leader = m};
    if ((e.held = texmem__gl_shared_find(ctx, src))) e.leader = SIZE_MAX;
    for (size_t j = 0; j < m && e.leader == m; j++)
      if (q[j].leader == j && !strcmp(q[j].src, src)) e.leader = j;
    q[m++] = e;
  }
  *n_out = m;
  return st;
}

/* A leader's shader compiled, then its program linked; no status read.
 * Any thread with a context sharing the runtime's may run them. */
static void compile_shader(pending *e) {
  e->sh = glCreateShader(GL_COMPUTE_SHADER);
  const GLchar *srcs[] = {e->src};
  glShaderSource(e->sh, 1, srcs, NULL);
  glCompileShader(e->sh);
}

static void link_program(pending *e, bool cache) {
  e->prog = glCreateProgram();
  if (cache) glProgramParameteri(e->prog, GL_PROGRAM_BINARY_RETRIEVABLE_HINT, GL_TRUE);
  glAttachShader(e->prog, e->sh);
  glLinkProgram(e->prog);
}

/* One job of texmem__gl_run_shared: leader at[i] compiled and linked. */
typedef struct jobs {
  pending *q;
  const size_t *at; /* the leaders to compile */
  bool cache;
} jobs;

static void compile_one(size_t i, void *user) {
  const jobs *j = user;
  compile_shader(&j->q[j->at[i]]);
  link_program(&j->q[j->at[i]], j->cache);
}

/* Issues the leaders' compiles and links; no status read. A leader the
 * program cache holds is loaded instead. On one thread every compile is
 * issued before any link (a driver with GL_KHR_parallel_shader_compile
 * may work on them together); on several (program_threads.c) each thread
 * compiles and links a leader at a time. Returns the threads that took
 * part. */
static size_t issue(texmem_gl_context *ctx, pending *q, size_t m, size_t *at) {
  bool cache = texmem__gl_cache_on(ctx);
  size_t k = 0;
  for (size_t i = 0; i < m; i++) {
    if (q[i].leader != i) continue;
    if (cache) {
      texmem__gl_cache_key(ctx, q[i].src, q[i].ckey);
      q[i].prog = glCreateProgram();
      if ((q[i].loaded = texmem__gl_cache_load(ctx, q[i].ckey, q[i].prog))) continue;
      glDeleteProgram(q[i].prog);
      q[i].prog = 0;
    }
    at[k++] = i;
  }
  jobs j = {.q = q, .at = at, .cache = cache};
  if (ctx->compile_threads > 1) return texmem__gl_run_shared(ctx, k, compile_one, &j);
  for (size_t i = 0; i < k; i++) compile_shader(&q[at[i]]);
  for (size_t i = 0; i < k; i++) link_program(&q[at[i]], cache);
  return 1;
}

/* A leader's program made: the entry holds it, the shared table too. */
static texmem_status hold(texmem_gl_context *ctx, pending *e) {
  e->held = e->prog;
  e->settled = true;
  if (texmem__gl_shared_add(ctx, e->src, e->prog)) e->src = NULL;
  else e->unshared = true;
  return TEXMEM_STATUS_OK;
}

/* Reads a leader's statuses: its program shared (held), or the failure
 * with its log. */
static texmem_status settle(texmem_gl_context *ctx, pending *e, texmem_error *err) {
  if (e->loaded) {
    ctx->counters.programs_loaded++;
    return hold(ctx, e);
  }
  GLint ok = 0;
  glGetShaderiv(e->sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    info_log(ctx, e->sh, false);
    return texmem__fail(err, TEXMEM_STATUS_SHADER_COMPILE, "glCompileShader(%s): %s",
                        e->p->name, ctx->log ? ctx->log : "(no log: out of memory)");
  }
  glGetProgramiv(e->prog, GL_LINK_STATUS, &ok);
  if (!ok) {
    info_log(ctx, e->prog, true);
    return texmem__fail(err, TEXMEM_STATUS_SHADER_COMPILE, "glLinkProgram(%s): %s", e->p->name,
                        ctx->log ? ctx->log : "(no log: out of memory)");
  }
  texmem_status st = texmem__gl_check(err, "glLinkProgram");
  if (st) return st;
  glDeleteShader(e->sh); /* flagged; freed with the program */
  e->sh = 0;
  ctx->counters.programs_compiled++;
  if (texmem__gl_cache_on(ctx)) texmem__gl_cache_store(ctx, e->ckey, e->prog);
  return hold(ctx, e);
}

/* Followers take a reference to their leader's shared program. */
static texmem_status follow(texmem_gl_context *ctx, pending *q, size_t m, texmem_error *err) {
  for (size_t i = 0; i < m; i++) {
    size_t l = q[i].leader;
    if (l == i || l == SIZE_MAX) continue;
    if (q[l].unshared) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    q[i].held = texmem__gl_shared_find(ctx, q[i].src);
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__gl_compile_batch(texmem_gl_context *ctx, texmem__gl_prog *const *progs,
                                       const uint8_t (*keys)[TEXMEM__GL_MAX_IMAGES], size_t n,
                                       texmem_error *err) {
  if (!n) return TEXMEM_STATUS_OK;
  pending *q = calloc(n, sizeof *q);
  size_t *at = calloc(n, sizeof *at);
  if (!q || !at) {
    free(q);
    free(at);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  size_t m = 0, leaders = 0;
  texmem__gl_drain();
  texmem_status st = collect(ctx, progs, keys, n, q, &m, err);
  for (size_t i = 0; i < m; i++) leaders += q[i].leader == i;
  if (!st && leaders) { /* compile_ns: compiling alone, not finding */
    uint64_t t0 = now_ns();
    size_t threads = issue(ctx, q, m, at);
    if (threads > ctx->counters.compile_threads_max) ctx->counters.compile_threads_max = threads;
    for (size_t i = 0; i < m && !st; i++)
      if (q[i].leader == i) st = settle(ctx, &q[i], err);
    ctx->counters.compile_ns += now_ns() - t0;
  }
  if (!st) st = follow(ctx, q, m, err);
  /* Each entry's variant takes its reference (released on failure). */
  for (size_t i = 0; i < m && !st; i++) {
    st = variant_add(ctx, q[i].p, q[i].key, q[i].held, NULL, err);
    q[i].held = 0;
  }
  for (size_t i = 0; i < m; i++) {
    if (q[i].held) texmem__gl_shared_release(ctx, q[i].held);
    if (q[i].leader == i && !q[i].settled) { /* failed, or never read */
      if (q[i].sh) glDeleteShader(q[i].sh);
      if (q[i].prog) glDeleteProgram(q[i].prog);
    }
    free(q[i].src);
  }
  free(q);
  free(at);
  return st;
}
