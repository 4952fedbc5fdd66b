/* Records parser and loader: syntax, every error path, the model files. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* Parses a C string; returns the status, *out owned by the caller. */
static texmem_status parse(const char *s, texmem_records **out, texmem_error *e) {
  memset(e, 0, sizeof *e);
  return texmem_records_parse(s, strlen(s), out, e);
}

static texmem_records *parse_ok(const char *s) {
  texmem_records *r = NULL;
  texmem_error e;
  texmem_status st = parse(s, &r, &e);
  cr_assert_eq(st, TEXMEM_STATUS_OK, "%s: %s", texmem_status_name(st), e.message);
  cr_assert_not_null(r);
  return r;
}

/* Asserts that parsing fails with status st and a message naming `line`
 * and containing `what`. */
static void parse_fails(const char *s, texmem_status st, const char *line, const char *what) {
  texmem_records *r = (texmem_records *)1;
  texmem_error e;
  texmem_status got = parse(s, &r, &e);
  cr_assert_eq(got, st, "expected %s, got %s (%s) for <%s>", texmem_status_name(st),
               texmem_status_name(got), e.message, s);
  cr_assert_null(r);
  cr_assert_eq(e.status, st);
  cr_assert(strstr(e.message, line), "message '%s' does not name '%s'", e.message, line);
  cr_assert(strstr(e.message, what), "message '%s' does not say '%s'", e.message, what);
}

static void check_rec(const texmem_record *r, uint64_t id, uint64_t f, uint64_t l, uint64_t d0,
                      uint64_t d1, uint64_t d2) {
  cr_assert_eq(r->id, id);
  cr_assert_eq(r->first_task, f);
  cr_assert_eq(r->last_task, l);
  cr_assert_eq(r->dims[0], d0);
  cr_assert_eq(r->dims[1], d1);
  cr_assert_eq(r->dims[2], d2);
}

Test(records, basic_1d) {
  texmem_records *r = parse_ok("0 0 1 64\n1 1 2 128\n2 2 2 0\n");
  cr_assert_eq(texmem_records_count(r), 3);
  cr_assert_eq(texmem_records_dims(r), 1);
  const texmem_record *d = texmem_records_data(r);
  check_rec(&d[0], 0, 0, 1, 64, 1, 1);
  check_rec(&d[1], 1, 1, 2, 128, 1, 1);
  check_rec(&d[2], 2, 2, 2, 0, 1, 1);
  texmem_records_destroy(r);
}

Test(records, comments_blank_lines_and_tabs) {
  texmem_records *r = parse_ok("# header\n\n   \n\t# indented comment\n"
                               "5\t0  3 10   # trailing comment\n"
                               "6 1 2 20#no space before the comment\n"
                               "# 7 0 0 1 (commented out)\n\n");
  cr_assert_eq(texmem_records_count(r), 2);
  const texmem_record *d = texmem_records_data(r);
  check_rec(&d[0], 5, 0, 3, 10, 1, 1);
  check_rec(&d[1], 6, 1, 2, 20, 1, 1);
  texmem_records_destroy(r);
}

Test(records, crlf_and_no_trailing_newline) {
  texmem_records *r = parse_ok("# c\r\n0 0 1 4 5\r\n\r\n1 1 2 6 7");
  cr_assert_eq(texmem_records_count(r), 2);
  cr_assert_eq(texmem_records_dims(r), 2);
  check_rec(&texmem_records_data(r)[1], 1, 1, 2, 6, 7, 1);
  texmem_records_destroy(r);
}

Test(records, ids_not_zero_based_and_unsorted) {
  texmem_records *r = parse_ok("900 7 9 1\n17 0 3 2\n4000000000000 2 2 3\n");
  cr_assert_eq(texmem_records_count(r), 3);
  const texmem_record *d = texmem_records_data(r);
  /* File order is kept; ids and tasks are stored as written. */
  check_rec(&d[0], 900, 7, 9, 1, 1, 1);
  check_rec(&d[1], 17, 0, 3, 2, 1, 1);
  check_rec(&d[2], 4000000000000ull, 2, 2, 3, 1, 1);
  texmem_records_destroy(r);
}

Test(records, three_dims) {
  texmem_records *r = parse_ok("0 0 1 64 64 6\n1 1 4 32 32 12\n");
  cr_assert_eq(texmem_records_dims(r), 3);
  check_rec(&texmem_records_data(r)[1], 1, 1, 4, 32, 32, 12);
  texmem_records_destroy(r);
}

Test(records, empty_inputs) {
  const char *texts[] = {"", "\n\n", "# only a comment", "  \r\n# x\r\n"};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
    texmem_records *r = parse_ok(texts[i]);
    cr_assert_eq(texmem_records_count(r), 0);
    cr_assert_eq(texmem_records_dims(r), 1);
    texmem_records_destroy(r);
  }
  texmem_records *r = NULL;
  texmem_error e;
  cr_assert_eq(texmem_records_parse(NULL, 0, &r, &e), TEXMEM_STATUS_OK);
  cr_assert_eq(texmem_records_count(r), 0);
  texmem_records_destroy(r);
}

Test(records, huge_numbers) {
  texmem_records *r = parse_ok("18446744073709551615 9223372036854775808 18446744073709551615 "
                               "9223372036854775808\n");
  check_rec(&texmem_records_data(r)[0], UINT64_MAX, 1ull << 63, UINT64_MAX, 1ull << 63, 1, 1);
  texmem_records_destroy(r);
  /* Leading zeros do not overflow. */
  r = parse_ok("0 0 1 000000000000000000000000000000042\n");
  cr_assert_eq(texmem_records_data(r)[0].dims[0], 42);
  texmem_records_destroy(r);
  parse_fails("0 0 1 1\n1 0 1 18446744073709551616\n", TEXMEM_STATUS_OVERFLOW, "line 2", "overflow");
  parse_fails("0 0 99999999999999999999999 1\n", TEXMEM_STATUS_OVERFLOW, "line 1", "overflow");
}

Test(records, malformed_tokens) {
  const char *bad[] = {"0 0 1 12a\n", "0 0 1 0x10\n", "0 0 1 +3\n", "0 0 1 1.5\n",
                       "0 0 1 -\n",   "x 0 1 1\n",    "0 0 1 1e3\n"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    parse_fails(bad[i], TEXMEM_STATUS_BAD_RECORDS, "line 1", "malformed token");
  parse_fails("# c\n\n0 0 1 4\n1 1 2 four\n", TEXMEM_STATUS_BAD_RECORDS, "line 4", "'four'");
}

Test(records, bad_token_bytes_are_escaped) {
  /* A terminal escape, a bell, a backslash and a high byte: echoed as \xNN. */
  const char text[] = "0 0 1 4\n1 1 2 \x1b[31mred\a\\\xff\n";
  texmem_records *r = NULL;
  texmem_error e;
  cr_assert_eq(texmem_records_parse(text, sizeof text - 1, &r, &e), TEXMEM_STATUS_BAD_RECORDS);
  cr_assert_null(r);
  cr_assert(strstr(e.message, "'\\x1b[31mred\\x07\\x5c\\xff'"), "%s", e.message);
  for (const char *c = e.message; *c; c++)
    cr_assert((unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f, "raw byte 0x%02x in: %s",
              (unsigned char)*c, e.message);
  /* Long tokens stay cut at 40 bytes, escapes included. */
  char longtok[128] = "0 0 1 ";
  for (int i = 0; i < 60; i++) strcat(longtok, "\x1b");
  strcat(longtok, "\n");
  cr_assert_eq(texmem_records_parse(longtok, strlen(longtok), &r, &e), TEXMEM_STATUS_BAD_RECORDS);
  cr_assert(strstr(e.message, "\\x1b...'"), "%s", e.message);
  cr_assert(!strchr(e.message, 0x1b));
}

Test(records, negative_number) {
  parse_fails("0 0 1 8\n1 -1 2 8\n", TEXMEM_STATUS_BAD_RECORDS, "line 2", "negative number");
  parse_fails("0 0 1 -8\n", TEXMEM_STATUS_BAD_RECORDS, "line 1", "negative number");
}

Test(records, last_before_first) {
  parse_fails("0 0 1 8\n\n3 5 4 8\n", TEXMEM_STATUS_BAD_RECORDS, "line 3", "last_task 4 < first_task 5");
}

Test(records, wrong_column_count) {
  parse_fails("0 0 1\n", TEXMEM_STATUS_BAD_RECORDS, "line 1", "wrong column count");
  parse_fails("0 0 1 1 2 3 4\n", TEXMEM_STATUS_BAD_RECORDS, "line 1", "7 fields");
  parse_fails("0 0 1 1 2 3 4 5 6 7\n", TEXMEM_STATUS_BAD_RECORDS, "line 1", "wrong column count");
  parse_fails("0 0 1 4 4\n1 1 2 4\n", TEXMEM_STATUS_BAD_RECORDS, "line 2", "first record (line 1)");
  parse_fails("# c\n0 0 1 4\n1 1 2 4 4 4 # comment\n", TEXMEM_STATUS_BAD_RECORDS, "line 3",
              "wrong column count");
  parse_fails("5\n", TEXMEM_STATUS_BAD_RECORDS, "line 1", "wrong column count");
}

Test(records, duplicate_id) {
  parse_fails("7 0 1 8\n3 1 2 8\n\n7 2 3 8\n", TEXMEM_STATUS_BAD_RECORDS, "line 4",
              "duplicate tensor id 7 (first on line 1)");
  /* The earliest repeated line is reported, whatever the ids' order. */
  parse_fails("9 0 1 8\n2 0 1 8\n2 0 1 8\n9 0 1 8\n9 0 1 8\n", TEXMEM_STATUS_BAD_RECORDS,
              "line 3", "duplicate tensor id 2 (first on line 2)");
  parse_fails("9 0 1 8\n1 0 1 8\n9 0 1 8\n9 0 1 8\n", TEXMEM_STATUS_BAD_RECORDS, "line 3",
              "first on line 1");
}

Test(records, nul_byte) {
  const char text[] = "0 0 1 8\n1 1 2\0 8\n";
  texmem_records *r = NULL;
  texmem_error e;
  cr_assert_eq(texmem_records_parse(text, sizeof text - 1, &r, &e), TEXMEM_STATUS_BAD_RECORDS);
  cr_assert_null(r);
  cr_assert(strstr(e.message, "line 2") && strstr(e.message, "NUL"), "%s", e.message);
}

Test(records, long_lines_are_not_truncated) {
  size_t pad = 200000;
  char *s = malloc(pad * 2 + 64);
  cr_assert_not_null(s);
  memset(s, ' ', pad);
  strcpy(s + pad, "0 0 1 12345");
  size_t l = strlen(s);
  memset(s + l, ' ', pad);
  strcpy(s + l + pad, "# long comment\n1 1 2 6\n");
  texmem_records *r = parse_ok(s);
  cr_assert_eq(texmem_records_count(r), 2);
  cr_assert_eq(texmem_records_data(r)[0].dims[0], 12345);
  texmem_records_destroy(r);
  /* A long bad token is shown shortened, still with the line. */
  memset(s, '7', pad);
  strcpy(s + pad, " 0 1 1\n");
  parse_fails(s, TEXMEM_STATUS_OVERFLOW, "line 1", "...");
  free(s);
}

Test(records, many_records) {
  size_t n = 5000;
  char *s = malloc(n * 40);
  cr_assert_not_null(s);
  size_t p = 0;
  for (size_t i = 0; i < n; i++) p += (size_t)sprintf(s + p, "%zu %zu %zu %zu\n", n - i, i, i + 3, i * 7);
  texmem_records *r = parse_ok(s);
  cr_assert_eq(texmem_records_count(r), n);
  check_rec(&texmem_records_data(r)[n - 1], 1, n - 1, n + 2, (n - 1) * 7, 1, 1);
  texmem_records_destroy(r);
  free(s);
}

Test(records, null_arguments) {
  texmem_error e;
  cr_assert_eq(texmem_records_parse("0 0 1 1", 7, NULL, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  texmem_records *r = NULL;
  cr_assert_eq(texmem_records_parse(NULL, 3, &r, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_records_load(NULL, &r, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  cr_assert_eq(texmem_records_load("x", NULL, &e), TEXMEM_STATUS_INVALID_ARGUMENT);
  /* err may be NULL too. */
  cr_assert_eq(texmem_records_parse("bad", 3, &r, NULL), TEXMEM_STATUS_BAD_RECORDS);
  texmem_records_destroy(NULL);
  cr_assert_eq(texmem_records_count(NULL), 0);
  cr_assert_eq(texmem_records_dims(NULL), 0);
  cr_assert_null(texmem_records_data(NULL));
}

Test(records, load_io_errors_name_path) {
  texmem_records *r = NULL;
  texmem_error e;
  const char *missing = TEXMEM_BINARY_DIR "/no/such/records.txt";
  cr_assert_eq(texmem_records_load(missing, &r, &e), TEXMEM_STATUS_IO);
  cr_assert_null(r);
  cr_assert(strstr(e.message, missing) && strstr(e.message, "No such file"), "%s", e.message);
  /* A directory opens but cannot be read. */
  cr_assert_eq(texmem_records_load(TEXMEM_TEST_DATA, &r, &e), TEXMEM_STATUS_IO);
  cr_assert(strstr(e.message, TEXMEM_TEST_DATA), "%s", e.message);
  /* ...and says why, in the system's words. */
  cr_assert(strstr(e.message, "Is a directory"), "%s", e.message);
}

Test(records, load_parse_error_names_path_and_line) {
  char path[] = "/tmp/texmem_records_XXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  const char text[] = "0 0 1 4\n1 2 1 4\n";
  cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
  close(fd);
  texmem_records *r = NULL;
  texmem_error e;
  cr_assert_eq(texmem_records_load(path, &r, &e), TEXMEM_STATUS_BAD_RECORDS);
  cr_assert(strstr(e.message, path) && strstr(e.message, "line 2"), "%s", e.message);
  unlink(path);
}

Test(records, model_files) {
  static const struct {
    const char *model;
    size_t count;
  } models[] = {{"selfie_segmentation", 135},
                {"face_detection_short_range", 88},
                {"hand_landmark_lite", 61},
                {"pose_landmark_lite", 124}};
  for (size_t m = 0; m < 4; m++)
    for (unsigned d = 1; d <= 3; d++) {
      char name[128];
      snprintf(name, sizeof name, "%s.%ud.txt", models[m].model, d);
      texmem_records *r = tt_load_records(name);
      cr_assert_eq(texmem_records_count(r), models[m].count, "%s", name);
      cr_assert_eq(texmem_records_dims(r), d, "%s", name);
      /* Ids are 0..n-1 in file order in these files. */
      const texmem_record *rec = texmem_records_data(r);
      for (size_t i = 0; i < models[m].count; i++) cr_assert_eq(rec[i].id, i);
      texmem_records_destroy(r);
    }
}
