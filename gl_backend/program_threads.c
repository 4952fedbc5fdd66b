/* Compiling a batch of programs on several threads.
 *
 * A GLES driver compiles a shader on the thread that asks, and NVIDIA's
 * takes 0.4-1.1 s for one of texmem's kernels (H200, 2026-11-28): a fresh
 * process spent 25-60 s making one model's programs, one core busy, the
 * other fifteen idle, though texmem asked for GL_KHR_parallel_shader_compile's
 * threads (context.c) and issued the batch's compiles before reading any
 * status (program_batch.c). Shaders and programs are objects a share
 * group holds, so any context sharing the runtime's may compile them: here
 * each extra thread makes a context on the same display and config that
 * shares the runtime's, takes jobs from one counter until none is left,
 * waits for its commands (glFinish: a program linked in one context is then
 * complete for every other), and destroys its context. The calling thread
 * takes jobs with its own context meanwhile, so a thread that cannot start
 * (no memory, a driver that refuses a second context) only leaves more to
 * the others; the jobs' order and results do not depend on which thread
 * ran them. A context created for this is current on its thread alone and
 * never sees a dispatch, so nothing the runtime binds is shared with it.
 *
 * Only contexts texmem created do this: an adopted (delegate's) context's
 * display and threads are its owner's. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "gl_internal.h"

typedef struct shared_run {
  texmem_gl_context *ctx;
  size_t n;
  atomic_size_t next;
  void (*job)(size_t i, void *user);
  void *user;
} shared_run;

static void take_jobs(shared_run *r) {
  for (size_t i; (i = atomic_fetch_add(&r->next, 1)) < r->n;) r->job(i, r->user);
}

/* An extra thread: its own context (and pbuffer where the runtime's has
 * one), the jobs, then nothing left behind. Returns arg if it took part. */
static void *worker(void *arg) {
  shared_run *r = arg;
  texmem_gl_context *c = r->ctx;
  static const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 1,
                                    EGL_NONE};
  static const EGLint pb_attr[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
  if (!eglBindAPI(EGL_OPENGL_ES_API)) return NULL;
  EGLContext ec = eglCreateContext(c->display, c->config, c->context, ctx_attr);
  if (ec == EGL_NO_CONTEXT) return NULL;
  EGLSurface es = EGL_NO_SURFACE;
  if (c->surface != EGL_NO_SURFACE) es = eglCreatePbufferSurface(c->display, c->config, pb_attr);
  void *ran = NULL;
  if ((c->surface == EGL_NO_SURFACE || es != EGL_NO_SURFACE) &&
      eglMakeCurrent(c->display, es, es, ec)) {
    take_jobs(r);
    glFinish();
    eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    ran = arg;
  }
  if (es != EGL_NO_SURFACE) eglDestroySurface(c->display, es);
  eglDestroyContext(c->display, ec);
  eglReleaseThread();
  return ran;
}

size_t texmem__gl_run_shared(texmem_gl_context *ctx, size_t n,
                             void (*job)(size_t i, void *user), void *user) {
  shared_run r = {.ctx = ctx, .n = n, .job = job, .user = user};
  atomic_init(&r.next, 0);
  /* compile_threads is 1 for an adopted context (context.c). */
  size_t extra = n > 1 ? ctx->compile_threads - 1 : 0;
  if (extra > n - 1) extra = n - 1;
  pthread_t tid[TEXMEM__GL_MAX_COMPILE_THREADS - 1];
  size_t started = 0;
  for (size_t k = 0; k < extra && k < sizeof tid / sizeof tid[0]; k++)
    if (!pthread_create(&tid[started], NULL, worker, &r)) started++;
  take_jobs(&r);
  size_t ran = 1;
  for (size_t k = 0; k < started; k++) {
    void *res = NULL;
    pthread_join(tid[k], &res);
    ran += res != NULL;
  }
  return ran;
}
