/* status.c -- error reporting helper (see status.h). */
#include "specdec/status.h"

#include <stdio.h>

/* Control bytes as \n, \t, \r or \xHH, in place (truncating to size):
 * a message is one line whatever text it quotes. */
static void escape_controls(char *msg, size_t size)
{
    char tmp[sizeof(((sd_error *)0)->msg)];
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)msg; *c && n + 5 < sizeof tmp; c++) {
        if (*c >= 0x20 && *c != 0x7f) {
            tmp[n++] = (char)*c;
        } else if (*c == '\n' || *c == '\t' || *c == '\r') {
            tmp[n++] = '\\';
            tmp[n++] = *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r';
        } else {
            n += (size_t)snprintf(tmp + n, sizeof tmp - n, "\\x%02x", *c);
        }
    }
    tmp[n] = '\0';
    snprintf(msg, size, "%s", tmp);
}

sd_status sd_status_fail(sd_error *err, sd_status status, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        escape_controls(err->msg, sizeof err->msg);
    }
    return status;
}
