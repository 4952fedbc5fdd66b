/* Status names/messages and the error helpers. */
#include <stdarg.h>
#include <stdio.h>

#include <string.h>

#include "common.h"

static const char *const status_names[] = {
#define X(name, msg) "TEXMEM_STATUS_" #name,
    TEXMEM_STATUS_LIST(X)
#undef X
};
static const char *const status_messages[] = {
#define X(name, msg) msg,
    TEXMEM_STATUS_LIST(X)
#undef X
};

const char *texmem_status_name(texmem_status s) {
  if ((unsigned)s >= TEXMEM_STATUS_COUNT_) return "TEXMEM_STATUS_UNKNOWN";
  return status_names[s];
}

const char *texmem_status_message(texmem_status s) {
  if ((unsigned)s >= TEXMEM_STATUS_COUNT_) return "unknown status";
  return status_messages[s];
}

texmem_status texmem__fail(texmem_error *err, texmem_status s, const char *fmt,
                           ...) {
  if (err) {
    err->status = s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return s;
}

texmem_status texmem__prefix(texmem_error *err, const char *fmt, ...) {
  if (!err) return TEXMEM_STATUS_OK;
  char msg[sizeof err->message];
  memcpy(msg, err->message, sizeof msg);
  msg[sizeof msg - 1] = 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  size_t used = n < 0 ? 0 : (size_t)n < sizeof err->message ? (size_t)n : sizeof err->message - 1;
  snprintf(err->message + used, sizeof err->message - used, "%s", msg);
  return err->status;
}
