/* Helpers every part of texmem shares (no GL): the error helpers, checked
 * and saturating 64-bit arithmetic, fp16 conversion, a growable array and
 * a string copy.
 * Internal: not installed, names texmem__*. */
#ifndef TEXMEM_COMMON_H
#define TEXMEM_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "texmem/status.h"

/* Set err (may be NULL) and return status. printf-style message. */
texmem_status texmem__fail(texmem_error *err, texmem_status s, const char *fmt,
                           ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Checked / saturating 64-bit arithmetic. */
static inline bool texmem__add_ovf(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static inline bool texmem__mul_ovf(uint64_t a, uint64_t b, uint64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline uint64_t texmem__add_sat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}
static inline uint64_t texmem__mul_sat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}
/* Volume of dims[0..2], saturating at UINT64_MAX. */
static inline uint64_t texmem__vol_sat(const uint64_t d[3]) {
  return texmem__mul_sat(texmem__mul_sat(d[0], d[1]), d[2]);
}
/* Exact volume of dims[0..2]; true when it overflows. A zero dimension
 * makes it 0 whatever the others (2^63 x 2^20 x 0 is 0 texels, not an
 * overflow), as texmem__vol_sat says. */
static inline bool texmem__vol_ovf(const uint64_t d[3], uint64_t *r) {
  if (!d[0] || !d[1] || !d[2]) {
    *r = 0;
    return false;
  }
  return __builtin_mul_overflow(d[0], d[1], r) || __builtin_mul_overflow(*r, d[2], r);
}
static inline uint64_t texmem__max_u64(uint64_t a, uint64_t b) {
  return a > b ? a : b;
}
/* Volume of the per-dimension max of a and b, saturating. */
static inline uint64_t texmem__merged_vol_sat(const uint64_t a[3],
                                              const uint64_t b[3]) {
  uint64_t m[3] = {texmem__max_u64(a[0], b[0]), texmem__max_u64(a[1], b[1]),
                   texmem__max_u64(a[2], b[2])};
  return texmem__vol_sat(m);
}

/* Keeps err's status and puts a printf-style prefix in front of its
 * message ("operator 3 (CONV_2D): " + what the callee said), cutting the
 * callee's text, never the prefix, when the whole does not fit. Returns
 * the status (OK when err is NULL). */
texmem_status texmem__prefix(texmem_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Aligned-up size, saturating. */
static inline uint64_t texmem__align_up(uint64_t v, uint64_t a) {
  if (a <= 1) return v;
  uint64_t r = v % a;
  return r ? texmem__add_sat(v, a - r) : v;
}

/* IEEE 754 binary16 <-> binary32: f32 -> f16 rounds to nearest even (NaN
 * stays NaN, overflow gives infinity); f16 -> f32 is exact for every input. */
uint16_t texmem__f32_to_f16(float f);
float texmem__f16_to_f32(uint16_t h);

/* Growable array: room for need (>= 1) elements of elem bytes in p, whose
 * capacity is *cap, doubling. Returns the array (moved or not), or NULL
 * when out of memory or the byte count would overflow; then p and *cap are
 * unchanged and p is still the caller's to free. */
void *texmem__grow(void *p, size_t *cap, size_t need, size_t elem);

/* A malloc'd copy of s (NULL copies as ""); NULL when out of memory. */
char *texmem__strdup(const char *s);

#endif
