/* Bounds-checked FlexBuffers reading (the format TFLite custom operators
 * keep their options in). Layout, briefly: the last byte is the root's
 * byte width, the one before it the root's packed type (type << 2 |
 * log2 of its elements' width); values that are not inline scalars are
 * stored as unsigned offsets back from the slot holding them. A vector
 * has its count just before element 0; a map is a vector of values with,
 * before the count, its keys vector's offset and byte width. Offsets only
 * go backwards, and no read here follows more than three of them, so a
 * hostile buffer cannot loop. */
#include "flexbuffers.h"

#include <math.h>
#include <string.h>

enum {
  FX_NULL = 0, FX_INT = 1, FX_UINT = 2, FX_FLOAT = 3, FX_KEY = 4, FX_INDIRECT_INT = 6,
  FX_INDIRECT_UINT = 7, FX_INDIRECT_FLOAT = 8, FX_MAP = 9, FX_VECTOR = 10, FX_VECTOR_INT = 11,
  FX_VECTOR_UINT = 12, FX_VECTOR_INT2 = 16, FX_VECTOR_UINT2 = 17, FX_VECTOR_INT3 = 19,
  FX_VECTOR_UINT3 = 20, FX_VECTOR_INT4 = 22, FX_VECTOR_UINT4 = 23, FX_BOOL = 26
};

static bool fits(size_t size, size_t pos, uint64_t len) { return pos <= size && len <= size - pos; }

static bool good_width(uint64_t w) { return w == 1 || w == 2 || w == 4 || w == 8; }

/* Little-endian unsigned of width w at pos (caller checked bounds). */
static uint64_t rd_u(const uint8_t *b, size_t pos, unsigned w) {
  uint64_t v = 0;
  for (unsigned i = 0; i < w; i++) v |= (uint64_t)b[pos + i] << (8 * i);
  return v;
}

static int64_t rd_i(const uint8_t *b, size_t pos, unsigned w) {
  uint64_t v = rd_u(b, pos, w);
  if (w < 8 && (v >> (8 * w - 1)) & 1) v |= ~(uint64_t)0 << (8 * w);
  return (int64_t)v;
}

/* Where the offset in the slot at pos (width w) points. */
static const char *follow(const uint8_t *b, size_t size, size_t pos, unsigned w, size_t *out) {
  if (!fits(size, pos, w)) return "value outside the buffer";
  uint64_t off = rd_u(b, pos, w);
  if (off > pos) return "offset before the start of the buffer";
  *out = pos - (size_t)off;
  return NULL;
}

/* A vector's count, stored just before element 0 at p with width w. */
static const char *count_at(const uint8_t *b, size_t size, size_t p, unsigned w, uint64_t *n) {
  if (p < w || !fits(size, p - w, w)) return "vector count outside the buffer";
  *n = rd_u(b, p - w, w);
  return NULL;
}

const char *texmem__flex_root_map(const uint8_t *buf, size_t size, texmem__flex_map *out) {
  memset(out, 0, sizeof *out);
  if (!buf || size < 3) return "too short for a FlexBuffer";
  unsigned rw = buf[size - 1];
  uint8_t packed = buf[size - 2];
  if (!good_width(rw)) return "bad root byte width";
  if (size < 2 + (size_t)rw) return "root outside the buffer";
  if (packed >> 2 != FX_MAP) return "root is not a map";
  size_t p;
  const char *e = follow(buf, size, size - 2 - rw, rw, &p);
  if (e) return e;
  unsigned w = 1u << (packed & 3);
  uint64_t n;
  if ((e = count_at(buf, size, p, w, &n))) return e;
  if (p < 3 * (size_t)w) return "map header outside the buffer";
  /* values, then one type byte each */
  if (n > size || !fits(size, p, n * w + n)) return "map values outside the buffer";
  uint64_t kw = rd_u(buf, p - 2 * w, w);
  if (!good_width(kw)) return "bad map keys byte width";
  size_t kp;
  if ((e = follow(buf, size, p - 3 * w, w, &kp))) return e;
  uint64_t kn;
  if ((e = count_at(buf, size, kp, (unsigned)kw, &kn))) return e;
  if (kn != n) return "map keys and values differ in count";
  if (!fits(size, kp, n * kw)) return "map keys outside the buffer";
  out->buf = buf;
  out->size = size;
  out->values = p;
  out->keys = kp;
  out->count = (uint32_t)n;
  out->width = (uint8_t)w;
  out->kwidth = (uint8_t)kw;
  return NULL;
}

const char *texmem__flex_map_get(const texmem__flex_map *m, const char *key,
                                 texmem__flex_ref *out, bool *found) {
  *found = false;
  size_t klen = strlen(key);
  for (uint32_t i = 0; i < m->count; i++) {
    size_t s;
    const char *e = follow(m->buf, m->size, m->keys + (size_t)i * m->kwidth, m->kwidth, &s);
    if (e) return e;
    /* the key must be NUL-terminated inside the buffer */
    const uint8_t *z = memchr(m->buf + s, 0, m->size - s);
    if (!z) return "map key runs past the end of the buffer";
    if ((size_t)(z - (m->buf + s)) != klen || memcmp(m->buf + s, key, klen) != 0) continue;
    size_t slot = m->values + (size_t)i * m->width;
    uint8_t packed = m->buf[m->values + (size_t)m->count * m->width + i];
    out->buf = m->buf;
    out->size = m->size;
    out->pos = slot;
    out->type = packed >> 2;
    out->width = m->width;
    out->child_width = (uint8_t)(1u << (packed & 3));
    *found = true;
    return NULL;
  }
  return NULL;
}

/* Inline scalar of `type` at pos, width w, as both int and double. */
static const char *scalar(const uint8_t *b, size_t size, size_t pos, unsigned w, unsigned type,
                          int64_t *iv, double *dv, bool *is_float) {
  if (!fits(size, pos, w)) return "value outside the buffer";
  *is_float = false;
  switch (type) {
    case FX_INT:
      *iv = rd_i(b, pos, w);
      *dv = (double)*iv;
      return NULL;
    case FX_UINT:
    case FX_BOOL: {
      uint64_t u = rd_u(b, pos, w);
      if (u > (uint64_t)INT64_MAX) return "unsigned value out of range";
      *iv = (int64_t)u;
      *dv = (double)u;
      return NULL;
    }
    case FX_FLOAT:
      if (w == 4) {
        uint32_t bits = (uint32_t)rd_u(b, pos, 4);
        float f;
        memcpy(&f, &bits, sizeof f);
        *dv = f;
      } else if (w == 8) {
        uint64_t bits = rd_u(b, pos, 8);
        memcpy(dv, &bits, sizeof *dv);
      } else {
        return "float of an unsupported byte width";
      }
      *is_float = true;
      return NULL;
    default: return "value is not a number";
  }
}

static const char *number(const texmem__flex_ref *r, int64_t *iv, double *dv, bool *is_float) {
  unsigned type = r->type;
  size_t pos = r->pos;
  unsigned w = r->width;
  if (type == FX_INDIRECT_INT || type == FX_INDIRECT_UINT || type == FX_INDIRECT_FLOAT) {
    const char *e = follow(r->buf, r->size, r->pos, r->width, &pos);
    if (e) return e;
    w = r->child_width;
    type = type == FX_INDIRECT_INT ? FX_INT : type == FX_INDIRECT_UINT ? FX_UINT : FX_FLOAT;
  }
  return scalar(r->buf, r->size, pos, w, type, iv, dv, is_float);
}

const char *texmem__flex_int(const texmem__flex_ref *r, int64_t *out) {
  int64_t iv = 0;
  double dv = 0;
  bool f;
  const char *e = number(r, &iv, &dv, &f);
  if (e) return e;
  if (f) {
    if (!isfinite(dv) || dv != floor(dv) || dv < -9.2e18 || dv > 9.2e18)
      return "float where an integer is expected";
    iv = (int64_t)dv;
  }
  *out = iv;
  return NULL;
}

const char *texmem__flex_double(const texmem__flex_ref *r, double *out) {
  int64_t iv = 0;
  double dv = 0;
  bool f;
  const char *e = number(r, &iv, &dv, &f);
  if (e) return e;
  *out = dv;
  return NULL;
}

const char *texmem__flex_ints(const texmem__flex_ref *r, int64_t *out, size_t max, size_t *n) {
  *n = 0;
  unsigned t = r->type;
  bool typed = t == FX_VECTOR_INT || t == FX_VECTOR_UINT;
  uint64_t fixed = (t == FX_VECTOR_INT2 || t == FX_VECTOR_UINT2)   ? 2
                   : (t == FX_VECTOR_INT3 || t == FX_VECTOR_UINT3) ? 3
                   : (t == FX_VECTOR_INT4 || t == FX_VECTOR_UINT4) ? 4
                                                                   : 0;
  if (!typed && !fixed && t != FX_VECTOR) return "value is not an integer vector";
  size_t p;
  const char *e = follow(r->buf, r->size, r->pos, r->width, &p);
  if (e) return e;
  unsigned w = r->child_width;
  uint64_t cnt = fixed;
  if (!fixed && (e = count_at(r->buf, r->size, p, w, &cnt))) return e;
  if (cnt > r->size || !fits(r->size, p, cnt * w + (t == FX_VECTOR ? cnt : 0)))
    return "vector elements outside the buffer";
  if (cnt > max) return "vector longer than supported";
  bool is_uint = t == FX_VECTOR_UINT || t == FX_VECTOR_UINT2 || t == FX_VECTOR_UINT3 ||
                 t == FX_VECTOR_UINT4;
  for (size_t i = 0; i < cnt; i++) {
    unsigned et = t == FX_VECTOR ? (unsigned)(r->buf[p + cnt * w + i] >> 2)
                                 : (is_uint ? FX_UINT : FX_INT);
    if (et != FX_INT && et != FX_UINT) return "vector element is not an integer";
    int64_t iv;
    double dv;
    bool f;
    if ((e = scalar(r->buf, r->size, p + i * w, w, et, &iv, &dv, &f))) return e;
    out[i] = iv;
  }
  *n = (size_t)cnt;
  return NULL;
}
