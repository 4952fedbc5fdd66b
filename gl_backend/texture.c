/* Immutable textures (glTexStorage*), SSBOs, upload and read back of
 * logical fp32 texels through the natural or linear layout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

unsigned texmem_gl_format_bytes(texmem_gl_format f) {
  return f == TEXMEM_GL_RGBA32F ? 16 : f == TEXMEM_GL_RGBA16F ? 8 : 0;
}

/* ---- textures ---- */
static GLenum target_enum(texmem_gl_target t) {
  return t == TEXMEM_GL_TARGET_2D ? GL_TEXTURE_2D
         : t == TEXMEM_GL_TARGET_3D ? GL_TEXTURE_3D : GL_TEXTURE_2D_ARRAY;
}
static GLenum binding_enum(GLenum target) {
  return target == GL_TEXTURE_2D ? GL_TEXTURE_BINDING_2D
         : target == GL_TEXTURE_3D ? GL_TEXTURE_BINDING_3D : GL_TEXTURE_BINDING_2D_ARRAY;
}

texmem__gl_tex *texmem__gl_tex_get(const texmem_gl_context *ctx, texmem_gl_texture t) {
  return ctx ? texmem__slots_get(&ctx->textures, t.id) : NULL;
}

GLuint texmem__gl_texture_name(const texmem_gl_context *ctx, texmem_gl_texture t) {
  texmem__gl_tex *x = texmem__gl_tex_get(ctx, t);
  return x ? x->name : 0;
}

uint32_t texmem_gl_texture_gl_name(const texmem_gl_context *ctx, texmem_gl_texture t) {
  return texmem__gl_texture_name(ctx, t);
}

static const char *target_name(texmem_gl_target t) {
  return t == TEXMEM_GL_TARGET_2D       ? "2D"
         : t == TEXMEM_GL_TARGET_3D     ? "3D"
         : t == TEXMEM_GL_TARGET_BUFFER ? "BUFFER"
                                        : "2D_ARRAY";
}

/* Immutable storage of d (target resolved) under a new GL name: a texture,
 * or for BUFFER an SSBO of the same texels (contents undefined, as a new
 * texture's). */
static texmem_status new_storage(const texmem_gl_texture_desc *d, uint64_t bytes, GLuint *name,
                                 texmem_error *err) {
  texmem__gl_drain();
  if (d->target == TEXMEM_GL_TARGET_BUFFER) {
    GLint prev = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &prev);
    glGenBuffers(1, name);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, *name);
    glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_DYNAMIC_COPY);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)prev);
    return texmem__gl_check(err, "glBufferData (buffer arena)");
  }
  GLenum target = target_enum(d->target);
  GLenum ifmt = d->format == TEXMEM_GL_RGBA32F ? GL_RGBA32F : GL_RGBA16F;
  GLint prev = 0;
  glGetIntegerv(binding_enum(target), &prev);
  glGenTextures(1, name);
  glBindTexture(target, *name);
  if (target == GL_TEXTURE_2D)
    glTexStorage2D(target, 1, ifmt, (GLsizei)d->dims[0], (GLsizei)d->dims[1]);
  else
    glTexStorage3D(target, 1, ifmt, (GLsizei)d->dims[0], (GLsizei)d->dims[1], (GLsizei)d->dims[2]);
  glTexParameteri(target, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(target, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(target, (GLuint)prev);
  return texmem__gl_check(err, target == GL_TEXTURE_2D ? "glTexStorage2D" : "glTexStorage3D");
}

static void delete_storage(const texmem__gl_tex *t) {
  if (t->target == GL_SHADER_STORAGE_BUFFER)
    glDeleteBuffers(1, &t->name);
  else
    glDeleteTextures(1, &t->name);
}

texmem_status texmem__gl_texture_new(texmem_gl_context *ctx, const texmem_gl_texture_desc *desc,
                                     const void *owner, texmem_gl_texture *out,
                                     texmem_error *err) {
  out->id = 0;
  texmem_gl_texture_desc d = *desc;
  for (int i = 0; i < 3; i++)
    if (!d.dims[i]) d.dims[i] = 1;
  unsigned bpt = texmem_gl_format_bytes(d.format);
  if (!bpt)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown texture format %d",
                        (int)d.format);
  if (d.target == TEXMEM_GL_TARGET_AUTO)
    d.target = d.dims[2] > 1 ? TEXMEM_GL_TARGET_2D_ARRAY : TEXMEM_GL_TARGET_2D;
  if (d.target > TEXMEM_GL_TARGET_BUFFER)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown texture target %d",
                        (int)d.target);
  uint64_t max[3], dims[3] = {d.dims[0], d.dims[1], d.dims[2]};
  texmem_gl_max_dims(ctx, d.target, max);
  if (d.target == TEXMEM_GL_TARGET_BUFFER) { /* limits on its texels: width x height */
    dims[0] = 1;
    dims[1] = texmem__mul_sat(d.dims[0], d.dims[1]);
  }
  for (int i = 0; i < 3; i++)
    if (dims[i] > max[i])
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "texture %llux%llux%llu exceeds the %s limits %llux%llux%llu",
                          (unsigned long long)d.dims[0], (unsigned long long)d.dims[1],
                          (unsigned long long)d.dims[2], target_name(d.target),
                          (unsigned long long)max[0], (unsigned long long)max[1],
                          (unsigned long long)max[2]);
  uint64_t bytes;
  if (texmem__mul_ovf(texmem__vol_sat(d.dims), bpt, &bytes))
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "texture size overflows 64 bits");

  GLuint name = 0;
  texmem_status st = new_storage(&d, bytes, &name, err);
  ctx->texture_attempts++;
  if (!st && ctx->fail_texture_at && ctx->texture_attempts == ctx->fail_texture_at)
    st = texmem__fail(err, TEXMEM_STATUS_GL_OUT_OF_MEMORY,
                      "glTexStorage: GL_OUT_OF_MEMORY (injected at texture creation %llu)",
                      (unsigned long long)ctx->texture_attempts);
  bool buffer = d.target == TEXMEM_GL_TARGET_BUFFER;
  texmem__gl_tex probe = {.name = name, .target = buffer ? GL_SHADER_STORAGE_BUFFER : 0};
  if (st) {
    delete_storage(&probe);
    return st;
  }
  uint32_t id;
  texmem__gl_tex *t = texmem__slots_alloc(&ctx->textures, &id);
  if (!t) {
    delete_storage(&probe);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of texture handles or memory");
  }
  t->name = name;
  t->target = buffer ? GL_SHADER_STORAGE_BUFFER : target_enum(d.target);
  t->internal_format = d.format == TEXMEM_GL_RGBA32F ? GL_RGBA32F : GL_RGBA16F;
  t->desc = d;
  t->bytes = bytes;
  t->owner = owner;
  ctx->counters.textures_created++;
  ctx->counters.textures_live++;
  ctx->counters.bytes_allocated += bytes;
  out->id = id;
  return TEXMEM_STATUS_OK;
}

void texmem__gl_texture_delete(texmem_gl_context *ctx, texmem_gl_texture h) {
  texmem__gl_tex *t = texmem__gl_tex_get(ctx, h);
  if (!t) return;
  delete_storage(t);
  ctx->counters.textures_live--;
  ctx->counters.bytes_allocated -= t->bytes;
  texmem__slots_release(&ctx->textures, h.id);
}

texmem_status texmem_gl_texture_create(texmem_gl_context *ctx, const texmem_gl_texture_desc *desc,
                                       texmem_gl_texture *out, texmem_error *err) {
  if (!ctx || !desc || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context, desc or out is NULL");
  return texmem__gl_texture_new(ctx, desc, NULL, out, err);
}

void texmem_gl_texture_destroy(texmem_gl_context *ctx, texmem_gl_texture h) {
  texmem__gl_tex *t = texmem__gl_tex_get(ctx, h);
  if (t && !t->owner) texmem__gl_texture_delete(ctx, h);
}

static texmem_status tex_lookup(const texmem_gl_context *ctx, texmem_gl_texture h,
                                texmem__gl_tex **out, texmem_error *err) {
  if (!ctx) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context is NULL");
  if (!h.id) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "texture handle is 0");
  *out = texmem__gl_tex_get(ctx, h);
  if (!*out)
    return texmem__fail(err, TEXMEM_STATUS_STALE_HANDLE,
                        "texture handle 0x%08x is stale (destroyed)", (unsigned)h.id);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_texture_get_desc(const texmem_gl_context *ctx, texmem_gl_texture h,
                                         texmem_gl_texture_desc *out, texmem_error *err) {
  texmem__gl_tex *t;
  texmem_status st = tex_lookup(ctx, h, &t, err);
  if (st) return st;
  if (out) *out = t->desc;
  return TEXMEM_STATUS_OK;
}

/* ---- upload ---- */

/* Unpack state a caller's (adopted) context may have changed. */
typedef struct unpack_state {
  GLint pbo, align, row_length, image_height, skip_pixels, skip_rows, skip_images, tex;
} unpack_state;

static void unpack_save_reset(unpack_state *s, GLenum target) {
  static const GLenum pnames[] = {GL_UNPACK_ALIGNMENT, GL_UNPACK_ROW_LENGTH,
                                  GL_UNPACK_IMAGE_HEIGHT, GL_UNPACK_SKIP_PIXELS,
                                  GL_UNPACK_SKIP_ROWS, GL_UNPACK_SKIP_IMAGES};
  GLint *vals[] = {&s->align, &s->row_length, &s->image_height, &s->skip_pixels,
                   &s->skip_rows, &s->skip_images};
  glGetIntegerv(GL_PIXEL_UNPACK_BUFFER_BINDING, &s->pbo);
  glGetIntegerv(binding_enum(target), &s->tex);
  for (int i = 0; i < 6; i++) {
    glGetIntegerv(pnames[i], vals[i]);
    glPixelStorei(pnames[i], i == 0 ? 4 : 0);
  }
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

static void unpack_restore(const unpack_state *s, GLenum target) {
  glPixelStorei(GL_UNPACK_ALIGNMENT, s->align);
  glPixelStorei(GL_UNPACK_ROW_LENGTH, s->row_length);
  glPixelStorei(GL_UNPACK_IMAGE_HEIGHT, s->image_height);
  glPixelStorei(GL_UNPACK_SKIP_PIXELS, s->skip_pixels);
  glPixelStorei(GL_UNPACK_SKIP_ROWS, s->skip_rows);
  glPixelStorei(GL_UNPACK_SKIP_IMAGES, s->skip_images);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, (GLuint)s->pbo);
  glBindTexture(target, (GLuint)s->tex);
}

static void sub_image(const texmem__gl_tex *t, uint64_t x, uint64_t y, uint64_t z, uint64_t w,
                      uint64_t h, uint64_t d, const void *px, GLenum type) {
  if (t->target == GL_TEXTURE_2D)
    glTexSubImage2D(t->target, 0, (GLint)x, (GLint)y, (GLsizei)w, (GLsizei)h, GL_RGBA, type, px);
  else
    glTexSubImage3D(t->target, 0, (GLint)x, (GLint)y, (GLint)z, (GLsizei)w, (GLsizei)h,
                    (GLsizei)d, GL_RGBA, type, px);
}

/* Checks the region a logical shape covers; *texels gets its volume. */
static texmem_status region_check(const texmem__gl_tex *t, const uint64_t shape[3],
                                  uint64_t linear_width, uint64_t base_row, uint64_t *texels,
                                  texmem_error *err) {
  const uint64_t *dm = t->desc.dims;
  uint64_t n = texmem__vol_sat(shape);
  if (!shape[0] || !shape[1] || !shape[2])
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "empty tensor shape");
  if (t->target == GL_SHADER_STORAGE_BUFFER && !linear_width) {
    if (n > texmem__vol_sat(dm))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "tensor of %llu texels does not fit a buffer of %llu",
                          (unsigned long long)n, (unsigned long long)texmem__vol_sat(dm));
  } else if (linear_width) {
    uint64_t rows = n / linear_width + (n % linear_width != 0);
    if (linear_width != dm[0] || base_row > dm[1] || rows > dm[1] - base_row)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "linear tensor of %llu texels at row %llu does not fit a %llux%llu "
                          "texture",
                          (unsigned long long)n, (unsigned long long)base_row,
                          (unsigned long long)dm[0], (unsigned long long)dm[1]);
  } else if (shape[0] > dm[0] || shape[1] > dm[1] || shape[2] > dm[2]) {
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "tensor %llux%llux%llu does not fit its %llux%llux%llu texture",
                        (unsigned long long)shape[0], (unsigned long long)shape[1],
                        (unsigned long long)shape[2], (unsigned long long)dm[0],
                        (unsigned long long)dm[1], (unsigned long long)dm[2]);
  }
  if (n > SIZE_MAX / 16)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "tensor too large for host memory");
  *texels = n;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__gl_upload(texmem_gl_context *ctx, texmem__gl_tex *t,
                                const uint64_t shape[3], uint64_t linear_width,
                                uint64_t base_row, const float *data, texmem_error *err) {
  uint64_t n;
  texmem_status st = region_check(t, shape, linear_width, base_row, &n, err);
  if (st) return st;
  if (!data) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "data is NULL");
  const void *px = data;
  uint16_t *half = NULL;
  GLenum type = GL_FLOAT;
  if (t->desc.format == TEXMEM_GL_RGBA16F) {
    half = malloc((size_t)n * 4 * sizeof *half);
    if (!half) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < (size_t)n * 4; i++) half[i] = texmem__f32_to_f16(data[i]);
    px = half;
    type = GL_HALF_FLOAT;
  }
  size_t texel_bytes = type == GL_FLOAT ? 16 : 8;
  texmem__gl_drain();
  /* A shader may have read or written it since the last barrier. */
  if (t->write_epoch == ctx->epoch || t->read_epoch == ctx->epoch)
    texmem__gl_barrier(ctx, GL_ALL_BARRIER_BITS);
  if (t->target == GL_SHADER_STORAGE_BUFFER) { /* dense, from texel base_row * W */
    GLint prev = 0;
    glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &prev);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, t->name);
    glBufferSubData(GL_SHADER_STORAGE_BUFFER, (GLintptr)(base_row * linear_width * texel_bytes),
                    (GLsizeiptr)(n * texel_bytes), px);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)prev);
    free(half);
    return texmem__gl_check(err, "glBufferSubData (buffer arena)");
  }
  unpack_state s;
  unpack_save_reset(&s, t->target);
  glBindTexture(t->target, t->name);
  if (!linear_width) {
    sub_image(t, 0, 0, 0, shape[0], shape[1], shape[2], px, type);
  } else {
    uint64_t rows = n / linear_width, rest = n % linear_width;
    if (rows) sub_image(t, 0, base_row, 0, linear_width, rows, 1, px, type);
    if (rest)
      sub_image(t, 0, base_row + rows, 0, rest, 1, 1,
                (const unsigned char *)px + (size_t)(rows * linear_width) * texel_bytes, type);
  }
  unpack_restore(&s, t->target);
  free(half);
  return texmem__gl_check(err, t->target == GL_TEXTURE_2D ? "glTexSubImage2D" : "glTexSubImage3D");
}

/* Read back: a compute shader copies the logical texels into an SSBO
 * (works for every target, format and layout; no framebuffer needed). */
texmem_status texmem__gl_read(texmem_gl_context *ctx, texmem__gl_tex *t,
                              const uint64_t shape[3], uint64_t linear_width, uint64_t base_row,
                              bool ranged, float *data, texmem_error *err) {
  uint64_t n;
  texmem_status st = region_check(t, shape, linear_width, base_row, &n, err);
  if (st) return st;
  if (!data) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "data is NULL");
  if (!ctx->readback.id) {
    static const char *const in[] = {"src"}, *const bufs[] = {"tm_out"};
    texmem_gl_program_desc pd = {.name = "readback",
                                 .source = texmem__gl_shader_source("readback.comp"),
                                 .inputs = in, .n_inputs = 1,
                                 .buffers = bufs, .n_buffers = 1};
    if (!pd.source)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "readback.comp not embedded");
    st = texmem__gl_program_new(ctx, &pd, true, &ctx->readback, err);
    if (st) return st;
  }
  texmem__gl_prog *prog = texmem__gl_prog_get(ctx, ctx->readback);
  size_t bytes = (size_t)n * 16;
  texmem__gl_drain();
  GLint prev = 0;
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &prev);
  GLuint buf = 0;
  glGenBuffers(1, &buf);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, NULL, GL_STREAM_READ);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)prev);
  st = texmem__gl_check(err, "glBufferData (read back SSBO)");
  if (!st) {
    texmem__gl_binding b = {.tex = t, .linear_width = linear_width, .base_row = base_row,
                            .ranged = ranged};
    memcpy(b.shape, shape, sizeof b.shape);
    texmem__gl_ssbo ssbo = {.name = buf};
    st = texmem__gl_exec(ctx, prog, &b, &ssbo, NULL, 0, NULL, err);
  }
  if (!st) {
    texmem__gl_barrier(ctx, GL_BUFFER_UPDATE_BARRIER_BIT);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    const void *p = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
    if (p) {
      memcpy(data, p, bytes);
      glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    }
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)prev);
    st = texmem__gl_check(err, "glMapBufferRange (read back)");
    if (!st && !p)
      st = texmem__fail(err, TEXMEM_STATUS_GL_ERROR, "glMapBufferRange returned NULL");
  }
  glDeleteBuffers(1, &buf);
  return st;
}

texmem_status texmem_gl_texture_upload(texmem_gl_context *ctx, texmem_gl_texture h,
                                       const float *texels, texmem_error *err) {
  texmem__gl_tex *t;
  texmem_status st = tex_lookup(ctx, h, &t, err);
  if (st) return st;
  return texmem__gl_upload(ctx, t, t->desc.dims, 0, 0, texels, err);
}

texmem_status texmem_gl_texture_read(texmem_gl_context *ctx, texmem_gl_texture h, float *texels,
                                     texmem_error *err) {
  texmem__gl_tex *t;
  texmem_status st = tex_lookup(ctx, h, &t, err);
  if (st) return st;
  return texmem__gl_read(ctx, t, t->desc.dims, 0, 0, false, texels, err);
}

/* ---- buffers ---- */
texmem__gl_buf *texmem__gl_buf_get(const texmem_gl_context *ctx, texmem_gl_buffer b) {
  return ctx ? texmem__slots_get(&ctx->buffers, b.id) : NULL;
}

bool texmem__gl_buf_resolve(const texmem_gl_context *ctx, texmem_gl_buffer h,
                            texmem__gl_ssbo *out) {
  const texmem__gl_buf *b = texmem__gl_buf_get(ctx, h);
  if (!b) return false;
  if (!b->parent) {
    *out = (texmem__gl_ssbo){.name = b->name};
    return true;
  }
  const texmem__gl_buf *p = texmem__gl_buf_get(ctx, (texmem_gl_buffer){b->parent});
  if (!p) return false;
  *out = (texmem__gl_ssbo){.name = p->name, .offset = b->offset, .size = b->size};
  return true;
}

static texmem_status check_size(size_t size, const char *what, texmem_error *err) {
  if (!size || size % 8 || size > (size_t)INT32_MAX)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%s size %zu is not a positive multiple of 8 bytes (a binary16 vec4)",
                        what, size);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_buffer_create(texmem_gl_context *ctx, const void *data, size_t size,
                                      texmem_gl_buffer *out, texmem_error *err) {
  if (!ctx || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context or out is NULL");
  out->id = 0;
  texmem_status st = check_size(size, "buffer", err);
  if (st) return st;
  texmem__gl_drain();
  void *zeros = NULL;
  if (!data) {
    zeros = calloc(1, size);
    if (!zeros) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    data = zeros;
  }
  GLint prev = 0;
  glGetIntegerv(GL_SHADER_STORAGE_BUFFER_BINDING, &prev);
  GLuint name = 0;
  glGenBuffers(1, &name);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, name);
  glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)size, data, GL_STATIC_DRAW);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, (GLuint)prev);
  free(zeros);
  st = texmem__gl_check(err, "glBufferData (SSBO)");
  uint32_t id = 0;
  texmem__gl_buf *b = st ? NULL : texmem__slots_alloc(&ctx->buffers, &id);
  if (!b) {
    glDeleteBuffers(1, &name);
    return st ? st : texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of buffer handles");
  }
  b->name = name; /* the rest zero (slots_alloc) */
  b->size = size;
  ctx->counters.buffers_live++;
  out->id = id;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_buffer_create_view(texmem_gl_context *ctx, texmem_gl_buffer parent,
                                           size_t offset, size_t size, texmem_gl_buffer *out,
                                           texmem_error *err) {
  if (!ctx || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context or out is NULL");
  out->id = 0;
  const texmem__gl_buf *p = texmem__gl_buf_get(ctx, parent);
  if (!p)
    return texmem__fail(err,
                        parent.id ? TEXMEM_STATUS_STALE_HANDLE : TEXMEM_STATUS_INVALID_ARGUMENT,
                        "view of buffer handle 0x%08x: %s", (unsigned)parent.id,
                        parent.id ? "stale" : "zero");
  if (p->parent)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "view of buffer handle 0x%08x: it is a view itself", (unsigned)parent.id);
  texmem_status st = check_size(size, "view", err);
  if (st) return st;
  int64_t a = ctx->limits.ssbo_offset_alignment;
  size_t align = a > 0 ? (size_t)a : 1;
  if (offset % align)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "view offset %zu is not a multiple of the driver's SSBO offset "
                        "alignment %zu", offset, align);
  if (offset > p->size || size > p->size - offset)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "view [%zu, %zu + %zu) lies outside its buffer's %zu bytes", offset, offset,
                        size, p->size);
  if (ctx->limits.max_ssbo_size > 0 && (int64_t)size > ctx->limits.max_ssbo_size)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                        "view size %zu is past the driver's largest SSBO binding (%lld bytes)",
                        size, (long long)ctx->limits.max_ssbo_size);
  uint32_t id = 0;
  texmem__gl_buf *b = texmem__slots_alloc(&ctx->buffers, &id);
  if (!b) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of buffer handles");
  b->size = size; /* name 0: the parent's, at each dispatch */
  b->parent = parent.id;
  b->offset = offset;
  out->id = id;
  return TEXMEM_STATUS_OK;
}

void texmem_gl_buffer_destroy(texmem_gl_context *ctx, texmem_gl_buffer h) {
  texmem__gl_buf *b = texmem__gl_buf_get(ctx, h);
  if (!b) return;
  if (!b->parent) {
    glDeleteBuffers(1, &b->name);
    ctx->counters.buffers_live--;
  }
  texmem__slots_release(&ctx->buffers, h.id);
}
