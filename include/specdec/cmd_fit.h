/* cmd_fit.h -- `specdec fit` as a library call: an engine's counters
 * (counters.h: Prometheus, vLLM or llama.cpp logs, JSON, TSV) to alpha, the
 * test of i.i.d. acceptance and the predictions for other draft lengths
 * (fit.h), with the improvement and the recommended draft length under a
 * cost: eq. (10)'s ratio c, or the roofline presets and their calibration
 * (cmd_cost.h), whose uncertainty joins the improvement's interval.  And
 * that recommendation as a struct.
 */
#ifndef SPECDEC_CMD_FIT_H
#define SPECDEC_CMD_FIT_H

#include <stddef.h>

#include "specdec/cmd_cost.h"
#include "specdec/command.h"
#include "specdec/fit.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    const char *file;       /* FILE, the program's one positional argument: the counters (required) */
    int input_format;       /* --input-format NAME: an index of sd_counters_formats(); default detected */
    const char *select;     /* --select LABEL=VALUE: prometheus, keep the series with this label */
    const char *since;      /* --since FILE: prometheus, an earlier scrape; fit the counts between */
    double gamma;           /* --gamma G: the draft length where the input does not state it, in [1, 64] */
    double gamma_max;       /* --gamma-max N: predict gamma = 1..N, in [1, 4096]; default 2 x the measured */
    double cost_ratio;      /* --cost C: draft/target cost ratio, improvement = E(N) / (1 + gamma c) (eq. 10) */
    const char *target, *draft, *hardware; /* --target, --draft, --hardware: the roofline presets instead */
    double batch, context;  /* --batch B, --context S: with the presets; default 1 and 4096 */
    int report;             /* --report NAME: sd_fit_report; default predictions */
    double level;           /* --level P: reject i.i.d. at p < P, in [1e-300, 0.5]; default SD_FIT_LEVEL */
    double replicates;      /* --replicates B: bootstrap replicates, 0 for none; default SD_FIT_REPLICATES */
    double seed;            /* --seed S: the bootstrap's seed; default SD_RNG_DEFAULT_SEED */
    const char *export_profile; /* --export-profile FILE: also write the counts as NVIDIA's
                                 * speculation_profile.json (needs per-position counts) */
    sd_cmd_cost_options cost;   /* the cost options (cmd_cost.h), with the presets */
    const char *data_dir;       /* the data folder (data.h); NULL: the usual search */
} sd_cmd_fit_request;

/* Nothing given. */
SD_API sd_cmd_fit_request sd_cmd_fit_defaults(void);
/* The report (sd_fit_table's, fit.h) with notes on where the costs came
 * from; writes export_profile when given.  SD_EINVAL naming the field or
 * the file and line, SD_EIO when export_profile cannot be written,
 * SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_fit_table(const sd_cmd_fit_request *rq, sd_table **out, sd_error *err);

/* What fit recommends: of the predictions gamma' = 1..gamma_max (fit.h),
 * the one whose improvement E(N) / cost is largest, when it improves on
 * plain decoding (improvement > 1); the notes and the summary of
 * sd_fit_table say the same in words.  (The type belongs to fit.h, beside
 * sd_fit_table, once fit.c gives it; it is here until then.) */
typedef struct {
    size_t gamma;        /* the recommended draft length; 0: do not speculate (no gamma' improves) */
    size_t best;         /* the gamma' of the largest improvement, in [1, gamma_max] (gamma when it pays) */
    double improvement, improvement_lo, improvement_hi;         /* best's, with its 95% interval */
    double expected_tokens, expected_tokens_lo, expected_tokens_hi; /* best's E(N), with its 95% interval */
    size_t from, to;     /* the gamma' whose improvement reaches best's lower bound, a range around best
                          * (1-based; 0, 0 when gamma is 0) */
    int at_cap;          /* 1: gamma is gamma_max: a longer draft may be better (raise the cap) */
    int extrapolated;    /* 1: best lies beyond the measured draft length (the chosen model's prediction) */
    size_t gamma_max;    /* the predictions' range, 1..gamma_max */
} sd_fit_recommend;

/* The recommendation of the counts c fitted as f (sd_fit_counts) under
 * the prediction request frq, which must carry a cost.  SD_EINVAL (naming
 * the field, as sd_fit_table) for a request out of its domain or without a
 * cost, SD_ENOMEM, SD_EFAIL; *out untouched on failure. */
SD_API sd_status sd_cmd_fit_recommend_counts(const sd_counts *c, const sd_fit *f, const sd_fit_request *frq,
                                             sd_fit_recommend *out, sd_error *err);
/* The recommendation of `specdec fit` with rq: the counters read and
 * fitted, the costs from cost_ratio or the presets, as sd_cmd_fit_table
 * does (report and export_profile play no part).  SD_EINVAL naming the
 * field, also when neither cost_ratio nor the presets are given; the
 * statuses of sd_cmd_fit_table; *out untouched on failure. */
SD_API sd_status sd_cmd_fit_recommend(const sd_cmd_fit_request *rq, sd_fit_recommend *out, sd_error *err);

/* The row (command.h). */
SD_API extern const sd_command sd_cmd_fit;

#endif
