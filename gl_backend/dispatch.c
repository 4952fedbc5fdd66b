/* Dispatch of one operation over pool tensors: resolve tensor -> object ->
 * texture, check exclusive access and lifetimes (and, in debug mode, the
 * last writer of every object read), then bind and dispatch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_pool.h"

/* Another tensor of the same object (arena: on overlapping rows) live at
 * task, or TEXMEM__NO_TENSOR. */
static size_t holder(const texmem_gl_pool *pool, size_t tensor, uint64_t task) {
  size_t o = pool->tensors[tensor].object;
  uint64_t lo, hi, ulo, uhi;
  texmem__gl_pool_tensor_rows(pool, tensor, &lo, &hi);
  for (size_t i = 0; i < pool->n_plan_tensors; i++) {
    const texmem__gl_tensor *u = &pool->tensors[i];
    if (i == tensor || u->object != o || task < u->first || u->last < task) continue;
    texmem__gl_pool_tensor_rows(pool, i, &ulo, &uhi);
    if (ulo < hi && lo < uhi) return i;
  }
  return TEXMEM__NO_TENSOR;
}

/* Arena: rows of one texture bound twice in one dispatch. Inputs may share
 * rows (both read-only); an output's rows must be its own. */
static texmem_status check_rows(const texmem_gl_pool *pool, const texmem_gl_op *op,
                                const char *prog, size_t n_in, size_t i, size_t j,
                                const size_t *ids, texmem_error *err) {
  if (i < n_in && j < n_in) return TEXMEM_STATUS_OK;
  uint64_t a_lo, a_hi, b_lo, b_hi;
  texmem__gl_pool_tensor_rows(pool, ids[j], &a_lo, &a_hi);
  texmem__gl_pool_tensor_rows(pool, ids[i], &b_lo, &b_hi);
  if (a_hi <= b_lo || b_hi <= a_lo) return TEXMEM_STATUS_OK;
  return texmem__fail(err, TEXMEM_STATUS_EXCLUSIVE_ACCESS,
                      "task %llu (%s): %s tensor %zu (rows [%llu, %llu)) and %s tensor %zu (rows "
                      "[%llu, %llu)) overlap in arena texture %zu",
                      (unsigned long long)op->task, prog, j < n_in ? "input" : "output", ids[j],
                      (unsigned long long)a_lo, (unsigned long long)a_hi,
                      i < n_in ? "input" : "output", ids[i], (unsigned long long)b_lo,
                      (unsigned long long)b_hi, pool->tensors[ids[i]].object);
}

static texmem_status check_lifetime(const texmem_gl_pool *pool, size_t tensor, uint64_t task,
                                    const char *role, const char *prog, texmem_error *err) {
  const texmem__gl_tensor *t = &pool->tensors[tensor];
  if (t->object == TEXMEM__NO_OBJECT || (t->first <= task && task <= t->last))
    return TEXMEM_STATUS_OK;
  size_t h = holder(pool, tensor, task);
  if (h != TEXMEM__NO_TENSOR)
    return texmem__fail(err, TEXMEM_STATUS_EXCLUSIVE_ACCESS,
                        "task %llu (%s): %s tensor %zu (lifetime [%llu, %llu]) is bound but its "
                        "object %zu is held by live tensor %zu (lifetime [%llu, %llu])",
                        (unsigned long long)task, prog, role, tensor, (unsigned long long)t->first,
                        (unsigned long long)t->last, t->object, h,
                        (unsigned long long)pool->tensors[h].first,
                        (unsigned long long)pool->tensors[h].last);
  return texmem__fail(err, TEXMEM_STATUS_EXCLUSIVE_ACCESS,
                      "task %llu (%s): %s tensor %zu is used outside its lifetime [%llu, %llu]",
                      (unsigned long long)task, prog, role, tensor, (unsigned long long)t->first,
                      (unsigned long long)t->last);
}

/* Everything a dispatch checks, apart from the work: handles, counts,
 * exclusive access, lifetimes and the reuse checker (`checks` false: the
 * handles and counts alone, for texmem_gl_prepare). Fills the program, the
 * buffer names, the image bindings and their tensor ids; no GL call. */
static texmem_status validate_op(texmem_gl_pool *pool, const texmem_gl_op *op, bool checks,
                                 texmem__gl_prog **prog,
                                 texmem__gl_ssbo bufs[TEXMEM__GL_MAX_BUFFERS],
                                 texmem__gl_binding b[TEXMEM__GL_MAX_IMAGES],
                                 size_t ids[TEXMEM__GL_MAX_IMAGES], texmem_error *err) {
  texmem_gl_context *ctx = pool->ctx;
  texmem__gl_prog *p = texmem__gl_prog_get(ctx, op->program);
  *prog = p;
  if (!p)
    return texmem__fail(err, op->program.id ? TEXMEM_STATUS_STALE_HANDLE
                                            : TEXMEM_STATUS_INVALID_ARGUMENT,
                        "task %llu: program handle 0x%08x is %s", (unsigned long long)op->task,
                        (unsigned)op->program.id, op->program.id ? "stale" : "zero");
  if (op->n_inputs != p->n_inputs || op->n_outputs != p->n_outputs ||
      op->n_buffers != p->n_buffers)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "task %llu (%s): %zu inputs, %zu outputs, %zu buffers given; the program "
                        "has %zu, %zu, %zu",
                        (unsigned long long)op->task, p->name, op->n_inputs, op->n_outputs,
                        op->n_buffers, p->n_inputs, p->n_outputs, p->n_buffers);
  if ((op->n_inputs && !op->inputs) || (op->n_outputs && !op->outputs) ||
      (op->n_buffers && !op->buffers) || (op->n_uniforms && !op->uniforms))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "task %llu (%s): an array is NULL",
                        (unsigned long long)op->task, p->name);

  /* Handles first, then the tensors' checks. */
  for (size_t i = 0; i < p->n_buffers; i++) {
    texmem_gl_buffer h = op->buffers[i];
    if (!texmem__gl_buf_resolve(ctx, h, &bufs[i]))
      return texmem__fail(err, h.id ? TEXMEM_STATUS_STALE_HANDLE : TEXMEM_STATUS_INVALID_ARGUMENT,
                          "task %llu (%s): buffer %zu handle 0x%08x is %s",
                          (unsigned long long)op->task, p->name, i, (unsigned)h.id,
                          !h.id                             ? "zero"
                          : texmem__gl_buf_get(ctx, h) ? "a view of a destroyed buffer"
                                                            : "stale");
  }
  size_t n_img = p->n_inputs + p->n_outputs;
  for (size_t i = 0; i < n_img; i++) {
    bool in = i < p->n_inputs;
    size_t t = in ? op->inputs[i] : op->outputs[i - p->n_inputs];
    const char *role = in ? "input" : "output";
    ids[i] = t;
    texmem_status st = texmem__gl_pool_resolve(pool, t, &b[i].tex, err);
    if (st) return st;
    const texmem__gl_tensor *x = &pool->tensors[t];
    memcpy(b[i].shape, x->shape, sizeof b[i].shape);
    b[i].linear_width = x->linear_width;
    b[i].base_row = x->base_row;
    b[i].ranged = pool->arena && x->object != TEXMEM__NO_OBJECT;
    if (!checks) continue;
    /* Exclusive access: never the same texture twice in one dispatch
     * (arena: never the same rows, when one of them is written). */
    for (size_t j = 0; j < i; j++) {
      if (b[j].tex != b[i].tex) continue;
      if (b[i].ranged && b[j].ranged) {
        st = check_rows(pool, op, p->name, p->n_inputs, i, j, ids, err);
        if (st) return st;
        continue;
      }
      return texmem__fail(err, TEXMEM_STATUS_EXCLUSIVE_ACCESS,
                            "task %llu (%s): tensors %zu and %zu share one texture (object %zu) "
                            "in one dispatch",
                            (unsigned long long)op->task, p->name, ids[j], t, x->object);
    }
    if (!in && x->object == TEXMEM__NO_OBJECT && !x->writable)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                          "task %llu (%s): imported tensor %zu is read-only",
                          (unsigned long long)op->task, p->name, t);
    if (!pool->skip_lifetime_check) {
      st = check_lifetime(pool, t, op->task, role, p->name, err);
      if (st) return st;
    }
    texmem__row_owner bad;
    uint64_t lo, hi;
    texmem__gl_pool_tensor_rows(pool, t, &lo, &hi);
    if (in && pool->row_writers && x->object != TEXMEM__NO_OBJECT &&
        !texmem__row_map_check(&pool->row_writers[x->object], lo, hi, t, &bad)) {
      if (bad.tensor == TEXMEM__NO_TENSOR)
        return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                            "task %llu (%s): reads tensor %zu, but rows [%llu, %llu) of arena "
                            "texture %zu were never written",
                            (unsigned long long)op->task, p->name, t, (unsigned long long)bad.lo,
                            (unsigned long long)bad.hi, x->object);
      return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                          "task %llu (%s): reads tensor %zu, but tensor %zu wrote its rows "
                          "[%llu, %llu) of arena texture %zu since (at task %llu)",
                          (unsigned long long)op->task, p->name, t, bad.tensor,
                          (unsigned long long)bad.lo, (unsigned long long)bad.hi, x->object,
                          (unsigned long long)bad.task);
    }
    if (in && pool->reuse_checker && !pool->arena && x->object != TEXMEM__NO_OBJECT &&
        pool->last_writer[x->object] != t) {
      size_t w = pool->last_writer[x->object];
      if (w == TEXMEM__NO_TENSOR)
        return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                            "task %llu (%s): reads tensor %zu from object %zu, which no tensor "
                            "has written",
                            (unsigned long long)op->task, p->name, t, x->object);
      return texmem__fail(err, TEXMEM_STATUS_REUSE_VIOLATION,
                          "task %llu (%s): reads tensor %zu from object %zu, but tensor %zu "
                          "wrote that object since (at task %llu)",
                          (unsigned long long)op->task, p->name, t, x->object, w,
                          (unsigned long long)pool->last_write_task[x->object]);
    }
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_dispatch(texmem_gl_pool *pool, const texmem_gl_op *op, texmem_error *err) {
  if (!pool || !op) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "pool or op is NULL");
  texmem__gl_prog *p = NULL;
  texmem__gl_ssbo bufs[TEXMEM__GL_MAX_BUFFERS];
  texmem__gl_binding b[TEXMEM__GL_MAX_IMAGES];
  size_t ids[TEXMEM__GL_MAX_IMAGES];
  texmem_status st = validate_op(pool, op, true, &p, bufs, b, ids, err);
  if (st) return st;
  size_t n_img = p->n_inputs + p->n_outputs;
  st = texmem__gl_exec(pool->ctx, p, b, bufs, op->uniforms, op->n_uniforms, op->groups, err);
  if (st) return st;
  for (size_t i = p->n_inputs; i < n_img; i++) {
    size_t o = pool->tensors[ids[i]].object;
    if (o == TEXMEM__NO_OBJECT) continue; /* a writable import: no object to track */
    if (pool->row_writers) {
      uint64_t lo, hi;
      texmem__gl_pool_tensor_rows(pool, ids[i], &lo, &hi);
      texmem__row_map_write(&pool->row_writers[o], lo, hi, ids[i], op->task);
    }
    pool->last_writer[o] = ids[i];
    pool->last_write_task[o] = op->task;
  }
  return TEXMEM_STATUS_OK;
}

typedef uint8_t key_row[TEXMEM__GL_MAX_IMAGES];

texmem_status texmem_gl_prepare(texmem_gl_pool *pool, const texmem_gl_op *ops, size_t n,
                                texmem_error *err) {
  if (!pool || (n && !ops))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "pool or ops is NULL");
  texmem__gl_prog **progs = malloc((n + 1) * sizeof *progs);
  key_row *keys = malloc((n + 1) * sizeof *keys);
  size_t m = 0;
  texmem_status st = TEXMEM_STATUS_OK;
  if (!progs || !keys) st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < n && !st; i++) {
    texmem__gl_ssbo bufs[TEXMEM__GL_MAX_BUFFERS];
    texmem__gl_binding b[TEXMEM__GL_MAX_IMAGES];
    size_t ids[TEXMEM__GL_MAX_IMAGES];
    texmem_error skip = {0};
    /* An op that does not resolve is left to its dispatch, which says why. */
    if (validate_op(pool, &ops[i], false, &progs[m], bufs, b, ids, &skip)) continue;
    memset(keys[m], 0, sizeof keys[m]);
    if (!texmem__gl_variant_key(pool->ctx, progs[m], b, keys[m], &skip)) m++;
  }
  if (!st) st = texmem__gl_compile_batch(pool->ctx, progs, (const key_row *)keys, m, err);
  free(progs);
  free(keys);
  return st;
}

texmem_status texmem_gl_run(texmem_gl_pool *pool, const texmem_gl_op *ops, size_t n,
                            size_t *failed_op, texmem_error *err) {
  if (n && !ops) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "ops is NULL");
  for (size_t i = 0; i < n; i++) {
    texmem_status st = texmem_gl_dispatch(pool, &ops[i], err);
    if (st) {
      if (failed_op) *failed_op = i;
      return st;
    }
  }
  return TEXMEM_STATUS_OK;
}

const char *texmem_gl_program_name(const texmem_gl_context *ctx, texmem_gl_program p) {
  const texmem__gl_prog *g = ctx ? texmem__gl_prog_get(ctx, p) : NULL;
  return g ? g->name : NULL;
}

texmem_status texmem_gl_finish(texmem_gl_context *ctx, texmem_error *err) {
  if (!ctx) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context is NULL");
  texmem__gl_drain();
  glFinish();
  return texmem__gl_check(err, "glFinish");
}
