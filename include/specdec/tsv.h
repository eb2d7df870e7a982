/* tsv.h -- tab-separated files, read whole with their line numbers.
 *
 * Lines are split at tabs; each field loses surrounding spaces (and a CR).
 * Blank lines and lines starting with # are skipped.  With a header, the
 * first other line names the columns and every row must have that many
 * fields.  Each row keeps its line number for messages ("file:line: ...").
 */
#ifndef SPECDEC_TSV_H
#define SPECDEC_TSV_H

#include <stddef.h>

#include "specdec/status.h"

typedef struct {
    char **field;  /* nfields strings */
    size_t nfields;
    size_t line;   /* 1-based line number in the file */
} sd_tsv_row;

typedef struct {
    char **column; /* ncolumns names, or NULL without a header */
    size_t ncolumns;
    sd_tsv_row *row;
    size_t nrows;
} sd_tsv;

/* Reads path into *out (header = 1: the first line names the columns); at
 * most max_rows rows besides the header.  The caller owns *out and releases
 * it with sd_tsv_free.  SD_EINVAL names the file (and line) when it cannot
 * be opened or read, lacks its header, has a row of the wrong width or more
 * than max_rows rows; SD_ENOMEM.  On failure *out is empty (zeroed) and
 * nothing is held. */
SD_API sd_status sd_tsv_load(const char *path, int header, size_t max_rows, sd_tsv *out, sd_error *err);
/* Frees every string of t and leaves *t empty. */
SD_API void sd_tsv_free(sd_tsv *t);
/* The index of column name, or (size_t)-1 (always, without a header). */
SD_API size_t sd_tsv_column(const sd_tsv *t, const char *name);

#endif
