/* texmem bench --program-cache DIR: the library's program cache
 * (texmem_gl_program_cache) kept as files in a directory. CLI-only. */
#ifndef TEXMEM_CLI_PROGRAM_CACHE_DIR_H
#define TEXMEM_CLI_PROGRAM_CACHE_DIR_H

#include "texmem/gl.h"

/* A cache keeping each entry in DIR/<32 hex digits of its key>.bin; dir is
 * borrowed (it must outlive the cache's use). An entry is written under a
 * temporary name and renamed, so a reader never sees half of one. A file
 * that cannot be read or written is no entry: the library compiles. */
void cli_program_cache_dir(const char *dir, texmem_gl_program_cache *out);

#endif
