/* GL backend internals shared by its files (and the GL tests). */
#ifndef TEXMEM_GL_INTERNAL_H
#define TEXMEM_GL_INTERNAL_H

#include <glad/egl.h>
#include <glad/gles2.h>
#include <stdbool.h>
#include <stdint.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "texmem/gl.h"

/* Image bindings one program may have (inputs + outputs). */
#define TEXMEM__GL_MAX_IMAGES 16
#define TEXMEM__GL_MAX_BUFFERS 16

/* ---- generation-counted slot tables (sokol_gfx style ids) ----
 * id = generation << 16 | (index + 1); 0 is never a valid id. Every item
 * starts with a texmem__slot header. */
typedef struct texmem__slot {
  uint16_t gen; /* of the current or last occupant */
  bool alive;
} texmem__slot;

typedef struct texmem__slots {
  unsigned char *items; /* cap items of item_size bytes */
  size_t item_size, cap, live;
  uint32_t *free_list;
  size_t n_free;
} texmem__slots;

void texmem__slots_init(texmem__slots *s, size_t item_size);
void texmem__slots_free(texmem__slots *s);
/* New zeroed item; *id gets its handle. NULL when out of memory or full. */
void *texmem__slots_alloc(texmem__slots *s, uint32_t *id);
/* The live item of id, or NULL (zero, stale or out of range). */
void *texmem__slots_get(const texmem__slots *s, uint32_t id);
/* Item at index (live or not) for iteration; index < cap. */
void *texmem__slots_at(const texmem__slots *s, size_t index);
void texmem__slots_release(texmem__slots *s, uint32_t id);

/* ---- row ranges (arena.c) ----
 * A set of row ranges [lo, hi), sorted and disjoint, held inline (no
 * allocation on the dispatch path). When full, the two nearest ranges
 * merge: the set only grows, so a hazard is never missed. */
#define TEXMEM__ROWSET_CAP 16
typedef struct texmem__rowset {
  uint64_t lo[TEXMEM__ROWSET_CAP], hi[TEXMEM__ROWSET_CAP];
  uint32_t n;
} texmem__rowset;

bool texmem__rowset_intersects(const texmem__rowset *s, uint64_t lo, uint64_t hi);
void texmem__rowset_add(texmem__rowset *s, uint64_t lo, uint64_t hi);

/* ---- objects in the slot tables ---- */
typedef struct texmem__gl_tex {
  texmem__slot hdr;
  GLuint name;
  GLenum target, internal_format;
  texmem_gl_texture_desc desc; /* resolved: dims >= 1, target not AUTO */
  uint64_t bytes;
  const void *owner;    /* pool owning it, NULL for standalone */
  uint64_t write_epoch; /* == ctx->epoch: a shader wrote it since the last barrier */
  uint64_t read_epoch;  /* == ctx->epoch: a shader read it since the last barrier */
  /* Rows shaders wrote / read since the last barrier (stale unless
   * dirty_epoch == ctx->epoch); a whole-texture binding is [0, UINT64_MAX). */
  uint64_t dirty_epoch;
  texmem__rowset dirty_written, dirty_read;
} texmem__gl_tex;

/* A buffer (name, its size) or a view of one: parent's handle id, the
 * view's offset and size, name 0 (resolved at each dispatch, so a view of
 * a destroyed buffer is found stale). */
typedef struct texmem__gl_buf {
  texmem__slot hdr;
  GLuint name;
  size_t size;
  uint32_t parent; /* 0: a buffer of its own */
  size_t offset;
} texmem__gl_buf;

/* What a dispatch binds at an SSBO binding: size 0 = the whole buffer
 * (glBindBufferBase), else glBindBufferRange. */
typedef struct texmem__gl_ssbo {
  GLuint name;
  size_t offset, size;
} texmem__gl_ssbo;

typedef struct texmem__gl_uniform_loc {
  char *name;
  GLint loc;
} texmem__gl_uniform_loc;

/* One compiled variant: image type and format per image binding. */
typedef struct texmem__gl_variant {
  uint8_t key[TEXMEM__GL_MAX_IMAGES];
  GLuint program;
  GLint tensor_loc[TEXMEM__GL_MAX_IMAGES]; /* tm_t_NAME locations */
  GLint row_loc[TEXMEM__GL_MAX_IMAGES];    /* tm_r_NAME (base row) locations */
  texmem__gl_uniform_loc *uniforms;
  size_t n_uniforms, cap_uniforms;
} texmem__gl_variant;

typedef struct texmem__gl_prog {
  texmem__slot hdr;
  char *name, *source;
  char **images; /* inputs then outputs */
  size_t n_inputs, n_outputs;
  char **buffers;
  size_t n_buffers;
  bool writable_buffers; /* internal read back only */
  uint32_t half_buffers; /* bit i: buffer i holds binary16 (desc) */
  uint32_t scratch_buffers; /* bit i: buffer i is read-write scratch (desc) */
  uint32_t local[3];
  texmem__gl_variant *variants;
  size_t n_variants, cap_variants;
} texmem__gl_prog;

/* Driver memory sources (driver_memory.c); NVML's state is its own. */
typedef bool (*texmem__gl_memory_fn)(void *user, int64_t *used_bytes);
typedef struct texmem__nvml texmem__nvml;
typedef struct texmem__gl_memory {
  bool nvx, ati;           /* the GL extensions */
  texmem__nvml *nvml;      /* NULL: not an NVIDIA renderer or no NVML */
  texmem__gl_memory_fn injected; /* test hook: replaces every source */
  void *injected_user;
  char why[224];
} texmem__gl_memory;

/* A linked program shared by every variant of the same source
 * (program_share.c). */
typedef struct texmem__gl_shared {
  uint64_t hash;
  char *source; /* owned */
  GLuint program;
  uint32_t refs;
} texmem__gl_shared;

/* The most threads a batch of compiles runs on (program_threads.c). */
#define TEXMEM__GL_MAX_COMPILE_THREADS 16u

struct texmem_gl_context {
  bool owned; /* created (true) or adopted */
  EGLDisplay display;
  EGLContext context;
  EGLSurface surface;
  EGLConfig config;         /* created contexts: the one of context/surface */
  uint32_t compile_threads; /* threads a batch of compiles may take: 1 for
                               an adopted context, at most
                               TEXMEM__GL_MAX_COMPILE_THREADS */
  texmem_gl_platform platform;
  char *vendor, *renderer, *version, *glsl_version, *egl_vendor, *egl_version;
  int gl_major, gl_minor;
  texmem_gl_limits limits;
  texmem_gl_counters counters;
  texmem__slots textures, buffers, programs;
  uint64_t epoch; /* bumped by every memory barrier; starts at 1 */
  char *log;      /* last compile / link log */
  texmem_gl_program readback;
  /* Test hook: fail the fail_texture_at-th texture creation (1-based,
   * counted from when it was set) with GL_OUT_OF_MEMORY; 0 = off. */
  uint64_t fail_texture_at, texture_attempts;
  /* Timer queries (timer.c), detected at creation. */
  texmem_gl_timer_kind timer_kind;
  char timer_why[160];
  /* Test hook: the next timer reads report a disjoint event. */
  uint32_t timer_fake_disjoint;
  texmem__gl_memory memory;
  texmem__gl_shared *shared; /* linked programs by source */
  size_t n_shared, cap_shared;
  texmem_gl_program_cache cache; /* program binaries (program_cache.c) */
};

/* At creation, with the context current (timer.c, driver_memory.c); the
 * memory sources are released by texmem__gl_memory_release. */
void texmem__gl_timer_detect(texmem_gl_context *ctx);
void texmem__gl_memory_detect(texmem_gl_context *ctx);
void texmem__gl_memory_release(texmem_gl_context *ctx);
/* Test hooks: pretend the driver has no timer queries; make the next n
 * timer reads report a disjoint event; replace every memory source with fn
 * (NULL: detect again). */
void texmem__gl_timer_hide(texmem_gl_context *ctx);
void texmem__gl_timer_fake_disjoint(texmem_gl_context *ctx, uint32_t n);
void texmem__gl_memory_inject(texmem_gl_context *ctx, texmem__gl_memory_fn fn, void *user);

/* gl_call.c: drains glGetError; if any error was pending returns GL_OUT_OF_MEMORY or
 * GL_ERROR naming `call` and the error, else OK. */
texmem_status texmem__gl_check(texmem_error *err, const char *call);
const char *texmem__gl_error_name(GLenum e);
/* Discards errors left pending by others (an adopted context's owner), so
 * that the next check names our call. */
void texmem__gl_drain(void);
const char *texmem__egl_error_name(EGLint e);

/* Test hook (see struct): fail the k-th texture creation from now. */
void texmem__gl_fail_texture_creation(texmem_gl_context *ctx, uint64_t k);
/* GL name of a live texture handle, 0 if stale. */
GLuint texmem__gl_texture_name(const texmem_gl_context *ctx, texmem_gl_texture t);

/* Creates a texture owned by owner (NULL: standalone). */
texmem_status texmem__gl_texture_new(texmem_gl_context *ctx, const texmem_gl_texture_desc *desc,
                                     const void *owner, texmem_gl_texture *out,
                                     texmem_error *err);
/* Deletes a texture whatever its owner. */
void texmem__gl_texture_delete(texmem_gl_context *ctx, texmem_gl_texture t);
texmem__gl_tex *texmem__gl_tex_get(const texmem_gl_context *ctx, texmem_gl_texture t);

/* One image binding of an execution. */
typedef struct texmem__gl_binding {
  texmem__gl_tex *tex;
  uint64_t shape[3];    /* logical */
  uint64_t linear_width; /* 0 = natural layout */
  uint64_t base_row;    /* linear: the tensor's first row (arena) */
  bool ranged;          /* arena: touches only its rows, not the texture */
} texmem__gl_binding;

/* Rows a binding touches: [base, base + rows) when ranged, else all. */
void texmem__gl_binding_rows(const texmem__gl_binding *b, uint64_t *lo, uint64_t *hi);

/* Binds, barriers if needed, sets uniforms and dispatches. images holds
 * the program's inputs then outputs; buffers its SSBOs. */
texmem_status texmem__gl_exec(texmem_gl_context *ctx, texmem__gl_prog *prog,
                              const texmem__gl_binding *images, const texmem__gl_ssbo *buffers,
                              const texmem_gl_uniform *uniforms, size_t n_uniforms,
                              const uint32_t groups_in[3], texmem_error *err);
texmem__gl_prog *texmem__gl_prog_get(const texmem_gl_context *ctx, texmem_gl_program p);
texmem__gl_buf *texmem__gl_buf_get(const texmem_gl_context *ctx, texmem_gl_buffer b);
/* What b binds (a view through its parent); false if b or its parent is
 * stale or zero. */
bool texmem__gl_buf_resolve(const texmem_gl_context *ctx, texmem_gl_buffer b,
                            texmem__gl_ssbo *out);
/* Creates a program; writable_buffers for the internal read back. */
texmem_status texmem__gl_program_new(texmem_gl_context *ctx, const texmem_gl_program_desc *desc,
                                     bool writable_buffers, texmem_gl_program *out,
                                     texmem_error *err);
void texmem__gl_programs_free_all(texmem_gl_context *ctx);
/* A variant's key (each binding's target, format, buffer slot) for the
 * bindings, checked against the int coordinates and SSBO limits. */
texmem_status texmem__gl_variant_key(const texmem_gl_context *ctx, const texmem__gl_prog *p,
                                     const texmem__gl_binding *images, uint8_t *key,
                                     texmem_error *err);
/* program_batch.c: the variant of `key` the program holds, or NULL. */
texmem__gl_variant *texmem__gl_variant_find(texmem__gl_prog *p, const uint8_t *key);
/* program_source.c: */
/* Variant key byte: target (0 2D, 1 2D_ARRAY, 2 3D, 3 buffer) | format << 2
 * (1: RGBA16F) | slot << 3 for buffers: the first binding of the dispatch
 * on the same buffer (arena tensors share one SSBO binding). */
enum {
  TEXMEM__GL_KEY_2D = 0,
  TEXMEM__GL_KEY_ARRAY = 1,
  TEXMEM__GL_KEY_3D = 2,
  TEXMEM__GL_KEY_BUFFER = 3
};
#define TEXMEM__GL_KEY_TARGET(k) ((k)&3)
#define TEXMEM__GL_KEY_HALF(k) (((k) >> 2) & 1)
#define TEXMEM__GL_KEY_SLOT(k) ((k) >> 3)

/* The key byte of a binding of t; slot: its buffer slot. */
uint8_t texmem__gl_key_of(const texmem__gl_tex *t, size_t slot);
/* SSBO binding of buffer slot `slot` (a binding index): after the
 * program's own buffers, one per distinct slot in binding order. */
size_t texmem__gl_slot_binding(const texmem__gl_prog *p, const uint8_t *key, size_t slot);
/* The complete source of a variant (malloc'd; NULL: out of memory). */
char *texmem__gl_build_source(const texmem__gl_prog *p, const uint8_t *key);
/* Runs job(i, user) for every i < n, on the calling thread (ctx current)
 * and up to ctx->compile_threads - 1 others (1 for an adopted context),
 * each with a context of its own sharing ctx's objects and finished
 * (glFinish) before this returns; jobs a thread cannot start are left to
 * the others (program_threads.c). Returns the number of threads that ran
 * jobs. */
size_t texmem__gl_run_shared(texmem_gl_context *ctx, size_t n,
                             void (*job)(size_t i, void *user), void *user);
/* program_batch.c: compiles the variants of n (program, key) pairs not yet
 * made, all compiles and links issued before any status is read. */
texmem_status texmem__gl_compile_batch(texmem_gl_context *ctx, texmem__gl_prog *const *progs,
                                       const uint8_t (*keys)[TEXMEM__GL_MAX_IMAGES], size_t n,
                                       texmem_error *err);
/* program_share.c: the linked program of `source` with one more reference,
 * or 0; add takes `source` (false: out of memory, nothing taken); release
 * drops a reference and deletes the program with the last. */
GLuint texmem__gl_shared_find(texmem_gl_context *ctx, const char *source);
bool texmem__gl_shared_add(texmem_gl_context *ctx, char *source, GLuint program);
void texmem__gl_shared_release(texmem_gl_context *ctx, GLuint program);
void texmem__gl_shared_free_all(texmem_gl_context *ctx);

/* FNV-1a over n bytes, continuing from h (TEXMEM__GL_FNV_BASIS to start):
 * program_share.c's source hash and program_cache.c's keys and checksum. */
#define TEXMEM__GL_FNV_BASIS 0xcbf29ce484222325ull
uint64_t texmem__gl_fnv1a(uint64_t h, const void *p, size_t n);

/* The program cache (program_cache.c): whether one is set and the driver
 * has binary formats; a source's key; a binary loaded into prog (true if
 * it linked: the program is ready); a linked program's binary stored. */
bool texmem__gl_cache_on(const texmem_gl_context *ctx);
void texmem__gl_cache_key(const texmem_gl_context *ctx, const char *source, uint8_t key[16]);
bool texmem__gl_cache_load(texmem_gl_context *ctx, const uint8_t key[16], GLuint prog);
void texmem__gl_cache_store(texmem_gl_context *ctx, const uint8_t key[16], GLuint prog);

/* gl_call.c: issues a memory barrier and starts a new epoch. */
void texmem__gl_barrier(texmem_gl_context *ctx, GLbitfield bits);

/* Writes / reads logical (z, y, x, rgba) fp32 data of a region starting at
 * texel 0 (linear: at row base_row) through the layout: natural (shape
 * within dims) or linear. ranged: an arena tensor (read back touches only
 * its rows). */
texmem_status texmem__gl_upload(texmem_gl_context *ctx, texmem__gl_tex *t,
                                const uint64_t shape[3], uint64_t linear_width,
                                uint64_t base_row, const float *data, texmem_error *err);
texmem_status texmem__gl_read(texmem_gl_context *ctx, texmem__gl_tex *t,
                              const uint64_t shape[3], uint64_t linear_width, uint64_t base_row,
                              bool ranged, float *data, texmem_error *err);

/* program_source.c: the backend's own embedded shaders
 * (gl_backend/shaders/) by file name; NULL if none. */
const char *texmem__gl_shader_source(const char *file_name);

#endif
