/* The kernels' environment: a program cache (one GL program per shader
 * file, defines, binding names and local size), the weight buffers, the
 * uniform helpers and the op type -> builder table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "kernel_env.h"
#include "weights.h"

typedef struct env_program {
  char *key;
  texmem_gl_program program;
} env_program;

struct texmem__kernel_env {
  texmem_gl_context *ctx;
  env_program *programs;
  size_t n_programs, cap_programs;
  texmem__weights *weights; /* the constant buffers, packed */
  bool half_weights; /* buffers hold binary16 */
  bool half_images;  /* tensors are RGBA16F */
  bool tiled;        /* 1x1 convolutions: op_conv1x1_tiled.comp */
  uint32_t split;    /* its parts in every layer; 0: per layer */
  uint32_t splits_used; /* bit k: a layer took 2^k parts */
};

texmem_status texmem__kernel_env_create(texmem_gl_context *ctx, bool half_weights,
                                        texmem__kernel_env **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!ctx) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context is NULL");
  texmem__kernel_env *env = calloc(1, sizeof *env);
  if (!env) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  env->ctx = ctx;
  env->half_weights = half_weights;
  texmem_status st = texmem__weights_create(ctx, 0, &env->weights, err);
  if (st) {
    free(env);
    return st;
  }
  *out = env;
  return TEXMEM_STATUS_OK;
}

void texmem__kernel_env_destroy(texmem__kernel_env *env) {
  if (!env) return;
  for (size_t i = 0; i < env->n_programs; i++) {
    texmem_gl_program_destroy(env->ctx, env->programs[i].program);
    free(env->programs[i].key);
  }
  texmem__weights_destroy(env->weights);
  free(env->programs);
  free(env);
}

uint64_t texmem__kernel_env_weights_bytes(const texmem__kernel_env *env) {
  return env ? texmem__weights_bytes(env->weights) : 0;
}

size_t texmem__kernel_env_weight_buffers(const texmem__kernel_env *env) {
  return env ? texmem__weights_slabs(env->weights, NULL) : 0;
}

texmem_status texmem__kernel_env_commit(texmem__kernel_env *env, texmem__kernel *kernels,
                                        size_t n, texmem_error *err) {
  texmem_status st = texmem__weights_commit(env->weights, err);
  for (size_t i = 0; i < n && !st; i++)
    for (size_t j = 0; j < kernels[i].n_buffers && !st; j++)
      st = texmem__weights_view(env->weights, kernels[i].buffers[j], &kernels[i].buffers[j], err);
  return st;
}

void texmem__kernel_env_configure(texmem__kernel_env *env, bool half_images, bool tiled,
                                  uint32_t split) {
  if (!env) return;
  env->half_images = half_images;
  env->tiled = tiled;
  env->split = split;
}

uint32_t texmem__kernel_env_split(const texmem__kernel_env *env) { return env ? env->split : 0; }

void texmem__kernel_env_note_split(texmem__kernel_env *env, uint32_t parts) {
  uint32_t k = 0;
  while (k < 31 && (1u << k) < parts) k++;
  if (env) env->splits_used |= 1u << k;
}

uint32_t texmem__kernel_env_splits_used(const texmem__kernel_env *env) {
  return env ? env->splits_used : 0;
}

bool texmem__kernel_env_half_images(const texmem__kernel_env *env) {
  return env && env->half_images;
}

bool texmem__kernel_env_tiled(const texmem__kernel_env *env) { return env && env->tiled; }

bool texmem__kernel_env_half_weights(const texmem__kernel_env *env) {
  return env && env->half_weights;
}

texmem_gl_context *texmem__kernel_env_context(const texmem__kernel_env *env) {
  return env ? env->ctx : NULL;
}

/* "file|defines|in,..|out,..|buf,..|x,y,z|h": NULL on out of memory. */
static char *program_key(const char *file, const char *defines, const char *const *in, size_t ni,
                         const char *const *out, size_t no, const char *const *buf, size_t nb,
                         const uint32_t local[3], bool half, uint32_t scratch) {
  size_t len = strlen(file) + (defines ? strlen(defines) : 0) + 64;
  for (size_t i = 0; i < ni; i++) len += strlen(in[i]) + 1;
  for (size_t i = 0; i < no; i++) len += strlen(out[i]) + 1;
  for (size_t i = 0; i < nb; i++) len += strlen(buf[i]) + 1;
  char *k = malloc(len);
  if (!k) return NULL;
  size_t at = (size_t)snprintf(k, len, "%s|%s|", file, defines ? defines : "");
  for (size_t i = 0; i < ni; i++) at += (size_t)snprintf(k + at, len - at, "%s,", in[i]);
  at += (size_t)snprintf(k + at, len - at, "|");
  for (size_t i = 0; i < no; i++) at += (size_t)snprintf(k + at, len - at, "%s,", out[i]);
  at += (size_t)snprintf(k + at, len - at, "|");
  for (size_t i = 0; i < nb; i++) at += (size_t)snprintf(k + at, len - at, "%s,", buf[i]);
  snprintf(k + at, len - at, "|%u,%u,%u|%d|%x", local ? local[0] : 0, local ? local[1] : 0,
           local ? local[2] : 0, half, (unsigned)scratch);
  return k;
}

typedef struct texmem__shader_file {
  const char *name;
  const char *source;
} texmem__shader_file;
extern const texmem__shader_file texmem__op_shader_files[];

/* An operator shader embedded from shaders/ by file name; NULL if none. */
static const char *op_shader_source(const char *file_name) {
  for (const texmem__shader_file *f = texmem__op_shader_files; f->name; f++)
    if (!strcmp(f->name, file_name)) return f->source;
  return NULL;
}

/* Appends n bytes of s to the growing string *b (length *len, capacity
 * *cap); false on out of memory. */
static bool append(char **b, size_t *len, size_t *cap, const char *s, size_t n) {
  if (*len + n + 1 > *cap) {
    size_t nc = (*len + n + 1) * 2;
    char *g = realloc(*b, nc);
    if (!g) return false;
    *b = g;
    *cap = nc;
  }
  memcpy(*b + *len, s, n);
  *len += n;
  (*b)[*len] = '\0';
  return true;
}

/* The shader a line `#include "NAME"` names (shaders/NAME), else NULL. */
static const char *included(const char *line, size_t n) {
  static const char directive[] = "#include \"";
  if (strncmp(line, directive, sizeof directive - 1)) return NULL;
  const char *name = line + sizeof directive - 1;
  const char *q = memchr(name, '"', n - (sizeof directive - 1));
  char file[64];
  size_t fl = q ? (size_t)(q - name) : sizeof file;
  if (fl >= sizeof file) return NULL;
  memcpy(file, name, fl);
  file[fl] = '\0';
  return op_shader_source(file);
}

/* Appends body with each line `#include "NAME"` replaced by the embedded
 * shaders/NAME, itself spliced so up to `depth` levels (GLSL ES has no
 * #include; the shaders share code through it: conv_common.glsl
 * includes y_flat.glsl). An unknown name, or one past the depth, stays as
 * it is, for the compiler to reject. */
static bool splice(char **b, size_t *len, size_t *cap, const char *body, int depth) {
  bool ok = true;
  for (const char *line = body; ok && *line;) {
    const char *end = strchr(line, '\n');
    size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
    const char *inc = depth > 0 ? included(line, n) : NULL;
    ok = inc ? splice(b, len, cap, inc, depth - 1) && append(b, len, cap, "\n", 1)
             : append(b, len, cap, line, n);
    line += n;
  }
  return ok;
}

/* defines, then body, its includes spliced (two levels). NULL on out of
 * memory. */
static char *program_source(const char *defines, const char *body) {
  char *b = NULL;
  size_t len = 0, cap = 0;
  bool ok = append(&b, &len, &cap, defines ? defines : "", defines ? strlen(defines) : 0) &&
            splice(&b, &len, &cap, body, 2);
  if (!ok) free(b);
  return ok ? b : NULL;
}

texmem_status texmem__kernel_program_defines(texmem__kernel_env *env, const char *shader_file,
                                             const char *defines, const char *const *inputs,
                                             size_t n_inputs, const char *const *outputs,
                                             size_t n_outputs, const char *const *buffers,
                                             size_t n_buffers, const uint32_t local_size[3],
                                             texmem_gl_program *out, texmem_error *err) {
  return texmem__kernel_program_scratch(env, shader_file, defines, inputs, n_inputs, outputs,
                                        n_outputs, buffers, n_buffers, 0, local_size, out, err);
}

texmem_status texmem__kernel_program_scratch(texmem__kernel_env *env, const char *shader_file,
                                             const char *defines, const char *const *inputs,
                                             size_t n_inputs, const char *const *outputs,
                                             size_t n_outputs, const char *const *buffers,
                                             size_t n_buffers, uint32_t scratch,
                                             const uint32_t local_size[3], texmem_gl_program *out,
                                             texmem_error *err) {
  if (!env || !shader_file || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "env, shader file or out is NULL");
  out->id = 0;
  const char *body = op_shader_source(shader_file);
  if (!body)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "no embedded shader named %s",
                        shader_file);
  char *key = program_key(shader_file, defines, inputs, n_inputs, outputs, n_outputs, buffers,
                          n_buffers, local_size, env->half_weights, scratch);
  if (!key) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  for (size_t i = 0; i < env->n_programs; i++)
    if (!strcmp(env->programs[i].key, key)) {
      free(key);
      *out = env->programs[i].program;
      return TEXMEM_STATUS_OK;
    }
  if (env->n_programs == env->cap_programs) {
    size_t nc = env->cap_programs ? env->cap_programs * 2 : 16;
    env_program *np = realloc(env->programs, nc * sizeof *np);
    if (!np) {
      free(key);
      return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    env->programs = np;
    env->cap_programs = nc;
  }
  char *source = program_source(defines, body);
  if (!source) {
    free(key);
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  }
  texmem_gl_program_desc d = {
      .name = shader_file,
      .source = source,
      .inputs = inputs,
      .n_inputs = n_inputs,
      .outputs = outputs,
      .n_outputs = n_outputs,
      .buffers = buffers,
      .n_buffers = n_buffers,
      .half_buffers = env->half_weights ? ((1u << n_buffers) - 1u) & ~scratch : 0,
      .scratch_buffers = scratch,
      /* texmem_runtime_create prepares every variant its operations bind
       * in one batch: a default variant compiled now would never run. */
      .defer_compile = true};
  if (local_size) memcpy(d.local_size, local_size, sizeof d.local_size);
  texmem_gl_program p;
  texmem_status st = texmem_gl_program_create(env->ctx, &d, &p, err);
  free(source);
  if (st) {
    free(key);
    return st;
  }
  env->programs[env->n_programs].key = key;
  env->programs[env->n_programs].program = p;
  env->n_programs++;
  *out = p;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_program(texmem__kernel_env *env, const char *shader_file,
                                     const char *const *inputs, size_t n_inputs,
                                     const char *const *outputs, size_t n_outputs,
                                     const char *const *buffers, size_t n_buffers,
                                     const uint32_t local_size[3], texmem_gl_program *out,
                                     texmem_error *err) {
  return texmem__kernel_program_defines(env, shader_file, NULL, inputs, n_inputs, outputs,
                                        n_outputs, buffers, n_buffers, local_size, out, err);
}

/* count floats as buffer bytes: binary16 (rounded to nearest) or fp32,
 * padded with zeros to whole vec4s (GL wants a non-empty buffer), written
 * straight into the staged constants (runtime/weights.c). */
texmem_status texmem__kernel_buffer(texmem__kernel_env *env, const float *floats, size_t count,
                                    texmem_gl_buffer *out, texmem_error *err) {
  if (!env || !out || (count && !floats))
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "env, floats or out is NULL");
  out->id = 0;
  if (count > SIZE_MAX / sizeof(float) - 16)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "%zu floats overflow a buffer size", count);
  size_t padded = count ? (count + 3) / 4 * 4 : 4, elem = env->half_weights ? 2 : 4;
  void *p = NULL;
  texmem_status st = texmem__weights_add(env->weights, padded * elem, &p, out, err);
  if (st) return st;
  if (env->half_weights) {
    uint16_t *h = p;
    for (size_t i = 0; i < count; i++) h[i] = texmem__f32_to_f16(floats[i]);
  } else if (count) {
    memcpy(p, floats, count * sizeof *floats);
  }
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__kernel_scratch(texmem__kernel_env *env, size_t n, texmem_gl_buffer *out,
                                     texmem_error *err) {
  if (!env || !out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "env or out is NULL");
  out->id = 0;
  if (!n || n > SIZE_MAX / 8)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "scratch of %zu words", n);
  void *p = NULL;
  return texmem__weights_add_scratch(env->weights, (n + 1) / 2 * 8, &p, out, err);
}

float texmem__kernel_buffer_value(const texmem__kernel_env *env, float v) {
  return env->half_weights ? texmem__f16_to_f32(texmem__f32_to_f16(v)) : v;
}

/* Uniforms: names are string literals (kept by pointer). Running out of
 * room is a bug in a kernel: the name is kept for the runtime to report
 * and the value goes to the spill slot. */
static texmem_gl_uniform *next_uniform(texmem__kernel *k, const char *name,
                                       texmem_gl_uniform_type t) {
  texmem_gl_uniform *u = &k->spill;
  if (k->n_uniforms < TEXMEM__KERNEL_MAX_UNIFORMS)
    u = &k->uniforms[k->n_uniforms++];
  else if (!k->uniform_overflow)
    k->uniform_overflow = name;
  memset(u, 0, sizeof *u);
  u->name = name;
  u->type = t;
  return u;
}

void texmem__kernel_ivec4(texmem__kernel *k, const char *name, int32_t a, int32_t b, int32_t c,
                          int32_t d) {
  texmem_gl_uniform *u = next_uniform(k, name, TEXMEM_GL_IVEC4);
  u->i[0] = a;
  u->i[1] = b;
  u->i[2] = c;
  u->i[3] = d;
}

void texmem__kernel_int(texmem__kernel *k, const char *name, int32_t v) {
  next_uniform(k, name, TEXMEM_GL_INT)->i[0] = v;
}

void texmem__kernel_vec4(texmem__kernel *k, const char *name, float a, float b, float c, float d) {
  texmem_gl_uniform *u = next_uniform(k, name, TEXMEM_GL_VEC4);
  u->f[0] = a;
  u->f[1] = b;
  u->f[2] = c;
  u->f[3] = d;
}

void texmem__kernel_float(texmem__kernel *k, const char *name, float v) {
  next_uniform(k, name, TEXMEM_GL_FLOAT)->f[0] = v;
}

texmem__kernel_build_fn texmem__kernel_for(texmem_op_type t) {
  switch (t) {
    case TEXMEM_OP_CONV_2D: return texmem__kernel_conv2d;
    case TEXMEM_OP_DEPTHWISE_CONV_2D: return texmem__kernel_depthwise;
    case TEXMEM_OP_FULLY_CONNECTED: return texmem__kernel_fully_connected;
    case TEXMEM_OP_CONV_2D_TRANSPOSE_BIAS: return texmem__kernel_transpose_conv;
    case TEXMEM_OP_ADD:
    case TEXMEM_OP_MUL:
    case TEXMEM_OP_RELU:
    case TEXMEM_OP_RELU6:
    case TEXMEM_OP_LOGISTIC:
    case TEXMEM_OP_HARD_SWISH:
    case TEXMEM_OP_SUB:
    case TEXMEM_OP_DIV:
    case TEXMEM_OP_MAXIMUM:
    case TEXMEM_OP_MINIMUM:
    case TEXMEM_OP_PRELU:
    case TEXMEM_OP_TANH:
    case TEXMEM_OP_LEAKY_RELU: return texmem__kernel_elementwise;
    case TEXMEM_OP_SOFTMAX: return texmem__kernel_softmax;
    case TEXMEM_OP_RESIZE_NEAREST_NEIGHBOR: return texmem__kernel_resize;
    case TEXMEM_OP_MAX_POOL_2D:
    case TEXMEM_OP_AVERAGE_POOL_2D: return texmem__kernel_pool;
    case TEXMEM_OP_MEAN: return texmem__kernel_mean;
    case TEXMEM_OP_RESIZE_BILINEAR: return texmem__kernel_resize;
    case TEXMEM_OP_PAD: return texmem__kernel_pad;
    case TEXMEM_OP_CONCATENATION: return texmem__kernel_concat;
    case TEXMEM_OP_RESHAPE: return texmem__kernel_reshape;
    case TEXMEM_OP_DEPTH_TO_SPACE: return texmem__kernel_depth_to_space;
    case TEXMEM_OP_STRIDED_SLICE: return texmem__kernel_strided_slice;
    case TEXMEM_OP_SPLIT:
    case TEXMEM_OP_SPLIT_V: return texmem__kernel_split;
    case TEXMEM_OP_TRANSPOSE_CONV: return texmem__kernel_transpose_conv_builtin;
    case TEXMEM_OP_LANDMARKS_TO_TRANSFORM_MATRIX: return texmem__kernel_landmarks_to_matrix;
    case TEXMEM_OP_TRANSFORM_TENSOR_BILINEAR: return texmem__kernel_transform_tensor;
    case TEXMEM_OP_TRANSFORM_LANDMARKS: return texmem__kernel_transform_landmarks;
    default: return NULL;
  }
}
