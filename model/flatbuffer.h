/* Bounds-checked read access to a flatbuffer, in the spirit of the
 * flatbuffers verifier: every offset, vtable and vector is checked against
 * the buffer before use, so a truncated or hostile file cannot make a read
 * leave it. Little-endian only reads via memcpy (no alignment traps).
 *
 * Functions return TEXMEM__FB_OK or an error code; texmem__fb_strerror
 * names it so the caller can say which field of which object was bad. */
#ifndef TEXMEM_MODEL_FLATBUFFER_H
#define TEXMEM_MODEL_FLATBUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Nested tables deeper than this are refused (the TFLite schema needs 6). */
#define TEXMEM__FB_MAX_DEPTH 64

typedef enum texmem__fb_err {
  TEXMEM__FB_OK = 0,
  TEXMEM__FB_OUT_OF_BOUNDS,   /* offset or extent outside the buffer */
  TEXMEM__FB_BAD_VTABLE,      /* vtable size/offsets not sane */
  TEXMEM__FB_BAD_FIELD,       /* field lies outside its table */
  TEXMEM__FB_NOT_TERMINATED,  /* string without its NUL */
  TEXMEM__FB_TOO_DEEP,        /* nesting over TEXMEM__FB_MAX_DEPTH */
  TEXMEM__FB_MISSING          /* required field absent */
} texmem__fb_err;

const char *texmem__fb_strerror(texmem__fb_err e);

typedef struct texmem__fb {
  const uint8_t *data;
  size_t size;
} texmem__fb;

typedef struct texmem__fb_table {
  const texmem__fb *fb;
  size_t pos;        /* table start */
  size_t vt;         /* vtable start */
  uint16_t vt_size;  /* vtable bytes */
  uint16_t size;     /* table bytes (inline part) */
  unsigned depth;
} texmem__fb_table;

typedef struct texmem__fb_vec {
  const texmem__fb *fb;
  size_t pos;        /* first element */
  uint32_t len;      /* element count */
  size_t elem_size;
  unsigned depth;    /* of the table holding the vector */
} texmem__fb_vec;

/* Unchecked little-endian loads; callers check ranges first. */
static inline uint32_t texmem__fb_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
static inline uint16_t texmem__fb_u16(const uint8_t *p) {
  return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint64_t texmem__fb_u64(const uint8_t *p) {
  return (uint64_t)texmem__fb_u32(p) | (uint64_t)texmem__fb_u32(p + 4) << 32;
}

/* The root table (uoffset at byte 0). ident (4 chars, may be NULL) must
 * match bytes 4..7. */
texmem__fb_err texmem__fb_root(const texmem__fb *fb, const char *ident,
                               texmem__fb_table *out);

/* Whether field `id` is present. */
bool texmem__fb_has(const texmem__fb_table *t, unsigned id);

/* Scalar fields; absent -> *v = def. */
texmem__fb_err texmem__fb_u8(const texmem__fb_table *t, unsigned id,
                             uint8_t def, uint8_t *v);
texmem__fb_err texmem__fb_i32(const texmem__fb_table *t, unsigned id,
                              int32_t def, int32_t *v);
texmem__fb_err texmem__fb_u32f(const texmem__fb_table *t, unsigned id,
                               uint32_t def, uint32_t *v);
texmem__fb_err texmem__fb_u64f(const texmem__fb_table *t, unsigned id,
                               uint64_t def, uint64_t *v);

/* Sub-table field; absent -> *present = false (present may be NULL, then
 * absent is TEXMEM__FB_MISSING). */
texmem__fb_err texmem__fb_table_field(const texmem__fb_table *t, unsigned id,
                                      texmem__fb_table *out, bool *present);
/* Vector field of elem_size-byte scalars or (elem_size 4) offsets; absent
 * -> empty vector. */
texmem__fb_err texmem__fb_vec_field(const texmem__fb_table *t, unsigned id,
                                    size_t elem_size, texmem__fb_vec *out);
/* String field: pointer into the buffer (NUL-terminated, checked) and
 * length; absent -> "" / 0. */
texmem__fb_err texmem__fb_string(const texmem__fb_table *t, unsigned id,
                                 const char **s, size_t *len);

/* Element i of a vector of tables. */
texmem__fb_err texmem__fb_vec_table(const texmem__fb_vec *v, uint32_t i,
                                    texmem__fb_table *out);
/* Elements of scalar vectors (i < len is the caller's job). */
static inline const uint8_t *texmem__fb_vec_at(const texmem__fb_vec *v,
                                               uint32_t i) {
  return v->fb->data + v->pos + (size_t)i * v->elem_size;
}
static inline int32_t texmem__fb_vec_i32(const texmem__fb_vec *v, uint32_t i) {
  return (int32_t)texmem__fb_u32(texmem__fb_vec_at(v, i));
}

#endif
