/* The pool's tensor table, shared by pool.c and dispatch.c. */
#ifndef TEXMEM_GL_POOL_H
#define TEXMEM_GL_POOL_H

#include "gl_internal.h"

#define TEXMEM__NO_OBJECT SIZE_MAX
#define TEXMEM__NO_TENSOR SIZE_MAX

typedef struct texmem__gl_tensor {
  uint64_t shape[3];      /* logical, texels */
  uint64_t first, last;   /* lifetime (tasks, inclusive) */
  uint64_t record_id;     /* for messages */
  uint64_t linear_width;  /* 0 = natural */
  uint64_t base_row;      /* arena: first row in its arena texture */
  size_t object;          /* TEXMEM__NO_OBJECT: imported */
  texmem_gl_texture imported;
  bool writable;          /* imported: operations may write it */
} texmem__gl_tensor;

/* Reuse checker, arena: which tensor last wrote each row range of one
 * arena texture (sorted, disjoint; cap fixed at pool creation). */
typedef struct texmem__row_owner {
  uint64_t lo, hi;
  size_t tensor;
  uint64_t task;
} texmem__row_owner;
typedef struct texmem__row_map {
  texmem__row_owner *v;
  size_t n, cap;
} texmem__row_map;

/* tensor wrote rows [lo, hi) at task (arena.c). */
void texmem__row_map_write(texmem__row_map *m, uint64_t lo, uint64_t hi, size_t tensor,
                           uint64_t task);
/* True when tensor is the last writer of every row of [lo, hi); else
 * *bad holds the first other writer's rows (tensor TEXMEM__NO_TENSOR:
 * rows nobody wrote). */
bool texmem__row_map_check(const texmem__row_map *m, uint64_t lo, uint64_t hi, size_t tensor,
                           texmem__row_owner *bad);

struct texmem_gl_pool {
  texmem_gl_context *ctx;
  texmem_layout layout;
  bool arena; /* TEXMEM_STORAGE_ARENA: objects are arena textures */
  bool reuse_checker, skip_lifetime_check;
  size_t n_objects;
  texmem_gl_texture *objects;
  uint64_t bytes;
  size_t n_plan_tensors, n_tensors, cap_tensors;
  texmem__gl_tensor *tensors;
  /* Reuse checker: per object, the tensor that last wrote it. */
  size_t *last_writer;
  uint64_t *last_write_task;
  texmem__row_map *row_writers; /* arena: per arena texture */
};

/* Rows [lo, hi) of a pool tensor in its texture (arena), else [0, MAX). */
void texmem__gl_pool_tensor_rows(const texmem_gl_pool *pool, size_t tensor, uint64_t *lo,
                                 uint64_t *hi);

texmem_status texmem__gl_pool_resolve(texmem_gl_pool *pool, size_t tensor, texmem__gl_tex **out,
                                      texmem_error *err);

#endif
