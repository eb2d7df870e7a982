/* cmd_cost_impl.h -- the private half of cmd_cost.h: the cost options' rows
 * (a field group of every costed command) and what reads them: the pair and
 * the accelerator with each model's cost terms, the notes naming where the
 * terms came from, and --counts's fitted acceptance. */
#ifndef SPECDEC_CMD_COST_IMPL_H
#define SPECDEC_CMD_COST_IMPL_H

#include "cmd_shared.h"
#include "specdec/calibrate.h"
#include "specdec/cmd_cost.h"
#include "specdec/counters.h"
#include "specdec/loop.h"
#include "specdec/presets.h"

/* The rows of sd_cmd_cost_options (a group whose base is the request's member). */
extern const sd_command_field SD_CMD_COST_FIELDS[];

extern const sd_domain SD_CMD_LAUNCH, SD_CMD_COUNTS_GAMMA;

/* The calibration a request's terms came from. */
typedef struct {
    sd_calibration *fits; /* the loaded file: --calibration or the shipped one */
    size_t nfits;
    const sd_calibration *fit, *draft_fit; /* the fits that apply (NULL: none, or terms by hand) */
    int draft_borrowed;                    /* no fit for the draft: it takes the target's */
    sd_loop_profile *profiles;             /* the loaded engine profiles (NULL: no --engine) */
    size_t nprofiles;
    const sd_loop_profile *profile;        /* --engine's, for the pair's drafter kind (NULL: none) */
    sd_model_spec drafter;                 /* --draft eagle, eagle3 or mtp: the head built from the target */
} sd_cmd_costs;

/* --granularity into *cp and, when etas is 1, --eta-flops, --eta-bw and
 * --overhead (each its row's default, sd_cost_defaults(), when absent). */
sd_status sd_cmd_cost_params(const sd_command_args *a, int etas, sd_cost_params *cp, sd_error *err);
/* The presets from the request's data folder, or --models-file and --hardware-file where the command takes them. */
sd_status sd_cmd_cost_presets(const sd_command_args *a, sd_presets *p, sd_error *err);
/* *rq for --target, --draft (a preset, 'same', 'ngram' or a drafter head
 * built from the target), --hardware, each checked against the hardware,
 * from the presets p, with the cost terms of each model (--calibration must
 * hold the target's fit), --draft-kv-window and --engine's loop; *c what
 * they came from, to free with sd_cmd_costs_free (nothing on failure).
 * rq->draft may point at c->drafter: keep *c where it is while rq is used. */
sd_status sd_cmd_cost_request(const sd_command_args *a, const sd_presets *p, sd_roofline_request *rq, sd_cmd_costs *c,
                              sd_error *err);
/* The notes naming the fits the terms came from and, when band is 1, what
 * the band is or that there is none; and that the draft borrows the target's fit, when it does. */
sd_status sd_cmd_costs_note(const sd_command_args *a, const sd_cmd_costs *c, const sd_roofline_request *rq, int band,
                            sd_table *t, sd_error *err);
/* The same with the draft named by the caller (a preset, 'same', 'ngram'; NULL: "--draft is required"). */
sd_status sd_cmd_cost_request_for(const sd_command_args *a, const sd_presets *p, const char *draft,
                                  sd_roofline_request *rq, sd_cmd_costs *c, sd_error *err);
void sd_cmd_costs_free(sd_cmd_costs *c);
/* --counts FILE (with --counts-gamma G where the file does not state it): the engine's counters
 * fitted (fit.h) into the conditional acceptance of positions 1..top, acc_k = S_k / S_{k-1} with
 * S_k = E(k) - E(k - 1) under the model the fit chose (the measured positions up to the measured
 * gamma); acc->v is malloc'd.  roofline and serving read it alike. */
sd_status sd_cmd_cost_fitted_acceptance(const sd_command_args *a, size_t top, sd_list *acc, sd_error *err);

/* A prediction under the cost model: f(rq, arg) for the cost terms of rq. */
typedef double (*sd_cmd_cost_prediction)(const sd_roofline_request *rq, const void *arg);
/* A prediction's band under a calibration's uncertainty, as sd_calibrate_band gives roofline's
 * optimum: f at each of draws[0..ndraws-1] (sd_calibrate_draws), their q and 1 - q quantiles
 * into *lo and *hi (q in (0, 0.5); the commands print SD_CALIBRATE_BAND_Q of
 * SD_CALIBRATE_BAND_DRAWS draws from SD_CALIBRATE_BAND_SEED).  SD_EINVAL for no draws or q
 * outside (0, 0.5), SD_ENOMEM. */
sd_status sd_cmd_cost_band(const sd_roofline_request *draws, size_t ndraws, double q, sd_cmd_cost_prediction f,
                           const void *arg, double *lo, double *hi, sd_error *err);

#endif
