/* status.c -- error reporting helper (see status.h). */
#include "specdec.h"

#include <stdio.h>

#include <gsl/gsl_version.h>

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

const char *sd_version(void) { return SPECDEC_VERSION; }

const char *sd_gsl_version(void) { return GSL_VERSION; }
