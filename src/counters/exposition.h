/* exposition.h -- Prometheus's text exposition format, read strictly (private to src/counters).
 *
 * Source: https://prometheus.io/docs/instrumenting/exposition_formats/ ("Text format details"):
 * lines end with '\n' (a CR before it is dropped by the text layer); blank lines are ignored;
 * tokens are separated by blanks and tabs, leading and trailing ones ignored.  '#' starts a
 * comment; the comments "# HELP name docstring" (docstring escapes \\ and \n) and "# TYPE name
 * counter|gauge|histogram|summary|untyped" are checked.  A sample is
 *   metric_name [ "{" label_name "=" `"` label_value `"` { "," ... } [ "," ] "}" ] value [ timestamp ]
 * or "{" `"`metric_name`"` [ "," labels ] "}" value [ timestamp ] for names outside the legacy
 * character set (label names may be quoted too); label values escape backslash, double quote and
 * line feed as \\, \" and \n (no other escape); value is a float as Go's ParseFloat reads it
 * (NaN, +Inf, -Inf valid; hexadecimal floats are not accepted here), timestamp an int64.
 * prometheus_client (prometheus/client_python, prometheus_client/exposition.py, generate_latest)
 * exposes a counter x as samples x_total under "# TYPE x_total counter" (plus x_created), so the
 * names of a caller's table are matched with or without "_total".
 *
 * Nothing here knows an engine: the caller (prometheus.c) names the metrics it wants in a
 * table, and the scanner checks every line of the file and keeps the samples of those
 * metrics, a series each: the metric, the value of its index label (a position), the other
 * labels as a key, the value and the line.
 */
#ifndef SPECDEC_COUNTERS_EXPOSITION_H
#define SPECDEC_COUNTERS_EXPOSITION_H

#include <stddef.h>

#include "specdec/status.h"
#include "text.h"

/* A metric a caller wants. */
typedef struct {
    const char *name;  /* without prometheus_client's "_total" */
    int gauge;         /* 1: a gauge, whose value is any finite number; 0: a counter, whose
                        * value is a whole count in [0, 2^53] */
    int group;         /* who exposes it (an index into sd_expo_table.group) */
    int tag;           /* the caller's: what the metric means to it */
    const char *index; /* the label that numbers its series (0, 1, ... in decimal), or NULL */
} sd_expo_metric;

/* The caller's table of metrics. */
typedef struct {
    const sd_expo_metric *metric;
    size_t n;
    const char *const *group;  /* the groups' names, for the messages ("vLLM") */
    size_t index_max;          /* an index label's value must be below it */
    const char *index_beyond;  /* what a value at index_max or above is: "gamma beyond 64" */
} sd_expo_table;

/* A label=value that picks the series to keep (name NULL: keep every series). */
typedef struct {
    const char *name, *val;
    size_t nn, vn;
} sd_expo_select;

/* One sample kept. */
typedef struct {
    size_t metric; /* its row in the table */
    int index;     /* its index label's value; -1 for a metric without one */
    char *key;     /* the other labels, sorted by name and escaped: a="x",b="y" */
    double value;
    size_t line;
} sd_expo_series;

/* The samples of one file. */
typedef struct {
    sd_expo_series *s;
    size_t n, cap;
    int group;         /* the group of its samples; -1 when it has none */
    size_t group_line; /* the first of them */
} sd_expo_scrape;

/* The row of the table whose metric is name[0 .. n-1] (with or without "_total"), or -1. */
int sd_expo_metric_of(const sd_expo_table *tab, const char *name, size_t n);

/* s ("label=value", the value optionally in double quotes; NULL for none) into *sel.
 * SD_EINVAL, starting with path, when it is not label=value or names an index label of the
 * table. */
sd_status sd_expo_select_parse(const char *path, const char *s, const sd_expo_table *tab, sd_expo_select *sel,
                               sd_error *err);

/* Every line of t (the file at path) checked as exposition text; the samples of the
 * table's metrics that sel picks into *out, which comes zeroed and which the caller frees
 * with sd_expo_free (also on failure).  A metric of the table declared of another TYPE than
 * its own (or untyped), a counter's value that is not a whole count, a gauge's that is not
 * finite, an index label missing or not a number below index_max, a series twice, and
 * samples of two groups are refused.  SD_EINVAL with "path:line: ..." at the first line
 * that fails; SD_ENOMEM. */
sd_status sd_expo_scan(const char *path, const sd_text_lines *t, const sd_expo_table *tab, const sd_expo_select *sel,
                       sd_expo_scrape *out, sd_error *err);

/* now less then, the scrape of the file since, series by series: a counter of then must be
 * in now and no smaller, and now's is reduced by it; a gauge keeps now's value.  *fresh:
 * the series of now that then does not have.  SD_EINVAL starting with path. */
sd_status sd_expo_delta(const char *path, const char *since, const sd_expo_table *tab, sd_expo_scrape *now,
                        const sd_expo_scrape *then, size_t *fresh, sd_error *err);

/* Frees the series of sc and zeroes it (group -1). */
void sd_expo_free(sd_expo_scrape *sc);

#endif
