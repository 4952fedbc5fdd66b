/* A program cache in a directory (program_cache_dir.h). */
#include "program_cache_dir.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* DIR/<hex key><suffix> into path (4096 bytes); false if it does not fit. */
static bool entry_path(const char *dir, const uint8_t key[16], const char *suffix,
                       char path[4096]) {
  char hex[33];
  for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", key[i]);
  int n = snprintf(path, 4096, "%s/%s%s", dir, hex, suffix);
  return n > 0 && n < 4096;
}

static size_t dir_load(void *user, const uint8_t key[16], void *value, size_t capacity) {
  char path[4096];
  if (!entry_path(user, key, ".bin", path)) return 0;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  struct stat st;
  size_t size = 0;
  if (fstat(fileno(f), &st) == 0 && st.st_size > 0) size = (size_t)st.st_size;
  if (size && capacity >= size && fread(value, 1, size, f) != size) size = 0;
  fclose(f);
  return size;
}

static void dir_store(void *user, const uint8_t key[16], const void *value, size_t size) {
  char path[4096], tmp[4096], suffix[32];
  snprintf(suffix, sizeof suffix, ".tmp%ld", (long)getpid());
  if (!entry_path(user, key, ".bin", path) || !entry_path(user, key, suffix, tmp)) return;
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  bool ok = fwrite(value, 1, size, f) == size;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) remove(tmp);
}

void cli_program_cache_dir(const char *dir, texmem_gl_program_cache *out) {
  *out = (texmem_gl_program_cache){.user = (void *)dir, .load = dir_load, .store = dir_store};
}
