/* A program variant's source: the tensor accessor (tensor.glsl, half_rne.glsl) and, for
 * each binding, its uniforms, its declaration and NAME_read / NAME_write
 * written for the binding's kind (2-D, array or 3-D image, or a slot of an
 * SSBO) and format, in front of the program's own body. The variant key
 * (gl_internal.h) is all the generated text depends on, so equal keys of
 * one program give equal sources and share one linked program. The
 * embedded shader files are looked up here too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

typedef struct texmem__shader_file {
  const char *name;
  const char *source;
} texmem__shader_file;
extern const texmem__shader_file texmem__gl_shader_files[];

const char *texmem__gl_shader_source(const char *file_name) {
  if (!file_name) return NULL;
  for (const texmem__shader_file *f = texmem__gl_shader_files; f->name; f++)
    if (!strcmp(f->name, file_name)) return f->source;
  return NULL;
}

/* ---- growable string ---- */
typedef struct sbuf {
  char *s;
  size_t len, cap;
  bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *b, const char *fmt, ...) {
  if (b->oom) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->oom = true;
      return;
    }
    if (b->s && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t ncap = (b->cap ? b->cap * 2 : 4096) + (size_t)n;
    char *s = realloc(b->s, ncap);
    if (!s) {
      b->oom = true;
      return;
    }
    b->s = s;
    b->cap = ncap;
  }
}

static void sb_puts(sbuf *b, const char *s) { sb_printf(b, "%s", s); }

uint8_t texmem__gl_key_of(const texmem__gl_tex *t, size_t slot) {
  uint8_t k = t->target == GL_TEXTURE_2D               ? TEXMEM__GL_KEY_2D
              : t->target == GL_TEXTURE_3D             ? TEXMEM__GL_KEY_3D
              : t->target == GL_SHADER_STORAGE_BUFFER  ? TEXMEM__GL_KEY_BUFFER
                                                       : TEXMEM__GL_KEY_ARRAY;
  k = (uint8_t)(k | (t->desc.format == TEXMEM_GL_RGBA16F ? 1 << 2 : 0));
  return TEXMEM__GL_KEY_TARGET(k) == TEXMEM__GL_KEY_BUFFER ? (uint8_t)(k | slot << 3) : k;
}

/* SSBO binding of buffer slot `slot` (a binding index): after the
 * program's own buffers, one per distinct slot in binding order. */
size_t texmem__gl_slot_binding(const texmem__gl_prog *p, const uint8_t *key, size_t slot) {
  size_t b = p->n_buffers;
  for (size_t j = 0; j < slot; j++)
    if (TEXMEM__GL_KEY_TARGET(key[j]) == TEXMEM__GL_KEY_BUFFER && TEXMEM__GL_KEY_SLOT(key[j]) == j) b++;
  return b;
}

/* Declares the SSBO of buffer slot i: read-only unless an output uses it. */
static void buffer_slot_source(sbuf *b, const texmem__gl_prog *p, const uint8_t *key, size_t i) {
  bool written = false;
  for (size_t j = i; j < p->n_inputs + p->n_outputs; j++)
    if (TEXMEM__GL_KEY_TARGET(key[j]) == TEXMEM__GL_KEY_BUFFER && TEXMEM__GL_KEY_SLOT(key[j]) == i && j >= p->n_inputs)
      written = true;
  sb_printf(b, "layout(std430, binding = %zu) %sbuffer tm_s_%zu { highp %s tm_sd_%zu[]; };\n",
            texmem__gl_slot_binding(p, key, i), written ? "" : "readonly ", i,
            TEXMEM__GL_KEY_HALF(key[i]) ? "uvec2" : "vec4", i);
}

/* NAME_read / NAME_write of binding i on a buffer: texel tm_index of its
 * slot's array, binary16 pairs unpacked or rounded and packed. */
static void buffer_access_source(sbuf *b, const char *nm, bool in, uint8_t key) {
  size_t s = TEXMEM__GL_KEY_SLOT(key);
  if (in && TEXMEM__GL_KEY_HALF(key))
    sb_printf(b, "highp vec4 %s_read(highp ivec3 p) { highp uvec2 u = tm_sd_%zu[tm_index(p, tm_t_%s, "
                 "tm_r_%s)]; return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }\n",
              nm, s, nm, nm);
  else if (in)
    sb_printf(b, "highp vec4 %s_read(highp ivec3 p) { return tm_sd_%zu[tm_index(p, tm_t_%s, tm_r_%s)]; }\n",
              nm, s, nm, nm);
  else if (TEXMEM__GL_KEY_HALF(key))
    sb_printf(b, "void %s_write(highp ivec3 p, highp vec4 v) { highp vec4 h = tm_half_rne(v); "
                 "tm_sd_%zu[tm_index(p, tm_t_%s, tm_r_%s)] = uvec2(packHalf2x16(h.xy), "
                 "packHalf2x16(h.zw)); }\n",
              nm, s, nm, nm);
  else
    sb_printf(b, "void %s_write(highp ivec3 p, highp vec4 v) { tm_sd_%zu[tm_index(p, tm_t_%s, tm_r_%s)] = v; }\n",
              nm, s, nm, nm);
}

/* An image binding's uniform block, declaration and accessors. */
static void image_source(sbuf *b, const texmem__gl_prog *p, const uint8_t *key, size_t i) {
  const char *nm = p->images[i];
  bool in = i < p->n_inputs;
  int tgt = TEXMEM__GL_KEY_TARGET(key[i]);
  sb_printf(b,
            "uniform highp ivec4 tm_t_%s;\n"
            "uniform highp int tm_r_%s;\n"
            "highp ivec3 %s_shape() { return tm_t_%s.xyz; }\n"
            "bool %s_inside(highp ivec3 p) { return tm_inside(p, tm_t_%s); }\n",
            nm, nm, nm, nm, nm, nm);
  if (tgt == TEXMEM__GL_KEY_BUFFER) {
    if (TEXMEM__GL_KEY_SLOT(key[i]) == i) buffer_slot_source(b, p, key, i);
    buffer_access_source(b, nm, in, key[i]);
    return;
  }
  const char *type = tgt == TEXMEM__GL_KEY_2D ? "image2D" : tgt == TEXMEM__GL_KEY_3D ? "image3D" : "image2DArray";
  const char *coord = tgt == TEXMEM__GL_KEY_2D ? "tm_coord2" : "tm_coord3";
  sb_printf(b, "layout(binding = %zu, %s) %s uniform highp %s tm_img_%s;\n", i,
            TEXMEM__GL_KEY_HALF(key[i]) ? "rgba16f" : "rgba32f", in ? "readonly" : "writeonly", type, nm);
  if (in)
    sb_printf(b, "highp vec4 %s_read(highp ivec3 p) { return imageLoad(tm_img_%s, %s(p, tm_t_%s, tm_r_%s)); }\n",
              nm, nm, coord, nm, nm);
  else /* fp16: round to nearest here, the store's own conversion truncates */
    sb_printf(b, "void %s_write(highp ivec3 p, highp vec4 v) { imageStore(tm_img_%s, %s(p, tm_t_%s, tm_r_%s), %s); }\n",
              nm, nm, coord, nm, nm, TEXMEM__GL_KEY_HALF(key[i]) ? "tm_half_rne(v)" : "v");
}

const char *texmem_gl_glsl_half_rne(void) {
  const char *s = texmem__gl_shader_source("half_rne.glsl");
  return s ? s : ""; /* embedded at build time: never NULL */
}

char *texmem__gl_build_source(const texmem__gl_prog *p, const uint8_t *key) {
  sbuf b = {0};
  sb_puts(&b,
          "#version 310 es\n"
          "precision highp float;\nprecision highp int;\n"
          "precision highp image2D;\nprecision highp image2DArray;\nprecision highp image3D;\n");
  sb_printf(&b, "layout(local_size_x = %u, local_size_y = %u, local_size_z = %u) in;\n",
            p->local[0], p->local[1], p->local[2]);
  sb_puts(&b, texmem__gl_shader_source("tensor.glsl"));
  sb_puts(&b, texmem_gl_glsl_half_rne());
  for (size_t i = 0; i < p->n_inputs + p->n_outputs; i++) image_source(&b, p, key, i);
  for (size_t i = 0; i < p->n_buffers; i++) {
    const char *nm = p->buffers[i];
    if (p->writable_buffers)
      sb_printf(&b, "layout(std430, binding = %zu) writeonly buffer tm_b_%s { highp vec4 %s[]; };\n",
                i, nm, nm);
    else if (p->scratch_buffers >> i & 1u) /* every work group's: coherent */
      sb_printf(
          &b,
          "layout(std430, binding = %zu) coherent buffer tm_b_%s { highp uint tm_u_%s[]; };\n"
          "highp uint %s_load(highp int i) { return tm_u_%s[i]; }\n"
          "void %s_store(highp int i, highp uint v) { tm_u_%s[i] = v; }\n"
          "highp uint %s_add(highp int i, highp uint v) { return atomicAdd(tm_u_%s[i], v); }\n",
          i, nm, nm, nm, nm, nm, nm, nm, nm);
    else if (p->half_buffers >> i & 1u)
      sb_printf(&b,
                "layout(std430, binding = %zu) readonly buffer tm_b_%s { highp uvec2 tm_h_%s[]; };\n"
                "highp vec4 %s_at(highp int i) { highp uvec2 u = tm_h_%s[i]; "
                "return vec4(unpackHalf2x16(u.x), unpackHalf2x16(u.y)); }\n",
                i, nm, nm, nm, nm);
    else
      sb_printf(&b,
                "layout(std430, binding = %zu) readonly buffer tm_b_%s { highp vec4 %s[]; };\n"
                "highp vec4 %s_at(highp int i) { return %s[i]; }\n",
                i, nm, nm, nm, nm);
  }
  sb_puts(&b, "#line 1\n");
  sb_puts(&b, p->source);
  sb_puts(&b, "\n");
  if (b.oom) {
    free(b.s);
    return NULL;
  }
  return b.s;
}
