/* npy.h -- NumPy .npy arrays of target and draft logits or probabilities.
 *
 * The format is NumPy's own (numpy.lib.format, "NPY format"; NEP 1): the
 * magic string "\x93NUMPY", a major and a minor version byte, the header
 * length (little-endian uint16 in version 1.0, uint32 in 2.0 and 3.0), then
 * that many bytes of header: an ASCII (3.0: UTF-8) Python dict literal
 * with the keys 'descr', 'fortran_order' and 'shape', padded with spaces
 * and ended by '\n'; the data follow, rows * columns items, nothing after.
 *
 * specdec reads versions 1.0, 2.0 and 3.0; the dtypes '<f2' (IEEE half),
 * '<f4' and '<f8' (little-endian, also on a big-endian host); C order;
 * shape (V,) (one row) or (rows, V), V in [1, SD_VOCAB_MAX], at most
 * SD_NPY_ITEMS_MAX items.  Values may be -inf (a masked logit) but not NaN
 * or +inf.  Everything else -- Fortran order, other dtypes (big-endian,
 * integers, complex, structured), other ranks, a shape the data do not
 * fill (a truncated file) or overfill -- is refused with the reason.
 */
#ifndef SPECDEC_NPY_H
#define SPECDEC_NPY_H

#include <stddef.h>

#include "specdec/status.h"

#define SD_NPY_ITEMS_MAX ((size_t)1 << 28) /* 2 GiB of doubles */

typedef struct {
    size_t rows, cols; /* a (V,) array is one row of V columns */
    int ndim;          /* 1 or 2, as the file's shape */
    double *v;         /* rows * cols values, row after row */
} sd_npy;

/* Parses the len bytes at buf as an .npy file into *out, which the caller
 * releases with sd_npy_free; name (e.g. the path) starts every message.
 * SD_EINVAL says what is wrong (magic, version, header, dtype, order,
 * shape, size, a NaN or +inf value with its row and column); SD_ENOMEM.
 * On failure *out is untouched and nothing is held. */
SD_API sd_status sd_npy_parse(const void *buf, size_t len, const char *name, sd_npy *out, sd_error *err);

/* Reads the file at path as sd_npy_parse does.  SD_EINVAL also when the
 * file cannot be opened or read (naming it and the reason); SD_ENOMEM. */
SD_API sd_status sd_npy_load(const char *path, sd_npy *out, sd_error *err);

/* Writes v[0 .. rows * cols - 1] to path as a version 1.0 '<f8' C-order
 * array of shape (rows, cols), rows and cols >= 1.  SD_EINVAL when path
 * cannot be opened, SD_EIO when writing fails.  Values are written as they
 * are. */
SD_API sd_status sd_npy_save(const char *path, const double *v, size_t rows, size_t cols, sd_error *err);

/* Frees a->v and leaves *a empty. */
SD_API void sd_npy_free(sd_npy *a);

#endif
