/* Driver memory figures: what the driver counts as GPU memory in use, from
 * the first source that answers: NVML's figure for this process, the GL
 * extensions GL_NVX_gpu_memory_info and GL_ATI_meminfo, NVML's figure for
 * the device. NVML (libnvidia-ml.so.1) is loaded at run time when present:
 * texmem neither links nor needs it. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gl_internal.h"

/* Enums of the two extensions (not in the GLES registry glad reads). */
#define TM_GPU_MEMORY_INFO_DEDICATED_VIDMEM_NVX 0x9047
#define TM_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX 0x9049
#define TM_TEXTURE_FREE_MEMORY_ATI 0x87FC

/* ---- NVML, by dlopen ---- */
typedef int tm_nvml_ret; /* nvmlReturn_t: 0 = success */
typedef void *tm_nvml_device;
#define TM_NVML_ERROR_INSUFFICIENT_SIZE 7
#define TM_NVML_VALUE_NOT_AVAILABLE (~0ull)

typedef struct tm_nvml_memory {
  unsigned long long total, free, used;
} tm_nvml_memory;
/* nvmlProcessInfo_v2_t: what the _v2 process list functions fill. */
typedef struct tm_nvml_process {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
} tm_nvml_process;

typedef tm_nvml_ret (*tm_nvml_void_fn)(void);
typedef tm_nvml_ret (*tm_nvml_count_fn)(unsigned int *);
typedef tm_nvml_ret (*tm_nvml_handle_fn)(unsigned int, tm_nvml_device *);
typedef tm_nvml_ret (*tm_nvml_memory_fn)(tm_nvml_device, tm_nvml_memory *);
typedef tm_nvml_ret (*tm_nvml_procs_fn)(tm_nvml_device, unsigned int *, tm_nvml_process *);

#define TM_NVML_MAX_DEVICES 16
#define TM_NVML_MAX_PROCS 256

struct texmem__nvml {
  void *lib;
  tm_nvml_void_fn shutdown;
  tm_nvml_memory_fn memory;
  tm_nvml_procs_fn list[2]; /* graphics, compute */
  tm_nvml_device dev[TM_NVML_MAX_DEVICES];
  unsigned n_dev;
  tm_nvml_process procs[TM_NVML_MAX_PROCS]; /* scratch of one reading */
};

static void *sym(void *lib, const char *name) {
  /* POSIX: a data pointer that is a function's address. */
  return dlsym(lib, name);
}

static texmem__nvml *nvml_open(void) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return NULL;
  texmem__nvml *n = calloc(1, sizeof *n);
  tm_nvml_void_fn init = (tm_nvml_void_fn)sym(lib, "nvmlInit_v2");
  tm_nvml_count_fn count = (tm_nvml_count_fn)sym(lib, "nvmlDeviceGetCount_v2");
  tm_nvml_handle_fn handle = (tm_nvml_handle_fn)sym(lib, "nvmlDeviceGetHandleByIndex_v2");
  if (n) {
    n->lib = lib;
    n->shutdown = (tm_nvml_void_fn)sym(lib, "nvmlShutdown");
    n->memory = (tm_nvml_memory_fn)sym(lib, "nvmlDeviceGetMemoryInfo");
    n->list[0] = (tm_nvml_procs_fn)sym(lib, "nvmlDeviceGetGraphicsRunningProcesses_v2");
    n->list[1] = (tm_nvml_procs_fn)sym(lib, "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  unsigned c = 0;
  if (!n || !init || !count || !handle || !n->shutdown || !n->memory || init() != 0) {
    free(n);
    dlclose(lib);
    return NULL;
  }
  if (count(&c) == 0)
    for (unsigned i = 0; i < c && n->n_dev < TM_NVML_MAX_DEVICES; i++)
      if (handle(i, &n->dev[n->n_dev]) == 0) n->n_dev++;
  if (n->n_dev == 0) {
    n->shutdown();
    free(n);
    dlclose(lib);
    return NULL;
  }
  return n;
}

static void nvml_close(texmem__nvml *n) {
  if (!n) return;
  n->shutdown();
  dlclose(n->lib);
  free(n);
}

/* This process's memory over every device (it uses one; the others list
 * it with 0 or not at all). False when no device lists it: containers
 * where NVML sees host process ids, or drivers that hide per-process
 * figures. */
static bool nvml_process(texmem__nvml *n, int64_t *bytes) {
  tm_nvml_process *procs = n->procs;
  unsigned pid = (unsigned)getpid();
  bool found = false;
  unsigned long long sum = 0;
  for (unsigned d = 0; d < n->n_dev; d++)
    for (int k = 0; k < 2; k++) {
      if (!n->list[k]) continue;
      unsigned cnt = TM_NVML_MAX_PROCS;
      if (n->list[k](n->dev[d], &cnt, procs) != 0) continue;
      for (unsigned i = 0; i < cnt && i < TM_NVML_MAX_PROCS; i++) {
        if (procs[i].pid != pid || procs[i].used_gpu_memory == TM_NVML_VALUE_NOT_AVAILABLE)
          continue;
        found = true;
        sum += procs[i].used_gpu_memory;
        break; /* a process listed as graphics and compute: counted once */
      }
      if (found) break;
    }
  *bytes = (int64_t)sum;
  return found;
}

/* The device's used memory; only where there is one device (which one the
 * GL context runs on is not known otherwise). */
static bool nvml_device(const texmem__nvml *n, int64_t *bytes) {
  tm_nvml_memory m;
  if (n->n_dev != 1 || n->memory(n->dev[0], &m) != 0) return false;
  *bytes = (int64_t)m.used;
  return true;
}

/* ---- the context's sources ---- */

static bool has_gl_ext(const char *name) {
  GLint n = 0;
  glGetIntegerv(GL_NUM_EXTENSIONS, &n);
  for (GLint i = 0; i < n; i++) {
    const char *e = (const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i);
    if (e && !strcmp(e, name)) return true;
  }
  return false;
}

static bool nvidia_renderer(const texmem_gl_context *ctx) {
  return (ctx->vendor && strstr(ctx->vendor, "NVIDIA")) ||
         (ctx->renderer && strstr(ctx->renderer, "NVIDIA"));
}

static void describe(texmem_gl_context *ctx) {
  texmem__gl_memory *m = &ctx->memory;
  if (m->injected) {
    snprintf(m->why, sizeof m->why, "driver memory: injected query (a test)");
    return;
  }
  if (!m->nvml && !m->nvx && !m->ati) {
    const char *r = ctx->renderer ? ctx->renderer : "unknown renderer";
    const char *paren = strstr(r, " (");
    snprintf(m->why, sizeof m->why, "driver memory: no query on this driver (%.*s)",
             paren ? (int)(paren - r) : (int)strlen(r), r);
    return;
  }
  snprintf(m->why, sizeof m->why, "driver memory: %s%s%s%s",
           m->nvml ? "NVML (this process's figure where NVML lists it, else the device's)" : "",
           m->nvml && (m->nvx || m->ati) ? "; " : "",
           m->nvx ? "GL_NVX_gpu_memory_info (device-wide)" : "",
           m->ati ? "GL_ATI_meminfo (free texture memory)" : "");
}

void texmem__gl_memory_detect(texmem_gl_context *ctx) {
  texmem__gl_memory *m = &ctx->memory;
  m->nvx = has_gl_ext("GL_NVX_gpu_memory_info");
  m->ati = has_gl_ext("GL_ATI_meminfo");
  /* NVML describes NVIDIA GPUs only: under another renderer (llvmpipe on a
   * machine with an NVIDIA card) its figures are not this context's. */
  if (nvidia_renderer(ctx)) m->nvml = nvml_open();
  texmem__gl_drain();
  describe(ctx);
}

void texmem__gl_memory_release(texmem_gl_context *ctx) {
  nvml_close(ctx->memory.nvml);
  ctx->memory.nvml = NULL;
}

void texmem__gl_memory_inject(texmem_gl_context *ctx, texmem__gl_memory_fn fn, void *user) {
  ctx->memory.injected = fn;
  ctx->memory.injected_user = user;
  describe(ctx);
}

const char *texmem_gl_memory_source_name(texmem_gl_memory_source s) {
  switch (s) {
    case TEXMEM_GL_MEMORY_NVML_PROCESS: return "nvml-process";
    case TEXMEM_GL_MEMORY_NVX: return "nvx";
    case TEXMEM_GL_MEMORY_NVML_DEVICE: return "nvml-device";
    case TEXMEM_GL_MEMORY_ATI: return "ati";
    case TEXMEM_GL_MEMORY_INJECTED: return "injected";
    default: return "none";
  }
}

texmem_gl_memory_source texmem_gl_memory_support(const texmem_gl_context *ctx, const char **why) {
  if (why) *why = ctx ? ctx->memory.why : "no context";
  if (!ctx) return TEXMEM_GL_MEMORY_NONE;
  const texmem__gl_memory *m = &ctx->memory;
  if (m->injected) return TEXMEM_GL_MEMORY_INJECTED;
  if (m->nvml) return TEXMEM_GL_MEMORY_NVML_PROCESS;
  if (m->nvx) return TEXMEM_GL_MEMORY_NVX;
  return m->ati ? TEXMEM_GL_MEMORY_ATI : TEXMEM_GL_MEMORY_NONE;
}

static int64_t gl_kib(GLenum e) {
  GLint v[4] = {0, 0, 0, 0}; /* ATI's query writes four values */
  glGetIntegerv(e, v);
  return (int64_t)v[0] * 1024;
}

/* total (0: none) less avail, both KiB queries, in bytes. */
static texmem_status gl_used(GLenum total, GLenum avail, const char *call, int64_t *bytes,
                             texmem_error *err) {
  texmem__gl_drain();
  int64_t t = total ? gl_kib(total) : 0, a = gl_kib(avail);
  texmem_status st = texmem__gl_check(err, call);
  if (!st) *bytes = t - a;
  return st;
}

texmem_status texmem_gl_memory_read(texmem_gl_context *ctx, texmem_gl_memory_reading *out,
                                    texmem_error *err) {
  if (!ctx || !out)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "context or out is NULL");
  texmem__gl_memory *m = &ctx->memory;
  out->source = TEXMEM_GL_MEMORY_NONE;
  out->used_bytes = 0;
  if (m->injected) {
    if (!m->injected(m->injected_user, &out->used_bytes))
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                          "driver memory: the injected query failed");
    out->source = TEXMEM_GL_MEMORY_INJECTED;
    return TEXMEM_STATUS_OK;
  }
  if (m->nvml && nvml_process(m->nvml, &out->used_bytes)) {
    out->source = TEXMEM_GL_MEMORY_NVML_PROCESS;
    return TEXMEM_STATUS_OK;
  }
  texmem_status st = TEXMEM_STATUS_OK;
  if (m->nvx) {
    out->source = TEXMEM_GL_MEMORY_NVX;
    st = gl_used(TM_GPU_MEMORY_INFO_DEDICATED_VIDMEM_NVX,
                 TM_GPU_MEMORY_INFO_CURRENT_AVAILABLE_VIDMEM_NVX,
                 "glGetIntegerv(GPU_MEMORY_INFO_*_NVX)", &out->used_bytes, err);
  } else if (m->nvml && nvml_device(m->nvml, &out->used_bytes)) {
    out->source = TEXMEM_GL_MEMORY_NVML_DEVICE;
  } else if (m->ati) {
    out->source = TEXMEM_GL_MEMORY_ATI;
    st = gl_used(0, TM_TEXTURE_FREE_MEMORY_ATI, "glGetIntegerv(TEXTURE_FREE_MEMORY_ATI)",
                 &out->used_bytes, err);
  } else {
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED, "%s", m->why);
  }
  if (st) out->source = TEXMEM_GL_MEMORY_NONE;
  return st;
}
