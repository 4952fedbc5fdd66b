/* texmem runtime: runs a texmem_model on the GL backend with planned
 * textures: records -> plan -> texture pool -> one compute dispatch per
 * operator (an element-wise operator after a convolution runs inside the
 * convolution's dispatch). Graph inputs and outputs are textures outside
 * the pool; weights are uploaded once, outside the pool, and counted
 * apart.
 *
 * Ownership: texmem_runtime is owned by the caller (destroy(NULL) is a
 * no-op); the context and model are borrowed and must outlive it. Float
 * arrays passed in or out are the caller's, BHWC fp32, dense. */
#ifndef TEXMEM_RUNTIME_H
#define TEXMEM_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texmem/gl.h"
#include "texmem/model.h"
#include "texmem/plan.h"
#include "texmem/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which kernels run the 1x1 convolutions (the bulk of MobileNet-like
 * models). AUTO (0): TILED on a GPU, PORTABLE on a CPU driver (Mesa's
 * llvmpipe, softpipe, SwiftShader: the GL renderer string names them),
 * where shared memory and barriers are slow. PORTABLE: one invocation
 * accumulates 4 pixels x 4 output slices reading the image and weight
 * buffer directly. TILED: a work group stages input texels in shared
 * memory and each invocation accumulates 4 x 4 of them, computing the
 * texels of a depthwise convolution whose output it alone reads instead of
 * reading them (that convolution is then not run; outputs unchanged);
 * pools over a whole plane and MEANs over H and W alone run as work-group
 * reductions too (docs/runtime.md). Outputs of the two differ in the order
 * of the sums. */
typedef enum texmem_kernels {
  TEXMEM_KERNELS_AUTO = 0,
  TEXMEM_KERNELS_PORTABLE = 1,
  TEXMEM_KERNELS_TILED = 2
} texmem_kernels;

/* Zero = defaults. */
typedef struct texmem_runtime_desc {
  texmem_strategy strategy;   /* shared objects strategy; NAIVE = one texture
                                 per tensor; default BEST. ARENA: an offsets
                                 strategy (BEST, greedy_*, strip_best_fit,
                                 exact) *in rows */
  texmem_layout layout;       /* NATURAL (2-D array textures, PHWC4) or LINEAR;
                                 ARENA is always linear (ignored) */
  texmem_storage storage;     /* OBJECTS (default); ARENA: every tensor at a
                                 base row of W-wide arena textures; BUFFER:
                                 every tensor at a texel offset of an arena
                                 SSBO (gl.h) */
  uint64_t arena_max_rows;    /* ARENA, BUFFER: rows of one arena texture
                                 (BUFFER: texels of one SSBO); 0 = the GL
                                 limit. Smaller values split the arena into
                                 more textures (tests). */
  texmem_precision precision; /* FP16 (RGBA16F, default) or FP32 (RGBA32F);
                                 weights and other constants are stored in
                                 the same precision (fp16: half the bytes) */
  bool fp32_weights;          /* FP16 runs: keep weights fp32 (the model's
                                 values, twice the bytes) */
  bool reuse_checker;         /* debug: fail on a read after reuse */
  bool profile;               /* time every dispatch of every run on the GPU
                                 (timer queries, gl.h) and the CPU:
                                 texmem_runtime_get_profile. Adds two queries
                                 a dispatch; leave off for latency figures */
  texmem_kernels kernels;     /* 1x1 convolutions; default AUTO */
  bool unfused;               /* one dispatch per operator: no element-wise
                                 operator (or two in a row, or a channel
                                 PAD or max pool) fused into the
                                 convolution before it (outputs are
                                 bit-identical either way; fusion saves
                                 dispatches and the planned outputs between
                                 them) */
  uint32_t conv1x1_split;     /* tiled 1x1 convolutions: the parts a work
                                 group splits the input channels in, 1, 2,
                                 4, 8 or 16 (64 / split pixels a tile) in
                                 every layer; 0 = chosen per layer by its
                                 size (docs/runtime.md). For measuring the
                                 choice; splits differ in the order of sums,
                                 so compare outputs of one split only */
} texmem_runtime_desc;

typedef struct texmem_runtime texmem_runtime;

/* Operators of one name the runtime cannot execute. */
typedef struct texmem_op_tally {
  const char *name;          /* texmem_op_name (borrowed from the model) */
  texmem_op_type type;       /* OTHER, or an IR type without a GPU kernel */
  int32_t builtin_code;      /* OTHER: the TFLite builtin code */
  bool options_unsupported;  /* a known operator with options outside the IR */
  size_t count;
} texmem_op_tally;

/* The operators of `model` the runtime cannot execute (no kernel for the
 * type, or TEXMEM_OP_OTHER), one entry per name (and options flag) in order
 * of first appearance. *out is malloc'd and owned by the caller (free());
 * NULL with *n = 0 when every operator has a kernel. Needs no GL context. */
TEXMEM_API texmem_status texmem_runtime_unsupported_ops(const texmem_model *model,
                                                        texmem_op_tally **out, size_t *n,
                                                        texmem_error *err);
/* Writes "NAME xCOUNT, ..." for tallies (as texmem_runtime_create's message
 * does) into buf (size bytes, NUL-terminated, cut with "..." if short). */
TEXMEM_API void texmem_op_tally_format(const texmem_op_tally *tallies, size_t n, char *buf,
                                       size_t size);

/* Plans, creates the pool, uploads weights, compiles every program the run
 * needs, in one batch (texmem_gl_prepare; programs of the same source are
 * shared with the context's other runtimes), so the first run compiles
 * nothing: on a GPU driver this is the slow step (seconds). A model with
 * operators the runtime cannot execute is refused first, with
 * TEXMEM_STATUS_UNSUPPORTED_OP naming all of them (name and count). */
TEXMEM_API texmem_status texmem_runtime_create(texmem_gl_context *ctx,
                                               const texmem_model *model,
                                               const texmem_runtime_desc *desc,
                                               texmem_runtime **out,
                                               texmem_error *err);
TEXMEM_API void texmem_runtime_destroy(texmem_runtime *rt);

/* Graph input i (in texmem_model_inputs order): BHWC fp32 values, as many
 * as the tensor has elements. */
TEXMEM_API texmem_status texmem_runtime_set_input(texmem_runtime *rt, size_t i,
                                                  const float *values,
                                                  texmem_error *err);
/* Dispatches every operator in order (no CPU wait). */
TEXMEM_API texmem_status texmem_runtime_run(texmem_runtime *rt, texmem_error *err);
/* Waits for the GPU (glFinish); used to time runs. */
TEXMEM_API texmem_status texmem_runtime_finish(texmem_runtime *rt, texmem_error *err);
/* Graph output i: reads BHWC fp32 values back (waits for the GPU). */
TEXMEM_API texmem_status texmem_runtime_get_output(texmem_runtime *rt, size_t i,
                                                   float *values, texmem_error *err);
/* Graph inputs and outputs on the GPU, with no copy through the CPU.
 * Each graph input and output is a GL_TEXTURE_2D_ARRAY of the runtime
 * (immutable, one level, GL_RGBA16F in fp16 runs, GL_RGBA32F in fp32):
 * element (b, y, x, c) of the BHWC tensor is component c % 4 of texel
 * (x, y) in layer b * ceil(C / 4) + c / 4, and the components past C in a
 * batch's last layer are 0. A caller's own GL work in the runtime's
 * context (texmem_gl_context_adopt: the delegate's) may write an input
 * instead of texmem_runtime_set_input (a camera frame cropped and scaled
 * by its shader) and read an output instead of texmem_runtime_get_output
 * (a mask drawn by its renderer). GL orders uploads (glTexSubImage3D) and
 * texture reads by itself; writes and reads of shaders need barriers:
 *   - an input written with imageStore: glMemoryBarrier(
 *     GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT)
 *     before texmem_runtime_run;
 *   - an output after texmem_runtime_run: glMemoryBarrier with the bit of
 *     how it is read (GL_TEXTURE_FETCH_BARRIER_BIT to sample it,
 *     GL_SHADER_IMAGE_ACCESS_BARRIER_BIT for imageLoad,
 *     GL_FRAMEBUFFER_BARRIER_BIT or GL_TEXTURE_UPDATE_BARRIER_BIT to read
 *     it back).
 * The components past C must stay 0, and an fp16 input is stored as
 * given: texmem_runtime_set_input rounds to the nearest binary16, where
 * drivers' imageStore may truncate; a caller's shader rounds the same way
 * with the function texmem_gl_glsl_half_rne() defines (gl.h). The texture
 * is the runtime's: never delete it or change its storage; its name is
 * valid until texmem_runtime_destroy. */
typedef struct texmem_runtime_io_texture {
  uint32_t gl_name;            /* the texture's GL name in the runtime's context */
  uint32_t gl_internal_format; /* GL_RGBA16F or GL_RGBA32F */
  uint32_t width, height;      /* W, H */
  uint32_t layers;             /* B * slices */
  uint32_t batch, channels;    /* B, C */
  uint32_t slices;             /* ceil(C / 4): a batch's layers */
} texmem_runtime_io_texture;

/* The texture of graph input i / output i (texmem_model_inputs/outputs
 * order); INVALID_ARGUMENT naming i when out of range. */
TEXMEM_API texmem_status texmem_runtime_input_texture(const texmem_runtime *rt, size_t i,
                                                      texmem_runtime_io_texture *out,
                                                      texmem_error *err);
TEXMEM_API texmem_status texmem_runtime_output_texture(const texmem_runtime *rt, size_t i,
                                                       texmem_runtime_io_texture *out,
                                                       texmem_error *err);
/* Element count of graph input / output i (0 if out of range). */
TEXMEM_API size_t texmem_runtime_input_size(const texmem_runtime *rt, size_t i);
TEXMEM_API size_t texmem_runtime_output_size(const texmem_runtime *rt, size_t i);

typedef struct texmem_runtime_stats {
  size_t operators, tasks, tensors;      /* tensors: intermediate (planned) */
  texmem_strategy strategy;              /* chosen (for BEST) */
  texmem_layout layout;
  texmem_storage storage;
  uint64_t linear_width;                 /* linear layout W, else 0 */
  size_t objects;                        /* textures in the pool (ARENA: arena
                                            textures, more than one only when
                                            the rows exceed the GL height) */
  uint64_t texture_bytes;                /* pool bytes (exact) */
  uint64_t io_bytes;                     /* graph input/output textures */
  uint64_t weights_bytes;                /* weight buffers/textures */
  size_t weight_buffers;                 /* GL buffers holding them: the
                                            constants are packed, each a view
                                            of one (gl.h, buffer views) */
  double plan_us, pool_create_ms;
  /* What the driver counts as GPU memory in use (gl.h,
   * texmem_gl_memory_read): driver_before_bytes read as
   * texmem_runtime_create began, driver_after_bytes read by
   * texmem_runtime_get_stats itself; after - before is what creating the
   * runtime and running it so far cost, when nothing else in the process
   * allocated GPU memory in between (measure one runtime at a time).
   * driver_source NONE (both 0): no query on this driver, or the two
   * readings came from different sources. */
  texmem_gl_memory_source driver_source;
  int64_t driver_before_bytes, driver_after_bytes;
  size_t fused;                          /* operators run inside the dispatch
                                            of a convolution: element-wise
                                            ones, and channel PADs and max
                                            pools folded into a fused read,
                                            and MULs by a constant read
                                            through by MediaPipe's landmark
                                            operators
                                            (each one dispatch and one
                                            planned tensor fewer) */
  size_t fused_kept;                     /* of those, operators whose
                                            output the dispatch stores all
                                            the same (other operators read
                                            it; a second operator after it
                                            joined the dispatch): one
                                            dispatch fewer, no tensor */
  size_t depthwise_folded;               /* DEPTHWISE_CONV_2Ds computed in
                                            the tiled 1x1 convolution that
                                            reads their output (one
                                            dispatch and one planned
                                            tensor fewer each; not in
                                            fused) */
  size_t scales_folded;                  /* MULs by a per-channel tensor
                                            (squeeze-and-excitation's
                                            scale) computed in the tiled
                                            1x1 convolution reading them
                                            (as depthwise_folded) */
  size_t reshapes_folded;                /* RESHAPEs not run (one dispatch
                                            and one planned tensor fewer
                                            each; not in fused): read
                                            through by the CONCATENATION
                                            or landmark operator that alone
                                            reads them, or, to their input's
                                            shape, to another height and
                                            width of its batch, channels
                                            and pixels (after a convolution,
                                            depthwise or not, a
                                            DEPTH_TO_SPACE or a
                                            CONCATENATION), or to any
                                            shape (after a
                                            TRANSFORM_LANDMARKS), stored by
                                            the operator making it */
  size_t resizes_folded;                 /* RESIZE_BILINEARs not run (as
                                            reshapes_folded): interpolated
                                            where a convolution reads them,
                                            as its fused operator's operand
                                            or (tiled kernels) as a 1x1
                                            convolution's input */
  size_t heads_merged;                   /* FULLY_CONNECTED layers (a
                                            landmark model's heads) or,
                                            tiled kernels, 1x1 convolutions
                                            (a detector's) run in the
                                            dispatch of another reading
                                            the same input: one dispatch
                                            fewer each, every output
                                            stored */
  size_t late_fused;                     /* fused dispatches run in their
                                            first element-wise operator's
                                            task, its tensor operand being
                                            computed after the convolution */
  size_t dispatches;                     /* GL dispatches of one run */
  bool tiled;                            /* 1x1 convolutions run TILED */
  uint32_t conv1x1_splits;               /* the splits its layers ran:
                                            bit k set for 2^k parts
                                            (conv1x1_split; 0: none ran) */
} texmem_runtime_stats;

/* The storage texmem recommends on ctx (`texmem bench --storage auto`), a
 * policy by the kind of GPU rather than by bytes (both arenas reach
 * max_live): on a GPU, BUFFER, which keeps every tensor dense where the
 * texture arena folds it into rows of a wide texture, against the 2-D
 * tiles texture caches fetch; on a GL that renders on the CPU (llvmpipe),
 * ARENA, measured faster there (docs/runtime.md, "Which storage").
 * OBJECTS for a NULL context. */
TEXMEM_API texmem_storage texmem_runtime_auto_storage(const texmem_gl_context *ctx);

TEXMEM_API void texmem_runtime_get_stats(const texmem_runtime *rt,
                                         texmem_runtime_stats *out);
/* One dispatch of a profiled run (texmem_runtime_desc.profile). */
typedef struct texmem_profile_record {
  size_t op;              /* operator index in the model whose kernel ran
                             (a fused dispatch's convolution; its task, or
                             a later one for a late dispatch) */
  uint32_t pass;          /* the operator's kernel pass (0 unless several) */
  const char *op_type;    /* texmem_op_type_name (static) */
  const char *kernel;     /* the program: its shader file name (owned by
                             the runtime) */
  uint64_t gpu_ns;        /* GPU time of the dispatch, timer queries around
                             it (barrier, binding and the work) */
  uint64_t cpu_submit_ns; /* CPU time of issuing it: checks, binding, the
                             GL calls (the GPU may run it later) */
  uint64_t work_groups;   /* work groups it launched: a GPU runs a few
                             thousand at once, so a dispatch of a handful
                             is one work group's serial path long */
  uint64_t invocations;   /* their invocations */
} texmem_profile_record;

typedef struct texmem_runtime_profile {
  const texmem_profile_record *records; /* one per dispatch of the last run,
                                           in order; owned by the runtime,
                                           valid until its next run or
                                           destroy */
  size_t n_records;
  texmem_gl_timer_kind timer;           /* the queries used */
  bool disjoint;                        /* the GPU reported a disjoint event
                                           during the run: every gpu_ns is 0,
                                           discard the run */
  uint64_t gpu_ns, cpu_submit_ns;       /* sums over the records */
  uint64_t run_gpu_ns;                  /* GPU time of the whole run, from
                                           two more timestamps around it
                                           (gaps between dispatches
                                           included: GPU idle, waiting for
                                           the CPU); 0 where the driver has
                                           only elapsed queries (they cannot
                                           nest) */
} texmem_runtime_profile;

/* The profile of the last run; waits for the GPU's results. A runtime
 * created without profile, or with no run yet: INVALID_ARGUMENT; a driver
 * without timer queries: UNSUPPORTED, the message saying so. */
TEXMEM_API texmem_status texmem_runtime_get_profile(texmem_runtime *rt,
                                                    texmem_runtime_profile *out,
                                                    texmem_error *err);

/* The plan used (borrowed, owned by the runtime). */
TEXMEM_API const texmem_plan *texmem_runtime_plan(const texmem_runtime *rt);
/* The records the plan was made for (borrowed; *n of them): the model's
 * (texmem_model_records, 3 dims, the run's precision) less the outputs of
 * fused convolutions (and of first fused operators a second one follows,
 * and of folded PADs and pools), each last fused operator's output living from its
 * dispatch's task on (the convolution's, or the first fused operator's
 * when the dispatch runs late), and what a dispatch reads living until
 * its task. NULL with *n = 0 for a NULL runtime. */
TEXMEM_API const texmem_record *texmem_runtime_records(const texmem_runtime *rt, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
