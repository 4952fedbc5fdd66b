/* Shared by the libFuzzer targets: the entry point libFuzzer calls, and
 * CHECK, which turns a broken property into a crash libFuzzer reports
 * (this is test code: the library itself never aborts). */
#ifndef TEXMEM_FUZZ_TARGET_H
#define TEXMEM_FUZZ_TARGET_H

#include <stddef.h>
#include <stdlib.h>

#define CHECK(c)                                                                                   \
  do {                                                                                             \
    if (!(c)) abort();                                                                             \
  } while (0)

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#endif
