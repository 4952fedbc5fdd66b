/* Program binaries kept in the caller's cache (texmem_gl_program_cache).
 *
 * NVIDIA's compiler took about a second a texmem program (H100,
 * 2026-11-26): a fresh process spent 12 s creating MobileNet v2's
 * runtimes. A GLES 3.0 driver can hand out a linked program's binary
 * (glGetProgramBinary) and take it back in a later process
 * (glProgramBinary), which costs milliseconds. The driver's own disk
 * cache does the same where it has one and may write it; this one is the
 * caller's, so it works in read-only or short-lived file systems and can
 * ship with an application, as TFLite's GPU delegate serializes its
 * programs.
 *
 * Key: 16 bytes, two FNV-1a hashes (different offsets) of the vendor,
 * renderer and version strings and the program's whole generated source,
 * so another driver, GPU or kernel gets another key. The driver still
 * decides: a binary it refuses (an updated driver of the same version
 * string) does not link, and the program compiles and is stored again.
 *
 * Value: a 16-byte header, then the driver's binary: "TMB1", the binary
 * format (uint32), and a 64-bit FNV-1a of the binary, checked before the
 * driver sees it, so a truncated or damaged entry is never loaded. Values
 * over MAX_VALUE are ignored before anything is allocated. */
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

#define MAX_VALUE ((size_t)64 << 20)
#define HEADER 16

static uint64_t fnv_str(uint64_t h, const char *s) {
  return texmem__gl_fnv1a(h, s ? s : "", (s ? strlen(s) : 0) + 1); /* the NUL separates */
}

void texmem_gl_context_set_program_cache(texmem_gl_context *ctx,
                                         const texmem_gl_program_cache *cache) {
  if (!ctx) return;
  memset(&ctx->cache, 0, sizeof ctx->cache);
  if (cache && cache->load && cache->store) ctx->cache = *cache;
}

bool texmem__gl_cache_on(const texmem_gl_context *ctx) {
  return ctx->cache.load && ctx->limits.program_binary_formats > 0;
}

void texmem__gl_cache_key(const texmem_gl_context *ctx, const char *source, uint8_t key[16]) {
  uint64_t h[2] = {TEXMEM__GL_FNV_BASIS, 0x84222325cbf29ce4ull};
  for (int i = 0; i < 2; i++) {
    h[i] = fnv_str(h[i], ctx->vendor);
    h[i] = fnv_str(h[i], ctx->renderer);
    h[i] = fnv_str(h[i], ctx->version);
    h[i] = fnv_str(h[i], source);
  }
  for (int i = 0; i < 16; i++) key[i] = (uint8_t)(h[i / 8] >> (8 * (i % 8)));
}

/* Drains pending GL errors; true if there was one. */
static bool gl_failed(void) {
  bool any = false;
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++) any = true;
  return any;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

bool texmem__gl_cache_load(texmem_gl_context *ctx, const uint8_t key[16], GLuint prog) {
  const texmem_gl_program_cache *c = &ctx->cache;
  size_t n = c->load(c->user, key, NULL, 0);
  if (n <= HEADER || n > MAX_VALUE) return false;
  uint8_t *v = malloc(n);
  if (!v) return false;
  bool ok = c->load(c->user, key, v, n) == n && !memcmp(v, "TMB1", 4) &&
            ((uint64_t)get32(v + 8) | (uint64_t)get32(v + 12) << 32) ==
                texmem__gl_fnv1a(TEXMEM__GL_FNV_BASIS, v + HEADER, n - HEADER);
  GLint linked = 0;
  if (ok) {
    texmem__gl_drain();
    glProgramBinary(prog, (GLenum)get32(v + 4), v + HEADER, (GLsizei)(n - HEADER));
    glGetProgramiv(prog, GL_LINK_STATUS, &linked);
    if (gl_failed()) linked = 0; /* a format the driver does not know: GL_INVALID_ENUM */
  }
  free(v);
  return linked != 0;
}

void texmem__gl_cache_store(texmem_gl_context *ctx, const uint8_t key[16], GLuint prog) {
  GLint len = 0;
  glGetProgramiv(prog, GL_PROGRAM_BINARY_LENGTH, &len);
  if (gl_failed() || len <= 0 || (size_t)len > MAX_VALUE - HEADER) return;
  uint8_t *v = malloc(HEADER + (size_t)len);
  if (!v) return;
  GLsizei got = 0;
  GLenum format = 0;
  glGetProgramBinary(prog, len, &got, &format, v + HEADER);
  if (!gl_failed() && got > 0) {
    uint64_t h = texmem__gl_fnv1a(TEXMEM__GL_FNV_BASIS, v + HEADER, (size_t)got);
    memcpy(v, "TMB1", 4);
    put32(v + 4, format);
    put32(v + 8, (uint32_t)h);
    put32(v + 12, (uint32_t)(h >> 32));
    ctx->cache.store(ctx->cache.user, key, v, HEADER + (size_t)got);
  }
  free(v);
}
