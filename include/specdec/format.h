/* format.h -- renders a table as text, TSV, CSV, JSON or Markdown.
 *
 *   text      aligned columns, numbers rounded for reading (5 significant
 *             digits, whole numbers without decimals), then the notes
 *   tsv, csv  a header line of column names, full precision (%.17g)
 *   json      one array of objects keyed by the column names, full precision
 *   markdown  a pipe table rounded like text, then the notes
 * Infinite values print as inf (-inf) in text, TSV, CSV and Markdown and as
 * null in JSON.  Numbers always use '.' as the decimal point.
 */
#ifndef SPECDEC_FORMAT_H
#define SPECDEC_FORMAT_H

#include <stdio.h>

#include "specdec/status.h"
#include "specdec/table.h"

typedef enum { SD_FORMAT_TEXT, SD_FORMAT_TSV, SD_FORMAT_CSV, SD_FORMAT_JSON, SD_FORMAT_MARKDOWN } sd_format;

/* The format called name ("text", "tsv", "csv", "json" or "markdown") into
 * *out.  SD_EINVAL for any other name (the message lists the valid ones);
 * on failure *out is untouched. */
SD_API sd_status sd_format_parse(const char *name, sd_format *out, sd_error *err);

/* The names above, comma-separated, for help texts: a per-thread buffer
 * that the next call in the same thread overwrites.  Never fails. */
SD_API const char *sd_format_names(void);

/* Writes t to out in format fmt and flushes out.  SD_EIO when the stream
 * reports an error; the output may then be partly written. */
SD_API sd_status sd_format_write(const sd_table *t, sd_format fmt, FILE *out, sd_error *err);

/* Cell c as the formats print it (readable = 1: text/markdown rounding;
 * 0: full precision; text verbatim) into buf[0..size-1], truncated to
 * size - 1 bytes (size >= 1).  Returns buf; never fails. */
SD_API const char *sd_format_cell(const sd_cell *c, int readable, char *buf, size_t size);

#endif
