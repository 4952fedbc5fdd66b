/* Linked GL programs shared by source within a context.
 *
 * Every runtime builds its kernels' programs itself, so a process that
 * makes several runtimes of one model in one context (texmem bench makes
 * five: naive, objects in two layouts, two arenas) asks the driver for the
 * same generated source several times. A CPU driver compiles a program in
 * milliseconds; a GPU driver's optimizing compiler can take a second for a
 * large unrolled kernel, so repeats add whole seconds to creation. Here a
 * variant's complete source (accessors, defines and body, so every input
 * to the compiler) maps to one linked program with a reference count; a
 * second variant of the same source takes that program. Sharing is safe
 * because a program's only per-use state, its uniforms, is set in full
 * before every dispatch (texmem__gl_exec), and its image and buffer
 * bindings are the context's, set per dispatch too.
 *
 * Lookups compare a 64-bit FNV-1a hash, then the whole source: a hash
 * collision costs a compare, never a wrong program. The table is a plain
 * array: a context holds tens of distinct programs, not thousands. */
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

uint64_t texmem__gl_fnv1a(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv1a(const char *s) {
  return texmem__gl_fnv1a(TEXMEM__GL_FNV_BASIS, s, strlen(s));
}

GLuint texmem__gl_shared_find(texmem_gl_context *ctx, const char *source) {
  uint64_t h = fnv1a(source);
  for (size_t i = 0; i < ctx->n_shared; i++) {
    texmem__gl_shared *e = &ctx->shared[i];
    if (e->hash == h && !strcmp(e->source, source)) {
      e->refs++;
      return e->program;
    }
  }
  return 0;
}

bool texmem__gl_shared_add(texmem_gl_context *ctx, char *source, GLuint program) {
  void *grown = texmem__grow(ctx->shared, &ctx->cap_shared, ctx->n_shared + 1, sizeof *ctx->shared);
  if (!grown) return false;
  ctx->shared = grown;
  ctx->shared[ctx->n_shared++] =
      (texmem__gl_shared){.hash = fnv1a(source), .source = source, .program = program, .refs = 1};
  return true;
}

void texmem__gl_shared_release(texmem_gl_context *ctx, GLuint program) {
  for (size_t i = 0; i < ctx->n_shared; i++) {
    texmem__gl_shared *e = &ctx->shared[i];
    if (e->program != program) continue;
    if (--e->refs) return;
    glDeleteProgram(program);
    free(e->source);
    ctx->shared[i] = ctx->shared[--ctx->n_shared];
    return;
  }
  glDeleteProgram(program); /* never shared (the table was out of memory) */
}

void texmem__gl_shared_free_all(texmem_gl_context *ctx) {
  for (size_t i = 0; i < ctx->n_shared; i++) {
    glDeleteProgram(ctx->shared[i].program);
    free(ctx->shared[i].source);
  }
  free(ctx->shared);
  ctx->shared = NULL;
  ctx->n_shared = ctx->cap_shared = 0;
}
