/* libFuzzer target: the records text parser. Parsed records are checked
 * (dims 1..3, first <= last task) and their lower bounds computed; errors
 * carry a message. */
#include <stdlib.h>

#include "texmem/plan.h"
#include "fuzz_target.h"


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  texmem_records *r = NULL;
  texmem_error err = {0};
  texmem_status s = texmem_records_parse((const char *)data, size, &r, &err);
  if (s != TEXMEM_STATUS_OK) {
    CHECK(r == NULL && err.message[0] != 0 && err.status == s);
    return 0;
  }
  size_t n = texmem_records_count(r);
  unsigned dims = texmem_records_dims(r);
  const texmem_record *rec = texmem_records_data(r);
  CHECK(n == 0 || (dims >= 1 && dims <= 3 && rec));
  for (size_t i = 0; i < n; i++) CHECK(rec[i].first_task <= rec[i].last_task);
  texmem_bounds b;
  s = texmem_lower_bounds(rec, n, dims ? dims : 1, &b, &err);
  CHECK(s == TEXMEM_STATUS_OK || s == TEXMEM_STATUS_OVERFLOW);
  if (s == TEXMEM_STATUS_OK) CHECK(b.positional_max >= b.max_live);
  texmem_records_destroy(r);
  return 0;
}
