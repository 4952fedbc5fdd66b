/* texmem GL backend: a headless (or adopted) GLES 3.1 context, textures
 * created from a plan, and a compute dispatch layer that binds each
 * operation's tensors to the textures the plan assigned.
 *
 * Threads: every call that takes a context must run on the thread where
 * that context is current (texmem_gl_context_create makes its context
 * current on the calling thread; an adopted context is the caller's).
 *
 * Ownership: texmem_gl_context, texmem_gl_pool are owned by the caller and
 * freed with their destroy function (destroy(NULL) is a no-op). Textures,
 * buffers and programs are typed, generation-counted handles owned by the
 * context: a handle used after its destroy is detected (STALE_HANDLE).
 * Destroying a context frees everything created through it; destroy pools
 * before their context. Arrays and strings passed in are borrowed for the
 * call only unless said otherwise. */
#ifndef TEXMEM_GL_H
#define TEXMEM_GL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/plan.h"
#include "texmem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- context ---- */
typedef struct texmem_gl_context texmem_gl_context;

typedef enum texmem_gl_platform {
  TEXMEM_GL_PLATFORM_AUTO = 0,    /* device, then surfaceless, then default */
  TEXMEM_GL_PLATFORM_DEVICE,      /* EGL_EXT_platform_device */
  TEXMEM_GL_PLATFORM_SURFACELESS, /* EGL_MESA_platform_surfaceless */
  TEXMEM_GL_PLATFORM_DEFAULT,     /* eglGetDisplay(EGL_DEFAULT_DISPLAY) */
  TEXMEM_GL_PLATFORM_ADOPTED      /* the caller's current context */
} texmem_gl_platform;

/* Zero = defaults. */
typedef struct texmem_gl_context_desc {
  texmem_gl_platform platform; /* AUTO tries each platform in turn */
  bool prefer_software;        /* device platform: pick a software device
                                  (llvmpipe) before hardware ones */
  bool use_pbuffer;            /* a 1x1 pbuffer even where surfaceless
                                  contexts exist (drivers that misbehave) */
  uint32_t compile_threads;    /* threads that compile a batch of programs
                                  (texmem_gl_prepare), the calling one
                                  included, each other one with a context
                                  sharing this one's objects: 0 = the
                                  processors online, at most 16; 1 = the
                                  calling thread alone. Adopted contexts
                                  compile on the calling thread. */
} texmem_gl_context_desc;

/* Creates a GLES 3.1+ context on a headless display and makes it current
 * on this thread: surfaceless where EGL_KHR_surfaceless_context exists,
 * else with a 1x1 pbuffer. Errors name the EGL call and its error. */
TEXMEM_API texmem_status texmem_gl_context_create(const texmem_gl_context_desc *desc,
                                                  texmem_gl_context **out,
                                                  texmem_error *err);
/* Wraps the EGL context current on this thread (a delegate's). texmem
 * never makes it current, releases or destroys it; it only creates and
 * deletes its own GL objects in it. Fails if none is current or it is not
 * GLES 3.1+. */
TEXMEM_API texmem_status texmem_gl_context_adopt(texmem_gl_context **out,
                                                 texmem_error *err);
/* Deletes every texture, buffer and program made through the context,
 * then (created contexts only) the EGL context, surface and display. */
TEXMEM_API void texmem_gl_context_destroy(texmem_gl_context *ctx);
/* Created contexts: makes it current on the calling thread again. */
TEXMEM_API texmem_status texmem_gl_context_make_current(texmem_gl_context *ctx,
                                                        texmem_error *err);

/* Limits that planning and dispatch need, queried once at creation. */
typedef struct texmem_gl_limits {
  int64_t max_2d_size;           /* GL_MAX_TEXTURE_SIZE */
  int64_t max_3d_size;           /* GL_MAX_3D_TEXTURE_SIZE */
  int64_t max_array_layers;      /* GL_MAX_ARRAY_TEXTURE_LAYERS */
  int64_t max_image_units;       /* GL_MAX_IMAGE_UNITS */
  int64_t max_compute_image_uniforms; /* GL_MAX_COMPUTE_IMAGE_UNIFORMS */
  int64_t max_ssbo_bindings;     /* GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS */
  int64_t max_work_group_count[3]; /* GL_MAX_COMPUTE_WORK_GROUP_COUNT */
  int64_t max_work_group_size[3];  /* GL_MAX_COMPUTE_WORK_GROUP_SIZE */
  int64_t max_work_group_invocations; /* ..._WORK_GROUP_INVOCATIONS */
  int64_t max_shared_memory;     /* GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, bytes */
  int64_t max_ssbo_size;         /* GL_MAX_SHADER_STORAGE_BLOCK_SIZE, bytes */
  int64_t max_compute_ssbos;     /* GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS */
  int64_t ssbo_offset_alignment; /* GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT,
                                    bytes: a buffer view's offset */
  int64_t program_binary_formats; /* GL_NUM_PROGRAM_BINARY_FORMATS: 0 = the
                                     driver keeps no binaries (no program
                                     cache; Mesa's without its disk cache) */
  /* GL_MAX_SHADER_COMPILER_THREADS_KHR as set (a context texmem creates asks
   * for all: 0xFFFFFFFF); -1 without GL_KHR_parallel_shader_compile. */
  int64_t compiler_threads;
} texmem_gl_limits;

typedef struct texmem_gl_info {
  const char *vendor, *renderer, *version, *glsl_version; /* GL strings */
  const char *platform; /* "device", "surfaceless", "default", "adopted" */
  const char *egl_vendor, *egl_version;
  int gl_major, gl_minor; /* parsed ES version */
  bool surfaceless;       /* no pbuffer was needed */
  bool renders_on_cpu;    /* the renderer runs on the CPU (Mesa's llvmpipe and
                             softpipe, SwiftShader, lavapipe): no GPU, so no
                             texture cache, shared memory or clocks of its own */
} texmem_gl_info;

/* Strings are owned by the context and valid until its destroy. */
TEXMEM_API void texmem_gl_context_info(const texmem_gl_context *ctx, texmem_gl_info *out);
TEXMEM_API void texmem_gl_context_limits(const texmem_gl_context *ctx, texmem_gl_limits *out);

/* ---- textures ---- */
typedef enum texmem_gl_format {
  TEXMEM_GL_RGBA32F = 0, /* 16 bytes a texel; default: exact fp32 */
  TEXMEM_GL_RGBA16F = 1  /* 8 bytes a texel */
} texmem_gl_format;

typedef enum texmem_gl_target {
  TEXMEM_GL_TARGET_AUTO = 0, /* depth > 1 (or 3-D records): 2D_ARRAY; else 2D */
  TEXMEM_GL_TARGET_2D,       /* GL_TEXTURE_2D, glTexStorage2D */
  TEXMEM_GL_TARGET_2D_ARRAY, /* GL_TEXTURE_2D_ARRAY, glTexStorage3D */
  TEXMEM_GL_TARGET_3D,       /* GL_TEXTURE_3D, glTexStorage3D */
  TEXMEM_GL_TARGET_BUFFER    /* not a texture: an SSBO of width x height
                                texels (depth 1) in the linear layout's
                                order, read and written by shaders through
                                the same accessors as an image */
} texmem_gl_target;

/* Bytes of one texel of the format (8 or 16; 0 if unknown). */
TEXMEM_API unsigned texmem_gl_format_bytes(texmem_gl_format f);
/* Plan max_dims for textures of the target: 2D_ARRAY {2d, 2d, layers},
 * 3D {3d, 3d, 3d}, 2D {2d, 2d, 1}, BUFFER {1, texels of the largest SSBO
 * at 16 bytes a texel (and below 2^31), 1}. Use as texmem_plan_desc.max_dims. */
TEXMEM_API void texmem_gl_max_dims(const texmem_gl_context *ctx, texmem_gl_target t,
                                   uint64_t max_dims[3]);

typedef struct texmem_gl_texture { uint32_t id; } texmem_gl_texture; /* 0 = none */

typedef struct texmem_gl_texture_desc {
  uint64_t dims[3]; /* width, height, depth (layers) in texels; 0 = 1 */
  texmem_gl_format format;
  texmem_gl_target target;
} texmem_gl_texture_desc;

/* Immutable storage (glTexStorage*), never resized. A standalone texture
 * (weights, graph inputs kept apart from the pool). */
TEXMEM_API texmem_status texmem_gl_texture_create(texmem_gl_context *ctx,
                                                  const texmem_gl_texture_desc *desc,
                                                  texmem_gl_texture *out, texmem_error *err);
/* Stale or zero handles are ignored. Textures owned by a pool are not
 * destroyed this way (INVALID_ARGUMENT is reported by the checked form). */
TEXMEM_API void texmem_gl_texture_destroy(texmem_gl_context *ctx, texmem_gl_texture t);
/* OK, STALE_HANDLE or INVALID_ARGUMENT (zero handle). */
TEXMEM_API texmem_status texmem_gl_texture_get_desc(const texmem_gl_context *ctx,
                                                    texmem_gl_texture t,
                                                    texmem_gl_texture_desc *out,
                                                    texmem_error *err);
/* The GL name of t (a texture's; a BUFFER target's SSBO), for the
 * caller's own GL calls in this context; 0 for a stale or zero handle.
 * The object stays the context's: never delete it or change its storage. */
TEXMEM_API uint32_t texmem_gl_texture_gl_name(const texmem_gl_context *ctx, texmem_gl_texture t);
/* GLSL (ES 3.10) source defining `highp vec4 tm_half_rne(highp vec4 v)`:
 * v rounded to the nearest binary16 value, ties to even, saturating at
 * +-65504: the rounding of every texmem fp16 store, for a caller's shader
 * storing an fp16 tensor texmem reads (a graph input written on the GPU).
 * GLES leaves imageStore's conversion to half to the driver, and drivers
 * truncate (llvmpipe, NVIDIA). A static string, valid for the process. */
TEXMEM_API const char *texmem_gl_glsl_half_rne(void);
/* Whole-texture upload / read back of fp32 texels in (z, y, x, rgba) order
 * (PHWC4: z = slice); fp16 textures are converted. */
TEXMEM_API texmem_status texmem_gl_texture_upload(texmem_gl_context *ctx, texmem_gl_texture t,
                                                  const float *texels, texmem_error *err);
TEXMEM_API texmem_status texmem_gl_texture_read(texmem_gl_context *ctx, texmem_gl_texture t,
                                                float *texels, texmem_error *err);

/* ---- buffers: read-only SSBOs (weights, biases) ---- */
typedef struct texmem_gl_buffer { uint32_t id; } texmem_gl_buffer; /* 0 = none */

/* size bytes, a multiple of 8 (a vec4 of binary16; an fp32 buffer needs a
 * multiple of 16 to hold whole vec4s); data may be NULL (zeros). */
TEXMEM_API texmem_status texmem_gl_buffer_create(texmem_gl_context *ctx, const void *data,
                                                 size_t size, texmem_gl_buffer *out,
                                                 texmem_error *err);
/* A view: bytes [offset, offset + size) of buffer parent, bound to a
 * program like a buffer of its own (glBindBufferRange). Many small weight
 * buffers as views of one GL buffer cost a driver one allocation, where
 * each buffer of their own may be rounded up to its heap's granularity.
 * offset a multiple of texmem_gl_limits.ssbo_offset_alignment, size a
 * positive multiple of 8, the range inside parent, which is not a view
 * itself (INVALID_ARGUMENT otherwise; EXCEEDS_LIMITS past max_ssbo_size,
 * the most one binding may hold). A view holds no GL object; destroy it like a buffer (or with
 * the context). Destroying parent leaves its views stale: a dispatch
 * binding one fails with STALE_HANDLE. */
TEXMEM_API texmem_status texmem_gl_buffer_create_view(texmem_gl_context *ctx,
                                                      texmem_gl_buffer parent, size_t offset,
                                                      size_t size, texmem_gl_buffer *out,
                                                      texmem_error *err);
/* Deletes a buffer (its GL object) or a view (its handle alone). */
TEXMEM_API void texmem_gl_buffer_destroy(texmem_gl_context *ctx, texmem_gl_buffer b);

/* ---- texture pool: the plan's shared objects ---- */
typedef struct texmem_gl_pool texmem_gl_pool;

/* How a pool stores its tensors. */
typedef enum texmem_storage {
  TEXMEM_STORAGE_OBJECTS = 0, /* shared objects: one texture per object */
  TEXMEM_STORAGE_ARENA = 1,   /* the GPU arena: an arena plan (plan.h), each
                                 tensor in whole rows of a W-wide texture at
                                 its base row; several tensors per texture */
  TEXMEM_STORAGE_BUFFER = 2   /* the buffer arena: an arena plan of width 1
                                 (rows are texels), each tensor at its texel
                                 offset of an SSBO (TEXMEM_GL_TARGET_BUFFER),
                                 dense in the linear layout's order */
} texmem_storage;

/* Zero = defaults. The records are those the plan was made from: they
 * give each tensor's logical shape and lifetime. Both are borrowed for the
 * call (the pool copies what it needs).
 *
 * Arena storage: one dispatch may bind one arena texture several times
 * (inputs read-only, outputs write-only); every dispatch checks that no
 * output's rows overlap an input's or another output's rows
 * (EXCLUSIVE_ACCESS naming the tensors and rows). Barriers follow the
 * dirty row ranges, and the reuse checker the last writer of every row. */
typedef struct texmem_gl_pool_desc {
  const texmem_plan *plan;        /* a shared-objects plan (2-D or 3-D), or
                                     for ARENA an arena plan */
  texmem_storage storage;         /* must match the plan's kind */
  const texmem_record *records;   /* plan's tensors, same order */
  size_t record_count;
  unsigned dims;                  /* of the records: 2 or 3 */
  texmem_gl_format format;        /* of every object ... */
  const texmem_gl_format *object_formats; /* ... unless given per object */
  texmem_gl_target array_target;  /* natural 3-D objects: 2D_ARRAY (AUTO) or 3D */
  bool reuse_checker;             /* debug: track the last writer of each object
                                     (arena: of each row) */
  bool skip_lifetime_check;       /* do not check tensor lifetimes at bind */
} texmem_gl_pool_desc;

/* Creates every object once. On any failure (GL_OUT_OF_MEMORY or other GL
 * error part way) every texture made so far is deleted and *out is NULL. */
TEXMEM_API texmem_status texmem_gl_pool_create(texmem_gl_context *ctx,
                                               const texmem_gl_pool_desc *desc,
                                               texmem_gl_pool **out, texmem_error *err);
/* Deletes the pool's textures (imported textures stay the caller's). */
TEXMEM_API void texmem_gl_pool_destroy(texmem_gl_pool *pool);
TEXMEM_API size_t texmem_gl_pool_object_count(const texmem_gl_pool *pool);
/* Exact bytes of the pool's textures: texels x bytes per texel, summed. */
TEXMEM_API uint64_t texmem_gl_pool_bytes(const texmem_gl_pool *pool);
/* Tensors: the plan's (0 .. count-1), then imported ones. */
TEXMEM_API size_t texmem_gl_pool_tensor_count(const texmem_gl_pool *pool);
/* The texture of an object (a handle; the pool owns it). */
TEXMEM_API texmem_gl_texture texmem_gl_pool_object_texture(const texmem_gl_pool *pool,
                                                           size_t object);
/* The texture holding a tensor; {0} if tensor is out of range. */
TEXMEM_API texmem_gl_texture texmem_gl_pool_tensor_texture(const texmem_gl_pool *pool,
                                                           size_t tensor);
/* Makes a caller-owned texture usable as a read-only tensor (weights,
 * constants, graph inputs): natural layout, always live, shape <= the
 * texture's dims. The texture must outlive its use; *tensor gets the new
 * tensor id. */
TEXMEM_API texmem_status texmem_gl_pool_import(texmem_gl_pool *pool, texmem_gl_texture t,
                                               const uint64_t shape[3], size_t *tensor,
                                               texmem_error *err);
/* The same for a texture operations may also write (graph outputs). */
TEXMEM_API texmem_status texmem_gl_pool_import_writable(texmem_gl_pool *pool,
                                                        texmem_gl_texture t,
                                                        const uint64_t shape[3],
                                                        size_t *tensor, texmem_error *err);
/* Logical tensor data in (z, y, x, rgba) order, shape texels x 4 floats,
 * written through the tensor's layout. Counts as the tensor's write for
 * the reuse checker. */
TEXMEM_API texmem_status texmem_gl_tensor_upload(texmem_gl_pool *pool, size_t tensor,
                                                 const float *data, texmem_error *err);
TEXMEM_API texmem_status texmem_gl_tensor_read(texmem_gl_pool *pool, size_t tensor,
                                               float *data, texmem_error *err);
/* Logical shape of a tensor (w, h, d); false if out of range. */
TEXMEM_API bool texmem_gl_tensor_shape(const texmem_gl_pool *pool, size_t tensor,
                                       uint64_t shape[3]);

/* ---- programs ---- */
typedef struct texmem_gl_program { uint32_t id; } texmem_gl_program; /* 0 = none */

/* A compute shader body (GLSL ES 3.10, without #version). texmem prepends
 * the version, precision, local size and, for every tensor NAME in inputs
 * / outputs, an image binding with these accessors over LOGICAL texels:
 *   ivec3 NAME_shape();  bool NAME_inside(ivec3 p);
 *   vec4 NAME_read(ivec3 p)            (inputs, read-only)
 *   void NAME_write(ivec3 p, vec4 v)   (outputs, write-only)
 * and for every NAME in buffers (but scratch_buffers') a read-only SSBO read as
 *   vec4 NAME_at(int i)                (the i-th vec4 of the buffer)
 * (an fp32 buffer is also the array `vec4 NAME[]`). The shader declares its
 * own plain uniforms (set per operation by name). Inputs are image units
 * 0.., outputs follow; buffers are SSBO bindings 0..
 * NAME_write to an RGBA16F texture rounds each value to the nearest fp16
 * (ties to even) before the store: GLES leaves the rounding of a store's
 * float-to-half conversion to the driver, and drivers truncate. */
typedef struct texmem_gl_program_desc {
  const char *name;                 /* for messages */
  const char *source;
  const char *const *inputs;  size_t n_inputs;
  const char *const *outputs; size_t n_outputs;
  const char *const *buffers; size_t n_buffers;
  uint32_t local_size[3];           /* 0 = 8, 8, 1 */
  uint32_t half_buffers;            /* bit i set: buffer i holds IEEE binary16
                                       values (4 a vec4, 8 bytes), read with
                                       NAME_at; 0 = all fp32 */
  uint32_t scratch_buffers;         /* bit i set: buffer i is the program's
                                       own read-write memory, `coherent` uints
                                       that every work group of a dispatch
                                       sees: uint NAME_load(int i),
                                       void NAME_store(int i, uint v),
                                       uint NAME_add(int i, uint v) (atomicAdd,
                                       the value before); 0 = none */
  bool defer_compile;               /* compile nothing now: every variant at
                                       texmem_gl_prepare or its first dispatch
                                       (false: a default variant now) */
} texmem_gl_program_desc;

/* Compiles a default variant now (fp32 2-D arrays for every binding), so
 * that errors show at once, unless desc->defer_compile; other variants
 * (image type / format of each binding) are compiled by texmem_gl_prepare
 * or on first use, and cached. The default variant is a compile a caller
 * whose bindings differ never runs (a second each on NVIDIA's driver, and
 * driver memory while the program lives): a caller that prepares its
 * operations anyway (the runtime) defers. Compile and link errors return
 * SHADER_COMPILE with the info log (full log also from
 * texmem_gl_program_log), from here or from the call that compiles. */
TEXMEM_API texmem_status texmem_gl_program_create(texmem_gl_context *ctx,
                                                  const texmem_gl_program_desc *desc,
                                                  texmem_gl_program *out, texmem_error *err);
TEXMEM_API void texmem_gl_program_destroy(texmem_gl_context *ctx, texmem_gl_program p);
/* The name the program was created with (owned by the context, valid
 * until the program's destroy); NULL for a stale or zero handle. */
TEXMEM_API const char *texmem_gl_program_name(const texmem_gl_context *ctx, texmem_gl_program p);
/* The last compile / link log of the context (owned by it; "" if none). */
TEXMEM_API const char *texmem_gl_program_log(const texmem_gl_context *ctx);

/* Program binaries kept between processes, as TFLite's GPU delegate
 * serializes its programs: a GPU driver may take a second to compile a
 * program (NVIDIA's did), where its binary (glGetProgramBinary) loads in
 * milliseconds. With a cache set, every program the context compiles is
 * offered to store, and one whose binary load finds is loaded
 * (glProgramBinary) instead of compiled. Keys are 16 bytes, a hash of the
 * program's whole source and the GL vendor, renderer and version strings;
 * values are texmem's header (which checks the binary's length and a
 * checksum) and the driver's binary. A value that is short, damaged, over
 * 64 MiB, or that the driver refuses (another driver version) is ignored:
 * the program compiles and is stored again. Callbacks run on the calling
 * thread, inside the calls that compile (program creation,
 * texmem_gl_prepare, a dispatch's first use of a variant); user is
 * theirs. A driver without binary formats
 * (texmem_gl_limits.program_binary_formats 0) never calls them. */
typedef struct texmem_gl_program_cache {
  void *user;
  /* The value stored under key, copied into value if it holds capacity
   * bytes or more; returns its size, 0 if none (called with capacity 0 to
   * ask the size). */
  size_t (*load)(void *user, const uint8_t key[16], void *value, size_t capacity);
  /* Stores value (size bytes) under key, replacing any. */
  void (*store)(void *user, const uint8_t key[16], const void *value, size_t size);
} texmem_gl_program_cache;

/* Sets the context's program cache (copied; both callbacks needed), or
 * with NULL (or a callback NULL) turns it off. */
TEXMEM_API void texmem_gl_context_set_program_cache(texmem_gl_context *ctx,
                                                    const texmem_gl_program_cache *cache);

/* ---- operations ---- */
typedef enum texmem_gl_uniform_type {
  TEXMEM_GL_INT = 0, TEXMEM_GL_IVEC2, TEXMEM_GL_IVEC3, TEXMEM_GL_IVEC4,
  TEXMEM_GL_FLOAT, TEXMEM_GL_VEC2, TEXMEM_GL_VEC3, TEXMEM_GL_VEC4
} texmem_gl_uniform_type;

typedef struct texmem_gl_uniform {
  const char *name;
  texmem_gl_uniform_type type;
  int32_t i[4]; /* int types */
  float f[4];   /* float types */
} texmem_gl_uniform;

/* One compute dispatch. inputs / outputs are pool tensor ids in the order
 * of the program's names. task is the plan's task index of this operation
 * (lifetimes are checked against it). groups = 0,0,0: enough work groups
 * to cover outputs[0]'s logical shape. */
typedef struct texmem_gl_op {
  texmem_gl_program program;
  const size_t *inputs;  size_t n_inputs;
  const size_t *outputs; size_t n_outputs;
  const texmem_gl_buffer *buffers; size_t n_buffers;
  const texmem_gl_uniform *uniforms; size_t n_uniforms;
  uint32_t groups[3];
  uint64_t task;
} texmem_gl_op;

/* Resolves tensor -> object -> texture, checks exclusive access (no
 * texture twice; no texture that another live tensor holds; arena: no
 * output rows overlapping input or other output rows, no rows another live
 * tensor holds), binds, sets the shape uniforms (and base rows), issues a
 * memory barrier only if this op reads or overwrites a texture (arena: the
 * rows) a previous dispatch wrote (or overwrites what it read) since the
 * last barrier, and dispatches. With the reuse checker on, reading a tensor
 * whose object (arena: rows) another tensor wrote since fails with
 * REUSE_VIOLATION naming both tensors, the object (and rows) and the task. */
TEXMEM_API texmem_status texmem_gl_dispatch(texmem_gl_pool *pool, const texmem_gl_op *op,
                                            texmem_error *err);
/* Runs ops in order; stops at the first error (its index in *failed_op
 * if not NULL). */
TEXMEM_API texmem_status texmem_gl_run(texmem_gl_pool *pool, const texmem_gl_op *ops,
                                       size_t n, size_t *failed_op, texmem_error *err);
/* Compiles now, in one batch, every program variant the ops would dispatch
 * with (their bindings' targets and formats), so that dispatching them
 * compiles nothing: all compiles and links are issued before any status is
 * read, and a driver with GL_KHR_parallel_shader_compile may spread them
 * over its threads. Dispatches nothing; an op that does not resolve (a
 * stale handle, a wrong count) is skipped, its dispatch reports it. A
 * compile error is returned with the info log. */
TEXMEM_API texmem_status texmem_gl_prepare(texmem_gl_pool *pool, const texmem_gl_op *ops,
                                           size_t n, texmem_error *err);
/* Waits until the GPU has finished everything issued so far (glFinish);
 * a GL error pending after it is returned naming glFinish. */
TEXMEM_API texmem_status texmem_gl_finish(texmem_gl_context *ctx, texmem_error *err);

/* ---- GPU timer (GL_EXT_disjoint_timer_query) ----
 * Times intervals of GL work on the GPU. An interval is a pair of
 * GL_TIMESTAMP_EXT counters (the time the GPU finished the work before
 * each), or, where the driver's timestamps have no bits, one
 * GL_TIME_ELAPSED_EXT query: such intervals must not overlap. A disjoint
 * event (GL_GPU_DISJOINT_EXT: the GPU clock was reset or the GPU changed
 * power state) between texmem_gl_timer_reset and texmem_gl_timer_read makes
 * every result of the set meaningless: read says so and zeroes them. */
typedef enum texmem_gl_timer_kind {
  TEXMEM_GL_TIMER_NONE = 0,   /* no usable timer queries */
  TEXMEM_GL_TIMER_TIMESTAMPS, /* GL_TIMESTAMP_EXT pairs (intervals may nest) */
  TEXMEM_GL_TIMER_ELAPSED     /* GL_TIME_ELAPSED_EXT (intervals must not overlap) */
} texmem_gl_timer_kind;

/* What the context offers. *why (may be NULL) gets a sentence owned by the
 * context: which queries are used, or why there are none. */
TEXMEM_API texmem_gl_timer_kind texmem_gl_timer_support(const texmem_gl_context *ctx,
                                                        const char **why);
/* "timestamps", "elapsed" or "none". */
TEXMEM_API const char *texmem_gl_timer_kind_name(texmem_gl_timer_kind k);

typedef struct texmem_gl_timer texmem_gl_timer;

/* A set of `intervals` intervals (query objects made once). UNSUPPORTED,
 * saying why, where the context has no timer queries. Owned by the caller;
 * destroy before the context (destroy(NULL) is a no-op). */
TEXMEM_API texmem_status texmem_gl_timer_create(texmem_gl_context *ctx, size_t intervals,
                                                texmem_gl_timer **out, texmem_error *err);
TEXMEM_API void texmem_gl_timer_destroy(texmem_gl_timer *t);
/* Starts a new set: forgets every interval and clears the driver's
 * disjoint flag. */
TEXMEM_API void texmem_gl_timer_reset(texmem_gl_timer *t);
/* Marks the start / end of interval i (< intervals) in the GL command
 * stream; end needs a begin of i since the reset. */
TEXMEM_API texmem_status texmem_gl_timer_begin(texmem_gl_timer *t, size_t i, texmem_error *err);
TEXMEM_API texmem_status texmem_gl_timer_end(texmem_gl_timer *t, size_t i, texmem_error *err);
/* Waits for the GPU and writes the nanoseconds of intervals 0 .. n-1 to
 * ns (0 for an interval not ended since the reset). *disjoint is true when
 * the set must be discarded (then every ns is 0). */
TEXMEM_API texmem_status texmem_gl_timer_read(texmem_gl_timer *t, uint64_t *ns, size_t n,
                                              bool *disjoint, texmem_error *err);

/* ---- driver memory ----
 * What the driver counts as GPU memory in use, where it has a query.
 * Figures of one source compare with each other only: take one reading
 * before and one after the work to measure, with nothing else allocating
 * in between (device-wide sources count other processes too). */
typedef enum texmem_gl_memory_source {
  TEXMEM_GL_MEMORY_NONE = 0,     /* no query on this driver */
  TEXMEM_GL_MEMORY_NVML_PROCESS, /* NVML: this process's memory on the GPU */
  TEXMEM_GL_MEMORY_NVX,          /* GL_NVX_gpu_memory_info: dedicated minus
                                    available video memory (device-wide) */
  TEXMEM_GL_MEMORY_NVML_DEVICE,  /* NVML: the device's used memory (device-wide) */
  TEXMEM_GL_MEMORY_ATI,          /* GL_ATI_meminfo: minus the free texture
                                    memory (only differences mean anything) */
  TEXMEM_GL_MEMORY_INJECTED      /* a query set by a test */
} texmem_gl_memory_source;

typedef struct texmem_gl_memory_reading {
  texmem_gl_memory_source source; /* that answered (NVML: process if this
                                     process is listed, else device) */
  int64_t used_bytes;
} texmem_gl_memory_reading;

/* "nvml-process", "nvx", "nvml-device", "ati", "injected" or "none". */
TEXMEM_API const char *texmem_gl_memory_source_name(texmem_gl_memory_source s);
/* The best source the context found at creation (NVML needs an NVIDIA
 * renderer and libnvidia-ml.so.1, loaded at run time when present). *why
 * (may be NULL) gets a sentence owned by the context: the sources found,
 * or "no query on this driver (RENDERER)". */
TEXMEM_API texmem_gl_memory_source texmem_gl_memory_support(const texmem_gl_context *ctx,
                                                            const char **why);
/* One reading now. UNSUPPORTED (saying why) where no source answers. */
TEXMEM_API texmem_status texmem_gl_memory_read(texmem_gl_context *ctx,
                                               texmem_gl_memory_reading *out,
                                               texmem_error *err);

/* ---- counters ---- */
typedef struct texmem_gl_counters {
  uint64_t binds;             /* image + buffer bindings */
  uint64_t barriers;          /* glMemoryBarrier calls */
  uint64_t dispatches;        /* glDispatchCompute calls (read back included) */
  uint64_t textures_created;  /* since creation / reset */
  uint64_t programs_compiled; /* GL programs linked */
  uint64_t textures_live;     /* now */
  uint64_t bytes_allocated;   /* now: bytes of live textures */
  uint64_t compile_ns;        /* since creation / reset: wall time compiling and linking
                                 programs (a GPU driver's compiler can take seconds),
                                 or loading them from the program cache */
  uint64_t buffers_live;      /* now: GL buffer objects made with
                                 texmem_gl_buffer_create (views hold none) */
  uint64_t programs_loaded;   /* since creation / reset: programs made from
                                 the program cache's binaries, not compiled */
  uint64_t compile_threads_max; /* since creation / reset: the most threads
                                   one batch of compiles ran on */
  uint64_t work_groups;         /* since creation / reset: work groups the
                                   dispatches launched (x * y * z each) */
  uint64_t invocations;         /* and their invocations (x local size) */
} texmem_gl_counters;

TEXMEM_API void texmem_gl_counters_get(const texmem_gl_context *ctx, texmem_gl_counters *out);
/* Zeroes the event counts (binds .. programs_compiled, programs_loaded,
 * work_groups, invocations), compile_ns and compile_threads_max, not the
 * live ones. */
TEXMEM_API void texmem_gl_counters_reset(texmem_gl_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
