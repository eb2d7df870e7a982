/* file.c -- whole files into memory (see file.h). */
#include "file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FIRST_CHUNK = 65536 };

sd_status sd_file_read(const char *path, size_t max, char **out, size_t *len, sd_error *err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: cannot open: %s", path, strerror(errno));
    size_t n = 0, cap = 0, got;
    char *buf = NULL;
    sd_status st = SD_OK;
    do {
        if (cap - n < 2) { /* room for one more byte than max, and the NUL */
            size_t ncap = cap ? 2 * cap : FIRST_CHUNK;
            if (cap > max / 2 + 1)
                ncap = max + 2; /* the last growth: one byte past max tells a longer file */
            char *bigger = n <= max ? realloc(buf, ncap) : NULL;
            if (bigger == NULL) {
                st = n > max ? sd_status_fail(err, SD_EINVAL, "%s: larger than %zu bytes", path, max)
                             : sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = bigger;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
    } while (got > 0);
    if (st == SD_OK && ferror(f))
        st = sd_status_fail(err, SD_EINVAL, "%s: cannot read: %s", path, strerror(errno));
    fclose(f);
    if (st == SD_OK && n > max)
        st = sd_status_fail(err, SD_EINVAL, "%s: larger than %zu bytes", path, max);
    if (st != SD_OK) {
        free(buf);
        return st;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return SD_OK;
}
