/* A tiny FlexBuffers map writer for tests (header only): the custom
 * options of MediaPipe's operators, made in code. Every slot is 4 bytes
 * wide (ints as int32, floats as float32, int vectors as typed int32
 * vectors); keys are written in the order given (MediaPipe's writer sorts
 * them; give them sorted). */
#ifndef TEXMEM_TESTS_FLEXBUFFERS_WRITER_H
#define TEXMEM_TESTS_FLEXBUFFERS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum { FXW_INT, FXW_FLOAT, FXW_INTS };

typedef struct fxw_entry {
  const char *key;
  int kind;
  int64_t i;           /* FXW_INT */
  double f;            /* FXW_FLOAT */
  const int32_t *v;    /* FXW_INTS */
  size_t n;
} fxw_entry;

static inline void fxw_u32(uint8_t *b, size_t pos, uint32_t v) {
  for (int i = 0; i < 4; i++) b[pos + i] = (uint8_t)(v >> (8 * i));
}

/* Writes the map into out (cap bytes); returns its size, 0 if cap is too
 * small. */
static inline size_t fxw_map(const fxw_entry *e, size_t n, uint8_t *out, size_t cap) {
  size_t key_at[32], vec_at[32], p = 0;
  if (n > 32) return 0;
#define FXW_ROOM(k) \
  if (p + (k) > cap) return 0
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(e[i].key) + 1;
    FXW_ROOM(len);
    memcpy(out + p, e[i].key, len);
    key_at[i] = p;
    p += len;
  }
  while (p % 4) {
    FXW_ROOM(1);
    out[p++] = 0;
  }
  for (size_t i = 0; i < n; i++) {
    if (e[i].kind != FXW_INTS) continue;
    FXW_ROOM(4 + 4 * e[i].n);
    fxw_u32(out, p, (uint32_t)e[i].n);
    p += 4;
    vec_at[i] = p;
    for (size_t j = 0; j < e[i].n; j++, p += 4) fxw_u32(out, p, (uint32_t)e[i].v[j]);
  }
  FXW_ROOM(4 + 4 * n);
  fxw_u32(out, p, (uint32_t)n);
  p += 4;
  size_t keys = p;
  for (size_t i = 0; i < n; i++, p += 4) fxw_u32(out, p, (uint32_t)(p - key_at[i]));
  FXW_ROOM(12 + 5 * n + 6);
  fxw_u32(out, p, (uint32_t)(p - keys)); /* keys vector offset */
  fxw_u32(out, p + 4, 4);                /* keys byte width */
  fxw_u32(out, p + 8, (uint32_t)n);
  p += 12;
  size_t values = p;
  for (size_t i = 0; i < n; i++, p += 4) {
    if (e[i].kind == FXW_INT) {
      fxw_u32(out, p, (uint32_t)(int32_t)e[i].i);
    } else if (e[i].kind == FXW_FLOAT) {
      float f = (float)e[i].f;
      uint32_t bits;
      memcpy(&bits, &f, 4);
      fxw_u32(out, p, bits);
    } else {
      fxw_u32(out, p, (uint32_t)(p - vec_at[i]));
    }
  }
  for (size_t i = 0; i < n; i++)
    out[p++] = e[i].kind == FXW_INT ? 0x06 : e[i].kind == FXW_FLOAT ? 0x0e : 0x2e;
  fxw_u32(out, p, (uint32_t)(p - values)); /* root: offset to the map */
  p += 4;
  out[p++] = 0x26; /* MAP, 4-byte slots */
  out[p++] = 4;    /* root width */
#undef FXW_ROOM
  return p;
}

#endif
