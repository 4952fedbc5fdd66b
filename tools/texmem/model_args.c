/* --input-shape parsing and model loading for the subcommands. */
#include <stdio.h>
#include <string.h>

#include "model_args.h"

bool cli_input_shape_add(cli_input_shapes *s, const char *cmd, const char *arg) {
  if (s->n == CLI_MAX_INPUT_SHAPES) {
    fprintf(stderr, "texmem %s: at most %d --input-shape\n", cmd, CLI_MAX_INPUT_SHAPES);
    return false;
  }
  texmem_input_shape *x = &s->v[s->n];
  memset(x, 0, sizeof *x);
  /* Names may hold ':' (TFLite's "input:0"), so the last '=' splits. */
  const char *eq = strrchr(arg, '=');
  const char *dims = arg;
  if (eq) {
    size_t len = (size_t)(eq - arg);
    if (len == 0 || len >= sizeof s->names[0]) {
      fprintf(stderr, "texmem %s: --input-shape '%s': bad input name\n", cmd, arg);
      return false;
    }
    memcpy(s->names[s->n], arg, len);
    s->names[s->n][len] = 0;
    x->name = s->names[s->n];
    dims = eq + 1;
  } else {
    x->input = s->unnamed;
  }
  const char *p = dims;
  while (*p) {
    long v = 0;
    bool digits = false;
    while (*p >= '0' && *p <= '9' && v <= 0x7fffffffL) {
      v = v * 10 + (*p++ - '0');
      digits = true;
    }
    if (!digits || v < 1 || v > 0x7fffffffL || x->rank == TEXMEM_MAX_RANK || (*p && *p != ',') ||
        (*p == ',' && !p[1])) {
      fprintf(stderr,
              "texmem %s: --input-shape '%s': want [NAME=]D0,D1,... with 1 to %d positive "
              "dimensions\n",
              cmd, arg, TEXMEM_MAX_RANK);
      return false;
    }
    x->shape[x->rank++] = (int32_t)v;
    if (*p == ',') p++;
  }
  if (x->rank == 0) {
    fprintf(stderr, "texmem %s: --input-shape '%s': no dimensions\n", cmd, arg);
    return false;
  }
  if (!eq) s->unnamed++;
  s->n++;
  return true;
}

void cli_note_placeholders(FILE *f, const texmem_model *m) {
  size_t n = 0;
  const int32_t *in = texmem_model_inputs(m, &n);
  for (size_t i = 0; i < n; i++) {
    uint32_t dyn = texmem_model_input_placeholder(m, i);
    const texmem_tensor *t = texmem_model_tensor(m, (size_t)in[i]);
    if (!dyn || !t) continue;
    if (dyn == 1u && t->rank >= 2) {
      fprintf(f, "texmem: %s: batch dynamic, run at %d; --input-shape to change\n", t->name, (int)t->shape[0]);
      continue;
    }
    char dims[64] = "", shape[96] = "";
    size_t a = 0, b = 0;
    for (unsigned d = 0; d < t->rank; d++) {
      if ((dyn >> d) & 1u && a < sizeof dims) a += (size_t)snprintf(dims + a, sizeof dims - a, "%s%u", a ? "," : "", d);
      if (b < sizeof shape) b += (size_t)snprintf(shape + b, sizeof shape - b, "%s%d", d ? "," : "", (int)t->shape[d]);
    }
    fprintf(f, "texmem: %s: dimension%s %s dynamic, run at the file's placeholder shape [%s]; --input-shape to change\n",
            t->name, dyn & (dyn - 1) ? "s" : "", dims, shape);
  }
}

texmem_status cli_load_model(const char *path, const cli_input_shapes *s, texmem_model **out,
                             texmem_error *err) {
  texmem_model_load_desc d = {0};
  if (s) {
    d.input_shapes = s->v;
    d.n_input_shapes = s->n;
  }
  texmem_status st = texmem_model_load_tflite_desc(path, &d, out, err);
  if (!st) cli_note_placeholders(stderr, *out);
  return st;
}
