/* status.c -- error reporting helper (see status.h). */
#include "specdec/status.h"

#include <stdio.h>
#include <string.h>

/* Control bytes as \n, \t, \r or \xHH, in place (truncating to size):
 * a message is one line whatever text it quotes. */
static void escape_controls(char *msg, size_t size)
{
    char tmp[sizeof(((sd_error *)0)->msg)];
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
        char esc[8];
        if (*c >= 0x20 && *c != 0x7f)
            snprintf(esc, sizeof esc, "%c", *c);
        else if (*c == '\n' || *c == '\t' || *c == '\r')
            snprintf(esc, sizeof esc, "\\%c", *c == '\n' ? 'n' : *c == '\t' ? 't' : 'r');
        else
            snprintf(esc, sizeof esc, "\\x%02x", *c);
        size_t len = strlen(esc);
        if (n + len >= sizeof tmp) /* whole escapes only, up to the last byte */
            break;
        memcpy(tmp + n, esc, len);
        n += len;
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
