/* libFuzzer target: the TFLite reader on bytes from memory. A load either
 * succeeds (then the model's records are built in every form) or fails with
 * a status and a message, never crashing, leaking or allocating past the
 * load budget (libFuzzer's -rss_limit_mb and -malloc_limit_mb catch that). */
#include <stdlib.h>

#include "texmem/model.h"
#include "fuzz_target.h"


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  texmem_model *m = NULL;
  texmem_error err = {0};
  texmem_status s = texmem_model_read_tflite(data, size, &m, &err);
  if (s != TEXMEM_STATUS_OK) {
    CHECK(m == NULL && err.message[0] != 0 && err.status == s);
    return 0;
  }
  CHECK(m != NULL);
  for (size_t i = 0; i < texmem_model_op_count(m); i++) CHECK(texmem_op_name(texmem_model_op(m, i)) != NULL);
  for (size_t i = 0; i < texmem_model_tensor_count(m); i++) CHECK(texmem_model_tensor(m, i)->name != NULL);
  for (unsigned dims = 1; dims <= 3; dims++)
    for (int prec = TEXMEM_PRECISION_FP16; prec <= TEXMEM_PRECISION_STORED; prec++) {
      texmem_record *r = NULL;
      int32_t *tensor_of = NULL;
      size_t n = 0;
      s = texmem_model_records(m, dims, (texmem_precision)prec, &r, &n, &tensor_of, &err);
      CHECK(s == TEXMEM_STATUS_OK || s == TEXMEM_STATUS_OVERFLOW);
      if (s == TEXMEM_STATUS_OK)
        for (size_t i = 0; i < n; i++) CHECK(r[i].first_task <= r[i].last_task);
      free(r);
      free(tensor_of);
    }
  texmem_model_destroy(m);
  return 0;
}
