/* The GL calls every part of the backend makes the same way: errors
 * checked, drained and named (GL queues one flag per kind of error, so a
 * check reads them all, and an out-of-memory flag anywhere in the queue is
 * the status), and the memory barrier that also counts and starts a new
 * epoch (the reuse checker's clock). context.c, the programs, the timer
 * and the driver-memory query all call these; they call nothing back. */
#include "gl_internal.h"

const char *texmem__gl_error_name(GLenum e) {
  switch (e) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
  }
}

const char *texmem__egl_error_name(EGLint e) {
  switch (e) {
#define E(x) case x: return #x;
    E(EGL_SUCCESS) E(EGL_NOT_INITIALIZED) E(EGL_BAD_ACCESS) E(EGL_BAD_ALLOC)
    E(EGL_BAD_ATTRIBUTE) E(EGL_BAD_CONFIG) E(EGL_BAD_CONTEXT) E(EGL_BAD_CURRENT_SURFACE)
    E(EGL_BAD_DISPLAY) E(EGL_BAD_MATCH) E(EGL_BAD_NATIVE_PIXMAP) E(EGL_BAD_NATIVE_WINDOW)
    E(EGL_BAD_PARAMETER) E(EGL_BAD_SURFACE) E(EGL_CONTEXT_LOST)
#undef E
    default: return "unknown EGL error";
  }
}

texmem_status texmem__gl_check(texmem_error *err, const char *call) {
  GLenum first = glGetError();
  if (first == GL_NO_ERROR) return TEXMEM_STATUS_OK;
  bool oom = first == GL_OUT_OF_MEMORY;
  /* Drain: GL may queue one flag per error kind. */
  for (int i = 0; i < 16; i++) {
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) break;
    if (e == GL_OUT_OF_MEMORY) oom = true;
  }
  if (oom)
    return texmem__fail(err, TEXMEM_STATUS_GL_OUT_OF_MEMORY, "%s: GL_OUT_OF_MEMORY", call);
  return texmem__fail(err, TEXMEM_STATUS_GL_ERROR, "%s: %s (0x%04x)", call,
                      texmem__gl_error_name(first), (unsigned)first);
}

void texmem__gl_drain(void) {
  for (int i = 0; i < 16 && glGetError() != GL_NO_ERROR; i++) {
  }
}

void texmem__gl_barrier(texmem_gl_context *ctx, GLbitfield bits) {
  glMemoryBarrier(bits);
  ctx->counters.barriers++;
  ctx->epoch++;
}
