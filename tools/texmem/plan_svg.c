/* texmem plan --svg: one plan drawn as tasks (x) against memory (y).
 *
 * Shared objects are stacked bands, each as tall as its size; a tensor is a
 * rectangle over [first_task, last_task + 1) at the bottom of its object's
 * band, as tall as its own size. Offsets: the arena is one band and a
 * tensor sits at its offset. Every tensor carries a <title> tooltip. Sizes
 * are picked so that a few hundred tensors stay readable. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan_out.h"

#define MARGIN_LEFT 96.0
#define MARGIN_RIGHT 24.0
#define MARGIN_TOP 36.0
#define AXIS_H 40.0
#define LEGEND_LINE 18.0
#define LEGEND_LINES 5
/* Thinner rectangles vanish; tooltips still carry the exact sizes. */
#define MIN_RECT_H 0.6

static void esc(FILE *f, const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&#39;", f); break;
      default:
        /* Control bytes are not allowed in XML 1.0 text. */
        if (*p < 0x20 && *p != '\t' && *p != '\n') fputc('?', f);
        else fputc(*p, f);
    }
  }
}

/* Deterministic palette: hues a golden angle apart, fixed S and L. */
static void colour(size_t i, char out[8]) {
  double h = fmod((double)i * 137.50776405, 360.0) / 60.0;
  double s = 0.62, l = i % 2 ? 0.48 : 0.58;
  double c = (1.0 - fabs(2.0 * l - 1.0)) * s;
  double x = c * (1.0 - fabs(fmod(h, 2.0) - 1.0));
  double r = 0, g = 0, b = 0;
  switch ((int)h) {
    case 0: r = c; g = x; break;
    case 1: r = x; g = c; break;
    case 2: g = c; b = x; break;
    case 3: g = x; b = c; break;
    case 4: r = x; b = c; break;
    default: r = c; b = x; break;
  }
  double m = l - c / 2.0;
  snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround((r + m) * 255.0),
           (unsigned)lround((g + m) * 255.0), (unsigned)lround((b + m) * 255.0));
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* 1, 2 or 5 times a power of ten, giving at most ~16 ticks over span. */
static uint64_t tick_step(double span) {
  uint64_t step = 1;
  for (;;) {
    if (span / (double)step <= 16.0) return step;
    if (span / (double)(step * 2) <= 16.0) return step * 2;
    if (span / (double)(step * 5) <= 16.0) return step * 5;
    if (step > UINT64_MAX / 100) return step * 10;
    step *= 10;
  }
}

static void dims_text(char *buf, size_t len, const texmem_record *r, unsigned dims) {
  if (dims == 1) snprintf(buf, len, "%" PRIu64 " bytes", r->dims[0]);
  else if (dims == 2) snprintf(buf, len, "%" PRIu64 "x%" PRIu64 " texels", r->dims[0], r->dims[1]);
  else
    snprintf(buf, len, "%" PRIu64 "x%" PRIu64 "x%" PRIu64 " texels", r->dims[0], r->dims[1],
             r->dims[2]);
}

/* One tensor's rectangle; its tooltip says where the plan put it (where:
 * "object 3", "offset 128", "base row 2"). */
static void tensor_rect(FILE *f, double x, double y, double w, double h, size_t colour_index,
                        const texmem_record *r, size_t i, unsigned dims, const char *where) {
  char col[8], dtxt[96];
  colour(colour_index, col);
  dims_text(dtxt, sizeof dtxt, r, dims);
  fprintf(f,
          "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">"
          "<title>tensor %" PRIu64 " (record %zu): tasks %" PRIu64 "-%" PRIu64
          ", %s, %s</title></rect>\n",
          x, y, w, h, col, r->id, i, r->first_task, r->last_task, dtxt, where);
}

/* Volume of a record (dims beyond dims count as 1), saturating. */
static uint64_t record_volume(const texmem_record *r, unsigned dims) {
  uint64_t v = 1;
  for (unsigned k = 0; k < dims && k < 3; k++) {
    if (r->dims[k] && v > UINT64_MAX / r->dims[k]) return UINT64_MAX;
    v *= r->dims[k];
  }
  return v;
}

/* The picture's geometry: tasks t_min..t_max across plot_w from x0,
 * memory 0 at y_base up to the plan's total over plot_h. */
typedef struct frame {
  const plan_run *run;
  const plan_result *res;
  const texmem_plan *p;
  bool objects;
  uint64_t t_min, t_max, total;
  double span, plot_w, plot_h, width, height, x0, y_base, scale;
  const char *unit;
} frame;

static frame frame_of(const plan_run *run, size_t chosen) {
  frame fr = {.run = run, .res = &run->results[chosen], .t_min = UINT64_MAX};
  fr.p = fr.res->plan;
  fr.objects = fr.res->kind == TEXMEM_PLAN_OBJECTS;
  for (size_t i = 0; i < run->n; i++) {
    if (run->rec[i].first_task < fr.t_min) fr.t_min = run->rec[i].first_task;
    if (run->rec[i].last_task > fr.t_max) fr.t_max = run->rec[i].last_task;
  }
  if (run->n == 0) fr.t_min = fr.t_max = 0;
  fr.span = (double)(fr.t_max - fr.t_min) + 1.0;
  fr.plot_w = clampd(fr.span * 8.0, 640.0, 1600.0);
  fr.plot_h = clampd((double)run->n * 2.5, 400.0, 1000.0);
  fr.width = MARGIN_LEFT + fr.plot_w + MARGIN_RIGHT;
  fr.height = MARGIN_TOP + fr.plot_h + AXIS_H + LEGEND_LINE * (LEGEND_LINES + 1);
  fr.x0 = MARGIN_LEFT;
  fr.y_base = MARGIN_TOP + fr.plot_h; /* memory 0 at the bottom */
  fr.total = texmem_plan_total(fr.p);
  fr.scale = fr.total ? fr.plot_h / (double)fr.total : 0.0;
  fr.unit = run->dims == 1 ? "bytes" : "texels";
  return fr;
}

static double xpos(const frame *fr, uint64_t task) {
  return fr->x0 + ((double)(task - fr->t_min)) * fr->plot_w / fr->span;
}

/* The document, its background and title. */
static void write_head(FILE *f, const frame *fr) {
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
          "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n",
          fr->width, fr->height, fr->width, fr->height);
  fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
          fr->width, fr->height);
  fprintf(f, "<text x=\"%.1f\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", fr->x0);
  esc(f, fr->run->path);
  fprintf(f, ": %s plan, %s</text>\n", fr->objects ? "shared-objects" : "arena (offsets)",
          texmem_strategy_name(texmem_plan_get_strategy(fr->p)));
}

/* Task grid and axis. */
static void write_axes(FILE *f, const frame *fr) {
  uint64_t step = tick_step(fr->span), first = (fr->t_min + step - 1) / step * step;
  fprintf(f, "<g stroke=\"#dddddd\" stroke-width=\"0.5\">\n");
  for (uint64_t t = first; t <= fr->t_max + 1; t += step) {
    fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\"/>\n", xpos(fr, t),
            MARGIN_TOP, xpos(fr, t), fr->y_base);
    if (t > UINT64_MAX - step) break;
  }
  fprintf(f, "</g>\n<g font-size=\"10\" text-anchor=\"middle\" fill=\"#333333\">\n");
  for (uint64_t t = first; t <= fr->t_max + 1; t += step) {
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\">%" PRIu64 "</text>\n", xpos(fr, t),
            fr->y_base + 14.0, t);
    if (t > UINT64_MAX - step) break;
  }
  fprintf(f, "</g>\n<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">task</text>\n",
          fr->x0 + fr->plot_w / 2.0, fr->y_base + 30.0);
  fprintf(f,
          "<text transform=\"translate(14 %.2f) rotate(-90)\" text-anchor=\"middle\">"
          "memory (%s, %s)</text>\n",
          MARGIN_TOP + fr->plot_h / 2.0, fr->unit,
          fr->objects ? "objects stacked" : "arena offset");
}

/* Shared objects: bands bottom to top in object order, each tensor at the
 * bottom of its object's band. */
static bool draw_objects(FILE *f, const frame *fr) {
  const texmem_plan *p = fr->p;
  const size_t k = texmem_plan_object_count(p);
  /* Where each band starts, for placing its tensors. */
  double *below = malloc((k ? k : 1) * sizeof *below);
  if (!below) {
    errno = ENOMEM;
    return false;
  }
  double cum = 0.0;
  char col[8];
  fprintf(f, "<g stroke-width=\"0.6\">\n");
  for (size_t o = 0; o < k; o++) {
    uint64_t sz = texmem_plan_object_size(p, o), od[3];
    texmem_plan_object_dims(p, o, od);
    double h = (double)sz * fr->scale, y = fr->y_base - cum - h;
    colour(o, col);
    fprintf(f,
            "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\" "
            "fill-opacity=\"0.12\" stroke=\"%s\"><title>object %zu: %" PRIu64 "x%" PRIu64
            "x%" PRIu64 " = %" PRIu64 " %s</title></rect>\n",
            fr->x0, y, fr->plot_w, h, col, col, o, od[0], od[1], od[2], sz, fr->unit);
    if (h >= 11.0)
      fprintf(f,
              "<text x=\"%.2f\" y=\"%.2f\" font-size=\"10\" text-anchor=\"end\" "
              "fill=\"%s\">obj %zu</text>\n",
              fr->x0 - 4.0, y + h / 2.0 + 3.5, col, o);
    below[o] = cum;
    cum += h;
  }
  fprintf(f, "</g>\n");
  fprintf(f, "<g stroke=\"#ffffff\" stroke-width=\"0.3\" fill-opacity=\"0.88\">\n");
  for (size_t i = 0; i < fr->run->n; i++) {
    const texmem_record *r = &fr->run->rec[i];
    size_t o = texmem_plan_tensor_object(p, i);
    double band_h = (double)texmem_plan_object_size(p, o) * fr->scale;
    double h = clampd((double)record_volume(r, fr->run->dims) * fr->scale, MIN_RECT_H,
                      band_h > MIN_RECT_H ? band_h : MIN_RECT_H);
    double x = xpos(fr, r->first_task), w = xpos(fr, r->last_task + 1) - x;
    char where[48];
    snprintf(where, sizeof where, "object %zu", o);
    tensor_rect(f, x, fr->y_base - below[o] - h, w, h, o, r, i, fr->run->dims, where);
  }
  free(below);
  fprintf(f, "</g>\n");
  return true;
}

/* Offsets: one band, each tensor at its offset (the GPU arena: at its base
 * row, the arena textures stacked). */
static void draw_arena(FILE *f, const frame *fr) {
  const texmem_plan *p = fr->p;
  double top = (double)fr->total * fr->scale;
  fprintf(f,
          "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
          "stroke=\"#888888\" stroke-width=\"0.6\"><title>arena: %" PRIu64 " %s</title></rect>\n",
          fr->x0, fr->y_base - top, fr->plot_w, top, fr->total, fr->unit);
  fprintf(f, "<g stroke=\"#ffffff\" stroke-width=\"0.3\" fill-opacity=\"0.88\">\n");
  uint64_t w_lin = texmem_plan_linear_width(p);
  for (size_t i = 0; i < fr->run->n; i++) {
    const texmem_record *r = &fr->run->rec[i];
    uint64_t off = texmem_plan_tensor_offset(p, i);
    double h = (double)record_volume(r, fr->run->dims) * fr->scale;
    double y_off = (double)off;
    if (w_lin) {
      size_t o = texmem_plan_tensor_object(p, i);
      y_off = (double)off * (double)w_lin;
      for (size_t q = 0; q < o; q++) y_off += (double)texmem_plan_object_size(p, q);
    }
    if (h < MIN_RECT_H) h = MIN_RECT_H;
    double x = xpos(fr, r->first_task), w = xpos(fr, r->last_task + 1) - x;
    char where[48];
    snprintf(where, sizeof where, "%s %" PRIu64, w_lin ? "base row" : "offset", off);
    tensor_rect(f, x, fr->y_base - y_off * fr->scale - h, w, h, i, r, i, fr->run->dims, where);
  }
  fprintf(f, "</g>\n");
  fprintf(f,
          "<g font-size=\"10\" text-anchor=\"end\" fill=\"#333333\">"
          "<text x=\"%.2f\" y=\"%.2f\">0</text><text x=\"%.2f\" y=\"%.2f\">%" PRIu64
          "</text></g>\n",
          fr->x0 - 4.0, fr->y_base, fr->x0 - 4.0, fr->y_base - top + 10.0, fr->total);
}

/* The legend's first line: strategy and layout. */
static void legend_strategy(FILE *f, const frame *fr, double ly) {
  const plan_result *res = fr->res;
  fprintf(f, "<g font-size=\"12\" fill=\"#111111\">\n<text x=\"%.1f\" y=\"%.1f\">strategy: ",
          fr->x0, ly);
  esc(f, texmem_strategy_name(res->requested));
  if (res->requested == TEXMEM_STRATEGY_BEST) {
    fputs(" (chose ", f);
    esc(f, texmem_strategy_name(texmem_plan_get_strategy(fr->p)));
    fputs(")", f);
  }
  fprintf(f, "; layout: %s",
          res->layout == TEXMEM_LAYOUT_LINEAR ? "linear" : fr->objects ? "natural" : "arena");
  if (res->layout == TEXMEM_LAYOUT_LINEAR)
    fprintf(f, " (width %" PRIu64 ")", texmem_plan_linear_width(fr->p));
  fprintf(f, "</text>\n");
}

/* The legend: strategy, total, bound, what a rectangle is, colours. */
static void write_legend(FILE *f, const frame *fr) {
  const plan_run *run = fr->run;
  double ly = fr->y_base + AXIS_H + LEGEND_LINE;
  const uint64_t bpt = run->dims == 1 ? 1 : run->bytes_per_texel;
  legend_strategy(f, fr, ly);
  ly += LEGEND_LINE;
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">total: %" PRIu64 " %s (%.3f MiB); objects: %zu</text>\n",
          fr->x0, ly, fr->total, fr->unit, (double)fr->total * (double)bpt / (1024.0 * 1024.0),
          texmem_plan_object_count(fr->p));
  ly += LEGEND_LINE;
  uint64_t bound = fr->objects ? run->bounds.positional_max : run->bounds.max_live;
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">bound: %s %" PRIu64 " %s; ratio ", fr->x0, ly,
          fr->objects ? "positional_max" : "max_live", bound, fr->unit);
  if (bound) fprintf(f, "%.3f", (double)fr->total / (double)bound);
  else fputs("-", f);
  fprintf(f, " (max_live %" PRIu64 ", positional_max %" PRIu64 ")</text>\n", run->bounds.max_live,
          run->bounds.positional_max);
  ly += LEGEND_LINE;
  fprintf(f,
          "<text x=\"%.1f\" y=\"%.1f\">%zu tensors over tasks %" PRIu64 "-%" PRIu64
          "; a rectangle is a tensor's lifetime x its size%s; hover for details</text>\n",
          fr->x0, ly, run->n, fr->t_min, fr->t_max,
          fr->objects ? " inside its object's band" : " at its offset");
  ly += LEGEND_LINE;
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#666666\">colour: one per %s</text>\n</g>\n",
          fr->x0, ly, fr->objects ? "object" : "tensor");
}

bool cli_plan_write_svg(FILE *f, const plan_run *run, size_t chosen) {
  const frame fr = frame_of(run, chosen);
  write_head(f, &fr);
  write_axes(f, &fr);
  if (fr.objects) {
    if (!draw_objects(f, &fr)) return false;
  } else {
    draw_arena(f, &fr);
  }
  write_legend(f, &fr);
  fprintf(f, "</svg>\n");
  return !ferror(f);
}
