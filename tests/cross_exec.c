/* Cross builds whose tests run under an emulator (TEXMEM_TEST_EMULATOR:
 * CMAKE_CROSSCOMPILING_EMULATOR joined by spaces, e.g. "qemu-aarch64 -L
 * root"). Without binfmt_misc the kernel cannot start a program of the
 * target machine, yet Criterion starts each test by re-running its own
 * program (execve) and the CLI tests start the texmem command; both go
 * through the emulator here. Only linked into cross-built tests. */
#define _DEFAULT_SOURCE /* syscall() */
#include "cross_exec.h"

#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether path is an ELF program of the machine this file is built for. */
static int is_target_elf(const char *path) {
  unsigned char h[20];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, h, sizeof h);
  close(fd);
  if (n != (ssize_t)sizeof h || memcmp(h, "\177ELF", 4)) return 0;
  unsigned machine = h[5] == 1 ? (unsigned)(h[18] | h[19] << 8) : (unsigned)(h[18] << 8 | h[19]);
#if defined(__aarch64__)
  return machine == 183; /* EM_AARCH64 */
#else
  (void)machine;
  return 0;
#endif
}

const char *const *tt_emulated_argv(const char *path, const char *const *argv, char *buf,
                                    size_t buf_size, const char **out, size_t max) {
  if (!is_target_elf(path)) return argv;
  if (strlen(TEXMEM_TEST_EMULATOR) >= buf_size) return NULL;
  strcpy(buf, TEXMEM_TEST_EMULATOR);
  size_t n = 0;
  for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    if (n + 1 >= max) return NULL;
    out[n++] = w;
  }
  if (n == 0 || n + 4 >= max) return NULL;
  /* qemu-user: -0 keeps the program's argv[0] (Criterion names its workers). */
  out[n++] = "-0";
  out[n++] = argv[0] ? argv[0] : path;
  out[n++] = path;
  for (size_t i = 1; argv[0] && argv[i]; i++) {
    if (n + 1 >= max) return NULL;
    out[n++] = argv[i];
  }
  out[n] = NULL;
  return out;
}

/* Defined (and exported: the build hides symbols by default) in the test
 * program, this execve is the one libcriterion's calls bind to; the real
 * one is the system call. */
__attribute__((visibility("default"))) int execve(const char *path, char *const argv[], char *const envp[]) {
  char buf[1024];
  const char *emu[128];
  const char *const *a = tt_emulated_argv(path, (const char *const *)argv, buf, sizeof buf, emu,
                                          sizeof emu / sizeof emu[0]);
  if (!a) a = (const char *const *)argv;
  return (int)syscall(SYS_execve, a == (const char *const *)argv ? path : a[0], a, envp);
}
