/* The system's reason for an IO failure on a file the library could not
 * read: the loaders return TEXMEM_STATUS_IO, and the command probes the
 * file once more to say why (errno is not part of the library's API). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

const char *texmem_cli_io_reason(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return strerror(errno);
  char buf[4096];
  int e = 0;
  while (fread(buf, 1, sizeof buf, f) == sizeof buf) {
  }
  if (ferror(f)) e = errno ? errno : EIO;
  fclose(f);
  return e ? strerror(e) : "the file changed while it was read";
}
