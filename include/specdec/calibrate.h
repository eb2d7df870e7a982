/* calibrate.h -- the cost model fitted to measured step times.
 *
 * Given forward passes timed on real hardware (a model, an accelerator,
 * B sequences of T new tokens at context S, tp GPUs, t seconds), finds for
 * each (model, hardware) the eta_F, eta_BW and t0 of cost.h that make
 * sd_cost_step_time closest to the times, by nonlinear least squares on
 * the relative residuals (t_model - t) / t (GSL multifit_nlinear,
 * Levenberg-Marquardt, eta's fitted as logarithms so they stay positive).
 * Standard errors come from the covariance (J^T J)^-1 s^2 at the solution,
 * s^2 = sum of squared residuals / (rows - free parameters); for eta's
 * through the logarithm (delta method).  A parameter no row depends on
 * (eta_F when every operator of every row is memory-bound, say) is not
 * identified: it is held at its starting value and flagged; t0 is
 * constrained to t0 >= 0 (a best fit below 0 is refitted with t0 held at 0,
 * and flagged).
 */
#ifndef SPECDEC_CALIBRATE_H
#define SPECDEC_CALIBRATE_H

#include <stddef.h>

#include "specdec/cost.h"
#include "specdec/status.h"

/* One timed forward pass. */
typedef struct {
    char model[64], hardware[64];
    double batch, context, tokens, tp, seconds;
    size_t line; /* in its file, for messages (0 when not from a file) */
} sd_step_time;

/* The rows of a TSV file with columns model, hardware, batch, context,
 * tokens, seconds and optionally tp (default 1): batch, tokens, tp whole
 * >= 1, context whole >= 0, seconds > 0 and finite.  *out is malloc'd
 * (release with free()).  SD_EINVAL names the file, line and column;
 * SD_ENOMEM.  On failure *out and *n are untouched. */
SD_API sd_status sd_calibrate_load_times(const char *path, sd_step_time **out, size_t *n, sd_error *err);

/* One (model, hardware) fit. */
typedef struct {
    char model[64], hardware[64];
    char granularity[64];                        /* "operator" or "pass": the model the fit is for */
    size_t rows;
    double eta_flops, eta_bw, overhead;          /* the fitted values */
    double se_eta_flops, se_eta_bw, se_overhead; /* their standard errors (0 when held) */
    int held_flops, held_bw;                     /* 1: not identified by the rows, held at the start */
    int held_overhead;                           /* 1: held (not identified, or the best fit was below 0: held at 0) */
    double rms_rel_residual, max_rel_residual;
} sd_calibration;

/* What to fit: the step times rows[0..nrows-1], the presets they name, and
 * where the fit starts (start's eta_F, eta_BW and t0) with which
 * granularity (start's). */
typedef struct {
    const sd_presets *presets;
    const sd_step_time *rows;
    size_t nrows;
    sd_cost_params start;
} sd_calibrate_request;

/* Fits every (model, hardware) group of rq's rows (in order of first
 * appearance).  *out is malloc'd (release with free()), *nout its length;
 * predicted, when not NULL, receives each row's fitted time (nrows).
 * SD_EINVAL when a row names a model or hardware not in the presets
 * (message "LINE: ..."), when the hardware lacks the model's compute type,
 * when a group has fewer than 4 rows, when the fit fails to converge, or
 * when its best values lie outside what roofline accepts (eta's in
 * [0.001, 1], t0 in [0, 1] s: times no efficiency explains); SD_ENOMEM.
 * On failure *out is untouched. */
SD_API sd_status sd_calibrate(const sd_calibrate_request *rq, sd_calibration **out, size_t *nout, double *predicted,
                              sd_error *err);

/* Fits as saved: a TSV file with columns model, hardware, granularity,
 * eta_flops, eta_bw and overhead (others ignored): eta's in [0.001, 1],
 * overhead in [0, 1] s.
 * *out is malloc'd; SD_EINVAL naming file, line and column, SD_ENOMEM. */
SD_API sd_status sd_calibrate_load(const char *path, sd_calibration **out, size_t *n, sd_error *err);

/* The fit for (model, hardware) among fits[0..n-1], or NULL. */
SD_API const sd_calibration *sd_calibrate_find(const sd_calibration *fits, size_t n, const char *model,
                                                 const char *hardware);

#endif
