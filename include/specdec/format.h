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

/* "text", "tsv", "csv", "json" or "markdown"; SD_EINVAL names the valid ones. */
SD_API sd_status sd_format_parse(const char *name, sd_format *out, sd_error *err);

/* The names above, comma-separated, for help texts. */
SD_API const char *sd_format_names(void);

/* Writes t to out; SD_EIO if the stream reports an error. */
SD_API sd_status sd_format_write(const sd_table *t, sd_format fmt, FILE *out, sd_error *err);

/* A cell as the given format prints it (readable = text/markdown rounding). */
SD_API const char *sd_format_cell(const sd_cell *c, int readable, char *buf, size_t size);

#endif
