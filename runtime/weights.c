/* A runtime's constant buffers (weights, biases, element-wise constants,
 * gather indices), packed into a few GL buffers.
 *
 * A model has one to four constant buffers an operator: MobileNet v2 makes
 * about a hundred, pose_landmark_heavy several hundred, most of them a few
 * KiB (a bias is 16 bytes a channel slice). Each given a GL buffer of its
 * own, a driver allocates each from its heap at its own granularity: on
 * NVIDIA's driver 580 the heap grew in 0.5-4 MiB steps, and a runtime held
 * 3.5-11 MiB more than its textures, graph I/O and weights (docs/runtime.md,
 * "On a GPU"). So the buffers are staged here, on the host, each at an
 * offset aligned to the driver's GL_SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT
 * (and to 16 bytes, a vec4), and become views (texmem_gl_buffer_create_view)
 * of one GL buffer, a slab, bound with glBindBufferRange. A slab is closed
 * (made a GL buffer) when the next buffer would take it past SLAB_MAX, so
 * the host never stages more than that at once and no driver is asked for
 * one huge allocation; and when the runtime commits, after its last kernel.
 *
 * Until then a kernel holds a token, not a GL handle: the buffer's index
 * + 1 in the staged list, which texmem__weights_view turns into its view.
 * The cost: alignment gaps, under the alignment a buffer (a buffer's bytes,
 * which weights_bytes counts, are the same as before), and a slab's bytes
 * held twice while it is uploaded. */
#include <stdlib.h>
#include <string.h>

#include "common.h" /* texmem__fail, texmem__grow */
#include "weights.h"

/* A slab is closed before it would pass this (a larger buffer gets a slab
 * of its own). */
#define SLAB_MAX ((size_t)64 << 20)

typedef struct staged {
  size_t offset; /* in its slab */
  size_t size;
  texmem_gl_buffer view; /* once its slab is closed */
} staged;

struct texmem__weights {
  texmem_gl_context *ctx;
  size_t align, slab_max;
  staged *items;
  size_t n_items, cap_items;
  size_t first_open; /* items[first_open..] are in the open slab */
  unsigned char *stage;
  size_t stage_len, stage_cap;
  texmem_gl_buffer *slabs;
  size_t n_slabs, cap_slabs;
  uint64_t bytes, slab_bytes;
};

static size_t gcd(size_t a, size_t b) {
  while (b) {
    size_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

texmem_status texmem__weights_create(texmem_gl_context *ctx, size_t slab_max,
                                     texmem__weights **out, texmem_error *err) {
  *out = NULL;
  texmem__weights *w = calloc(1, sizeof *w);
  if (!w) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  texmem_gl_limits l;
  texmem_gl_context_limits(ctx, &l);
  size_t a = l.ssbo_offset_alignment > 0 && l.ssbo_offset_alignment <= 65536
                 ? (size_t)l.ssbo_offset_alignment
                 : 256; /* GLES 3.1's largest allowed */
  w->ctx = ctx;
  w->align = a / gcd(a, 16) * 16; /* a multiple of both */
  w->slab_max = slab_max ? slab_max : SLAB_MAX;
  *out = w;
  return TEXMEM_STATUS_OK;
}

void texmem__weights_destroy(texmem__weights *w) {
  if (!w) return;
  for (size_t i = 0; i < w->n_items; i++) texmem_gl_buffer_destroy(w->ctx, w->items[i].view);
  for (size_t i = 0; i < w->n_slabs; i++) texmem_gl_buffer_destroy(w->ctx, w->slabs[i]);
  free(w->items);
  free(w->stage);
  free(w->slabs);
  free(w);
}

/* Room for need elements of *p (texmem__grow); false when out of memory. */
static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
  void *q = texmem__grow(*p, cap, need, elem);
  if (q) *p = q;
  return q != NULL;
}

/* The open slab becomes a GL buffer, its items views of it. */
static texmem_status close_slab(texmem__weights *w, texmem_error *err) {
  if (w->first_open == w->n_items) return TEXMEM_STATUS_OK;
  if (!grow((void **)&w->slabs, &w->cap_slabs, w->n_slabs + 1, sizeof *w->slabs))
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  texmem_gl_buffer slab;
  texmem_status st = texmem_gl_buffer_create(w->ctx, w->stage, w->stage_len, &slab, err);
  if (st) return st;
  w->slabs[w->n_slabs] = slab;
  w->slab_bytes += w->stage_len;
  for (size_t i = w->first_open; i < w->n_items && !st; i++) {
    staged *s = &w->items[i];
    st = texmem_gl_buffer_create_view(w->ctx, slab, s->offset, s->size, &s->view, err);
  }
  w->n_slabs++;
  w->first_open = w->n_items;
  w->stage_len = 0;
  return st;
}

texmem_status texmem__weights_add(texmem__weights *w, size_t size, void **bytes,
                                  texmem_gl_buffer *token, texmem_error *err) {
  token->id = 0;
  *bytes = NULL;
  if (!size || size % 8 || size > SIZE_MAX / 2)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "constant buffer of %zu bytes: not a positive multiple of 8", size);
  if (w->n_items >= 0xFFFFu)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "more than %u constant buffers", 0xFFFFu);
  size_t at = (w->stage_len + w->align - 1) / w->align * w->align;
  if (w->stage_len && (at > w->slab_max || size > w->slab_max - at)) {
    texmem_status st = close_slab(w, err);
    if (st) return st;
    at = 0;
  }
  if (!grow((void **)&w->items, &w->cap_items, w->n_items + 1, sizeof *w->items) ||
      !grow((void **)&w->stage, &w->stage_cap, at + size, 1))
    return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  memset(w->stage + w->stage_len, 0, at + size - w->stage_len);
  *bytes = w->stage + at;
  w->stage_len = at + size;
  w->items[w->n_items] = (staged){.offset = at, .size = size};
  w->n_items++;
  w->bytes += size;
  token->id = (uint32_t)w->n_items;
  return TEXMEM_STATUS_OK;
}

texmem_status texmem__weights_add_scratch(texmem__weights *w, size_t size, void **bytes,
                                          texmem_gl_buffer *token, texmem_error *err) {
  texmem_status st = texmem__weights_add(w, size, bytes, token, err);
  if (!st) w->bytes -= size;
  return st;
}

texmem_status texmem__weights_commit(texmem__weights *w, texmem_error *err) {
  texmem_status st = close_slab(w, err);
  free(w->stage); /* nothing more is staged */
  w->stage = NULL;
  w->stage_cap = 0;
  return st;
}

texmem_status texmem__weights_view(const texmem__weights *w, texmem_gl_buffer token,
                                   texmem_gl_buffer *out, texmem_error *err) {
  if (!token.id || token.id > w->first_open)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT,
                        "constant buffer token %u is not a committed buffer", (unsigned)token.id);
  *out = w->items[token.id - 1].view;
  return TEXMEM_STATUS_OK;
}

uint64_t texmem__weights_bytes(const texmem__weights *w) { return w ? w->bytes : 0; }

size_t texmem__weights_slabs(const texmem__weights *w, uint64_t *bytes) {
  if (bytes) *bytes = w ? w->slab_bytes : 0;
  return w ? w->n_slabs : 0;
}
