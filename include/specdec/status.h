/* status.h -- how the specdec library reports failure.
 *
 * Library functions never print and never exit.  A function that can fail
 * returns an sd_status and, when given a non-NULL sd_error, writes one line
 * (no trailing newline) saying what was wrong and what the valid range is.
 * The program prefixes that line with its name and maps the status to an
 * exit code: SD_EINVAL -> 2, anything else -> 1.  SD_ECHECK alone comes with
 * a complete result, which the program prints before exiting with 1.
 */
#ifndef SPECDEC_STATUS_H
#define SPECDEC_STATUS_H

#include <stdarg.h>

/* SD_API marks the library's exported functions: the shared library is
 * built with -fvisibility=hidden, so only what a public header declares
 * with SD_API is visible to programs. */
#if defined(__GNUC__)
#define SD_API __attribute__((visibility("default")))
#else
#define SD_API
#endif

typedef enum {
    SD_OK = 0,
    SD_EINVAL, /* invalid usage or input: the caller can fix it        */
    SD_EIO,    /* a file or program could not be read, written or run
                * (from the library: only sd_format_write's output)     */
    SD_ENOMEM, /* an allocation failed                                 */
    SD_EFAIL,  /* any other failure (a numerical routine did not converge) */
    SD_ECHECK  /* the run completed and its report is valid, but a check in it
                * failed: sd_cmd_validate_table alone returns it, with its whole
                * table (cmd_validate.h) */
} sd_status;

typedef struct {
    char msg[512];
} sd_error;

/* Writes a printf-style message into err->msg (when err is non-NULL;
 * truncated to 511 bytes, always terminated) and returns status, so that a
 * failing function can `return sd_status_fail(err, SD_EINVAL, ...)`.  Control
 * bytes in the message (from quoted input) are written as \n, \t, \r or
 * \xHH, so a message is always one line.  Never fails. */
SD_API sd_status sd_status_fail(sd_error *err, sd_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
