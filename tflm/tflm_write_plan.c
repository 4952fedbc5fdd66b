/* Writes an offline memory plan into a copy of a .tflite model.
 *
 * Flatbuffer offsets are relative and point forward, so the original file
 * is kept byte for byte and a new front is put before it: a new root table
 * (every field of the old root, buffers and metadata replaced), a buffers
 * vector pointing at the old buffer tables plus the plan's, a metadata
 * vector with the old entries but any OfflineMemoryAllocation, the new
 * entry, and the plan's buffer, whose words start 16-byte aligned. The
 * front is a multiple of 16 bytes, so every old alignment holds. The old
 * root and vectors stay behind as unreferenced bytes. Files whose buffers
 * sit at absolute file offsets (over 2 GB) are refused: moving would break
 * them. */
#include <stdio.h>
#include <string.h>

#include "tflm_internal.h"

typedef struct out {
  uint8_t *p;
  size_t n;
} out;

static void u16(out *o, size_t at, uint32_t v) {
  o->p[at] = (uint8_t)v;
  o->p[at + 1] = (uint8_t)(v >> 8);
}
static void u32(out *o, size_t at, uint32_t v) {
  for (int k = 0; k < 4; k++) o->p[at + (size_t)k] = (uint8_t)(v >> (8 * k));
}
/* A uoffset at `at` to `target` (target > at). */
static void uoff(out *o, size_t at, size_t target) { u32(o, at, (uint32_t)(target - at)); }
static size_t align(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Old positions of what the new root keeps. */
typedef struct old_root {
  bool has[TFLM_MODEL_FIELDS];
  uint32_t version;
  size_t target[TFLM_MODEL_FIELDS]; /* reference fields: the old target */
  texmem__fb_vec buffers, metadata;
} old_root;

static texmem_status read_root(const texmem_tflm *f, old_root *r, texmem_error *err) {
  texmem__fb fb = {f->file, f->size};
  texmem__fb_table root;
  memset(r, 0, sizeof *r);
  /* The reader checked all of this; the errors cannot happen here. */
  if (texmem__fb_root(&fb, "TFL3", &root) || texmem__fb_u32f(&root, TFLM_MODEL_VERSION, 3, &r->version))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model root table unreadable");
  for (unsigned id = 0; 4 + 2 * id + 2 <= root.vt_size; id++) {
    if (!texmem__fb_has(&root, id)) continue;
    if (id >= TFLM_MODEL_FIELDS)
      return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                          "model root field %u is newer than the schema texmem knows (8 fields): not rewritten", id);
    r->has[id] = true;
    if (id == TFLM_MODEL_VERSION) continue;
    /* Fields the reader does not use are checked here before the new root
     * points at them: vectors (codes, subgraphs, buffers, metadata...) and
     * the description string must lie in the file. */
    texmem__fb_vec v;
    const char *sv;
    size_t slen;
    texmem__fb_err e = id == TFLM_MODEL_DESCRIPTION ? texmem__fb_string(&root, id, &sv, &slen)
                                                    : texmem__fb_vec_field(&root, id, 4, &v);
    if (e)
      return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model root field %u: %s", id, texmem__fb_strerror(e));
    uint16_t off = texmem__fb_u16(f->file + root.vt + 4 + 2 * id);
    size_t at = root.pos + off;
    r->target[id] = at + texmem__fb_u32(f->file + at);
  }
  if (texmem__fb_vec_field(&root, TFLM_MODEL_BUFFERS, 4, &r->buffers) ||
      texmem__fb_vec_field(&root, TFLM_MODEL_METADATA, 4, &r->metadata))
    return texmem__fail(err, TEXMEM_STATUS_BAD_MODEL, "model vectors unreadable");
  return TEXMEM_STATUS_OK;
}

static bool is_plan(const texmem_tflm *f, size_t m) { return strcmp(f->meta_name[m], TEXMEM_TFLM_PLAN_NAME) == 0; }

/* The buffer index for the plan: the old plan's own buffer when nothing
 * else uses it (so rewriting a plan does not pile up buffers), else a new
 * one at the end. */
static uint32_t plan_buffer(const texmem_tflm *f) {
  size_t last = SIZE_MAX;
  for (size_t m = 0; m < f->n_meta; m++)
    if (is_plan(f, m)) last = m;
  if (last == SIZE_MAX || f->meta_buffer[last] == 0) return (uint32_t)f->n_buffers;
  uint32_t b = f->meta_buffer[last];
  for (size_t m = 0; m < f->n_meta; m++)
    if (f->meta_buffer[m] == b && !is_plan(f, m)) return (uint32_t)f->n_buffers;
  for (size_t i = 0; i < f->n_tensors; i++)
    if (f->tensors[i].buffer == b) return (uint32_t)f->n_buffers;
  return b;
}

/* Tensors, weights and metadata of the copy are the original's. */
static texmem_status same_model(const texmem_tflm *a, const texmem_tflm *b, texmem_error *err) {
  if (a->n_sg != b->n_sg || a->n_tensors != b->n_tensors)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written model differs: %zu/%zu subgraphs, %zu/%zu tensors",
                        a->n_sg, b->n_sg, a->n_tensors, b->n_tensors);
  for (size_t i = 0; i < a->n_tensors; i++) {
    const texmem_tflm_tensor *x = &a->tensors[i], *y = &b->tensors[i];
    size_t sx = 0, sy = 0;
    const uint8_t *dx = texmem_tflm_buffer_data(a, x->buffer, &sx), *dy = texmem_tflm_buffer_data(b, y->buffer, &sy);
    bool same = strcmp(x->name, y->name) == 0 && x->type == y->type && x->rank == y->rank &&
                !memcmp(x->shape, y->shape, x->rank * sizeof *x->shape) && x->buffer == y->buffer &&
                x->variable == y->variable && x->n_quant == y->n_quant && sx == sy && (!sx || !memcmp(dx, dy, sx)) &&
                (!x->n_quant || (!memcmp(x->scale, y->scale, x->n_quant * sizeof *x->scale) &&
                                 !memcmp(x->zero_point, y->zero_point, x->n_quant * sizeof *x->zero_point)));
    if (!same)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written model differs at tensor %zu ('%s')", i, x->name);
  }
  for (size_t s = 0; s < a->n_sg; s++)
    if (a->sg[s].n_ops != b->sg[s].n_ops)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written model differs in subgraph %zu's operators", s);
  size_t k = 0;
  for (size_t m = 0; m < a->n_meta; m++) {
    if (is_plan(a, m)) continue;
    while (k < b->n_meta && is_plan(b, k)) k++;
    size_t s1 = 0, s2 = 0;
    const uint8_t *d1 = texmem_tflm_buffer_data(a, a->meta_buffer[m], &s1);
    const uint8_t *d2 = k < b->n_meta ? texmem_tflm_buffer_data(b, b->meta_buffer[k], &s2) : NULL;
    if (k >= b->n_meta || strcmp(a->meta_name[m], b->meta_name[k]) || s1 != s2 || (s1 && memcmp(d1, d2, s1)))
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written model lost metadata '%s'", a->meta_name[m]);
    k++;
  }
  return TEXMEM_STATUS_OK;
}

/* Re-reads the copy and checks it holds exactly the plan. */
static texmem_status verify(const texmem_tflm *f, const uint8_t *data, size_t size, const int32_t *offsets, size_t n,
                            texmem_error *err) {
  texmem_tflm *g = NULL;
  texmem_tflm_plan_info info = {0};
  texmem_tflm_issue *is = NULL;
  size_t n_is = 0;
  texmem_error e;
  texmem_status st = texmem_tflm_read(data, size, &g, &e);
  if (st) {
    texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written model does not read back: %s", e.message);
    return TEXMEM_STATUS_INVALID_PLAN;
  }
  if ((st = same_model(f, g, err))) goto done;
  if ((st = texmem_tflm_offline_plan(g, &info, err))) goto done;
  size_t bsize = 0;
  const uint8_t *b = info.present ? texmem_tflm_buffer_data(g, info.buffer, &bsize) : NULL;
  if (!info.present || info.entries != 1 || info.n != n || info.version != 0 || info.subgraphs != g->n_sg ||
      memcmp(info.offsets, offsets, n * sizeof *offsets) || ((size_t)(b - g->file) % TEXMEM_TFLM_ALIGNMENT)) {
    st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written plan does not read back as written");
    goto done;
  }
  if ((st = texmem_tflm_check(g, info.offsets, info.n, &is, &n_is, 1, NULL, err))) goto done;
  if (n_is) st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "written plan: %s", is[0].message);
done:
  free(is);
  free(info.offsets);
  texmem_tflm_destroy(g);
  return st;
}

texmem_status texmem_tflm_write_plan(const texmem_tflm *f, const int32_t *offsets, size_t n, uint8_t **result,
                                     size_t *result_size, texmem_error *err) {
  if (!f || (!offsets && n) || !result || !result_size)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "model, offsets or result is NULL");
  *result = NULL;
  *result_size = 0;
  texmem_tflm_issue *is = NULL;
  size_t n_is = 0;
  texmem_status st = texmem_tflm_check(f, offsets, n, &is, &n_is, 1, NULL, err);
  if (!st && n_is) st = texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN, "%s", is[0].message);
  free(is);
  if (st) return st;
  for (size_t i = 0; i < n; i++)
    if (offsets[i] != -1 && f->tensors[i].subgraph != 0 && !f->tensors[i].constant && !f->tensors[i].variable)
      return texmem__fail(err, TEXMEM_STATUS_INVALID_PLAN,
                          "tensor %zu ('%s') of subgraph %u has offset %d: only subgraph 0's lifetimes are "
                          "checked, so other subgraphs' tensors must be -1 (left to TFLM)",
                          i, f->tensors[i].name, f->tensors[i].subgraph, (int)offsets[i]);
  if (f->external)
    return texmem__fail(err, TEXMEM_STATUS_UNSUPPORTED,
                        "the model keeps buffers or custom options at file offsets (a model over 2 GB): a copy "
                        "with a new front would move them");
  old_root r;
  if ((st = read_root(f, &r, err))) return st;

  uint32_t pb = plan_buffer(f);
  size_t nb = f->n_buffers + (pb == f->n_buffers);
  size_t nm = 1;
  for (size_t m = 0; m < f->n_meta; m++) nm += !is_plan(f, m);
  if (nb > (INT32_MAX - f->size) / 8 || n > (INT32_MAX - f->size) / 8)
    return texmem__fail(err, TEXMEM_STATUS_OVERFLOW, "the copy would pass the 2 GiB flatbuffer limit");

  /* The front's layout. */
  static const char name[] = TEXMEM_TFLM_PLAN_NAME;
  const size_t root_vt = 8, vt_size = 4 + 2 * TFLM_MODEL_FIELDS;
  const size_t root = root_vt + vt_size;            /* 28: 4-aligned */
  const size_t root_size = 4 + 4 * TFLM_MODEL_FIELDS; /* field k at 4 + 4k */
  const size_t bvec = root + root_size;
  const size_t mvec = bvec + 4 + 4 * nb;
  const size_t meta_vt = mvec + 4 + 4 * nm;         /* 8-byte vtable: name, buffer */
  const size_t meta = meta_vt + 8;
  const size_t str = meta + 12;
  const size_t buf_vt = align(str + 4 + sizeof name, 4); /* 6-byte vtable, padded to 8 */
  const size_t buf = buf_vt + 8;
  const size_t words = align(buf + 8 + 4, TEXMEM_TFLM_ALIGNMENT); /* the data, 16-aligned */
  const size_t front = align(words + 4 * (3 + n), TEXMEM_TFLM_ALIGNMENT);
  out o = {calloc(front + f->size, 1), front + f->size};
  if (!o.p) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for a %zu-byte model", front + f->size);
  memcpy(o.p + front, f->file, f->size);

  uoff(&o, 0, root);
  memcpy(o.p + 4, "TFL3", 4);
  u16(&o, root_vt, (uint32_t)vt_size);
  u16(&o, root_vt + 2, (uint32_t)root_size);
  u32(&o, root, (uint32_t)(root - root_vt));
  r.has[TFLM_MODEL_BUFFERS] = r.has[TFLM_MODEL_METADATA] = true;
  for (unsigned id = 0; id < TFLM_MODEL_FIELDS; id++) {
    if (!r.has[id]) continue;
    size_t at = root + 4 + 4 * id;
    u16(&o, root_vt + 4 + 2 * id, (uint32_t)(at - root));
    if (id == TFLM_MODEL_VERSION) u32(&o, at, r.version);
    else if (id == TFLM_MODEL_BUFFERS) uoff(&o, at, bvec);
    else if (id == TFLM_MODEL_METADATA) uoff(&o, at, mvec);
    else uoff(&o, at, front + r.target[id]);
  }
  /* Buffers: the old tables where they were, the plan's at pb. */
  u32(&o, bvec, (uint32_t)nb);
  for (size_t b = 0; b < nb; b++) {
    size_t slot = bvec + 4 + 4 * b;
    if (b == pb) {
      uoff(&o, slot, buf);
    } else {
      size_t old = r.buffers.pos + 4 * b;
      uoff(&o, slot, front + old + texmem__fb_u32(f->file + old));
    }
  }
  /* Metadata: the old entries but plans, then the new one. */
  u32(&o, mvec, (uint32_t)nm);
  size_t k = 0;
  for (size_t m = 0; m < f->n_meta; m++) {
    if (is_plan(f, m)) continue;
    size_t old = r.metadata.pos + 4 * m;
    uoff(&o, mvec + 4 + 4 * k++, front + old + texmem__fb_u32(f->file + old));
  }
  uoff(&o, mvec + 4 + 4 * k, meta);
  u16(&o, meta_vt, 8);
  u16(&o, meta_vt + 2, 12);
  u16(&o, meta_vt + 4, 4);
  u16(&o, meta_vt + 6, 8);
  u32(&o, meta, (uint32_t)(meta - meta_vt));
  uoff(&o, meta + 4, str);
  u32(&o, meta + 8, pb);
  u32(&o, str, (uint32_t)(sizeof name - 1));
  memcpy(o.p + str + 4, name, sizeof name); /* with its NUL */
  u16(&o, buf_vt, 6);
  u16(&o, buf_vt + 2, 8);
  u16(&o, buf_vt + 4, 4);
  u32(&o, buf, (uint32_t)(buf - buf_vt));
  uoff(&o, buf + 4, words - 4);
  u32(&o, words - 4, (uint32_t)(4 * (3 + n)));
  u32(&o, words, 0); /* format version */
  u32(&o, words + 4, (uint32_t)f->n_sg);
  u32(&o, words + 8, (uint32_t)n);
  for (size_t i = 0; i < n; i++) u32(&o, words + 12 + 4 * i, (uint32_t)offsets[i]);

  if ((st = verify(f, o.p, o.n, offsets, n, err))) {
    free(o.p);
    return st;
  }
  *result = o.p;
  *result_size = o.n;
  return TEXMEM_STATUS_OK;
}
