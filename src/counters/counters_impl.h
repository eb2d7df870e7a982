/* counters_impl.h -- the private half of counters (counters.h): what its readers share.
 *
 * One reader per input format, each in its own file, citing the engine source it follows
 * and defining its row sd_counters_reader_ID (an sd_counters_reader, below); the list
 * readers.def names the rows once, and from it come the declarations below, the reader
 * table and the format names (counters.c) and the fuzz harnesses (tests/fuzz/fuzz.mk).
 * sd_counters_load detects the format with the readers' recognisers, dispatches to one
 * reader, and holds its result to what counters.h promises (counts.c: the invariants, the
 * notes, adding a part of the input to the whole, the caller's gamma against the input's).
 * The readers build on the text layer (text.h); the log readers derive counts from rounded
 * printed rates with derive.h, the JSON readers share json_input.c.  Nothing here is
 * installed or exported.
 *
 * A new reader: its file FORMAT.c, with static detect and read functions and the row
 *     const sd_counters_reader sd_counters_reader_ID = { .name = "FORMAT", .by = ..., ... };
 * (ID: FORMAT with '-' and '.' written '_'), and the line SD_COUNTERS_READER(ID) at the end
 * of readers.def; the table, the names, the messages and its fuzz harness follow.
 */
#ifndef SPECDEC_COUNTERS_IMPL_H
#define SPECDEC_COUNTERS_IMPL_H

#include <stddef.h>

#include "specdec/counters.h"
#include "io/json.h"
#include "text.h"

#define MAXG SD_COUNTS_MAX_GAMMA

/* What a reader is given besides the file: every message it writes into
 * err starts with path. */
typedef struct {
    const char *path;
    const sd_counts_options *opt; /* never NULL */
    sd_error *err;
} sd_counters_ctx;

/* How the caller's users give the draft length, for the messages that ask
 * for it: opt->gamma_name, else "gamma". */
static inline const char *sd_counters_gamma_name(const sd_counters_ctx *cx)
{
    return cx->opt->gamma_name != NULL ? cx->opt->gamma_name : "gamma";
}

/* Which lines a reader's recogniser is shown; how the answers are weighed
 * is sd_counters_load's policy (counters.c). */
typedef enum {
    /* A table: shown only its header, the first line that is neither blank
     * (spaces) nor a '#' comment.  The first such reader (in table order) to
     * claim it reads the file, whatever the other lines are. */
    SD_COUNTERS_BY_HEADER,
    /* Log lines: shown every line.  Lines of two such readers in one file
     * are refused; lines of one make it that reader's. */
    SD_COUNTERS_BY_LOG_LINE,
    /* The fallback: shown every line; reads the file when no header or log
     * reader claimed it and one of its lines was recognised. */
    SD_COUNTERS_FALLBACK,
    /* JSON: shown every line, but only when the file's first byte that is
     * not a blank or a line break is '{' or '[' (so a log is never one).  The
     * one such reader whose lines the file has reads it, before any log or
     * fallback reader; lines of two are refused. */
    SD_COUNTERS_BY_JSON
} sd_counters_detect_by;

/* A row of the reader table. */
typedef struct {
    char name[32];            /* the format's name: an entry of sd_counters_formats() */
    sd_counters_detect_by by; /* which lines detect is shown */
    int scrape;               /* 1: opt->select and opt->since apply to the format; 0: they are refused */
    /* 1 when line (NUL-terminated, without its line feed) belongs to the
     * format; 0 otherwise.  first: 1 when every earlier line of the file is
     * blank (spaces and tabs only).  Never fails. */
    int (*detect)(const char *line, int first);
    /* Reads t, the file at cx->path as lines, into *c, which comes zeroed
     * with kind SD_COUNTS_PREFIX and its format set: gamma, drafts,
     * draft_tokens, accepted_tokens, has_positions, accepted_at[0 .. gamma -
     * 1], reached[0 .. gamma - 1], and kind, reached_assumed and notes where
     * they differ.  sd_counters_load then zeroes what lies beyond gamma (and
     * accepted_at without positions) and checks the invariants.  SD_EINVAL
     * with a message naming the line at fault, or SD_ENOMEM; *c is then
     * discarded. */
    sd_status (*read)(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c);
} sd_counters_reader;

/* The rows, sd_counters_reader_ID for each line SD_COUNTERS_READER(ID) of readers.def. */
#define SD_COUNTERS_READER(id) extern const sd_counters_reader sd_counters_reader_##id;
#include "readers.def"
#undef SD_COUNTERS_READER

/* The rows in readers.def's order (that of sd_counters_formats()), then NULL. */
extern const sd_counters_reader *const sd_counters_readers[];

/* ---- counts.c: what every reader's sd_counts shares ------------------------------------ */

/* Appends a sentence (printf's fmt and arguments) to c->notes, after a space
 * when c->notes is not empty, truncated to fit; control bytes (below 0x20,
 * and 0x7f) of the result are shown as '?'.  Does nothing when c->notes has
 * no room for more than one more byte. */
__attribute__((format(printf, 2, 3))) void sd_counts_note(sd_counts *c, const char *fmt, ...);

/* The invariants of sd_counts (counters.h) on c's first gamma positions, and
 * those of reached[] too when with_reached (else reached[i] is taken to be
 * drafts): gamma in [1, SD_COUNTS_MAX_GAMMA]; drafts, draft_tokens,
 * accepted_tokens and the per-position counts whole in [0, 2^53]; drafts >=
 * 1; accepted_at non-increasing, accepted_at[i] <= reached[i] <= drafts,
 * reached non-increasing; accepted <= draft tokens <= drafts x gamma; for
 * PREFIX data with positions, the per-position counts summing to the
 * accepted tokens.  SD_OK, or SD_EINVAL naming the first that fails, with
 * the message starting with who. */
sd_status sd_counts_invariants(const char *who, const sd_counts *c, int with_reached, sd_error *err);

/* A part of an input's counts -- a request, a run, a block, a table row, a label set --
 * that a reader checks on its own before sd_counts_add adds it to the whole. */
typedef struct {
    double drafts, draft_tokens, accepted_tokens;
    size_t positions;         /* per-position counts in accepted_at (0: none) */
    double accepted_at[MAXG]; /* [i]: drafts accepted through position i + 1 */
} sd_counts_block;

/* Adds b to c: its drafts, draft tokens and accepted tokens, and accepted_at[0 ..
 * b->positions - 1] to c's per-position counts. */
void sd_counts_add(sd_counts *c, const sd_counts_block *b);

/* Adds to b n drafts that accepted exactly j tokens each (j <= MAXG): drafts += n,
 * accepted tokens += j x n, accepted_at[0 .. j - 1] += n; positions becomes at least j.
 * A histogram of drafts by accepted tokens is this over its buckets. */
void sd_counts_block_accepting(sd_counts_block *b, size_t j, double n);

/* The draft length the input states, g, reconciled with the one the caller gave
 * (cx->opt->gamma; 0: none): SD_OK when none was given or the two agree; else SD_EINVAL
 * "PATH:LINE: gamma G was given, but " followed by what states g (fmt and its arguments,
 * e.g. "the block has %zu positions"); line 0 leaves out ":LINE". */
__attribute__((format(printf, 4, 5))) sd_status sd_counts_gamma_agrees(const sd_counters_ctx *cx, size_t line,
                                                                        size_t g, const char *fmt, ...);

/* ---- the JSON readers: what they share (json_input.c) --------------------------------- */

/* 1 when line holds the member name key in quotes ("key"); 0 otherwise.  The
 * JSON readers' recognisers are this with the name each format requires. */
int sd_counters_json_has_key(const char *line, const char *key);

/* The file at cx->path parsed whole as a sequence of JSON documents (JSON
 * Lines, documents one after another, or one document) into *d, which the
 * caller frees with sd_json_free.  SD_EINVAL with the parser's "path:LINE:
 * json: ..." message, or for a file of no document; SD_ENOMEM. */
sd_status sd_counters_json_load(const sd_counters_ctx *cx, sd_json_docs *d);

/* The records of d in order: each document, or each item of a document that
 * is an array (one level); a record that is not an object is an error
 * naming its line.  fn(cx, rec, arg) is called on each; the first failure
 * is returned. */
sd_status sd_counters_json_each(const sd_counters_ctx *cx, const sd_json_docs *d,
                                sd_status (*fn)(const sd_counters_ctx *cx, const sd_json *rec, void *arg), void *arg);

/* sd_counters_json_load, then sd_counters_json_each over its records, then sd_json_free:
 * the file at cx->path record by record. */
sd_status sd_counters_json_read_each(const sd_counters_ctx *cx,
                                     sd_status (*fn)(const sd_counters_ctx *cx, const sd_json *rec, void *arg),
                                     void *arg);

/* obj's member key as a count (sd_json_count: digits only, at most 2^53)
 * into *x, or *x = -1 when obj has no such member (or it is null). */
sd_status sd_counters_json_opt_count(const sd_json *obj, const char *key, double *x, sd_error *err);

/* A histogram of counts, v: a dense array (h[j] = item j) or an object whose
 * member names are whole numbers in decimal without sign or leading zeros
 * ("0", "3"), name k at h[k - base].  Into h[0 .. max - 1] (zeroed first);
 * *len: the array's length, or 1 + the largest index of an object (0 for an
 * empty one); *dense: 1 for an array.  A value is a count (sd_json_count) or,
 * with whole_decimals, any number with a whole value in [0, 2^53] ("30.0",
 * as Python writes a float).  SD_EINVAL naming what and the line for another
 * type, a value that is no count, a name that is not a number or is below
 * base, or an index at max or beyond. */
sd_status sd_counters_json_histogram(const sd_counters_ctx *cx, const sd_json *v, const char *what, size_t base,
                                     int whole_decimals, double *h, size_t max, size_t *len, int *dense);

#endif
