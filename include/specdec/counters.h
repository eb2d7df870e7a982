/* counters.h -- speculative-decoding counts from serving engines' logs and scrapes.
 *
 * The input of `specdec fit`: how many drafts a server verified,
 * how many tokens it drafted and accepted, and -- when the source says -- how
 * many drafts had their first i+1 tokens all accepted.  Each format is read
 * exactly as its engine writes it: a saved /metrics scrape (the Prometheus
 * text exposition format) of vLLM, llama.cpp, TensorRT-LLM or SGLang; the
 * log lines, summaries and per-request JSON of those engines and their
 * benchmarks; NVIDIA Model-Optimizer's speculation_profile.json; and this
 * project's own tables, defined here:
 *
 *   tsv         columns gamma, drafts, accepted_1 .. accepted_G (optionally
 *               draft_tokens, accepted_tokens); rows are summed
 *   histogram   columns accepted, count: drafts with exactly `accepted`
 *               accepted tokens (needs the draft length, opt->gamma)
 *
 * sd_counters_formats() names the formats; doc/inputs.md describes each, and
 * its reader (one file per format under src/counters/) cites the source it
 * follows.
 *
 * A format is detected from the content unless the caller names it.  Only
 * the lines a format defines are read: other lines of a log are ignored, but
 * a line that is one of them and does not parse is an error.  Counts are
 * whole numbers up to 2^53.
 *
 * Conventions as in specdec.h.  Every message of sd_counters_load is one line
 * that starts with the path ("path:12: ..." when a line is at fault); it
 * quotes the file's text and the caller's strings as they are (the program
 * escapes control bytes).  The notes are printable: control bytes from the
 * input are shown as '?'.  No function prints.
 */
#ifndef SPECDEC_COUNTERS_H
#define SPECDEC_COUNTERS_H

#include <stddef.h>
#include <stdio.h>

#include "specdec/status.h"

/* The longest draft the counts can describe (positions 1..64). */
#define SD_COUNTS_MAX_GAMMA 64

/* What an accepted token means in the counts.
 *   PREFIX: accepted tokens are counted up to the first rejection (vLLM V1,
 *           its Prometheus counters, llama.cpp, the TSVs);
 *   ANY:    every position that passed its own test, rejected or not after
 *           an earlier rejection (vLLM V0's rejection sampler). */
typedef enum { SD_COUNTS_PREFIX, SD_COUNTS_ANY } sd_counts_kind;

typedef struct {
    size_t gamma;           /* draft length: positions 1..gamma, in [1, SD_COUNTS_MAX_GAMMA] */
    double drafts;          /* drafts (verification steps), whole, >= 1 */
    double draft_tokens;    /* tokens drafted, whole, <= drafts * gamma */
    double accepted_tokens; /* tokens accepted, whole, <= draft_tokens; for PREFIX
                             * data with positions, = sum of accepted_at */
    int has_positions;      /* 1: accepted_at holds per-position counts; 0: it is all 0 */
    double accepted_at[SD_COUNTS_MAX_GAMMA]; /* [i]: drafts whose first i+1 drafted tokens
                                              * were all accepted; non-increasing in i */
    double reached[SD_COUNTS_MAX_GAMMA];     /* [i]: drafts that drafted at least i+1 tokens:
                                              * accepted_at[i] <= reached[i] <= drafts,
                                              * non-increasing; = drafts unless some drafts are
                                              * shorter (llama.cpp) */
    sd_counts_kind kind;
    char format[32];        /* the format read: a name from sd_counters_formats() */
    char notes[1024];       /* sentences for the report: what was summed, derived, assumed,
                             * selected ("" if nothing); one line, truncated to fit */
    /* Added to the agreed fields: */
    int reached_assumed;    /* 1: the source does not record how many drafts reached each
                             * position and reached[] follows the assumption the notes
                             * state (llama.cpp); 0: reached[] is the source's */
    int has_emitted;        /* 1: emitted_tokens holds the source's count (vLLM V0) */
    double emitted_tokens;  /* tokens emitted, one per draft beyond its accepted prefix (the
                             * correction or bonus token), whole: drafts <= emitted <=
                             * drafts + accepted tokens; 0 unless has_emitted */
    int gauge;              /* 1: the source gives a mean, not counts (SGLang's lines, trtllm-bench):
                             * mean_accepted is the accepted tokens per draft (PREFIX, no
                             * positions), drafts, draft_tokens, accepted_tokens and the
                             * per-position counts are 0 and reached[] is unknown (all 0) */
    double mean_accepted;   /* gauge: accepted tokens per draft, in [0, gamma]; else 0 */
} sd_counts;
/* Entries of accepted_at and reached at positions >= gamma are 0.  Every draft
 * emits its accepted prefix and one more token, so the mean acceptance length
 * (E(N) measured) is 1 + accepted_tokens / drafts for PREFIX counts, 1 +
 * mean_accepted for a gauge, and emitted_tokens / drafts where has_emitted. */

typedef struct {
    const char *format; /* NULL: detect; else one of sd_counters_formats() */
    const char *select; /* "label=value" (or label="value"): keep only the Prometheus series
                         * with that label value; NULL: sum all series, with a note */
    const char *since;  /* an earlier scrape of the same server (prometheus): the counts
                         * are the difference; NULL: none */
    size_t gamma;       /* the draft length where the source does not state it: an input
                         * that needs it and lacks it is refused, saying so (histogram,
                         * vllm-v1-early, and lines or blocks that print no positions);
                         * where the source states it, the two must agree.  0: not given */
    const char *gamma_name; /* what the caller's users call gamma, for the messages that ask
                             * for it (the program: "--gamma"); NULL: "gamma" */
} sd_counts_options;

/* Reads the counts in path into *out; opt may be NULL (all fields 0/NULL).
 * Ownership: nothing is kept or allocated for the caller; *out is a plain
 * value.  SD_EINVAL (one line, starting with the path) when the file cannot
 * be opened or read or holds no recognisable input; when a line of the
 * format is malformed; when counters are missing (named); when a counter
 * decreased between opt->since and path; when counts are NaN, negative, not
 * whole or above 2^53; when per-position counts increase with position; when
 * there are zero drafts; when the counts contradict each other (accepted
 * tokens vs. the per-position counts, drafted vs. accepted tokens); when a
 * histogram's accepted exceeds gamma or gamma is missing; when gamma is beyond
 * SD_COUNTS_MAX_GAMMA; for an unknown opt->format, or opt->select or
 * opt->since with another format than prometheus.  SD_ENOMEM.  On failure
 * *out is untouched. */
SD_API sd_status sd_counters_load(const char *path, const sd_counts_options *opt, sd_counts *out, sd_error *err);

/* Writes c to out as a Prometheus text exposition of vLLM V1's counters
 * (names with "_total", each after its # HELP and # TYPE line, one
 * ..._per_pos{position="i"} sample per position), which sd_counters_load reads
 * back to the same gamma, drafts, draft_tokens, accepted_tokens and
 * accepted_at (reached becomes drafts: when c->reached differs, a comment
 * line says so).  c must be PREFIX data with positions, gamma in [1,
 * SD_COUNTS_MAX_GAMMA] and counts whole in [0, 2^53].  SD_EINVAL (naming the
 * field) otherwise, with nothing written; SD_EIO when out reports a write
 * error.  out stays open; what was written before an SD_EIO stays. */
SD_API sd_status sd_counters_write_prometheus(const sd_counts *c, FILE *out, sd_error *err);

/* Writes c to out as NVIDIA Model-Optimizer's speculation_profile.json
 * (schema 1.0, measured true): num_speculative_tokens = gamma,
 * marginal_accept_rates[i] = accepted_at[i] / drafts, conditional_accept_rates[i]
 * = accepted_at[i] / accepted_at[i - 1] (drafts for i = 0; 0 where that is 0),
 * mean_accept_length = 1 + accepted_tokens / drafts, each rounded to 6 digits;
 * acceptance_length_histogram {L: drafts that emitted L tokens, L - 1 accepted}
 * (the lengths with none left out); the validation block computed from the
 * rounded rates with the schema's tolerance 0.02; fields the counts do not
 * know (method, checkpoints, per-request mean) null.  sd_counters_load reads
 * it back (as "speculation-profile") to the same gamma, drafts,
 * accepted_tokens and accepted_at; draft_tokens becomes drafts x gamma and
 * reached drafts.  c must be PREFIX data with positions (not a gauge) that
 * holds sd_counts' invariants; SD_EINVAL (saying why) otherwise, with nothing
 * written; SD_EIO when out reports a write error.  out stays open. */
SD_API sd_status sd_counters_write_profile(const sd_counts *c, FILE *out, sd_error *err);

/* The format names, NULL-terminated, one per reader, in a fixed order that
 * a new format extends at the end ("prometheus" first).  Static; never fails. */
SD_API const char *const *sd_counters_formats(void);

#endif
