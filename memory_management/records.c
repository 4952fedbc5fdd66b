/* Records files: one tensor usage record per line (docs/records-format.md).
 *
 * The parser walks the text once, line by line, without copying lines, so
 * there is no line-length limit. Every error names the 1-based line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct texmem_records {
  texmem_record *rec;
  size_t n;
  unsigned dims;
};

/* Fields of one line: id, first, last, then 1..3 dims. */
#define MAX_FIELDS 6
#define MIN_FIELDS 4

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Writes at most 40 bytes of the token [s, s+n) into out (>= 168 bytes)
 * with every byte that is not printable ASCII, and the backslash and
 * quote, escaped as \xNN: a message never carries control bytes or
 * terminal escapes from the file. */
#define TOKEN_SHOWN 40
static const char *escape_token(const char *s, size_t n, char *out) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  for (size_t i = 0; i < n && i < TOKEN_SHOWN; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out[k++] = (char)c;
    } else {
      out[k++] = '\\';
      out[k++] = 'x';
      out[k++] = hex[c >> 4];
      out[k++] = hex[c & 15];
    }
  }
  if (n > TOKEN_SHOWN) {
    memcpy(out + k, "...", 3);
    k += 3;
  }
  out[k] = 0;
  return out;
}

/* Parses one token [s, s+n) as an unsigned decimal. */
static texmem_status parse_u64(const char *s, size_t n, size_t line, uint64_t *out,
                               texmem_error *err) {
  char shown[4 * TOKEN_SHOWN + 8];
  if (s[0] == '-' && n > 1) {
    bool digits = true;
    for (size_t i = 1; i < n; i++) digits = digits && s[i] >= '0' && s[i] <= '9';
    if (digits)
      return texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS, "line %zu: negative number '%s'",
                          line, escape_token(s, n, shown));
  }
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                          "line %zu: malformed token '%s' (expected an unsigned decimal number)",
                          line, escape_token(s, n, shown));
  }
  for (size_t i = 0; i < n; i++) {
    if (texmem__mul_ovf(v, 10, &v) || texmem__add_ovf(v, (uint64_t)(s[i] - '0'), &v))
      return texmem__fail(err, TEXMEM_STATUS_OVERFLOW,
                          "line %zu: number '%s' overflows 64 bits (max 18446744073709551615)",
                          line, escape_token(s, n, shown));
  }
  *out = v;
  return TEXMEM_STATUS_OK;
}

/* Sort key for the duplicate-id check. */
typedef struct id_line {
  uint64_t id;
  size_t line;
} id_line;

static int cmp_id_line(const void *a, const void *b) {
  const id_line *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* Reports the duplicate id whose second occurrence comes first in the file. */
static texmem_status check_duplicates(const texmem_record *rec, const size_t *lines, size_t n,
                                      texmem_error *err) {
  if (n < 2) return TEXMEM_STATUS_OK;
  id_line *v = malloc(n * sizeof *v);
  if (!v) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory for %zu records", n);
  for (size_t i = 0; i < n; i++) v[i] = (id_line){rec[i].id, lines[i]};
  qsort(v, n, sizeof *v, cmp_id_line);
  size_t dup = n;
  for (size_t i = 1; i < n; i++)
    if (v[i].id == v[i - 1].id && (dup == n || v[i].line < v[dup].line)) dup = i;
  texmem_status st = TEXMEM_STATUS_OK;
  if (dup != n) {
    /* v[dup - 1] may not be the first occurrence if the id repeats 3+ times;
     * walk back to it. */
    size_t f = dup - 1;
    while (f > 0 && v[f - 1].id == v[dup].id) f--;
    st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                      "line %zu: duplicate tensor id %llu (first on line %zu)", v[dup].line,
                      (unsigned long long)v[dup].id, v[f].line);
  }
  free(v);
  return st;
}

texmem_status texmem_records_parse(const char *text, size_t len, texmem_records **out,
                                   texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!text && len)
    return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "text is NULL with length %zu", len);

  texmem_records *r = calloc(1, sizeof *r);
  if (!r) return texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "out of memory");
  r->dims = 1;
  size_t cap = 0, first_line = 0;
  size_t *lines = NULL; /* line of each record, for error messages */
  texmem_status st = TEXMEM_STATUS_OK;
  size_t line = 0, pos = 0;

  while (pos < len && st == TEXMEM_STATUS_OK) {
    line++;
    size_t end = pos;
    while (end < len && text[end] != '\n') end++;
    const char *nul = memchr(text + pos, '\0', end - pos);
    if (nul) {
      st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS, "line %zu: NUL byte at column %zu", line,
                        (size_t)(nul - (text + pos)) + 1);
      break;
    }
    /* Split into fields; '#' ends them (comment to end of line). */
    uint64_t f[MAX_FIELDS];
    size_t nf = 0;
    bool too_many = false;
    size_t p = pos;
    while (p < end) {
      while (p < end && is_space(text[p])) p++;
      if (p == end || text[p] == '#') break;
      size_t t = p;
      while (p < end && !is_space(text[p]) && text[p] != '#') p++;
      if (nf == MAX_FIELDS) {
        too_many = true;
        nf++;
        continue; /* keep counting for the message */
      }
      if (nf > MAX_FIELDS) {
        nf++;
        continue;
      }
      st = parse_u64(text + t, p - t, line, &f[nf], err);
      if (st) break;
      nf++;
    }
    pos = end < len ? end + 1 : end;
    if (st) break;
    if (nf == 0) continue; /* blank or comment line */
    if (too_many || nf < MIN_FIELDS) {
      st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                        "line %zu: wrong column count: %zu fields, expected 4 to 6 "
                        "(tensor_id first_task last_task and 1 to 3 sizes)",
                        line, nf);
      break;
    }
    unsigned d = (unsigned)(nf - 3);
    if (r->n == 0) {
      r->dims = d;
      first_line = line;
    } else if (d != r->dims) {
      st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                        "line %zu: wrong column count: %zu fields, but the first record (line %zu) has %u",
                        line, nf, first_line, r->dims + 3);
      break;
    }
    if (f[2] < f[1]) {
      st = texmem__fail(err, TEXMEM_STATUS_BAD_RECORDS,
                        "line %zu: last_task %llu < first_task %llu (tensor %llu)", line,
                        (unsigned long long)f[2], (unsigned long long)f[1], (unsigned long long)f[0]);
      break;
    }
    if (r->n == cap) {
      size_t nc = cap ? cap * 2 : 64;
      texmem_record *nr = NULL;
      size_t *nl = NULL;
      if (nc < cap || nc > SIZE_MAX / sizeof *nr ||
          !(nr = realloc(r->rec, nc * sizeof *nr))) {
        st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "line %zu: out of memory for records", line);
        break;
      }
      r->rec = nr;
      if (!(nl = realloc(lines, nc * sizeof *nl))) {
        st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "line %zu: out of memory for records", line);
        break;
      }
      lines = nl;
      cap = nc;
    }
    texmem_record *rc = &r->rec[r->n];
    rc->id = f[0];
    rc->first_task = f[1];
    rc->last_task = f[2];
    for (unsigned k = 0; k < 3; k++) rc->dims[k] = k < d ? f[3 + k] : 1;
    lines[r->n] = line;
    r->n++;
  }
  if (!st) st = check_duplicates(r->rec, lines, r->n, err);
  free(lines);
  if (st) {
    texmem_records_destroy(r);
    return st;
  }
  *out = r;
  return TEXMEM_STATUS_OK;
}

/* Describes errno e into buf (XSI strerror_r: reentrant). */
static const char *errno_text(int e, char *buf, size_t n) {
  if (strerror_r(e, buf, n) != 0) snprintf(buf, n, "errno %d", e);
  return buf;
}

texmem_status texmem_records_load(const char *path, texmem_records **out, texmem_error *err) {
  if (!out) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "out is NULL");
  *out = NULL;
  if (!path) return texmem__fail(err, TEXMEM_STATUS_INVALID_ARGUMENT, "path is NULL");
  char eb[128];
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    int e = errno;
    return texmem__fail(err, TEXMEM_STATUS_IO, "cannot open '%s': %s", path, errno_text(e, eb, sizeof eb));
  }
  /* Read in chunks: works for pipes and files whose size changes. */
  char *buf = NULL;
  size_t len = 0, cap = 0;
  texmem_status st = TEXMEM_STATUS_OK;
  for (;;) {
    if (cap - len < 4096) {
      size_t nc = cap ? cap * 2 : 65536;
      char *nb = nc > cap ? realloc(buf, nc) : NULL;
      if (!nb) {
        st = texmem__fail(err, TEXMEM_STATUS_OUT_OF_MEMORY, "'%s': out of memory reading the file", path);
        break;
      }
      buf = nb;
      cap = nc;
    }
    size_t got = fread(buf + len, 1, cap - len, fp);
    len += got;
    if (got == 0) {
      if (ferror(fp)) {
        int e = errno;
        st = texmem__fail(err, TEXMEM_STATUS_IO, "cannot read '%s': %s", path,
                          errno_text(e, eb, sizeof eb));
      }
      break;
    }
  }
  fclose(fp);
  if (!st) {
    texmem_error pe = {0};
    st = texmem_records_parse(buf, len, out, &pe);
    if (st) texmem__fail(err, st, "%s: %s", path, pe.message);
  }
  free(buf);
  return st;
}

size_t texmem_records_count(const texmem_records *r) { return r ? r->n : 0; }
unsigned texmem_records_dims(const texmem_records *r) { return r ? r->dims : 0; }
const texmem_record *texmem_records_data(const texmem_records *r) { return r ? r->rec : NULL; }
void texmem_records_destroy(texmem_records *r) {
  if (!r) return;
  free(r->rec);
  free(r);
}
