/* file.h -- the one whole-file reader of the library (private).
 *
 * Readers that parse a file whole (engine logs, .npy arrays, corpora) get it
 * from here, NUL-terminated, so that the limits and the messages are the
 * same everywhere. */
#ifndef SPECDEC_FILE_H
#define SPECDEC_FILE_H

#include <stddef.h>

#include "specdec/status.h"

/* The bytes of the file at path into a malloc'd *out (len bytes, then a NUL
 * byte past them, not counted), which the caller frees.  At most max bytes:
 * a longer file is refused.  The buffer grows by doubling from 64 KiB, so a
 * file costs at most about twice its size while it is read.  SD_EINVAL,
 * naming the path, when the file cannot be opened or read or is longer than
 * max; SD_ENOMEM.  On failure *out and *len are untouched. */
sd_status sd_file_read(const char *path, size_t max, char **out, size_t *len, sd_error *err);

#endif
