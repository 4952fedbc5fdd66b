/* Headless EGL / GLES 3.1 context: created (device, surfaceless or default
 * display) or adopted from the caller; limits, strings and counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_internal.h"

static texmem_status egl_fail(texmem_error *err, const char *call) {
  EGLint e = eglGetError();
  return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT, "%s failed: %s (0x%04x)", call,
                      texmem__egl_error_name(e), (unsigned)e);
}

static bool has_ext(const char *list, const char *ext) {
  if (!list) return false;
  size_t n = strlen(ext);
  for (const char *p = list; (p = strstr(p, ext)) != NULL; p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
  return false;
}

static void context_free(texmem_gl_context *c) {
  free(c->vendor);
  free(c->renderer);
  free(c->version);
  free(c->glsl_version);
  free(c->egl_vendor);
  free(c->egl_version);
  texmem__gl_memory_release(c);
  free(c->log);
  texmem__slots_free(&c->textures);
  texmem__slots_free(&c->buffers);
  texmem__slots_free(&c->programs);
  free(c);
}

static texmem_gl_context *context_alloc(void) {
  texmem_gl_context *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->display = EGL_NO_DISPLAY;
  c->context = EGL_NO_CONTEXT;
  c->surface = EGL_NO_SURFACE;
  c->compile_threads = 1;
  c->epoch = 1;
  texmem__slots_init(&c->textures, sizeof(texmem__gl_tex));
  texmem__slots_init(&c->buffers, sizeof(texmem__gl_buf));
  texmem__slots_init(&c->programs, sizeof(texmem__gl_prog));
  return c;
}

static int64_t get_int(GLenum e) {
  GLint v = 0;
  glGetIntegerv(e, &v);
  return v;
}

/* With a current context: loads GL, checks ES 3.1+, reads strings and
 * limits. */
static texmem_status gl_init(texmem_gl_context *c, texmem_error *err) {
  if (!gladLoaderLoadGLES2())
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "gladLoaderLoadGLES2 failed: cannot load libGLESv2 or glGetString");
  const char *ver = (const char *)glGetString(GL_VERSION);
  if (!ver)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT, "glGetString(GL_VERSION) returned NULL");
  if (sscanf(ver, "OpenGL ES %d.%d", &c->gl_major, &c->gl_minor) != 2)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "context is not OpenGL ES (GL_VERSION \"%s\")", ver);
  if (c->gl_major < 3 || (c->gl_major == 3 && c->gl_minor < 1) || !glDispatchCompute)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "OpenGL ES 3.1 with compute shaders needed, got \"%s\"", ver);
  c->vendor = texmem__strdup((const char *)glGetString(GL_VENDOR));
  c->renderer = texmem__strdup((const char *)glGetString(GL_RENDERER));
  c->version = texmem__strdup(ver);
  c->glsl_version = texmem__strdup((const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
  const char *ev = c->display != EGL_NO_DISPLAY ? eglQueryString(c->display, EGL_VENDOR) : NULL;
  const char *evv = c->display != EGL_NO_DISPLAY ? eglQueryString(c->display, EGL_VERSION) : NULL;
  c->egl_vendor = texmem__strdup(ev);
  c->egl_version = texmem__strdup(evv);
  if (!c->vendor || !c->renderer || !c->version || !c->glsl_version || !c->egl_vendor ||
      !c->egl_version)
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");

  texmem_gl_limits *l = &c->limits;
  l->max_2d_size = get_int(GL_MAX_TEXTURE_SIZE);
  l->max_3d_size = get_int(GL_MAX_3D_TEXTURE_SIZE);
  l->max_array_layers = get_int(GL_MAX_ARRAY_TEXTURE_LAYERS);
  l->max_image_units = get_int(GL_MAX_IMAGE_UNITS);
  l->max_compute_image_uniforms = get_int(GL_MAX_COMPUTE_IMAGE_UNIFORMS);
  l->max_ssbo_bindings = get_int(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS);
  l->max_work_group_invocations = get_int(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS);
  l->max_shared_memory = get_int(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE);
  GLint64 ssbo = 0; /* a 64-bit state (GLES 3.1 state table) */
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &ssbo);
  l->max_ssbo_size = ssbo;
  l->max_compute_ssbos = get_int(GL_MAX_COMPUTE_SHADER_STORAGE_BLOCKS);
  l->ssbo_offset_alignment = get_int(GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT);
  for (GLuint i = 0; i < 3; i++) {
    GLint v = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_COUNT, i, &v);
    l->max_work_group_count[i] = (uint32_t)v; /* often 2^31 - 1 or 65535 */
    v = 0;
    glGetIntegeri_v(GL_MAX_COMPUTE_WORK_GROUP_SIZE, i, &v);
    l->max_work_group_size[i] = v;
  }
  texmem_status st = texmem__gl_check(err, "glGetIntegerv (limits)");
  if (st) return st;
  /* A context of our own compiles programs on as many of the driver's
   * threads as it has (program_batch.c issues a runtime's compiles
   * together); an adopted context keeps the caller's setting. */
  l->program_binary_formats = get_int(GL_NUM_PROGRAM_BINARY_FORMATS); /* program_cache.c */
  c->limits.compiler_threads = -1;
  if (GLAD_GL_KHR_parallel_shader_compile && glMaxShaderCompilerThreadsKHR) {
    if (c->owned) glMaxShaderCompilerThreadsKHR(0xFFFFFFFFu);
    GLint n = 0;
    glGetIntegerv(GL_MAX_SHADER_COMPILER_THREADS_KHR, &n);
    c->limits.compiler_threads = (int64_t)(uint32_t)n;
    texmem__gl_drain(); /* a driver that lists the extension but not the query */
  }
  /* Optional queries: timers (bench --profile) and driver memory. */
  texmem__gl_timer_detect(c);
  texmem__gl_memory_detect(c);
  return TEXMEM_STATUS_OK;
}

static void egl_release(texmem_gl_context *c) {
  if (c->display == EGL_NO_DISPLAY) return;
  eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  if (c->surface != EGL_NO_SURFACE) eglDestroySurface(c->display, c->surface);
  if (c->context != EGL_NO_CONTEXT) eglDestroyContext(c->display, c->context);
  c->surface = EGL_NO_SURFACE;
  c->context = EGL_NO_CONTEXT;
  /* No eglTerminate: a display is one per platform and process, maybe in
   * use by others (another context, the application); terminating it
   * would break them, and eglInitialize does not count references. It
   * stays initialised (reachable driver memory), as TFLite's does. */
  eglReleaseThread();
  c->display = EGL_NO_DISPLAY;
}

/* Initialises dpy and makes a GLES 3.1 context current on it. */
static texmem_status try_display(texmem_gl_context *c, EGLDisplay dpy, bool use_pbuffer,
                                 texmem_error *err) {
  EGLint major = 0, minor = 0;
  if (dpy == EGL_NO_DISPLAY) return egl_fail(err, "eglGetPlatformDisplay");
  if (!eglInitialize(dpy, &major, &minor)) return egl_fail(err, "eglInitialize");
  c->display = dpy;
  /* Reload with the display for its extensions. */
  if (!gladLoaderLoadEGL(dpy)) {
    egl_release(c);
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT, "gladLoaderLoadEGL(display) failed");
  }
  const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
  bool surfaceless = !use_pbuffer && has_ext(exts, "EGL_KHR_surfaceless_context");
  if (!eglBindAPI(EGL_OPENGL_ES_API)) {
    texmem_status st = egl_fail(err, "eglBindAPI(EGL_OPENGL_ES_API)");
    egl_release(c);
    return st;
  }
  const EGLint cfg_attr[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT,
                             EGL_SURFACE_TYPE, surfaceless ? 0 : EGL_PBUFFER_BIT,
                             EGL_NONE};
  EGLConfig cfg = NULL;
  EGLint n = 0;
  if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &n) || n < 1) {
    texmem_status st = n < 1 && eglGetError() == EGL_SUCCESS
                           ? texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                                          "eglChooseConfig: no GLES 3 config%s",
                                          surfaceless ? "" : " with pbuffers")
                           : egl_fail(err, "eglChooseConfig");
    egl_release(c);
    return st;
  }
  const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                             EGL_NONE};
  c->config = cfg;
  c->context = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
  if (c->context == EGL_NO_CONTEXT) {
    texmem_status st = egl_fail(err, "eglCreateContext(GLES 3.1)");
    egl_release(c);
    return st;
  }
  if (!surfaceless) {
    const EGLint pb_attr[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
    c->surface = eglCreatePbufferSurface(dpy, cfg, pb_attr);
    if (c->surface == EGL_NO_SURFACE) {
      texmem_status st = egl_fail(err, "eglCreatePbufferSurface(1x1)");
      egl_release(c);
      return st;
    }
  }
  if (!eglMakeCurrent(dpy, c->surface, c->surface, c->context)) {
    texmem_status st = egl_fail(err, "eglMakeCurrent");
    egl_release(c);
    return st;
  }
  texmem_status st = gl_init(c, err);
  if (st) {
    egl_release(c);
    return st;
  }
  return TEXMEM_STATUS_OK;
}

static EGLDisplay platform_display(EGLenum platform, void *native) {
  if (eglGetPlatformDisplay) return eglGetPlatformDisplay(platform, native, NULL);
  if (eglGetPlatformDisplayEXT) return eglGetPlatformDisplayEXT(platform, native, NULL);
  return EGL_NO_DISPLAY;
}

static texmem_status try_device(texmem_gl_context *c, bool prefer_software, bool use_pbuffer,
                                texmem_error *err) {
  if (!GLAD_EGL_EXT_platform_device || !eglQueryDevicesEXT)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "EGL_EXT_platform_device / EGL_EXT_device_enumeration not supported");
  EGLDeviceEXT devs[16];
  EGLint n = 0;
  if (!eglQueryDevicesEXT(16, devs, &n)) return egl_fail(err, "eglQueryDevicesEXT");
  if (n == 0)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT, "eglQueryDevicesEXT: no devices");
  texmem_status st = TEXMEM_STATUS_GL_CONTEXT;
  /* Two passes: preferred kind (hardware unless asked) first. */
  for (int pass = 0; pass < 2; pass++)
    for (EGLint i = 0; i < n; i++) {
      const char *dext = eglQueryDeviceStringEXT ? eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS)
                                                 : NULL;
      bool software = has_ext(dext, "EGL_MESA_device_software");
      if ((software == prefer_software) != (pass == 0)) continue;
      st = try_display(c, platform_display(EGL_PLATFORM_DEVICE_EXT, devs[i]), use_pbuffer, err);
      if (!st) return st;
    }
  return st;
}

/* The threads a created context compiles a batch on: desc's, or the
 * processors online (a driver's compiler takes a core each), at most
 * TEXMEM__GL_MAX_COMPILE_THREADS. */
static uint32_t compile_threads(uint32_t asked) {
  const uint32_t most = TEXMEM__GL_MAX_COMPILE_THREADS;
  long n = asked ? (long)asked : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > (long)most ? most : (uint32_t)n;
}

texmem_status texmem_gl_context_create(const texmem_gl_context_desc *desc,
                                       texmem_gl_context **out, texmem_error *err) {
  static const texmem_gl_context_desc zero;
  const texmem_gl_context_desc *d = desc ? desc : &zero;
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (d->platform == TEXMEM_GL_PLATFORM_ADOPTED) return texmem_gl_context_adopt(out, err);
  if (d->platform > TEXMEM_GL_PLATFORM_ADOPTED)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "unknown platform %d",
                        (int)d->platform);
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "gladLoaderLoadEGL failed: cannot load libEGL.so.1");
  texmem_gl_context *c = context_alloc();
  if (!c) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  c->owned = true;
  c->compile_threads = compile_threads(d->compile_threads);
  texmem_status st = TEXMEM_STATUS_GL_CONTEXT;
  /* Each failure's message is kept; on total failure they are joined. */
  char msgs[3][160] = {"", "", ""};
  static const char *const names[3] = {"device", "surfaceless", "default"};
  for (int k = 0; k < 3; k++) {
    texmem_gl_platform p = (texmem_gl_platform)(TEXMEM_GL_PLATFORM_DEVICE + k);
    if (d->platform != TEXMEM_GL_PLATFORM_AUTO && d->platform != p) continue;
    texmem_error e = {0};
    if (p == TEXMEM_GL_PLATFORM_DEVICE) {
      st = try_device(c, d->prefer_software, d->use_pbuffer, &e);
    } else if (p == TEXMEM_GL_PLATFORM_SURFACELESS) {
      st = GLAD_EGL_MESA_platform_surfaceless
               ? try_display(c, platform_display(EGL_PLATFORM_SURFACELESS_MESA,
                                                 (void *)EGL_DEFAULT_DISPLAY),
                             d->use_pbuffer, &e)
               : texmem__fail(&e, TEXMEM_STATUS_GL_CONTEXT,
                              "EGL_MESA_platform_surfaceless not supported");
    } else {
      st = try_display(c, eglGetDisplay(EGL_DEFAULT_DISPLAY), d->use_pbuffer, &e);
    }
    if (st == TEXMEM_STATUS_OK) {
      c->platform = p;
      *out = c;
      return TEXMEM_STATUS_OK;
    }
    snprintf(msgs[k], sizeof msgs[k], "%s: %.140s", names[k], e.message);
    if (st == TEXMEM_STATUS_OUT_OF_MEMORY) break;
  }
  context_free(c);
  char all[3 * 162 + 1] = "";
  for (int k = 0; k < 3; k++)
    if (msgs[k][0]) {
      if (all[0]) strcat(all, "; ");
      strcat(all, msgs[k]);
    }
  return texmem__fail(err, st == TEXMEM_STATUS_OUT_OF_MEMORY ? st : TEXMEM_STATUS_GL_CONTEXT,
                      "no GLES 3.1 context: %.480s", all);
}

texmem_status texmem_gl_context_adopt(texmem_gl_context **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "gladLoaderLoadEGL failed: cannot load libEGL.so.1");
  EGLContext cur = eglGetCurrentContext();
  if (cur == EGL_NO_CONTEXT)
    return texmem__fail(err, TEXMEM_STATUS_GL_CONTEXT,
                        "eglGetCurrentContext: no EGL context is current on this thread");
  texmem_gl_context *c = context_alloc();
  if (!c) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  c->owned = false;
  c->platform = TEXMEM_GL_PLATFORM_ADOPTED;
  /* Borrowed: never made current, released or destroyed here. */
  c->context = cur;
  c->display = eglGetCurrentDisplay();
  texmem_status st = gl_init(c, err);
  if (st) {
    context_free(c);
    return st;
  }
  *out = c;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem_gl_context_make_current(texmem_gl_context *ctx, texmem_error *err) {
  if (!ctx) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context is NULL");
  if (!ctx->owned)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "an adopted context is made current by its owner");
  if (!eglMakeCurrent(ctx->display, ctx->surface, ctx->surface, ctx->context))
    return egl_fail(err, "eglMakeCurrent");
  return TEXMEM_STATUS_OK;
}

void texmem_gl_context_destroy(texmem_gl_context *ctx) {
  if (!ctx) return;
  /* Our GL objects go first, while the context is still current. */
  for (size_t i = 0; i < ctx->textures.cap; i++) {
    texmem__gl_tex *t = texmem__slots_at(&ctx->textures, i);
    if (t->hdr.alive) glDeleteTextures(1, &t->name);
  }
  for (size_t i = 0; i < ctx->buffers.cap; i++) {
    texmem__gl_buf *b = texmem__slots_at(&ctx->buffers, i);
    if (b->hdr.alive && b->name) glDeleteBuffers(1, &b->name); /* views hold none */
  }
  texmem__gl_programs_free_all(ctx);
  if (ctx->owned) egl_release(ctx);
  context_free(ctx);
}

static const char *platform_name(texmem_gl_platform p) {
  switch (p) {
    case TEXMEM_GL_PLATFORM_DEVICE: return "device";
    case TEXMEM_GL_PLATFORM_SURFACELESS: return "surfaceless";
    case TEXMEM_GL_PLATFORM_DEFAULT: return "default";
    case TEXMEM_GL_PLATFORM_ADOPTED: return "adopted";
    default: return "unknown";
  }
}

/* Renderer strings of the GLs that run on the CPU. */
static bool cpu_renderer(const char *renderer) {
  static const char *const cpu[] = {"llvmpipe", "softpipe", "SwiftShader", "lavapipe"};
  for (size_t i = 0; i < sizeof cpu / sizeof cpu[0]; i++)
    if (renderer && strstr(renderer, cpu[i])) return true;
  return false;
}

void texmem_gl_context_info(const texmem_gl_context *ctx, texmem_gl_info *out) {
  memset(out, 0, sizeof *out);
  if (!ctx) return;
  out->vendor = ctx->vendor;
  out->renderer = ctx->renderer;
  out->version = ctx->version;
  out->glsl_version = ctx->glsl_version;
  out->platform = platform_name(ctx->platform);
  out->egl_vendor = ctx->egl_vendor;
  out->egl_version = ctx->egl_version;
  out->gl_major = ctx->gl_major;
  out->gl_minor = ctx->gl_minor;
  out->surfaceless = ctx->owned && ctx->surface == EGL_NO_SURFACE;
  out->renders_on_cpu = cpu_renderer(ctx->renderer);
}

void texmem_gl_context_limits(const texmem_gl_context *ctx, texmem_gl_limits *out) {
  if (ctx)
    *out = ctx->limits;
  else
    memset(out, 0, sizeof *out);
}

void texmem_gl_max_dims(const texmem_gl_context *ctx, texmem_gl_target t, uint64_t max_dims[3]) {
  if (!ctx) {
    max_dims[0] = max_dims[1] = max_dims[2] = 0;
    return;
  }
  const texmem_gl_limits *l = &ctx->limits;
  switch (t) {
    case TEXMEM_GL_TARGET_3D:
      max_dims[0] = max_dims[1] = max_dims[2] = (uint64_t)l->max_3d_size;
      break;
    case TEXMEM_GL_TARGET_2D:
      max_dims[0] = max_dims[1] = (uint64_t)l->max_2d_size;
      max_dims[2] = 1;
      break;
    case TEXMEM_GL_TARGET_BUFFER: {
      /* Shaders index texels with a 32-bit int. */
      uint64_t texels = l->max_ssbo_size > 0 ? (uint64_t)l->max_ssbo_size / 16 : 0;
      max_dims[0] = max_dims[2] = 1;
      max_dims[1] = texels < INT32_MAX ? texels : INT32_MAX;
      break;
    }
    default:
      max_dims[0] = max_dims[1] = (uint64_t)l->max_2d_size;
      max_dims[2] = (uint64_t)l->max_array_layers;
      break;
  }
}

void texmem_gl_counters_get(const texmem_gl_context *ctx, texmem_gl_counters *out) {
  if (ctx)
    *out = ctx->counters;
  else
    memset(out, 0, sizeof *out);
}

void texmem_gl_counters_reset(texmem_gl_context *ctx) {
  if (!ctx) return;
  texmem_gl_counters *c = &ctx->counters;
  c->binds = c->barriers = c->dispatches = c->textures_created = c->programs_compiled = 0;
  c->compile_ns = c->programs_loaded = c->compile_threads_max = 0;
  c->work_groups = c->invocations = 0;
}

void texmem__gl_fail_texture_creation(texmem_gl_context *ctx, uint64_t k) {
  ctx->fail_texture_at = k;
  ctx->texture_attempts = 0;
}
