/* cmd_roofline.h -- `specdec roofline` as a library call: the optimal draft
 * length by batch and context for a target/draft pair on an accelerator
 * under the roofline cost model (cost.h), with the break-even batch and a
 * band from the calibration's uncertainty; or the draft length per batch
 * bucket (schedule), in an engine's syntax (export); or one pass's
 * operators (breakdown); or the cost model fitted to measured step times
 * (calibrate); or the presets (list_models, list_hardware).
 */
#ifndef SPECDEC_CMD_ROOFLINE_H
#define SPECDEC_CMD_ROOFLINE_H

#include "specdec/cmd_cost.h"
#include "specdec/command.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    const char *target, *draft, *hardware; /* --target, --draft ('same', 'ngram' or a preset), --hardware */
    double alpha;                          /* --alpha A; or acceptance, alpha_by_context or counts */
    sd_command_list acceptance;            /* --acceptance A1,...,AG: per position, gamma = 1..G */
    const char *alpha_by_context;          /* --alpha-by-context FILE: TSV of context and alpha */
    sd_command_list batch, context, gamma; /* --batch, --context, --gamma lists */
    double verify_tokens;                  /* --verify-tokens T: default gamma + 1 */
    double proposal_rate;                  /* --proposal-rate R: in [0.001, 1]; default 1 (cost.h) */
    const char *speculative_config;        /* --speculative-config JSON: vLLM's, for the drafter and gamma */
    const char *mean_length_by_gamma;      /* --mean-length-by-gamma FILE: E(N) by gamma (cost.h) */
    int breakdown;                         /* --breakdown: one pass's operators instead */
    double prefill, prefill_cached;        /* --prefill P, --prefill-cached C: with breakdown */
    int schedule;                          /* --schedule: the draft length per batch bucket instead */
    int export_engine;                     /* --export ENGINE: with schedule, in an engine's syntax (text) */
    const char *counts;                    /* --counts FILE: an engine's counters instead of alpha */
    double counts_gamma;                   /* --counts-gamma G: their draft length where they do not state it */
    const char *calibrate;                 /* --calibrate FILE: fit the cost terms to measured step times instead */
    int calibrate_by;                      /* --calibrate-by: model-hardware or family */
    const char *save_calibration;          /* --save-calibration FILE: write the fits there */
    int list_models, list_hardware;        /* --list-models, --list-hardware: the presets instead */
    const char *models_file, *hardware_file; /* --models-file, --hardware-file: presets instead of the shipped */
    sd_cmd_cost_options cost;              /* the cost options (cmd_cost.h) */
    const char *data_dir;                  /* the data folder (data.h); NULL: the usual search */
} sd_cmd_roofline_request;

/* Nothing given. */
SD_API sd_cmd_roofline_request sd_cmd_roofline_defaults(void);
/* The table (the columns man specdec lists for each mode), with notes.
 * SD_EINVAL naming the field (export given: its result is text, from
 * sd_cmd_roofline_text), SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_roofline_table(const sd_cmd_roofline_request *rq, sd_table **out, sd_error *err);
/* With schedule and export: the schedule in that engine's syntax, ready to
 * paste, into *text (free it with sd_command_free_text).  SD_EINVAL
 * naming the field; *text NULL on failure. */
SD_API sd_status sd_cmd_roofline_text(const sd_cmd_roofline_request *rq, char **text, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_roofline;

#endif
