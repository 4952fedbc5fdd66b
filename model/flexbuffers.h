/* A small, bounds-checked FlexBuffers reader: just what custom operator
 * options need (a root map, its keys, scalars and int vectors). Every read
 * is checked against the buffer; a hostile buffer gives an error string,
 * never an out-of-bounds read. Functions return NULL on success, else a
 * static message saying what is wrong. */
#ifndef TEXMEM_MODEL_FLEXBUFFERS_H
#define TEXMEM_MODEL_FLEXBUFFERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A value: where it sits, its FlexBuffers type, the byte width it is
 * stored in (inline scalars and offsets) and, for what an offset points
 * to, the byte width of the target's elements. */
typedef struct texmem__flex_ref {
  const uint8_t *buf;
  size_t size;
  size_t pos;
  uint8_t type;
  uint8_t width;       /* of the slot at pos */
  uint8_t child_width; /* of the target, for offset types */
} texmem__flex_ref;

typedef struct texmem__flex_map {
  const uint8_t *buf;
  size_t size;
  size_t values;  /* position of value 0 */
  size_t keys;    /* position of key slot 0 */
  uint32_t count;
  uint8_t width;  /* of value slots */
  uint8_t kwidth; /* of key slots */
} texmem__flex_map;

/* The root of buf, which must be a map. */
const char *texmem__flex_root_map(const uint8_t *buf, size_t size, texmem__flex_map *out);
/* The value under `key` (*found false, NULL returned, when absent). */
const char *texmem__flex_map_get(const texmem__flex_map *m, const char *key,
                                 texmem__flex_ref *out, bool *found);
/* Scalars: INT, UINT, BOOL, FLOAT (and their indirect forms), converted
 * as FlexBuffers' AsInt64 / AsDouble do; a float must be integral and in
 * range to read as an int. */
const char *texmem__flex_int(const texmem__flex_ref *r, int64_t *out);
const char *texmem__flex_double(const texmem__flex_ref *r, double *out);
/* An int vector (typed, fixed-size typed, or untyped with int elements):
 * up to `max` elements into out, the count into *n; more is an error. */
const char *texmem__flex_ints(const texmem__flex_ref *r, int64_t *out, size_t max, size_t *n);

#endif
