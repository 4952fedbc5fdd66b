/* Bounds-checked flatbuffer access (see flatbuffer.h). All position
 * arithmetic is done in 64 bits against the buffer size, so no offset can
 * wrap; uoffsets only point forward, so following them cannot cycle. */
#include "flatbuffer.h"

#include <string.h>

const char *texmem__fb_strerror(texmem__fb_err e) {
  switch (e) {
  case TEXMEM__FB_OK: return "ok";
  case TEXMEM__FB_OUT_OF_BOUNDS: return "out of bounds";
  case TEXMEM__FB_BAD_VTABLE: return "bad vtable";
  case TEXMEM__FB_BAD_FIELD: return "field outside its table";
  case TEXMEM__FB_NOT_TERMINATED: return "string not terminated";
  case TEXMEM__FB_TOO_DEEP: return "tables nested too deep";
  case TEXMEM__FB_MISSING: return "required field missing";
  }
  return "unknown flatbuffer error";
}

/* [pos, pos+len) inside the buffer. */
static bool in_range(const texmem__fb *fb, uint64_t pos, uint64_t len) {
  return pos <= fb->size && len <= fb->size - pos;
}

static texmem__fb_err table_at(const texmem__fb *fb, uint64_t pos,
                               unsigned depth, texmem__fb_table *out) {
  if (depth > TEXMEM__FB_MAX_DEPTH) return TEXMEM__FB_TOO_DEEP;
  if (!in_range(fb, pos, 4)) return TEXMEM__FB_OUT_OF_BOUNDS;
  int32_t soff = (int32_t)texmem__fb_u32(fb->data + pos);
  int64_t vt = (int64_t)pos - (int64_t)soff;
  if (vt < 0 || !in_range(fb, (uint64_t)vt, 4)) return TEXMEM__FB_BAD_VTABLE;
  uint16_t vt_size = texmem__fb_u16(fb->data + vt);
  uint16_t size = texmem__fb_u16(fb->data + vt + 2);
  if (vt_size < 4 || (vt_size & 1) || !in_range(fb, (uint64_t)vt, vt_size))
    return TEXMEM__FB_BAD_VTABLE;
  if (size < 4 || !in_range(fb, pos, size)) return TEXMEM__FB_BAD_VTABLE;
  out->fb = fb;
  out->pos = (size_t)pos;
  out->vt = (size_t)vt;
  out->vt_size = vt_size;
  out->size = size;
  out->depth = depth;
  return TEXMEM__FB_OK;
}

texmem__fb_err texmem__fb_root(const texmem__fb *fb, const char *ident,
                               texmem__fb_table *out) {
  if (!in_range(fb, 0, 8)) return TEXMEM__FB_OUT_OF_BOUNDS;
  if (ident && memcmp(fb->data + 4, ident, 4) != 0) return TEXMEM__FB_MISSING;
  return table_at(fb, texmem__fb_u32(fb->data), 0, out);
}

/* Offset of field `id` inside the table, 0 if absent; checks that `size`
 * bytes of it lie in the table. */
static texmem__fb_err field_off(const texmem__fb_table *t, unsigned id,
                                size_t size, uint16_t *off) {
  uint64_t slot = 4 + 2 * (uint64_t)id;
  *off = 0;
  if (slot + 2 > t->vt_size) return TEXMEM__FB_OK;
  uint16_t o = texmem__fb_u16(t->fb->data + t->vt + slot);
  if (o == 0) return TEXMEM__FB_OK;
  if (o < 4 || (uint64_t)o + size > t->size) return TEXMEM__FB_BAD_FIELD;
  *off = o;
  return TEXMEM__FB_OK;
}

bool texmem__fb_has(const texmem__fb_table *t, unsigned id) {
  uint16_t off;
  return field_off(t, id, 1, &off) == TEXMEM__FB_OK && off != 0;
}

texmem__fb_err texmem__fb_u8(const texmem__fb_table *t, unsigned id,
                             uint8_t def, uint8_t *v) {
  uint16_t off;
  texmem__fb_err e = field_off(t, id, 1, &off);
  *v = off ? t->fb->data[t->pos + off] : def;
  return e;
}

texmem__fb_err texmem__fb_u32f(const texmem__fb_table *t, unsigned id,
                               uint32_t def, uint32_t *v) {
  uint16_t off;
  texmem__fb_err e = field_off(t, id, 4, &off);
  *v = off ? texmem__fb_u32(t->fb->data + t->pos + off) : def;
  return e;
}

texmem__fb_err texmem__fb_i32(const texmem__fb_table *t, unsigned id,
                              int32_t def, int32_t *v) {
  uint32_t u;
  texmem__fb_err e = texmem__fb_u32f(t, id, (uint32_t)def, &u);
  *v = (int32_t)u;
  return e;
}

texmem__fb_err texmem__fb_u64f(const texmem__fb_table *t, unsigned id,
                               uint64_t def, uint64_t *v) {
  uint16_t off;
  texmem__fb_err e = field_off(t, id, 8, &off);
  *v = off ? texmem__fb_u64(t->fb->data + t->pos + off) : def;
  return e;
}

/* Follows the uoffset stored at pos; the target must leave `min` bytes. */
static texmem__fb_err follow(const texmem__fb *fb, uint64_t pos, uint64_t min,
                             uint64_t *target) {
  if (!in_range(fb, pos, 4)) return TEXMEM__FB_OUT_OF_BOUNDS;
  uint64_t t = pos + texmem__fb_u32(fb->data + pos);
  if (!in_range(fb, t, min)) return TEXMEM__FB_OUT_OF_BOUNDS;
  *target = t;
  return TEXMEM__FB_OK;
}

/* Target of reference field `id`; *target 0 when absent. */
static texmem__fb_err ref_field(const texmem__fb_table *t, unsigned id,
                                uint64_t min, uint64_t *target) {
  uint16_t off;
  texmem__fb_err e = field_off(t, id, 4, &off);
  *target = 0;
  if (e != TEXMEM__FB_OK || off == 0) return e;
  return follow(t->fb, (uint64_t)t->pos + off, min, target);
}

texmem__fb_err texmem__fb_table_field(const texmem__fb_table *t, unsigned id,
                                      texmem__fb_table *out, bool *present) {
  uint64_t target;
  texmem__fb_err e = ref_field(t, id, 4, &target);
  if (present) *present = false;
  if (e != TEXMEM__FB_OK) return e;
  if (target == 0) return present ? TEXMEM__FB_OK : TEXMEM__FB_MISSING;
  e = table_at(t->fb, target, t->depth + 1, out);
  if (e == TEXMEM__FB_OK && present) *present = true;
  return e;
}

static texmem__fb_err vec_at(const texmem__fb *fb, uint64_t target,
                             size_t elem_size, unsigned depth,
                             texmem__fb_vec *out) {
  uint32_t len = texmem__fb_u32(fb->data + target);
  /* len < 2^32 and elem_size <= 8, so the product fits in 64 bits. */
  if (!in_range(fb, target + 4, (uint64_t)len * elem_size))
    return TEXMEM__FB_OUT_OF_BOUNDS;
  out->fb = fb;
  out->pos = (size_t)(target + 4);
  out->len = len;
  out->elem_size = elem_size;
  out->depth = depth;
  return TEXMEM__FB_OK;
}

texmem__fb_err texmem__fb_vec_field(const texmem__fb_table *t, unsigned id,
                                    size_t elem_size, texmem__fb_vec *out) {
  uint64_t target;
  texmem__fb_err e = ref_field(t, id, 4, &target);
  out->fb = t->fb;
  out->pos = 0;
  out->len = 0;
  out->elem_size = elem_size;
  out->depth = t->depth;
  if (e != TEXMEM__FB_OK || target == 0) return e;
  return vec_at(t->fb, target, elem_size, t->depth, out);
}

texmem__fb_err texmem__fb_string(const texmem__fb_table *t, unsigned id,
                                 const char **s, size_t *len) {
  texmem__fb_vec v;
  texmem__fb_err e = texmem__fb_vec_field(t, id, 1, &v);
  *s = "";
  *len = 0;
  if (e != TEXMEM__FB_OK || v.pos == 0) return e;
  if (!in_range(t->fb, v.pos + (uint64_t)v.len, 1)) return TEXMEM__FB_NOT_TERMINATED;
  if (t->fb->data[v.pos + v.len] != 0) return TEXMEM__FB_NOT_TERMINATED;
  *s = (const char *)(t->fb->data + v.pos);
  *len = v.len;
  return TEXMEM__FB_OK;
}

texmem__fb_err texmem__fb_vec_table(const texmem__fb_vec *v, uint32_t i,
                                    texmem__fb_table *out) {
  if (i >= v->len || v->elem_size != 4) return TEXMEM__FB_OUT_OF_BOUNDS;
  uint64_t target;
  texmem__fb_err e = follow(v->fb, (uint64_t)v->pos + 4ull * i, 4, &target);
  if (e != TEXMEM__FB_OK) return e;
  return table_at(v->fb, target, v->depth + 1, out);
}
