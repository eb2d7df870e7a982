/* parse.h -- strict parsing of numbers, lists and ranges.
 *
 * A number is decimal: [+-]digits[.digits][(e|E)[+-]digits], nothing before
 * or after it.  inf, nan, hex floats, empty strings, trailing garbage and
 * values that overflow a double are errors.
 *
 * A list is a comma-separated sequence of items; an item is a number or an
 * inclusive range start:stop[:step] (step defaults to 1).  Ranges must
 * ascend, with step > 0; stop is included when it lies on the grid (to a
 * relative 1e-9 of a step).  Grid points are rounded to the decimals written
 * in start and step, so 0.5:0.95:0.05 gives exactly 0.5, 0.55, ..., 0.95.
 *
 * Every message names the option (or file) from the domain and states the
 * valid range.
 */
#ifndef SPECDEC_PARSE_H
#define SPECDEC_PARSE_H

#include <stddef.h>

#include "specdec/status.h"

/* What an option accepts: a closed interval, optionally whole numbers only. */
typedef struct {
    const char *name; /* for messages: "--alpha", "p.txt:3" */
    double min, max;  /* inclusive; use INFINITY for no upper limit */
    int whole;        /* 1: whole numbers only */
} sd_domain;

/* The most items one list may expand to. */
#define SD_LIST_MAX 10000000u

typedef struct {
    double *v;
    size_t n;
} sd_list;

/* One number in dom, from text, into *out.  SD_EINVAL when text is not a
 * number or lies outside dom; on failure *out is untouched. */
SD_API sd_status sd_parse_number(const char *text, const sd_domain *dom, double *out, sd_error *err);

/* SD_OK when x lies in dom (a finite number: an infinity lies outside
 * "[0, inf)"), else SD_EINVAL: "NAME: X is outside RANGE" (X its shortest
 * exact decimal) or "NAME: X is not a whole number; expected
 * RANGE", the messages sd_parse_number gives. */
SD_API sd_status sd_parse_check(double x, const sd_domain *dom, sd_error *err);

/* A list of numbers in dom (see above), in the order written, into *out:
 * at least one and at most SD_LIST_MAX items.  The caller owns out->v and
 * releases it with sd_parse_list_free.  SD_EINVAL for a malformed item or range,
 * a value outside dom, or too many items; SD_ENOMEM.  On failure *out is
 * untouched and nothing is held. */
SD_API sd_status sd_parse_list(const char *text, const sd_domain *dom, sd_list *out, sd_error *err);

/* Frees list->v and leaves *list empty (list itself must not be NULL). */
SD_API void sd_parse_list_free(sd_list *list);

/* Formats dom's interval for a message, e.g. "[0, 1]" or "whole numbers in
 * [1, 1000000000]", into buf[0..size-1] (truncated to fit).  Returns buf; never
 * fails. */
SD_API const char *sd_parse_domain_describe(const sd_domain *dom, char *buf, size_t size);

#endif
