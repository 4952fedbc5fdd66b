/* A runtime's constant buffers packed into a few GL buffers (weights.c
 * explains why). The runtime owns one through its kernel environment. */
#ifndef TEXMEM_RUNTIME_WEIGHTS_H
#define TEXMEM_RUNTIME_WEIGHTS_H

#include "texmem/gl.h"

typedef struct texmem__weights texmem__weights;

/* Empty, on ctx (borrowed; must outlive it). A slab is closed before it
 * would pass slab_max bytes (0 = 64 MiB). */
texmem_status texmem__weights_create(texmem_gl_context *ctx, size_t slab_max,
                                     texmem__weights **out, texmem_error *err);
/* Deletes every view and slab made; NULL is a no-op. */
void texmem__weights_destroy(texmem__weights *w);
/* Stages size bytes (a positive multiple of 8), zeroed, for the caller to
 * fill at *bytes before the next call, and gives a token for them; a full
 * slab becomes a GL buffer on the way. */
texmem_status texmem__weights_add(texmem__weights *w, size_t size, void **bytes,
                                  texmem_gl_buffer *token, texmem_error *err);
/* As texmem__weights_add, for memory a kernel's shader writes (its
 * scratch, zeroed): in a slab beside the constants, not counted in
 * texmem__weights_bytes. */
texmem_status texmem__weights_add_scratch(texmem__weights *w, size_t size, void **bytes,
                                          texmem_gl_buffer *token, texmem_error *err);
/* Makes the staged buffers GL buffers (views of slabs). */
texmem_status texmem__weights_commit(texmem__weights *w, texmem_error *err);
/* The view a committed token stands for (owned by w). */
texmem_status texmem__weights_view(const texmem__weights *w, texmem_gl_buffer token,
                                   texmem_gl_buffer *out, texmem_error *err);
/* Bytes staged (the buffers' own, without alignment gaps). */
uint64_t texmem__weights_bytes(const texmem__weights *w);
/* GL buffers made, and their bytes (gaps included) in *bytes if not NULL. */
size_t texmem__weights_slabs(const texmem__weights *w, uint64_t *bytes);

#endif
