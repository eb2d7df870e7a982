/* text.h -- the text layer of the counters readers (private to src/counters).
 *
 * A file read whole into lines, the blanks, spans and lists of a line, and
 * the number grammars the engines print: whole counts, decimals with the
 * half-width of their rounding, lists of rates, Go's floats.  Nothing here
 * knows a format: the readers (counters_impl.h) build on it.  A span is
 * s[0..n-1], not NUL-terminated; functions that take one read no further.
 */
#ifndef SPECDEC_COUNTERS_TEXT_H
#define SPECDEC_COUNTERS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/status.h"

/* The largest whole count: 2^53, beyond which a double cannot tell a count is whole. */
#define SD_TEXT_COUNT_MAX 9007199254740992.0

/* The file as lines: NUL-terminated, without the line feed and a trailing CR
 * (a line with a NUL byte ends there). */
typedef struct {
    char *buf;
    char **line;  /* line[0 .. n-1], pointing into buf */
    size_t n;
    size_t longest; /* the longest line's length (strlen) */
} sd_text_lines;

/* Reads the file at path (at most 1 GiB, through sd_file_read) into *t, split
 * into lines: a line feed ends a line, a last line without one counts.  The
 * caller frees *t with sd_text_free.  SD_EINVAL (naming the path) when the
 * file cannot be opened or read or is too long; SD_ENOMEM.  On failure *t
 * holds nothing to free (all zero). */
sd_status sd_text_read(const char *path, sd_text_lines *t, sd_error *err);

/* Frees what sd_text_read allocated and zeroes *t; a zeroed *t is fine. */
void sd_text_free(sd_text_lines *t);

/* 1 for a blank: a space or a tab; 0 otherwise. */
int sd_text_blank(char ch);

/* s past its leading blanks (s itself when there are none). */
const char *sd_text_skip_blank(const char *s);

/* Narrows the span *s, *n to drop leading and trailing blanks. */
void sd_text_trim(const char **s, size_t *n);

/* 1 when the span s[0..n-1] is exactly the string word; 0 otherwise. */
int sd_text_span_is(const char *s, size_t n, const char *word);

/* The next item of the NUL-terminated list *s, split at commas outside
 * parentheses and brackets, trimmed into *item, *len; *s moves past the item
 * and its comma.  0 at the end of the string (nothing written). */
int sd_text_next_item(const char **s, const char **item, size_t *len);

/* A whole count: the span is digits only (no sign, no blanks; at most 16 of
 * them), with a value of at most 2^53, into *out.  0 otherwise (*out
 * untouched). */
int sd_text_count(const char *s, size_t n, uint64_t *out);

/* A printed decimal [+-]d[.d] (no exponent; digits on either side of the
 * point may be missing, but not on both), or nan/inf (with an optional sign)
 * as Python prints them (*x NaN or infinite, *half 0), into *x.  *half: half
 * a unit of the last printed digit (0.5 for "3", 0.0005 for "0.600"), the
 * rounding the printed figure allows.  0 when malformed or 64 bytes or longer
 * (*x, *half untouched). */
int sd_text_decimal(const char *s, size_t n, double *x, double *half);

/* A comma-separated list of decimals in [0, 1] (sd_text_decimal; no
 * parentheses) into r[0 .. *k - 1], at most max of them; *half: the coarsest
 * half-unit printed (0 for an empty list).  An empty or blank span is a list
 * of none.  1 with *k = max + 1 when there are more than max (r[0 .. max - 1]
 * written).  0 when an item is malformed or outside [0, 1], or the span is
 * 2048 bytes or longer (r, *k and *half then hold what was read so far). */
int sd_text_rates(const char *s, size_t n, double *r, size_t max, size_t *k, double *half);

/* A float as Go's strconv.ParseFloat reads it: [+-] digits [. digits]
 * [(e|E) [+-] digits] with a digit somewhere before the exponent, or inf,
 * infinity, nan in any case (with an optional sign); no hexadecimal floats.
 * Into *x.  0 when malformed, 400 bytes or longer, or out of range (an
 * overflow to infinity; an underflow to 0 or a subnormal is read). */
int sd_text_go_float(const char *s, size_t n, double *x);

#endif
