/* texmem records MODEL.tflite [--dims 1|2|3] [--precision fp16|fp32|stored]
 * [--input-shape [NAME=]D0,D1,...]: prints the model's tensor usage records
 * in the records format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "model_args.h"
#include "texmem/model.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: texmem records MODEL.tflite [--dims 1|2|3] [--precision fp16|fp32|stored]\n"
          "                      [--input-shape [NAME=]D0,D1,...]...\n"
          "  Prints one record per intermediate tensor: tensor_id first_task last_task size...\n"
          "  Every valid model has records: operators texmem cannot run are kept too.\n"
          "  --dims 1        bytes of a PHWC4 GPU buffer (default)\n"
          "  --dims 2        2-D texture texels (W*B, H*ceil(C/4))\n"
          "  --dims 3        2-D array texture texels (W, H, B*ceil(C/4))\n"
          "  --precision     fp16 (default) or fp32: the GPU precision, whatever the\n"
          "                  element type (fp32 doubles 1-D bytes); stored: 1-D bytes are\n"
          "                  B*H*W*C * the element size as stored (a dense CPU arena);\n"
          "                  texels (dims 2, 3) do not depend on it\n"
          "  --input-shape   a graph input's shape where the model has dynamic dimensions\n"
          "                  (-1); NAME= picks the input by tensor name, else graph input\n"
          "                  order; repeatable\n");
}

int cli_cmd_records(int argc, char **argv) {
  const char *path = NULL;
  unsigned dims = 1;
  texmem_precision prec = TEXMEM_PRECISION_FP16;
  cli_input_shapes shapes;
  memset(&shapes, 0, sizeof shapes);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      return CLI_EXIT_OK;
    } else if (!strcmp(a, "--dims") && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3")) {
        fprintf(stderr, "texmem records: --dims must be 1, 2 or 3, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
      dims = (unsigned)(v[0] - '0');
    } else if (!strcmp(a, "--precision") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(v, "fp16")) {
        prec = TEXMEM_PRECISION_FP16;
      } else if (!strcmp(v, "fp32")) {
        prec = TEXMEM_PRECISION_FP32;
      } else if (!strcmp(v, "stored")) {
        prec = TEXMEM_PRECISION_STORED;
      } else {
        fprintf(stderr, "texmem records: --precision must be fp16, fp32 or stored, not '%s'\n", v);
        return CLI_EXIT_BAD_INPUT;
      }
    } else if (!strcmp(a, "--input-shape") && i + 1 < argc) {
      if (!cli_input_shape_add(&shapes, "records", argv[++i])) return CLI_EXIT_BAD_INPUT;
    } else if (a[0] == '-' || path) {
      fprintf(stderr, "texmem records: unexpected argument '%s'\n", a);
      usage(stderr);
      return CLI_EXIT_BAD_INPUT;
    } else {
      path = a;
    }
  }
  if (!path) {
    usage(stderr);
    return CLI_EXIT_BAD_INPUT;
  }

  texmem_error err = {0};
  texmem_model *m = NULL;
  texmem_status s = cli_load_model(path, &shapes, &m, &err);
  if (s == TEXMEM_STATUS_IO) {
    const char *why = cli_io_reason(path);
    fprintf(stderr, "texmem records: %s%s%s (%s)\n", err.message, strstr(err.message, why) ? "" : ": ",
            strstr(err.message, why) ? "" : why, texmem_status_name(s));
    return CLI_EXIT_BAD_INPUT;
  }
  if (s) {
    fprintf(stderr, "texmem records: %s (%s)\n", err.message, texmem_status_name(s));
    return cli_exit_for(s);
  }
  texmem_record *rec = NULL;
  size_t n = 0;
  s = texmem_model_records(m, dims, prec, &rec, &n, NULL, &err);
  texmem_model_destroy(m);
  if (s) {
    fprintf(stderr, "texmem records: %s (%s)\n", err.message, texmem_status_name(s));
    return cli_exit_for(s);
  }
  const char *pname = prec == TEXMEM_PRECISION_FP32 ? "fp32" : "fp16";
  int texel = prec == TEXMEM_PRECISION_FP32 ? 16 : 8;
  printf("# task ids: dense index over executed operators (file order)\n");
  if (dims == 1 && prec == TEXMEM_PRECISION_STORED)
    printf("# size = bytes as stored = B*H*W*C * element size of the tensor's type\n");
  else if (dims == 1)
    printf("# size = bytes of %s PHWC4 buffer = B*H*W*ceil(C/4)*4*%d\n", pname, texel / 4);
  else if (dims == 2)
    printf("# size = TEXTURE_2D texels (W*B, H*ceil(C/4)); %d bytes/texel %s RGBA\n", texel, pname);
  else
    printf("# size = GL PHWC4 2D-array texels (W, H, B*ceil(C/4)); %d bytes/texel %s RGBA\n", texel,
           pname);
  printf("# tensor_id first_task last_task size...\n");
  for (size_t i = 0; i < n; i++) {
    printf("%llu %llu %llu", (unsigned long long)rec[i].id, (unsigned long long)rec[i].first_task,
           (unsigned long long)rec[i].last_task);
    for (unsigned d = 0; d < dims; d++) printf(" %llu", (unsigned long long)rec[i].dims[d]);
    printf("\n");
  }
  free(rec);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "texmem records: write error\n");
    return CLI_EXIT_INTERNAL;
  }
  return CLI_EXIT_OK;
}
