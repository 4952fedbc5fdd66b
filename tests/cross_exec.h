/* Starting target programs through the emulator in cross-built tests
 * (tests/cross_exec.c). */
#ifndef TEXMEM_TESTS_CROSS_EXEC_H
#define TEXMEM_TESTS_CROSS_EXEC_H

#include <stddef.h>

/* argv for starting path: argv itself unless path is a program of the
 * target machine, then the emulator's words, -0 argv[0], path, argv[1..]
 * in out (max entries, words kept in buf); NULL if they do not fit. */
const char *const *tt_emulated_argv(const char *path, const char *const *argv, char *buf,
                                    size_t buf_size, const char **out, size_t max);

#endif
