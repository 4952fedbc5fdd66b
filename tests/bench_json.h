/* Reading texmem bench --json in tests (header only): numbers by key,
 * the per-storage objects, sums over arrays. Criterion asserts. */
#ifndef TEXMEM_TESTS_BENCH_JSON_H
#define TEXMEM_TESTS_BENCH_JSON_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number after "key": at or after `from` in json. */
static inline double json_num(const char *json, const char *from, const char *key) {
  const char *p = from ? strstr(json, from) : json;
  cr_assert_not_null(p, "no %s in %s", from ? from : "(start)", json);
  char k[64];
  snprintf(k, sizeof k, "\"%s\":", key);
  p = strstr(p, k);
  cr_assert_not_null(p, "no %s in %s", k, json);
  return strtod(p + strlen(k), NULL);
}

static const char *const bench_storages[4] = {"naive", "objects", "arena", "buffer"};

/* The storage's object inside the object at `key` (e.g. "driver_bytes"). */
static inline const char *storage_at(const char *json, const char *key, const char *storage) {
  char k[64];
  snprintf(k, sizeof k, "\"%s\": {", key);
  const char *p = strstr(json, k);
  cr_assert_not_null(p, "no %s object in %s", key, json);
  snprintf(k, sizeof k, "\"%s\": ", storage);
  p = strstr(p, k);
  cr_assert_not_null(p, "no %s in %s", storage, json);
  return p;
}

/* Sum of `key` values in the array after `array` (up to its "]"). */
static inline double array_sum(const char *from, const char *array, const char *key,
                               size_t *count) {
  char a[64], k[64];
  snprintf(a, sizeof a, "\"%s\": [", array);
  snprintf(k, sizeof k, "\"%s\": ", key);
  const char *p = strstr(from, a);
  cr_assert_not_null(p, "no %s in %s", array, from);
  const char *end = strchr(p, ']');
  cr_assert_not_null(end);
  double sum = 0;
  *count = 0;
  for (p = strstr(p, k); p && p < end; p = strstr(p + 1, k)) {
    sum += strtod(p + strlen(k), NULL);
    (*count)++;
  }
  return sum;
}

#endif
