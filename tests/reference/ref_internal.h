/* Helpers shared by the reference operator files. */
#ifndef TEXMEM_TESTS_REF_INTERNAL_H
#define TEXMEM_TESTS_REF_INTERNAL_H

#include <stdbool.h>

#include "common.h" /* texmem__fail, checked arithmetic */
#include "reference.h"

/* INVALID_ARGUMENT unless inputs 0..required-1 are present (data != NULL)
 * and n_in >= required; name is the operator. */
texmem_status texmem__ref_need(const char *name, const texmem_ref_tensor *in, size_t n_in,
                               size_t required, texmem_error *err);
/* INVALID_ARGUMENT unless out has data and its BHWC equals (b,h,w,c). */
texmem_status texmem__ref_check_out(const char *name, const texmem_ref_tensor *out, uint32_t b,
                                    uint32_t h, uint32_t w, uint32_t c, texmem_error *err);
/* INVALID_ARGUMENT unless t has exactly `count` elements. */
texmem_status texmem__ref_check_count(const char *name, const char *what,
                                      const texmem_ref_tensor *t, size_t count,
                                      texmem_error *err);

/* Index of (b,y,x,c) in a dense BHWC buffer of dims d. */
static inline size_t texmem__ref_at(const uint32_t d[4], uint32_t b, uint32_t y, uint32_t x,
                                    uint32_t c) {
  return (((size_t)b * d[1] + y) * d[2] + x) * d[3] + c;
}

#endif
