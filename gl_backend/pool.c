/* Texture pool: one immutable texture per shared object of a plan, and the
 * tensor table (logical shape, lifetime, object) that dispatch resolves. */
#include <stdlib.h>
#include <string.h>

#include "gl_pool.h"

static texmem_status fail_create(texmem_gl_pool *pool, texmem_status st) {
  texmem_gl_pool_destroy(pool);
  return st;
}

/* Object o's texture (or buffer) description, checked against the limits
 * before any GL call. */
static texmem_status object_desc(const texmem_gl_context *ctx, const texmem_gl_pool_desc *desc,
                                 texmem_layout layout, size_t o, texmem_gl_texture_desc *td,
                                 texmem_error *err) {
  texmem_plan_object_dims(desc->plan, o, td->dims);
  td->format = desc->object_formats ? desc->object_formats[o] : desc->format;
  if (desc->storage == TEXMEM_STORAGE_BUFFER)
    td->target = TEXMEM_GL_TARGET_BUFFER;
  else if (layout == TEXMEM_LAYOUT_LINEAR || desc->dims == 2)
    td->target = TEXMEM_GL_TARGET_2D;
  else
    td->target = desc->array_target == TEXMEM_GL_TARGET_3D ? TEXMEM_GL_TARGET_3D
                                                          : TEXMEM_GL_TARGET_2D_ARRAY;
  uint64_t max[3];
  texmem_gl_max_dims(ctx, td->target, max);
  if (texmem_gl_format_bytes(td->format) == 0)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "object %zu: unknown format %d", o,
                        (int)td->format);
  for (int j = 0; j < 3; j++)
    if (td->dims[j] > max[j])
      return texmem__fail(err, TEXMEM_STATUS_EXCEEDS_LIMITS,
                          "object %zu (%llux%llux%llu) exceeds the texture limits %llux%llux%llu", o,
                          (unsigned long long)td->dims[0], (unsigned long long)td->dims[1],
                          (unsigned long long)td->dims[2], (unsigned long long)max[0],
                          (unsigned long long)max[1], (unsigned long long)max[2]);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_pool_create(texmem_gl_context *ctx, const texmem_gl_pool_desc *desc,
                                    texmem_gl_pool **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx || !desc || !desc->plan)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context, desc or plan is NULL");
  const texmem_plan *plan = desc->plan;
  bool buffer = desc->storage == TEXMEM_STORAGE_BUFFER;
  bool arena = desc->storage == TEXMEM_STORAGE_ARENA || buffer;
  if (desc->storage != TEXMEM_STORAGE_OBJECTS && !arena)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown storage %d",
                        (int)desc->storage);
  bool arena_plan = texmem_plan_get_kind(plan) == TEXMEM_PLAN_OFFSETS &&
                    texmem_plan_get_layout(plan) == TEXMEM_LAYOUT_LINEAR;
  if (arena && !arena_plan)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "arena storage needs an arena plan (offsets, linear layout)");
  if (buffer && texmem_plan_linear_width(plan) != 1)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "buffer storage needs an arena plan of width 1 (rows are texels), not %llu",
                        (unsigned long long)texmem_plan_linear_width(plan));
  if (!arena && texmem_plan_get_kind(plan) != TEXMEM_PLAN_OBJECTS)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        arena_plan ? "an arena plan needs arena storage (TEXMEM_STORAGE_ARENA)"
                                   : "the GL pool needs a shared-objects or arena plan, not 1-D "
                                     "offsets");
  if (desc->dims != 2 && desc->dims != 3)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "the GL pool needs 2-D or 3-D records, not %u-D", desc->dims);
  size_t n = texmem_plan_tensor_count(plan);
  if (desc->record_count != n || (n && !desc->records))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "%zu records given for a plan of %zu tensors", desc->record_count, n);
  if (desc->format != TEXMEM_GL_RGBA32F && desc->format != TEXMEM_GL_RGBA16F)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown format %d",
                        (int)desc->format);
  if (desc->array_target != TEXMEM_GL_TARGET_AUTO &&
      desc->array_target != TEXMEM_GL_TARGET_2D_ARRAY && desc->array_target != TEXMEM_GL_TARGET_3D)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "array_target must be AUTO, 2D_ARRAY or 3D");
  /* The plan must be the records' plan: textures never grow afterwards. */
  texmem_status st = texmem_plan_validate(desc->records, n, desc->dims, plan, err);
  if (st) return st;

  texmem_gl_pool *pool = calloc(1, sizeof *pool);
  if (!pool) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  pool->ctx = ctx;
  pool->arena = arena;
  pool->reuse_checker = desc->reuse_checker;
  pool->skip_lifetime_check = desc->skip_lifetime_check;
  pool->layout = texmem_plan_get_layout(plan);
  size_t k = texmem_plan_object_count(plan);
  pool->n_objects = k;
  pool->n_plan_tensors = pool->n_tensors = n;
  pool->cap_tensors = n ? n : 1;
  pool->objects = calloc(k ? k : 1, sizeof *pool->objects);
  pool->tensors = calloc(pool->cap_tensors, sizeof *pool->tensors);
  pool->last_writer = malloc((k ? k : 1) * sizeof *pool->last_writer);
  pool->last_write_task = calloc(k ? k : 1, sizeof *pool->last_write_task);
  if (!pool->objects || !pool->tensors || !pool->last_writer || !pool->last_write_task)
    return fail_create(pool, texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory"));
  for (size_t o = 0; o < k; o++) pool->last_writer[o] = TEXMEM__NO_TENSOR;

  uint64_t lw = texmem_plan_linear_width(plan);
  for (size_t i = 0; i < n; i++) {
    texmem__gl_tensor *t = &pool->tensors[i];
    const texmem_record *r = &desc->records[i];
    t->shape[0] = r->dims[0] ? r->dims[0] : 1;
    t->shape[1] = r->dims[1] ? r->dims[1] : 1;
    t->shape[2] = desc->dims == 3 && r->dims[2] ? r->dims[2] : 1;
    t->first = r->first_task;
    t->last = r->last_task;
    t->record_id = r->id;
    t->object = texmem_plan_tensor_object(plan, i);
    t->linear_width = pool->layout == TEXMEM_LAYOUT_LINEAR ? lw : 0;
    t->base_row = texmem_plan_tensor_base_row(plan, i);
  }
  if (arena && pool->reuse_checker) {
    /* Row owners: at most one range per tensor boundary of the texture. */
    pool->row_writers = calloc(k ? k : 1, sizeof *pool->row_writers);
    if (!pool->row_writers)
      return fail_create(pool, texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory"));
    for (size_t i = 0; i < n; i++) pool->row_writers[pool->tensors[i].object].cap += 2;
    for (size_t o = 0; o < k; o++) {
      pool->row_writers[o].cap += 2;
      pool->row_writers[o].v = malloc(pool->row_writers[o].cap * sizeof *pool->row_writers[o].v);
      if (!pool->row_writers[o].v)
        return fail_create(pool, texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory"));
    }
  }

  /* Descriptions and limits first: no GL call for a plan that cannot fit. */
  texmem_gl_texture_desc *td = calloc(k ? k : 1, sizeof *td);
  if (!td) return fail_create(pool, texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory"));
  for (size_t o = 0; o < k && !st; o++) st = object_desc(ctx, desc, pool->layout, o, &td[o], err);
  for (size_t o = 0; o < k && !st; o++) {
    st = texmem__gl_texture_new(ctx, &td[o], pool, &pool->objects[o], err);
    if (st) {
      /* Keep the status; name the object in front of the GL message. */
      texmem__prefix(err, "object %zu of %zu: ", o, k);
      break;
    }
    pool->bytes = texmem__add_sat(pool->bytes, texmem__gl_tex_get(ctx, pool->objects[o])->bytes);
  }
  free(td);
  if (st) return fail_create(pool, st);
  *out = pool;
  return TEXMEM_STATUS_OK;
}

void texmem_gl_pool_destroy(texmem_gl_pool *pool) {
  if (!pool) return;
  if (pool->objects)
    for (size_t o = 0; o < pool->n_objects; o++) texmem__gl_texture_delete(pool->ctx, pool->objects[o]);
  free(pool->objects);
  free(pool->tensors);
  free(pool->last_writer);
  free(pool->last_write_task);
  if (pool->row_writers)
    for (size_t o = 0; o < pool->n_objects; o++) free(pool->row_writers[o].v);
  free(pool->row_writers);
  free(pool);
}

size_t texmem_gl_pool_object_count(const texmem_gl_pool *pool) {
  return pool ? pool->n_objects : 0;
}

uint64_t texmem_gl_pool_bytes(const texmem_gl_pool *pool) { return pool ? pool->bytes : 0; }

size_t texmem_gl_pool_tensor_count(const texmem_gl_pool *pool) {
  return pool ? pool->n_tensors : 0;
}

texmem_gl_texture texmem_gl_pool_object_texture(const texmem_gl_pool *pool, size_t object) {
  texmem_gl_texture none = {0};
  return pool && object < pool->n_objects ? pool->objects[object] : none;
}

texmem_gl_texture texmem_gl_pool_tensor_texture(const texmem_gl_pool *pool, size_t tensor) {
  texmem_gl_texture none = {0};
  if (!pool || tensor >= pool->n_tensors) return none;
  const texmem__gl_tensor *t = &pool->tensors[tensor];
  return t->object == TEXMEM__NO_OBJECT ? t->imported : pool->objects[t->object];
}

bool texmem_gl_tensor_shape(const texmem_gl_pool *pool, size_t tensor, uint64_t shape[3]) {
  if (!pool || tensor >= pool->n_tensors) return false;
  memcpy(shape, pool->tensors[tensor].shape, 3 * sizeof *shape);
  return true;
}

static texmem_status import(texmem_gl_pool *pool, texmem_gl_texture h, const uint64_t shape[3],
                            bool writable, size_t *tensor, texmem_error *err) {
  if (!pool || !shape || !tensor)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "pool, shape or tensor is NULL");
  texmem__gl_tex *t = texmem__gl_tex_get(pool->ctx, h);
  if (!t)
    return texmem__fail(err, h.id ? TEXMEM_STATUS_STALE_HANDLE : TEXMEM_STATUS_INVALID_ARGUMENT,
                        "import: texture handle 0x%08x is %s", (unsigned)h.id,
                        h.id ? "stale" : "zero");
  if (t->owner)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "import: texture 0x%08x belongs to a pool", (unsigned)h.id);
  for (int i = 0; i < 3; i++)
    if (!shape[i] || shape[i] > t->desc.dims[i])
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "import: shape %llux%llux%llu does not fit the texture %llux%llux%llu",
                          (unsigned long long)shape[0], (unsigned long long)shape[1],
                          (unsigned long long)shape[2], (unsigned long long)t->desc.dims[0],
                          (unsigned long long)t->desc.dims[1], (unsigned long long)t->desc.dims[2]);
  void *grown = texmem__grow(pool->tensors, &pool->cap_tensors, pool->n_tensors + 1,
                             sizeof *pool->tensors);
  if (!grown) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  pool->tensors = grown;
  texmem__gl_tensor *x = &pool->tensors[pool->n_tensors];
  memset(x, 0, sizeof *x);
  memcpy(x->shape, shape, sizeof x->shape);
  x->object = TEXMEM__NO_OBJECT;
  x->imported = h;
  x->last = UINT64_MAX;
  x->record_id = UINT64_MAX;
  x->writable = writable;
  *tensor = pool->n_tensors++;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_pool_import(texmem_gl_pool *pool, texmem_gl_texture h,
                                    const uint64_t shape[3], size_t *tensor, texmem_error *err) {
  return import(pool, h, shape, false, tensor, err);
}

texmem_status texmem_gl_pool_import_writable(texmem_gl_pool *pool, texmem_gl_texture h,
                                             const uint64_t shape[3], size_t *tensor,
                                             texmem_error *err) {
  return import(pool, h, shape, true, tensor, err);
}

texmem_status texmem__gl_pool_resolve(texmem_gl_pool *pool, size_t tensor, texmem__gl_tex **out,
                                      texmem_error *err) {
  if (tensor >= pool->n_tensors)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "tensor %zu out of range (%zu tensors)",
                        tensor, pool->n_tensors);
  texmem_gl_texture h = texmem_gl_pool_tensor_texture(pool, tensor);
  *out = texmem__gl_tex_get(pool->ctx, h);
  if (!*out)
    return texmem__fail(err, TEXMEM_STATUS_STALE_HANDLE,
                        "tensor %zu: its texture 0x%08x was destroyed", tensor, (unsigned)h.id);
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_tensor_upload(texmem_gl_pool *pool, size_t tensor, const float *data,
                                      texmem_error *err) {
  if (!pool) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "pool is NULL");
  texmem__gl_tex *t;
  texmem_status st = texmem__gl_pool_resolve(pool, tensor, &t, err);
  if (st) return st;
  const texmem__gl_tensor *x = &pool->tensors[tensor];
  st = texmem__gl_upload(pool->ctx, t, x->shape, x->linear_width, x->base_row, data, err);
  if (!st && x->object != TEXMEM__NO_OBJECT && pool->row_writers) {
    uint64_t lo, hi;
    texmem__gl_pool_tensor_rows(pool, tensor, &lo, &hi);
    texmem__row_map_write(&pool->row_writers[x->object], lo, hi, tensor, x->first);
  } else if (!st && x->object != TEXMEM__NO_OBJECT) {
    pool->last_writer[x->object] = tensor;
    pool->last_write_task[x->object] = x->first;
  }
  return st;
}

texmem_status texmem_gl_tensor_read(texmem_gl_pool *pool, size_t tensor, float *data,
                                    texmem_error *err) {
  if (!pool) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "pool is NULL");
  texmem__gl_tex *t;
  texmem_status st = texmem__gl_pool_resolve(pool, tensor, &t, err);
  if (st) return st;
  const texmem__gl_tensor *x = &pool->tensors[tensor];
  bool ranged = pool->arena && x->object != TEXMEM__NO_OBJECT;
  texmem__row_owner bad;
  uint64_t lo, hi;
  texmem__gl_pool_tensor_rows(pool, tensor, &lo, &hi);
  if (pool->row_writers && ranged &&
      !texmem__row_map_check(&pool->row_writers[x->object], lo, hi, tensor, &bad)) {
    if (bad.tensor == TEXMEM__NO_TENSOR)
      return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                          "read back of tensor %zu: rows [%llu, %llu) of arena texture %zu were "
                          "never written",
                          tensor, (unsigned long long)bad.lo, (unsigned long long)bad.hi,
                          x->object);
    return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                        "read back of tensor %zu: rows [%llu, %llu) of arena texture %zu were since "
                        "written by tensor %zu at task %llu",
                        tensor, (unsigned long long)bad.lo, (unsigned long long)bad.hi, x->object,
                        bad.tensor, (unsigned long long)bad.task);
  }
  if (pool->reuse_checker && !pool->arena && x->object != TEXMEM__NO_OBJECT &&
      pool->last_writer[x->object] != tensor) {
    size_t w = pool->last_writer[x->object];
    if (w == TEXMEM__NO_TENSOR)
      return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                          "read back of tensor %zu: object %zu was never written", tensor, x->object);
    return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                        "read back of tensor %zu: object %zu was since written by tensor %zu at task %llu",
                        tensor, x->object, w,
                        (unsigned long long)pool->last_write_task[x->object]);
  }
  return texmem__gl_read(pool->ctx, t, x->shape, x->linear_width, x->base_row, ranged, data, err);
}

void texmem__gl_pool_tensor_rows(const texmem_gl_pool *pool, size_t tensor, uint64_t *lo,
                                 uint64_t *hi) {
  const texmem__gl_tensor *x = &pool->tensors[tensor];
  texmem__gl_binding b = {.linear_width = x->linear_width, .base_row = x->base_row,
                          .ranged = pool->arena && x->object != TEXMEM__NO_OBJECT};
  memcpy(b.shape, x->shape, sizeof b.shape);
  texmem__gl_binding_rows(&b, lo, hi);
}
