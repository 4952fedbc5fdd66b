/* libFuzzer target: the TFLite readers on bytes from memory, the model
 * reader and TFLite Micro's view (both read through model/'s one .tflite
 * reader). A load either succeeds (then the model's records are built in
 * every form; TFLM's lifetimes, with a scratch buffer, its planner and the
 * plan the file carries, checked) or fails with a status and a message,
 * never crashing, leaking or allocating past the load budget (libFuzzer's
 * -rss_limit_mb and -malloc_limit_mb catch that). */
#include <stdlib.h>

#include "texmem/model.h"
#include "texmem/tflm.h"
#include "fuzz_target.h"

static void tflm(const unsigned char *data, size_t size) {
  texmem_tflm *f = NULL;
  texmem_error err = {0};
  texmem_status s = texmem_tflm_read(data, size, &f, &err);
  if (s != TEXMEM_STATUS_OK) {
    CHECK(f == NULL && err.message[0] != 0 && err.status == s);
    return;
  }
  texmem_tflm_scratch sc = {0, 100};
  texmem_record *r = NULL;
  size_t n = 0;
  s = texmem_tflm_records_scratch(f, &sc, texmem_tflm_op_count(f, 0) ? 1 : 0, &r, &n, NULL, &err);
  CHECK(s == TEXMEM_STATUS_OK);
  uint64_t head = 0;
  s = texmem_tflm_greedy(r, n, NULL, NULL, &head, &err);
  CHECK(s == TEXMEM_STATUS_OK || s == TEXMEM_STATUS_INVALID_ARGUMENT); /* a tensor past TFLM's int sizes */
  free(r);
  texmem_tflm_plan_info info;
  if (texmem_tflm_offline_plan(f, &info, &err) == TEXMEM_STATUS_OK && info.present) {
    texmem_tflm_issue *is = NULL;
    size_t n_is = 0;
    CHECK(texmem_tflm_check(f, info.offsets, info.n, &is, &n_is, 0, NULL, &err) == TEXMEM_STATUS_OK);
    free(is);
    free(info.offsets);
  }
  texmem_tflm_destroy(f);
}


int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  tflm(data, size);
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
