/* records.h -- typed records from TSV files: the one loader behind every
 * table the cost layer reads (presets, step times, calibrations, acceptance
 * by context).  Private to the library.
 *
 * A record is a C struct; each column of the file fills one field of it, by
 * a row of a column table.  The file has a header line naming its columns
 * (in any order; others are ignored), # comments, and at most
 * SD_RECORDS_MAX rows. */
#ifndef SPECDEC_RECORDS_H
#define SPECDEC_RECORDS_H

#include <stddef.h>

#include "specdec/status.h"

#define SD_RECORDS_MAX 100000 /* rows a file may hold */
#define SD_RECORDS_COLUMNS 64 /* columns a table may describe */

/* How one column becomes a field of a record. */
typedef enum {
    SD_RECORDS_NAME,   /* text of 1 to 63 characters into a char[64] */
    SD_RECORDS_NUMBER, /* a number in [min, max] (whole when whole), times scale, into a double */
    SD_RECORDS_DTYPE,  /* a number type's name (dtype.h) into an sd_dtype */
    SD_RECORDS_SWITCH, /* "on" or "off" into an int, 1 or 0 */
} sd_records_kind;

/* One column; name its fields in the table (designated initializers). */
typedef struct {
    const char *col;     /* the column's name in the header line */
    sd_records_kind kind;
    size_t offset;       /* of the field in the record */
    double min, max;     /* numbers: the domain */
    int whole;           /* numbers: whole numbers only */
    double scale;        /* numbers: the file's unit in SI units (1: as written) */
    int dash;            /* numbers: "-" stands for 0 */
    int optional;        /* the column may be missing: every record then gets dflt (a name: "") */
    double dflt;
} sd_records_col;

/* What a file's records look like. */
typedef struct {
    const sd_records_col *cols;
    size_t ncols;        /* at most SD_RECORDS_COLUMNS */
    size_t size;         /* bytes of one record */
    size_t line_offset;  /* where a record keeps its line number (a size_t); (size_t)-1: nowhere */
} sd_records_layout;

/* Every row of the TSV file path as a calloc'd array of *n records (the
 * caller frees it), each field read by its column.  SD_EINVAL names the
 * file, line and column (a missing column, a bad value, a name too long,
 * too many rows); SD_ENOMEM.  On failure *out and *n are untouched. */
sd_status sd_records_load(const char *path, const sd_records_layout *layout, void **out, size_t *n, sd_error *err);

#endif
