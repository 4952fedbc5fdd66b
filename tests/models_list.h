/* Every .tflite that tools/fetch_models.sh puts in the model cache (the
 * MediaPipe npm solution packages, plain and packed assets), with what the
 * tests need to know about each: an --input-shape for models with dynamic
 * dimensions, and the operators the runtime cannot execute today ("NAME
 * xCOUNT, ..." as texmem_op_tally_format writes them; NULL = the model runs
 * end to end). When a kernel lands, its operators leave these lists. */
#ifndef TEXMEM_TESTS_MODELS_LIST_H
#define TEXMEM_TESTS_MODELS_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "texmem/model.h"

typedef struct tt_model {
  const char *file;
  const char *input_shape;
  const char *unsupported;
} tt_model;

static const tt_model tt_models[] = {
    {"face_detection_full_range.tflite", NULL, NULL},
    {"face_detection_full_range_sparse.tflite", NULL, NULL},
    {"face_detection_short_range.tflite", NULL, NULL},
    {"face_landmark.tflite", NULL, NULL},
    {"face_landmark_with_attention.tflite", NULL, NULL},
    {"hand_landmark_full.tflite", NULL, NULL},
    {"hand_landmark_lite.tflite", NULL, NULL},
    {"hand_recrop.tflite", NULL, NULL},
    {"object_detection_3d_camera.tflite", "1,224,224,3", NULL},
    {"object_detection_3d_chair.tflite", "1,224,224,3", NULL},
    {"object_detection_3d_cup.tflite", "1,224,224,3", NULL},
    {"object_detection_3d_sneakers.tflite", "1,224,224,3", NULL},
    {"object_detection_ssd_mobilenetv2_oidv4_fp16.tflite", NULL, NULL},
    {"palm_detection_full.tflite", NULL, NULL},
    {"palm_detection_lite.tflite", NULL, NULL},
    {"pose_detection.tflite", NULL, NULL},
    {"pose_landmark_full.tflite", NULL, NULL},
    {"pose_landmark_heavy.tflite", NULL, NULL},
    {"pose_landmark_lite.tflite", NULL, NULL},
    {"selfie_segmentation.tflite", NULL, NULL},
    {"selfie_segmentation_landscape.tflite", NULL, NULL},
};
#define TT_N_MODELS (sizeof tt_models / sizeof tt_models[0])

/* Whether file (a model's file name) is in this run's model set:
 * TEXMEM_TEST_MODELS, a comma-separated list of file names, narrows the
 * tests that sweep every cached model; unset or empty, every model is in.
 * tools/test.sh runs all of them in its first stage and a varied few under
 * the sanitizers, where each model costs about five times as much. */
static inline bool tt_model_in_run(const char *file) {
  const char *set = getenv("TEXMEM_TEST_MODELS");
  if (!set || !*set) return true;
  size_t n = strlen(file);
  for (const char *p = set; *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && !strncmp(p, file, n)) return true;
    p += len + (e != NULL);
  }
  return false;
}

/* The load desc of model i: its input shape from the list, if any (shape
 * is filled and pointed to). */
static inline texmem_model_load_desc tt_model_load_desc(size_t i, texmem_input_shape *shape) {
  texmem_model_load_desc ld = {0};
  const char *s = tt_models[i].input_shape;
  if (!s) return ld;
  *shape = (texmem_input_shape){0};
  for (shape->rank = 0; *s && shape->rank < TEXMEM_MAX_RANK; shape->rank++) {
    shape->shape[shape->rank] = (int32_t)strtol(s, (char **)&s, 10);
    if (*s == ',') s++;
  }
  ld.input_shapes = shape;
  ld.n_input_shapes = 1;
  return ld;
}

#endif
