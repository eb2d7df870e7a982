/* status.c -- error reporting helper (see status.h). */
#include "status.h"

#include <stdio.h>

sd_status sd_fail(sd_error *err, sd_status status, const char *fmt, ...)
{
    if (err != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return status;
}
