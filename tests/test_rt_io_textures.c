/* Graph inputs and outputs as GL textures (texmem_runtime_input_texture,
 * texmem_runtime_output_texture): what they describe is what GL says of
 * the texture, and a caller's own compute shaders that write an input and
 * read an output, with the barriers runtime.h names, give bit for bit what
 * texmem_runtime_set_input and texmem_runtime_get_output give, in both
 * precisions and every storage. The caller's GL code here is plain GLES
 * 3.1, as a delegate would write it. */
#include <stdio.h>

#include "rt_graph.h"

TestSuite(rt_io_textures, .timeout = 300);

/* input (2x9x7x6) -> 3x3 conv to 10 channels, RELU6 -> 1x1 conv to 6:
 * channel counts that leave padding lanes in the last slice. Outputs:
 * the 1x1 conv's, then the 3x3 conv's. */
static texmem_model *small_model(void) {
  rt_mb b = rt_mb_new();
  int32_t x = input(&b, 2, 9, 7, 6);
  int32_t y = conv(&b, x, 3, 1, 10, 0, TEXMEM_ACT_RELU6);
  int32_t z = conv(&b, y, 1, 1, 6, 0, TEXMEM_ACT_NONE);
  rt_mb_output(&b, z);
  rt_mb_output(&b, y);
  TG_OK(texmem_model_set_io(b.m, b.in, b.n_in, b.out, b.n_out, &tg_err_));
  return b.m;
}

/* A compute program of the caller's own (plain GL, no texmem). */
static GLuint caller_program(const char *src) {
  GLuint sh = glCreateShader(GL_COMPUTE_SHADER);
  glShaderSource(sh, 1, &src, NULL);
  glCompileShader(sh);
  GLint ok = 0;
  char log[1024] = "";
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  glGetShaderInfoLog(sh, sizeof log, NULL, log);
  cr_assert(ok, "caller shader: %s", log);
  GLuint p = glCreateProgram();
  glAttachShader(p, sh);
  glLinkProgram(p);
  glDeleteShader(sh);
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  cr_assert(ok, "caller program did not link");
  return p;
}

/* Texels (x, y, layer) of the texture <-> vec4 i = (layer * H + y) * W + x
 * of an SSBO: copy `in` to it (write) or it to `out` (read). */
enum { READ, WRITE, WRITE_ROUNDED }; /* WRITE_ROUNDED: through tm_half_rne */

static void caller_copy(const texmem_runtime_io_texture *t, int how, const float *in, float *out) {
  const char *fmt = t->gl_internal_format == GL_RGBA16F ? "rgba16f" : "rgba32f";
  bool write = how != READ;
  char src[8192];
  int len = snprintf(src, sizeof src,
                     "#version 310 es\n"
                     "layout(local_size_x = 8, local_size_y = 8) in;\n"
                     "layout(%s, binding = 0) %s uniform highp image2DArray img;\n"
                     "layout(std430, binding = 0) buffer V { highp vec4 v[]; };\n"
                     "uniform highp ivec3 dims;\n"
                     "%s\n"
                     "void main() {\n"
                     "  highp ivec3 p = ivec3(gl_GlobalInvocationID);\n"
                     "  if (p.x >= dims.x || p.y >= dims.y) return;\n"
                     "  highp int i = (p.z * dims.y + p.y) * dims.x + p.x;\n"
                     "  %s\n"
                     "}\n",
                     fmt, write ? "writeonly" : "readonly",
                     how == WRITE_ROUNDED ? texmem_gl_glsl_half_rne() : "",
                     how == READ    ? "v[i] = imageLoad(img, p);"
                     : how == WRITE ? "imageStore(img, p, v[i]);"
                                    : "imageStore(img, p, tm_half_rne(v[i]));");
  cr_assert(len > 0 && (size_t)len < sizeof src);
  GLuint prog = caller_program(src);
  size_t bytes = (size_t)t->width * t->height * t->layers * 4 * sizeof(float);
  GLuint buf;
  glGenBuffers(1, &buf);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
  glBufferData(GL_SHADER_STORAGE_BUFFER, (GLsizeiptr)bytes, write ? in : NULL, GL_STATIC_DRAW);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
  glBindImageTexture(0, t->gl_name, 0, GL_TRUE, 0, write ? GL_WRITE_ONLY : GL_READ_ONLY,
                     t->gl_internal_format);
  glUseProgram(prog);
  glUniform3i(glGetUniformLocation(prog, "dims"), (GLint)t->width, (GLint)t->height,
              (GLint)t->layers);
  glDispatchCompute((t->width + 7) / 8, (t->height + 7) / 8, t->layers);
  if (write) {
    /* runtime.h: before texmem_runtime_run reads what imageStore wrote. */
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
  } else {
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    const void *m =
        glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, (GLsizeiptr)bytes, GL_MAP_READ_BIT);
    cr_assert_not_null(m, "glMapBufferRange");
    memcpy(out, m, bytes);
    glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
  }
  glUseProgram(0);
  glBindImageTexture(0, 0, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, 0);
  glDeleteBuffers(1, &buf);
  glDeleteProgram(prog);
  cr_assert_eq(glGetError(), GL_NO_ERROR, "the caller's GL calls");
}

/* BHWC element (b, y, x, c) <-> texel component, as runtime.h says. */
static size_t texel_index(const texmem_runtime_io_texture *t, size_t b, size_t y, size_t x,
                          size_t c) {
  size_t layer = b * t->slices + c / 4;
  return ((layer * t->height + y) * t->width + x) * 4 + c % 4;
}

static size_t texel_floats(const texmem_runtime_io_texture *t) {
  return (size_t)t->width * t->height * t->layers * 4;
}

/* values (BHWC) as the texture's texels, zeros past the channels. */
static float *to_texels(const texmem_runtime_io_texture *t, const float *values) {
  float *tx = calloc(texel_floats(t), sizeof *tx);
  cr_assert_not_null(tx);
  for (size_t b = 0; b < t->batch; b++)
    for (size_t y = 0; y < t->height; y++)
      for (size_t x = 0; x < t->width; x++)
        for (size_t c = 0; c < t->channels; c++)
          tx[texel_index(t, b, y, x, c)] =
              values[((b * t->height + y) * t->width + x) * t->channels + c];
  return tx;
}

Test(rt_io_textures, describe_the_gl_texture) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = small_model();
  for (int prec = 0; prec < 2; prec++) {
    texmem_runtime_desc d = {.precision = prec ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16};
    texmem_runtime *rt = NULL;
    TG_OK(texmem_runtime_create(ctx, m, &d, &rt, &tg_err_));
    texmem_runtime_io_texture in, out0, out1;
    TG_OK(texmem_runtime_input_texture(rt, 0, &in, &tg_err_));
    TG_OK(texmem_runtime_output_texture(rt, 0, &out0, &tg_err_));
    TG_OK(texmem_runtime_output_texture(rt, 1, &out1, &tg_err_));
    GLenum want = prec ? GL_RGBA32F : GL_RGBA16F;
    const texmem_runtime_io_texture *all[3] = {&in, &out0, &out1};
    const uint32_t channels[3] = {6, 6, 10};
    for (int k = 0; k < 3; k++) {
      const texmem_runtime_io_texture *t = all[k];
      cr_expect_eq(t->width, 7u);
      cr_expect_eq(t->height, 9u);
      cr_expect_eq(t->batch, 2u);
      cr_expect_eq(t->channels, channels[k]);
      cr_expect_eq(t->slices, (channels[k] + 3) / 4);
      cr_expect_eq(t->layers, 2 * t->slices);
      cr_expect_eq(t->gl_internal_format, want);
      /* What GL itself says of the name. */
      cr_assert(glIsTexture(t->gl_name), "texture %d: %u is not a GL texture", k, t->gl_name);
      GLint prev = 0, w = 0, h = 0, layers = 0, ifmt = 0, immutable = 0;
      glGetIntegerv(GL_TEXTURE_BINDING_2D_ARRAY, &prev);
      glBindTexture(GL_TEXTURE_2D_ARRAY, t->gl_name);
      cr_assert_eq(glGetError(), GL_NO_ERROR, "a 2D array texture");
      glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_WIDTH, &w);
      glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_HEIGHT, &h);
      glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_DEPTH, &layers);
      glGetTexLevelParameteriv(GL_TEXTURE_2D_ARRAY, 0, GL_TEXTURE_INTERNAL_FORMAT, &ifmt);
      glGetTexParameteriv(GL_TEXTURE_2D_ARRAY, GL_TEXTURE_IMMUTABLE_FORMAT, &immutable);
      glBindTexture(GL_TEXTURE_2D_ARRAY, (GLuint)prev);
      cr_expect_eq((uint32_t)w, t->width);
      cr_expect_eq((uint32_t)h, t->height);
      cr_expect_eq((uint32_t)layers, t->layers);
      cr_expect_eq((GLenum)ifmt, want);
      cr_expect(immutable);
    }
    cr_expect_neq(in.gl_name, out0.gl_name);
    cr_expect_neq(out0.gl_name, out1.gl_name);
    /* Out of range, NULL: refused, naming the index; *out zeroed. */
    texmem_error err = {0};
    texmem_runtime_io_texture t;
    memset(&t, 0xAB, sizeof t);
    cr_expect_eq(texmem_runtime_input_texture(rt, 1, &t, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(err.message, "no graph input 1"), "%s", err.message);
    cr_expect_eq(t.gl_name, 0u);
    cr_expect_eq(texmem_runtime_output_texture(rt, 2, &t, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
    cr_expect_not_null(strstr(err.message, "no graph output 2"), "%s", err.message);
    cr_expect_eq(texmem_runtime_output_texture(NULL, 0, &t, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
    cr_expect_eq(texmem_runtime_input_texture(rt, 0, NULL, &err), TEXMEM_STATUS_INVALID_ARGUMENT);
    texmem_runtime_destroy(rt);
  }
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* One runtime fed and read through the CPU, another through the caller's
 * shaders: the same outputs bit for bit, padding lanes 0. */
static void caller_shaders_match(texmem_gl_context *ctx, const texmem_model *m,
                                 const texmem_runtime_desc *d, const char *what) {
  size_t n_in = 0;
  float **inputs = rt_inputs(m, 5, &n_in);
  cr_assert_eq(n_in, 1u);
  texmem_runtime *cpu = NULL, *gpu = NULL;
  TG_OK(texmem_runtime_create(ctx, m, d, &cpu, &tg_err_));
  TG_OK(texmem_runtime_create(ctx, m, d, &gpu, &tg_err_));
  /* Multiples of 1/64 in [-2, 2): binary16 holds them, so an fp16 input
   * stored by imageStore equals the one set_input rounds. */
  size_t n = texmem_runtime_input_size(cpu, 0);
  for (size_t k = 0; k < n; k++) inputs[0][k] = floorf(inputs[0][k] * 64.0f) / 64.0f;
  rt_outputs want = rt_run_once(cpu, m, inputs);

  texmem_runtime_io_texture in;
  TG_OK(texmem_runtime_input_texture(gpu, 0, &in, &tg_err_));
  float *tx = to_texels(&in, inputs[0]);
  caller_copy(&in, WRITE, tx, NULL);
  free(tx);
  TG_OK(texmem_runtime_run(gpu, &tg_err_));
  /* runtime.h: before the caller's imageLoad of the outputs. */
  glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
  for (size_t o = 0; o < want.n; o++) {
    texmem_runtime_io_texture t;
    TG_OK(texmem_runtime_output_texture(gpu, o, &t, &tg_err_));
    cr_assert_eq((size_t)t.batch * t.height * t.width * t.channels, want.count[o]);
    float *got = malloc(texel_floats(&t) * sizeof *got);
    cr_assert_not_null(got);
    caller_copy(&t, READ, NULL, got);
    for (size_t b = 0; b < t.batch; b++)
      for (size_t y = 0; y < t.height; y++)
        for (size_t x = 0; x < t.width; x++)
          for (size_t c = 0; c < t.slices * 4; c++) {
            float g = got[texel_index(&t, b, y, x, c)];
            if (c >= t.channels) {
              cr_assert_eq(g, 0.0f, "%s: output %zu: lane %zu past the channels is %g", what, o, c,
                           g);
              continue;
            }
            float w = want.v[o][((b * t.height + y) * t.width + x) * t.channels + c];
            cr_assert(memcmp(&g, &w, sizeof g) == 0,
                      "%s: output %zu (%zu,%zu,%zu,%zu): %.9g read by the caller, %.9g by "
                      "get_output",
                      what, o, b, y, x, c, g, w);
          }
    free(got);
  }
  /* The texmem path reads the same run. */
  rt_outputs got = rt_read_outputs(gpu, m);
  rt_assert_identical(&got, &want, what);
  rt_outputs_free(&got);
  rt_outputs_free(&want);
  rt_free_arrays(inputs, n_in);
  texmem_runtime_destroy(cpu);
  texmem_runtime_destroy(gpu);
}

Test(rt_io_textures, caller_shaders_write_inputs_and_read_outputs) {
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = small_model();
  const texmem_storage storages[3] = {TEXMEM_STORAGE_OBJECTS, TEXMEM_STORAGE_ARENA,
                                      TEXMEM_STORAGE_BUFFER};
  for (int prec = 0; prec < 2; prec++)
    for (int s = 0; s < 3; s++) {
      texmem_runtime_desc d = {.precision = prec ? TEXMEM_PRECISION_FP32 : TEXMEM_PRECISION_FP16,
                               .storage = storages[s]};
      char what[64];
      snprintf(what, sizeof what, "%s, storage %d", prec ? "fp32" : "fp16", s);
      caller_shaders_match(ctx, m, &d, what);
    }
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}

/* fp16 inputs not exact in binary16, written by the caller's shader through
 * texmem_gl_glsl_half_rne()'s function: the input texels are set_input's
 * bit for bit (a driver's imageStore alone may truncate: llvmpipe's does,
 * and this test then fails), and so are the outputs. */
Test(rt_io_textures, caller_rounds_fp16_inputs_as_set_input) {
  cr_assert_not_null(strstr(texmem_gl_glsl_half_rne(), "highp vec4 tm_half_rne(highp vec4 v)"));
  texmem_gl_context *ctx = tg_context();
  texmem_model *m = small_model();
  texmem_runtime_desc d = {.precision = TEXMEM_PRECISION_FP16,
                           .storage = texmem_runtime_auto_storage(ctx)};
  size_t n_in = 0;
  float **inputs = rt_inputs(m, 9, &n_in);
  texmem_runtime *cpu = NULL, *gpu = NULL;
  TG_OK(texmem_runtime_create(ctx, m, &d, &cpu, &tg_err_));
  TG_OK(texmem_runtime_create(ctx, m, &d, &gpu, &tg_err_));
  size_t inexact = 0;
  for (size_t k = 0; k < texmem_runtime_input_size(cpu, 0); k++)
    inexact += floorf(inputs[0][k] * 1024.0f) != inputs[0][k] * 1024.0f;
  cr_assert_gt(inexact, 100u, "inputs binary16 cannot hold");
  rt_outputs want = rt_run_once(cpu, m, inputs);

  texmem_runtime_io_texture in, in_cpu;
  TG_OK(texmem_runtime_input_texture(gpu, 0, &in, &tg_err_));
  TG_OK(texmem_runtime_input_texture(cpu, 0, &in_cpu, &tg_err_));
  float *tx = to_texels(&in, inputs[0]);
  caller_copy(&in, WRITE_ROUNDED, tx, NULL);
  float *a = malloc(texel_floats(&in) * sizeof *a), *b = malloc(texel_floats(&in) * sizeof *b);
  cr_assert(a && b);
  caller_copy(&in, READ, NULL, a);
  caller_copy(&in_cpu, READ, NULL, b);
  for (size_t k = 0; k < texel_floats(&in); k++)
    cr_assert(memcmp(&a[k], &b[k], sizeof *a) == 0,
              "input texel float %zu: %.9g stored by the caller (%.9g given), %.9g by set_input", k,
              a[k], tx[k], b[k]);
  TG_OK(texmem_runtime_run(gpu, &tg_err_));
  rt_outputs got = rt_read_outputs(gpu, m);
  rt_assert_identical(&got, &want, "outputs of the caller's rounded input");
  rt_outputs_free(&got);
  free(a);
  free(b);
  free(tx);
  rt_outputs_free(&want);
  rt_free_arrays(inputs, n_in);
  texmem_runtime_destroy(cpu);
  texmem_runtime_destroy(gpu);
  texmem_model_destroy(m);
  texmem_gl_context_destroy(ctx);
}
