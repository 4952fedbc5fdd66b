/* Every .tflite that tools/fetch_models.sh puts in the model cache (the
 * MediaPipe npm solution packages, plain and packed assets), with what the
 * tests need to know about each: an --input-shape for models with dynamic
 * dimensions, and the operators the runtime cannot execute today ("NAME
 * xCOUNT, ..." as texmem_op_tally_format writes them; NULL = the model runs
 * end to end). When a kernel lands, its operators leave these lists. */
#ifndef TEXMEM_TESTS_MODELS_LIST_H
#define TEXMEM_TESTS_MODELS_LIST_H

#include <stddef.h>

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
    {"face_landmark_with_attention.tflite", NULL, "STRIDED_SLICE x1"},
    {"hand_landmark_full.tflite", NULL, NULL},
    {"hand_landmark_lite.tflite", NULL, NULL},
    {"hand_recrop.tflite", NULL, "STRIDED_SLICE x2"},
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

#endif
