/* Compute programs: made, destroyed and run. One GL program per variant
 * (image type and format of each binding; source in program_source.c),
 * compiled in batches (program_batch.c) at creation or on first use and
 * kept. Variants of the same source, in any program of the context, share
 * one linked program (program_share.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

/* ---- lookup ---- */
texmem__gl_prog *texmem__gl_prog_get(const texmem_gl_context *ctx, texmem_gl_program p) {
  return ctx ? texmem__slots_get(&ctx->programs, p.id) : NULL;
}

static bool valid_name(const char *s) {
  if (!s || !*s || strlen(s) > 64) return false;
  if (!strncmp(s, "gl_", 3) || strstr(s, "__")) return false; /* reserved in GLSL */
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (const char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
          *p == '_'))
      return false;
  return true;
}

/* The cached variant for the bindings, else made now: a batch of one
 * (program_batch.c, which shares a source linked before). */
static texmem_status get_variant(texmem_gl_context *ctx, texmem__gl_prog *p,
                                 const uint8_t *key, texmem__gl_variant **out,
                                 texmem_error *err) {
  if ((*out = texmem__gl_variant_find(p, key))) return TEXMEM_STATUS_OK;
  uint8_t one[1][TEXMEM__GL_MAX_IMAGES] = {{0}};
  memcpy(one[0], key, p->n_inputs + p->n_outputs);
  texmem_status st = texmem__gl_compile_batch(ctx, &p, (const uint8_t(*)[TEXMEM__GL_MAX_IMAGES])one,
                                              1, err);
  if (!st) *out = texmem__gl_variant_find(p, key);
  return st;
}

static void prog_free_fields(texmem_gl_context *ctx, texmem__gl_prog *p) {
  for (size_t i = 0; i < p->n_variants; i++) {
    texmem__gl_shared_release(ctx, p->variants[i].program);
    for (size_t u = 0; u < p->variants[i].n_uniforms; u++) free(p->variants[i].uniforms[u].name);
    free(p->variants[i].uniforms);
  }
  free(p->variants);
  if (p->images)
    for (size_t i = 0; i < p->n_inputs + p->n_outputs; i++) free(p->images[i]);
  free(p->images);
  if (p->buffers)
    for (size_t i = 0; i < p->n_buffers; i++) free(p->buffers[i]);
  free(p->buffers);
  free(p->name);
  free(p->source);
}

texmem_status texmem__gl_program_new(texmem_gl_context *ctx, const texmem_gl_program_desc *d,
                                     bool writable_buffers, texmem_gl_program *out,
                                     texmem_error *err) {
  out->id = 0;
  const char *pname = d->name ? d->name : "(unnamed)";
  if (!d->source)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "program %s: source is NULL", pname);
  size_t n_img = d->n_inputs + d->n_outputs;
  if (n_img > TEXMEM__GL_MAX_IMAGES || (int64_t)n_img > ctx->limits.max_compute_image_uniforms)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "program %s: %zu images exceed the limit (%d here, %lld by the GPU)", pname,
                        n_img, TEXMEM__GL_MAX_IMAGES,
                        (long long)ctx->limits.max_compute_image_uniforms);
  if (d->n_buffers > TEXMEM__GL_MAX_BUFFERS || (int64_t)d->n_buffers > ctx->limits.max_ssbo_bindings)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "program %s: %zu buffers exceed the limit",
                        pname, d->n_buffers);
  if (d->n_buffers < 32 && d->half_buffers >> d->n_buffers)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "program %s: half_buffers 0x%x names buffers past its %zu", pname,
                        (unsigned)d->half_buffers, d->n_buffers);
  if (d->n_buffers < 32 && d->scratch_buffers >> d->n_buffers)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "program %s: scratch_buffers 0x%x names buffers past its %zu", pname,
                        (unsigned)d->scratch_buffers, d->n_buffers);
  if (d->half_buffers & d->scratch_buffers)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "program %s: buffers 0x%x both binary16 and scratch", pname,
                        (unsigned)(d->half_buffers & d->scratch_buffers));
  if ((d->n_inputs && !d->inputs) || (d->n_outputs && !d->outputs) || (d->n_buffers && !d->buffers))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "program %s: a name array is NULL",
                        pname);
  const char *all[TEXMEM__GL_MAX_IMAGES + TEXMEM__GL_MAX_BUFFERS];
  size_t n_all = 0;
  for (size_t i = 0; i < d->n_inputs; i++) all[n_all++] = d->inputs[i];
  for (size_t i = 0; i < d->n_outputs; i++) all[n_all++] = d->outputs[i];
  for (size_t i = 0; i < d->n_buffers; i++) all[n_all++] = d->buffers[i];
  for (size_t i = 0; i < n_all; i++) {
    if (!valid_name(all[i]))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "program %s: \"%s\" is not a usable GLSL name", pname,
                          all[i] ? all[i] : "(null)");
    for (size_t j = 0; j < i; j++)
      if (!strcmp(all[i], all[j]))
        return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "program %s: name \"%s\" twice",
                            pname, all[i]);
  }
  uint32_t local[3];
  for (int i = 0; i < 3; i++) {
    local[i] = d->local_size[i] ? d->local_size[i] : (i < 2 ? 8 : 1);
    if ((int64_t)local[i] > ctx->limits.max_work_group_size[i])
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "program %s: local size %u exceeds the limit %lld in dimension %d", pname,
                          local[i], (long long)ctx->limits.max_work_group_size[i], i);
  }
  if ((int64_t)local[0] * local[1] * local[2] > ctx->limits.max_work_group_invocations)
    return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                        "program %s: %u invocations a work group exceed the limit %lld", pname,
                        local[0] * local[1] * local[2],
                        (long long)ctx->limits.max_work_group_invocations);

  texmem__gl_prog tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.n_inputs = d->n_inputs;
  tmp.n_outputs = d->n_outputs;
  tmp.n_buffers = d->n_buffers;
  tmp.writable_buffers = writable_buffers;
  tmp.half_buffers = d->half_buffers;
  tmp.scratch_buffers = d->scratch_buffers;
  memcpy(tmp.local, local, sizeof local);
  tmp.name = texmem__strdup(pname);
  tmp.source = texmem__strdup(d->source);
  tmp.images = calloc(n_img ? n_img : 1, sizeof *tmp.images);
  tmp.buffers = calloc(d->n_buffers ? d->n_buffers : 1, sizeof *tmp.buffers);
  bool oom = !tmp.name || !tmp.source || !tmp.images || !tmp.buffers;
  for (size_t i = 0; i < n_img && !oom; i++) oom = !(tmp.images[i] = texmem__strdup(all[i]));
  for (size_t i = 0; i < d->n_buffers && !oom; i++)
    oom = !(tmp.buffers[i] = texmem__strdup(d->buffers[i]));
  if (oom) {
    prog_free_fields(ctx, &tmp);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  /* Default variant now: fp32 2-D arrays everywhere; shows errors early. */
  if (!d->defer_compile) {
    uint8_t key[TEXMEM__GL_MAX_IMAGES];
    memset(key, TEXMEM__GL_KEY_ARRAY, sizeof key);
    texmem__gl_variant *v;
    texmem_status st = get_variant(ctx, &tmp, key, &v, err);
    if (st) {
      prog_free_fields(ctx, &tmp);
      return st;
    }
  }
  uint32_t id;
  texmem__gl_prog *p = texmem__slots_alloc(&ctx->programs, &id);
  if (!p) {
    prog_free_fields(ctx, &tmp);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of program handles");
  }
  tmp.hdr = p->hdr;
  *p = tmp;
  out->id = id;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_program_create(texmem_gl_context *ctx, const texmem_gl_program_desc *desc,
                                       texmem_gl_program *out, texmem_error *err) {
  if (!ctx || !desc || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context, desc or out is NULL");
  return texmem__gl_program_new(ctx, desc, false, out, err);
}

void texmem_gl_program_destroy(texmem_gl_context *ctx, texmem_gl_program h) {
  texmem__gl_prog *p = texmem__gl_prog_get(ctx, h);
  if (!p || h.id == ctx->readback.id) return;
  prog_free_fields(ctx, p);
  texmem__slots_release(&ctx->programs, h.id);
}

void texmem__gl_programs_free_all(texmem_gl_context *ctx) {
  for (size_t i = 0; i < ctx->programs.cap; i++) {
    texmem__gl_prog *p = texmem__slots_at(&ctx->programs, i);
    if (p->hdr.alive) prog_free_fields(ctx, p);
  }
  texmem__gl_shared_free_all(ctx);
}

const char *texmem_gl_program_log(const texmem_gl_context *ctx) {
  return ctx && ctx->log ? ctx->log : "";
}

/* ---- execution ---- */
static GLint uniform_loc(texmem__gl_variant *v, const char *name, bool *oom) {
  for (size_t i = 0; i < v->n_uniforms; i++)
    if (!strcmp(v->uniforms[i].name, name)) return v->uniforms[i].loc;
  GLint loc = glGetUniformLocation(v->program, name);
  void *grown = texmem__grow(v->uniforms, &v->cap_uniforms, v->n_uniforms + 1,
                             sizeof *v->uniforms);
  if (!grown) {
    *oom = true;
    return loc;
  }
  v->uniforms = grown;
  char *copy = texmem__strdup(name);
  if (!copy) {
    *oom = true;
    return loc;
  }
  v->uniforms[v->n_uniforms].name = copy;
  v->uniforms[v->n_uniforms].loc = loc;
  v->n_uniforms++;
  return loc;
}

static texmem_status set_uniform(const texmem_gl_uniform *u, GLint loc, const char *prog,
                                 texmem_error *err) {
  if (loc < 0) return TEXMEM_STATUS_OK; /* unused by the shader: optimised away */
  switch (u->type) {
    case TEXMEM_GL_INT: glUniform1i(loc, u->i[0]); break;
    case TEXMEM_GL_IVEC2: glUniform2i(loc, u->i[0], u->i[1]); break;
    case TEXMEM_GL_IVEC3: glUniform3i(loc, u->i[0], u->i[1], u->i[2]); break;
    case TEXMEM_GL_IVEC4: glUniform4i(loc, u->i[0], u->i[1], u->i[2], u->i[3]); break;
    case TEXMEM_GL_FLOAT: glUniform1f(loc, u->f[0]); break;
    case TEXMEM_GL_VEC2: glUniform2f(loc, u->f[0], u->f[1]); break;
    case TEXMEM_GL_VEC3: glUniform3f(loc, u->f[0], u->f[1], u->f[2]); break;
    case TEXMEM_GL_VEC4: glUniform4f(loc, u->f[0], u->f[1], u->f[2], u->f[3]); break;
    default:
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "program %s: uniform %s has unknown type %d", prog, u->name, (int)u->type);
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__gl_variant_key(const texmem_gl_context *ctx, const texmem__gl_prog *p,
                                     const texmem__gl_binding *images, uint8_t *key,
                                     texmem_error *err) {
  size_t n_img = p->n_inputs + p->n_outputs;
  for (size_t i = 0; i < n_img; i++) {
    const uint64_t *s = images[i].shape;
    if (s[0] > INT32_MAX || s[1] > INT32_MAX || s[2] > INT32_MAX ||
        images[i].linear_width > INT32_MAX || texmem__vol_sat(s) > INT32_MAX ||
        images[i].base_row > INT32_MAX)
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "program %s: tensor %s is too large for int coordinates", p->name,
                          p->images[i]);
    size_t slot = 0; /* buffers: the first binding of the same one */
    while (images[slot].tex != images[i].tex) slot++;
    key[i] = texmem__gl_key_of(images[i].tex, slot);
  }
  size_t ssbos = texmem__gl_slot_binding(p, key, n_img);
  if ((int64_t)ssbos > ctx->limits.max_compute_ssbos)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "program %s: %zu storage buffers exceed the limit %lld", p->name, ssbos,
                        (long long)ctx->limits.max_compute_ssbos);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__gl_exec(texmem_gl_context *ctx, texmem__gl_prog *p,
                              const texmem__gl_binding *images, const texmem__gl_ssbo *buffers,
                              const texmem_gl_uniform *uniforms, size_t n_uniforms,
                              const uint32_t groups_in[3], texmem_error *err) {
  size_t n_img = p->n_inputs + p->n_outputs;
  uint8_t key[TEXMEM__GL_MAX_IMAGES] = {0};
  texmem_status st = texmem__gl_variant_key(ctx, p, images, key, err);
  if (st) return st;
  uint32_t groups[3];
  bool auto_groups = !groups_in || (!groups_in[0] && !groups_in[1] && !groups_in[2]);
  for (int k = 0; k < 3; k++) {
    if (!auto_groups) {
      groups[k] = groups_in[k];
    } else if (n_img) {
      /* Cover the first output's (or, with none, the first input's) shape. */
      uint64_t s = images[p->n_outputs ? p->n_inputs : 0].shape[k];
      groups[k] = (uint32_t)((s + p->local[k] - 1) / p->local[k]);
    } else {
      groups[k] = 1;
    }
    if (!groups[k] || (int64_t)groups[k] > ctx->limits.max_work_group_count[k])
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "program %s: %u work groups in dimension %d (limit %lld)", p->name,
                          groups[k], k, (long long)ctx->limits.max_work_group_count[k]);
  }
  texmem__gl_variant *v;
  st = get_variant(ctx, p, key, &v, err);
  if (st) return st;

  /* Barrier only on a hazard since the last one: read or overwrite after a
   * shader write, or overwrite after a shader read, of the same rows
   * (whole textures, except arena tensors). */
  bool hazard = false;
  for (size_t i = 0; i < n_img && !hazard; i++) {
    texmem__gl_tex *t = images[i].tex;
    if (t->dirty_epoch != ctx->epoch) continue; /* nothing since the last barrier */
    uint64_t lo, hi;
    texmem__gl_binding_rows(&images[i], &lo, &hi);
    hazard = texmem__rowset_intersects(&t->dirty_written, lo, hi) ||
             (i >= p->n_inputs && texmem__rowset_intersects(&t->dirty_read, lo, hi));
  }
  texmem__gl_drain();
  if (hazard)
    texmem__gl_barrier(ctx, GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);

  glUseProgram(v->program);
  for (size_t i = 0; i < n_img; i++) {
    const texmem__gl_tex *t = images[i].tex;
    bool in = i < p->n_inputs;
    if (TEXMEM__GL_KEY_TARGET(key[i]) != TEXMEM__GL_KEY_BUFFER) {
      glBindImageTexture((GLuint)i, t->name, 0, t->target == GL_TEXTURE_2D ? GL_FALSE : GL_TRUE,
                         0, in ? GL_READ_ONLY : GL_WRITE_ONLY, t->internal_format);
      ctx->counters.binds++;
    } else if (TEXMEM__GL_KEY_SLOT(key[i]) == i) {
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)texmem__gl_slot_binding(p, key, i), t->name);
      ctx->counters.binds++;
    }
    if (v->tensor_loc[i] >= 0)
      glUniform4i(v->tensor_loc[i], (GLint)images[i].shape[0], (GLint)images[i].shape[1],
                  (GLint)images[i].shape[2], (GLint)images[i].linear_width);
    if (v->row_loc[i] >= 0) glUniform1i(v->row_loc[i], (GLint)images[i].base_row);
  }
  for (size_t i = 0; i < p->n_buffers; i++) {
    const texmem__gl_ssbo *b = &buffers[i];
    if (b->size)
      glBindBufferRange(GL_SHADER_STORAGE_BUFFER, (GLuint)i, b->name, (GLintptr)b->offset,
                        (GLsizeiptr)b->size);
    else
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, (GLuint)i, b->name);
    ctx->counters.binds++;
  }
  bool oom = false;
  for (size_t i = 0; i < n_uniforms && !st; i++) {
    if (!uniforms[i].name) {
      st = texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "program %s: uniform %zu has no name",
                        p->name, i);
      break;
    }
    st = set_uniform(&uniforms[i], uniform_loc(v, uniforms[i].name, &oom), p->name, err);
  }
  if (!st && oom) st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  if (!st) st = texmem__gl_check(err, "glBindImageTexture / glUniform");
  if (st) return st;
  glDispatchCompute(groups[0], groups[1], groups[2]);
  ctx->counters.dispatches++;
  uint64_t wg = (uint64_t)groups[0] * groups[1] * groups[2];
  ctx->counters.work_groups += wg;
  ctx->counters.invocations += wg * p->local[0] * p->local[1] * p->local[2];
  st = texmem__gl_check(err, "glDispatchCompute");
  if (st) {
    size_t len = err ? strlen(err->message) : 0;
    if (err && len < sizeof err->message)
      snprintf(err->message + len, sizeof err->message - len, " (program %s)", p->name);
    return st;
  }
  for (size_t i = 0; i < n_img; i++) {
    texmem__gl_tex *t = images[i].tex;
    if (t->dirty_epoch != ctx->epoch) {
      t->dirty_epoch = ctx->epoch;
      t->dirty_written.n = t->dirty_read.n = 0;
    }
    uint64_t lo, hi;
    texmem__gl_binding_rows(&images[i], &lo, &hi);
    if (i < p->n_inputs) {
      t->read_epoch = ctx->epoch;
      texmem__rowset_add(&t->dirty_read, lo, hi);
    } else {
      t->write_epoch = ctx->epoch;
      texmem__rowset_add(&t->dirty_written, lo, hi);
    }
  }
  return TEXMEM_STATUS_OK;
}
