/* cmd_fit.h -- `specdec fit` as a library call: an engine's counters
 * (counters.h: Prometheus, vLLM or llama.cpp logs, JSON, TSV) to alpha, the
 * test of i.i.d. acceptance and the predictions for other draft lengths
 * (fit.h), with the improvement and the recommended draft length under a
 * cost: eq. (10)'s ratio c, or the roofline presets and their calibration
 * (cmd_cost.h), whose uncertainty joins the improvement's interval.  Its
 * three reports from a fit, and its recommendation as a struct
 * (sd_fit_recommend, fit.h).
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
    int report;             /* --report NAME: sd_cmd_fit_report; default predictions */
    double level;           /* --level P: reject i.i.d. at p < P, in [1e-300, 0.5]; default SD_FIT_LEVEL */
    double replicates;      /* --replicates B: bootstrap replicates, 0 for none; default SD_FIT_REPLICATES */
    double seed;            /* --seed S: the bootstrap's seed; default SD_RNG_DEFAULT_SEED */
    const char *export_profile; /* --export-profile FILE: also write the counts as NVIDIA's
                                 * speculation_profile.json (needs per-position counts) */
    sd_cmd_cost_options cost;   /* the cost options (cmd_cost.h), with the presets */
    const char *data_dir;       /* the data folder (data.h); NULL: the usual search */
} sd_cmd_fit_request;

/* The reports (columns listed in doc/fit.md):
 *   predictions  one row per gamma' (sd_fit_predict): E(N), its interval, the
 *                improvement E(N) / cost and its interval (with a cost),
 *                extrapolated yes/no, the model ("measured" up to the
 *                measured gamma with positions); notes say the recommendation
 *                (sd_fit_recommend_points) in words -- the recommended gamma'
 *                and the range whose improvement reaches the best's lower
 *                bound, or "do not speculate" (gamma 0), and an optimum at
 *                the cap gamma_max -- and how alpha was estimated
 *   positions    one row per measured position: tested, accepted, alpha_k
 *                and its interval, the i.i.d. alpha, the non-i.i.d. fit's
 *                (sd_fit_model_positions)
 *   summary      one row: the data, the estimator, alpha and its interval,
 *                the measured E(N), the test, both fits, the chosen model,
 *                and with a cost the recommendation (0: do not speculate),
 *                its range and whether it sits at the cap */
typedef enum { SD_CMD_FIT_REPORT_PREDICTIONS, SD_CMD_FIT_REPORT_POSITIONS, SD_CMD_FIT_REPORT_SUMMARY } sd_cmd_fit_report;

/* "predictions", "positions", "summary", NULL: the reports' names, indexed
 * by sd_cmd_fit_report (static).  Never fails. */
SD_API const char *const *sd_cmd_fit_report_names(void);

/* The report of the counts c fitted as f (sd_fit_counts) under the
 * prediction request rq (checked as sd_fit_request_check, also for the
 * positions report, which predicts nothing).  *out is a new table the
 * caller frees.  SD_EINVAL naming the field of rq, or "report" for the
 * positions of counts without per-position data; SD_ENOMEM, SD_EFAIL;
 * *out untouched on failure. */
SD_API sd_status sd_cmd_fit_report_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq,
                                         sd_cmd_fit_report report, sd_table **out, sd_error *err);

/* Nothing given. */
SD_API sd_cmd_fit_request sd_cmd_fit_defaults(void);
/* The report (sd_cmd_fit_report_table) with notes on where the costs came
 * from; writes export_profile when given.  SD_EINVAL naming the field or
 * the file and line, SD_EIO when export_profile cannot be written,
 * SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_fit_table(const sd_cmd_fit_request *rq, sd_table **out, sd_error *err);

/* The recommendation of `specdec fit` with rq (sd_fit_recommend_points of
 * sd_fit_predict): the counters read and fitted, the costs from cost_ratio
 * or the presets, as sd_cmd_fit_table does (report and export_profile play
 * no part).  SD_EINVAL naming the field, also when neither cost_ratio nor
 * the presets are given; the statuses of sd_cmd_fit_table; *out untouched
 * on failure. */
SD_API sd_status sd_cmd_fit_recommend(const sd_cmd_fit_request *rq, sd_fit_recommend *out, sd_error *err);

/* The row (command.h). */
SD_API extern const sd_command sd_cmd_fit;

#endif
