/* Helpers shared by the tests that run the texmem command (test_cli_*.c,
 * test_model_tflm_cli.c): a scratch folder per test process and a run of
 * the built command in it. */
#ifndef TEXMEM_TESTS_CLI_SUPPORT_H
#define TEXMEM_TESTS_CLI_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>

/* Creates /tmp/PREFIX_XXXXXX (asserts); for a suite's .init. */
void tt_tmpdir_make(const char *prefix);
/* Removes the files in the scratch folder, then the folder; for .fini. */
void tt_tmpdir_remove(void);
/* The scratch folder. */
const char *tt_tmpdir(void);
/* NAME in the scratch folder: one of four buffers used in turn, so up to
 * four paths can be held at once. */
const char *tt_tmp_path(const char *name);
/* Writes len bytes of data to NAME in the scratch folder (asserts);
 * returns its path as tt_tmp_path does. */
const char *tt_tmp_write(const char *name, const void *data, size_t len);

typedef struct tt_run {
  int code;       /* exit code */
  char *out, *err; /* stdout and stderr, malloc'd */
} tt_run;

/* Runs TEXMEM_BINARY_DIR/texmem with pre[0..npre), then first and the
 * arguments after it up to a NULL, in the scratch folder (at most 30). */
tt_run tt_texmem_v(const char *const *pre, size_t npre, const char *first, va_list ap);
/* texmem FIRST ARGS... NULL. */
tt_run tt_texmem(const char *first, ...);
void tt_run_free(tt_run *r);

#endif
