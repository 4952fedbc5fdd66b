/* Kernels: one per operator family (one file each, kernels_*.c), each
 * turning a model operator into a GL operation: which model tensors are
 * bound as input/output images, the program, weight buffers, uniforms and
 * work-group counts.
 *
 * Conventions every kernel keeps:
 * - A tensor is PHWC4: logical texel (x=w, y=h, z=b*S+slice) with S =
 *   ceil(C/4) slices a batch; slice s holds channels 4s..4s+3 as rgba.
 *   Accessors NAME_read / NAME_write / NAME_shape from
 *   texmem_gl_program_desc hide the layout; NAME_shape().z is B*S.
 * - A kernel writes EVERY texel of its output's logical shape, with the
 *   padding channels (c >= C in the last slice) set to 0, so readers may
 *   rely on them being 0 whatever the texture held before (shared
 *   textures hold other tensors' data).
 * - Constant inputs (weights, biases, PAD/MEAN/RESHAPE parameters) are
 *   never images: weights go to read-only SSBOs made with
 *   texmem__kernel_buffer (counted as weights bytes), parameters to
 *   uniforms.
 * - Results must be deterministic: the same program on the same inputs
 *   gives bit-identical output (no racy reductions; an atomic may only
 *   elect which work group does a fixed-order step, op_squeeze.comp). */
#ifndef TEXMEM_RUNTIME_KERNEL_H
#define TEXMEM_RUNTIME_KERNEL_H

#include "texmem/gl.h"
#include "texmem/model.h"
#include "texmem/runtime.h"

#define TEXMEM__KERNEL_MAX_IO 8
#define TEXMEM__KERNEL_MAX_BUFFERS 6
#define TEXMEM__KERNEL_MAX_UNIFORMS 16
/* FULLY_CONNECTED layers one dispatch runs at most (op_fc_heads.comp;
 * 1x1 convolutions: 3, kernels_merge_conv_heads.c). */
#define TEXMEM__KERNEL_MAX_HEADS 4

/* What kernels get from the runtime. */
typedef struct texmem__kernel_env texmem__kernel_env;

/* A built operation, in model tensor indices; the runtime maps them to
 * pool tensors. */
typedef struct texmem__kernel {
  texmem_gl_program program;
  int32_t inputs[TEXMEM__KERNEL_MAX_IO];  /* model tensors bound as input images */
  size_t n_inputs;
  int32_t outputs[TEXMEM__KERNEL_MAX_IO]; /* model tensors written */
  size_t n_outputs;
  texmem_gl_buffer buffers[TEXMEM__KERNEL_MAX_BUFFERS];
  size_t n_buffers;
  uint32_t scratch_buffers; /* bit i: buffers[i] is from texmem__kernel_scratch */
  texmem_gl_uniform uniforms[TEXMEM__KERNEL_MAX_UNIFORMS]; /* names: string literals */
  size_t n_uniforms;
  /* The first uniform that did not fit (NULL: all fit); the runtime turns
   * it into a status, so the setters stay void and never abort. The value
   * goes to `spill`, never read. */
  const char *uniform_overflow;
  texmem_gl_uniform spill;
  uint32_t groups[3]; /* 0,0,0 = cover outputs[0] with the program's local size */
  /* Operators one program cannot do at once (a CONCATENATION of more
   * inputs than a program binds): the runtime zeroes the kernel, sets
   * `pass` and calls the builder for pass 0, then 1, 2, ... while pass <
   * n_passes (as pass 0 set it; 0 = 1 pass). Each pass is one dispatch of
   * the operator's task; passes write disjoint texels of the outputs. */
  uint32_t pass;     /* in */
  uint32_t n_passes; /* out, pass 0 */
  /* In: the element-wise operator fused into this convolution's output
   * (kernels_fusion.h), or NULL; the kernel then writes its output. */
  const texmem_op *fused;
  /* In: a second element-wise operator, fused after `fused` (NULL: none);
   * the kernel then writes its output. */
  const texmem_op *fused2;
  /* In: with fused2, store fused's output too (image y1): other operators
   * read it. */
  bool fused_keep;
  /* In: a PAD (zeros after the channels) making `fused`'s tensor operand:
   * the kernel reads the PAD's input instead (NULL: none). */
  const texmem_op *fused_pad;
  /* In: a MAX_POOL_2D making that operand, or the PAD's input: the kernel
   * reads the pool's input and takes the window's maximum (NULL: none). */
  const texmem_op *fused_pool;
  /* In: a RESIZE_BILINEAR making that operand: the kernel reads the
   * resize's input and interpolates it (NULL: none). */
  const texmem_op *fused_rsz;
  /* In: a PAD of zero rows and columns making the convolution's input: the
   * kernel reads the PAD's input, its padding added (NULL: none). */
  const texmem_op *in_pad;
  /* In: a DEPTH_TO_SPACE making the tensor the kernel reads as x (its
   * input, or in_pad's or in_dw's input): the kernel reads its input
   * through it (NULL: none). */
  const texmem_op *in_d2s;
  /* In: a DEPTHWISE_CONV_2D of a 1x1 window (multiplier 1) making the
   * convolution's input: the kernel reads its input and applies it per
   * texel (NULL: none). */
  const texmem_op *in_aff;
  /* In: a DEPTHWISE_CONV_2D making a 1x1 convolution's input: the tiled
   * kernel reads its input and computes it (NULL: none). */
  const texmem_op *in_dw;
  /* In: a PAD of rows and columns folded into in_dw: the kernel reads its
   * input, the padding added to the depthwise window's (NULL: none). */
  const texmem_op *in_dw_pad;
  /* In: a MUL of a tensor by a per-channel one making a 1x1 convolution's
   * input: the tiled kernel reads both and stages the product (NULL: none). */
  const texmem_op *in_mul;
  /* In: with in_mul, an ADD of its output and a tensor making the 1x1
   * convolution's input: the tiled kernel stages the sum (NULL: none). */
  const texmem_op *in_add;
  /* In: a squeeze (kernels_fusion.h: insq) making a 1x1 convolution's
   * input, run in this dispatch (op_squeeze.comp): its global pool (NULL:
   * none), its first 1x1 convolution and that one's fused unary operator
   * (each NULL: none). */
  const texmem_op *in_sq_pool, *in_sq, *in_sq_fused;
  /* In: with in_sq_pool, an ADD making the pool's input, read there. */
  const texmem_op *in_sq_add;
  /* In: a RESIZE_BILINEAR making a 1x1 convolution's input: the tiled
   * kernel reads its input and interpolates it (NULL: none). */
  const texmem_op *in_rsz;
  /* In: FULLY_CONNECTED layers reading this one's input by rows that its
   * dispatch runs too, and each one's fused unary operator (NULL: none);
   * or 1x1 convolutions of this one's input (tiled kernels, at most 2). */
  const texmem_op *heads[TEXMEM__KERNEL_MAX_HEADS - 1];
  const texmem_op *heads_fused[TEXMEM__KERNEL_MAX_HEADS - 1];
  size_t n_heads;
  /* In: per model operator, the operator reading through it (a RESHAPE
   * folded into a CONCATENATION or a landmark operator, a MUL by a scalar
   * into a landmark operator; kernels_fusion.h), else -1; NULL: none
   * folded. */
  const int32_t *through;
  /* In: per model operator, the RESHAPE whose output it stores instead of
   * its own (kernels_fusion.h: into), else -1; NULL: none folded. */
  const int32_t *into;
  /* Set by the runtime (before the builder runs): the operator whose
   * kernel this is (a late fused dispatch runs in a later operator's task). */
  size_t op;
} texmem__kernel;

typedef texmem_status (*texmem__kernel_build_fn)(texmem__kernel_env *env,
                                                 const texmem_model *model,
                                                 const texmem_op *op,
                                                 texmem__kernel *out,
                                                 texmem_error *err);

/* The program for a shader file of shaders/ (cached by file name and
 * binding names; compiled once per runtime context). */
texmem_status texmem__kernel_program(texmem__kernel_env *env, const char *shader_file,
                                     const char *const *inputs, size_t n_inputs,
                                     const char *const *outputs, size_t n_outputs,
                                     const char *const *buffers, size_t n_buffers,
                                     const uint32_t local_size[3],
                                     texmem_gl_program *out, texmem_error *err);
/* A read-only SSBO holding `floats` (count padded to a multiple of 4 with
 * zeros); owned by the runtime, counted in weights_bytes. *out is a token
 * the runtime replaces, once every kernel is built, with a view of the GL
 * buffer the constants are packed in (texmem__kernel_env_commit): a kernel
 * only stores it in its buffers. */
texmem_status texmem__kernel_buffer(texmem__kernel_env *env, const float *floats,
                                    size_t count, texmem_gl_buffer *out, texmem_error *err);
/* n zeroed uints the kernel's own shader reads and writes (bind it as a
 * scratch buffer: texmem__kernel.scratch_buffers); owned by the runtime,
 * not counted in weights_bytes. *out is a token as above. */
texmem_status texmem__kernel_scratch(texmem__kernel_env *env, size_t n, texmem_gl_buffer *out,
                                     texmem_error *err);
/* v as such a buffer holds it (binary16-rounded in fp16-weight runs), for
 * a constant a kernel takes as a uniform yet must use as a buffer would. */
float texmem__kernel_buffer_value(const texmem__kernel_env *env, float v);
/* Adds a uniform to k; past TEXMEM__KERNEL_MAX_UNIFORMS it names the
 * uniform in k->uniform_overflow instead (the runtime fails the op). */
void texmem__kernel_ivec4(texmem__kernel *k, const char *name, int32_t a, int32_t b, int32_t c,
                          int32_t d);
void texmem__kernel_int(texmem__kernel *k, const char *name, int32_t v);
void texmem__kernel_vec4(texmem__kernel *k, const char *name, float a, float b, float c, float d);
void texmem__kernel_float(texmem__kernel *k, const char *name, float v);

/* The builder for an op type; NULL if none. */
texmem__kernel_build_fn texmem__kernel_for(texmem_op_type t);

/* Builders, one family a file. */
texmem_status texmem__kernel_conv2d(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_depthwise(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_fully_connected(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_transpose_conv(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_elementwise(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_pool(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_mean(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_resize(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_pad(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_concat(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_reshape(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_depth_to_space(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_landmarks_to_matrix(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_transform_tensor(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_transform_landmarks(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_softmax(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_strided_slice(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_split(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);
texmem_status texmem__kernel_transpose_conv_builtin(texmem__kernel_env *, const texmem_model *, const texmem_op *, texmem__kernel *, texmem_error *);

/* Element-wise helpers the fused convolutions share (kernels_elementwise.c):
 * the shader's operator number (tm_unary kind, tm_binary mode; -1 for other
 * types), a tensor's shape as written right-aligned to rank r (numpy
 * broadcasting) and placed as (B, H, W, C), and a constant operand of that
 * aligned shape as PHWC4 vec4s. */
int texmem__ew_unary_kind(texmem_op_type t);
int texmem__ew_binary_mode(texmem_op_type t);
/* Whether operators of type t carry a fused activation (ADD, MUL, SUB, DIV). */
bool texmem__ew_has_activation(texmem_op_type t);
void texmem__ew_align_bhwc(const texmem_tensor *t, unsigned r, int32_t s[4]);
texmem_status texmem__ew_const_buffer(texmem__kernel_env *env, const char *name,
                                      const texmem_tensor *t, const int32_t s[4],
                                      texmem_gl_buffer *buf, texmem_error *err);

/* The padding before a pool's window (left, top) on input x, as TFLite
 * places it (kernels_pool.c). */
void texmem__pool_pads(const texmem_op *op, const texmem_tensor *x, int32_t *px, int32_t *py);

/* Whether pool op's one window covers x's whole plane (TFLite's geometry
 * giving one output): a global pool (kernels_pool.c). */
bool texmem__pool_global(const texmem_op *op, const texmem_tensor *x);

/* A RESIZE_BILINEAR's scale uniform (shaders/bilinear.glsl) for input x
 * and output y, computed in fp32 as TFLite does (kernels_resize.c). */
void texmem__resize_scale(const texmem_op *op, const texmem_tensor *x, const texmem_tensor *y,
                          float scale[4]);

/* Whether STRIDED_SLICE op takes the leading channels of every pixel of
 * its rank-4 input, all batches, rows and columns (begin 0, stride 1),
 * as op_slice.comp would run it (kernels_slice.c). */
bool texmem__slice_leading_channels(const texmem_model *model, const texmem_op *op);

/* A PAD's zeros added before and after each BHWC component of its input
 * (rank r as written), from its options or its int32 constant input
 * (kernels_pad.c). */
texmem_status texmem__pad_amounts(const texmem_model *model, const texmem_op *op, unsigned r,
                                  int32_t before[4], int32_t after[4], texmem_error *err);

#endif
