/* json_impl.h -- the private half of io/json.h: what the parser (json.c) and
 * the lookups (json_get.c) share.  Nothing here is installed or exported. */
#ifndef SPECDEC_IO_JSON_IMPL_H
#define SPECDEC_IO_JSON_IMPL_H

#include <stddef.h>

enum { SD_JSON_QUOTE_MAX = 40 }; /* bytes of the input a message quotes at most */

/* A short text for a message, returned by value: print it as f(...).s. */
typedef struct {
    char s[4 * SD_JSON_QUOTE_MAX + 8];
} sd_json_shown;

/* s[0 .. n - 1] in double quotes, at most SD_JSON_QUOTE_MAX bytes of it (then
 * "..."): printable ASCII as it is (" and \ escaped), every other byte as
 * \xHH, so that a message quoting the input holds no control byte. */
sd_json_shown sd_json_quote(const char *s, size_t n);

#endif
