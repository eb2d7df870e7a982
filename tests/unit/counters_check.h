/* counters_check.h -- what the suites of the counters readers share (test_counters.c,
 * test_counters_prometheus.c, test_counters_json.c): loading a fixture or an inline text,
 * holding the counts to expected values, and holding a refusal to the one-line message the
 * readers promise (counters.h).  Static helpers: each suite gets its own copy. */
#ifndef SPECDEC_COUNTERS_CHECK_H
#define SPECDEC_COUNTERS_CHECK_H

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "specdec/counters.h"
#include "testutil.h"

/* The tests of what the readers share (test_counters_readers.c), added to tc by counters_suite. */
void counters_readers_tests(TCase *tc);

/* tests/fixtures/NAME, found from the runner's own location (testutil.h). */
static inline const char *fixture(const char *name) { return fixture_path(name); }

/* The counts of the file at path (with o), which must load. */
static inline sd_counts load_ok(const char *path, const sd_counts_options *o)
{
    sd_counts c;
    sd_error err = { "" };
    ck_assert_msg(sd_counters_load(path, o, &c, &err) == SD_OK, "%s", err.msg);
    return c;
}

/* load_ok on text, in a scratch file. */
static inline sd_counts load_text(const char *text, const sd_counts_options *o)
{
    char path[256];
    snprintf(path, sizeof path, "%s", write_temp(text));
    sd_counts c = load_ok(path, o);
    unlink(path);
    return c;
}

/* The format read, PREFIX counting, and whether the counts have positions. */
static inline void expect_format(const sd_counts *c, const char *format, int has_positions)
{
    ck_assert_str_eq(c->format, format);
    ck_assert_int_eq(c->kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(c->has_positions, has_positions);
}

/* gamma, the counts, accepted_at (all 0 for pos NULL) and reached (drafts at every
 * position for reached NULL), zero beyond gamma; notes on one line. */
static inline void expect_counts(const sd_counts *c, size_t gamma, double drafts, double dt, double at,
                                 const double *pos, const double *reached)
{
    ck_assert_uint_eq(c->gamma, gamma);
    ck_assert_double_eq(c->drafts, drafts);
    ck_assert_double_eq(c->draft_tokens, dt);
    ck_assert_double_eq(c->accepted_tokens, at);
    for (size_t i = 0; i < SD_COUNTS_MAX_GAMMA; i++) {
        ck_assert_double_eq(c->accepted_at[i], i < gamma && pos ? pos[i] : 0.0);
        ck_assert_double_eq(c->reached[i], i < gamma ? (reached ? reached[i] : drafts) : 0.0);
    }
    ck_assert_msg(memchr(c->notes, '\0', sizeof c->notes) != NULL && strchr(c->notes, '\n') == NULL, "notes");
}

/* The load of text (in a scratch file, with o) must fail with SD_EINVAL, *out untouched,
 * and a one-line message starting "PATH:LINE: " (or "PATH: " for line 0) that contains
 * want. */
static inline void expect_fail_at(const char *text, const sd_counts_options *o, size_t line, const char *want)
{
    char path[256], head[300];
    snprintf(path, sizeof path, "%s", write_temp(text));
    sd_counts c, sentinel;
    memset(&c, 0xa5, sizeof c);
    sentinel = c;
    sd_error err = { "" };
    sd_status st = sd_counters_load(path, o, &c, &err);
    unlink(path);
    ck_assert_msg(st == SD_EINVAL, "accepted:\n%s\n(status %d)", text, (int)st);
    ck_assert_msg(memcmp(&c, &sentinel, sizeof c) == 0, "*out written on failure: %s", err.msg);
    if (line > 0)
        snprintf(head, sizeof head, "%s:%zu: ", path, line);
    else
        snprintf(head, sizeof head, "%s: ", path);
    ck_assert_msg(strncmp(err.msg, head, strlen(head)) == 0, "message '%s' does not start with '%s'", err.msg, head);
    ck_assert_msg(strstr(err.msg, want) != NULL, "message '%s' does not say '%s'", err.msg, want);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message '%s' has a line feed", err.msg);
}

/* The load of the file at path (with o) must fail with SD_EINVAL and a one-line message
 * starting with the path that contains want. */
static inline void expect_fail_path(const char *path, const sd_counts_options *o, const char *want)
{
    sd_counts c;
    sd_error err = { "" };
    ck_assert_int_eq(sd_counters_load(path, o, &c, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "message '%s' does not start with the path", err.msg);
    ck_assert_msg(strstr(err.msg, want) != NULL, "message '%s' does not say '%s'", err.msg, want);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message '%s' has a line feed", err.msg);
}

#endif
