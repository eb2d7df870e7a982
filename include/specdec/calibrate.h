/* calibrate.h -- the cost model fitted to measured step times.
 *
 * Given forward passes timed on real hardware (a model, an accelerator,
 * B sequences of T new tokens at context S, tp GPUs, CUDA graphs or not,
 * t seconds), finds the terms of cost.h -- eta_F, eta_BW, the launch cost
 * per kernel with and without CUDA graphs, t0 per pass and the latency per
 * all-reduce hop -- that make sd_cost_step_time closest to the times, by
 * nonlinear least squares on the relative residuals (t_model - t) / t (GSL
 * multifit_nlinear, trust region with Levenberg-Marquardt steps; eta's
 * fitted as logarithms so they stay positive).  Standard errors and the
 * covariance come from (J^T J)^-1 s^2 at the solution, s^2 = the sum of
 * squared residuals / (rows - free terms); for eta's through the logarithm
 * (delta method).
 *
 * Which terms are fitted: those asked for (rq->fit) that the rows
 * identify.  A term is held at its prior (rq->start, or in family fits the
 * pooled fit's value) and flagged when no row depends on it, when its best
 * value lies below 0 (held at 0), or when the rows cannot tell it from
 * zero -- its standard error exceeds half its value (for an eta, its
 * logarithm's exceeds 0.5) -- so that no term is fitted to noise; the
 * fit is then redone without it, the weakest first.
 *
 * Groups: every (model, hardware) on its own, or by hardware family (the
 * presets' family column): first one pooled fit of all rows (model and
 * hardware "*"), then one fit per family whose terms the family's rows
 * do not identify are held at the pooled values.
 *
 * Leave-one-out: for each row, the whole procedure (pooled and family
 * fits, every holding decision) is redone without it, and the row is
 * predicted from that fit: its out-of-sample error.
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
    int graphs;  /* 1: the engine ran the pass as a CUDA graph */
    size_t line; /* in its file, for messages (0 when not from a file) */
} sd_step_time;

/* The rows of a TSV file with columns model, hardware, batch, context,
 * tokens, seconds, and optionally tp (default 1) and graphs (on or off,
 * default on): batch, tokens, tp whole >= 1, context whole >= 0, seconds >
 * 0 and finite.  *out is malloc'd (release with free()).  SD_EINVAL names
 * the file, line and column; SD_ENOMEM.  On failure *out and *n are
 * untouched. */
SD_API sd_status sd_calibrate_load_times(const char *path, sd_step_time **out, size_t *n, sd_error *err);

/* The terms a calibration fits, in the order of its arrays. */
enum {
    SD_CAL_ETA_FLOPS,    /* eta_F */
    SD_CAL_ETA_BW,       /* eta_BW */
    SD_CAL_LAUNCH,       /* seconds per kernel, CUDA graphs */
    SD_CAL_LAUNCH_EAGER, /* seconds per kernel, no graphs */
    SD_CAL_OVERHEAD,     /* t0, seconds per pass */
    SD_CAL_HOP_LATENCY,  /* seconds per all-reduce hop */
    SD_CAL_NTERMS
};

/* How a term came by its value. */
typedef enum {
    SD_CAL_FITTED, /* fitted to the rows */
    SD_CAL_FIXED,  /* not asked for: the prior */
    SD_CAL_UNUSED, /* no row depends on it: the prior */
    SD_CAL_BOUND,  /* its best fit lies below 0: held at 0 */
    SD_CAL_WEAK,   /* the rows cannot tell it from zero: the prior */
} sd_cal_hold;

/* "eta_flops", "eta_bw", "launch", "launch_eager", "overhead",
 * "hop_latency", NULL: the terms' names (static; cost.h's fields). */
SD_API const char *const *sd_calibrate_term_names(void);
/* "fitted", "fixed", "unused", "bound", "weak", NULL (static). */
SD_API const char *const *sd_calibrate_hold_names(void);

/* One group's fit. */
typedef struct {
    char model[64];       /* the model's name, or "*": every model */
    char hardware[64];    /* a hardware preset's name, a family's, or "*": all */
    char granularity[64]; /* "operator" or "pass": the model the fit is for */
    size_t rows;
    double value[SD_CAL_NTERMS]; /* the terms (seconds as seconds; hop_latency < 0: the hardware's) */
    double se[SD_CAL_NTERMS];    /* their standard errors (0 when not fitted) */
    int hold[SD_CAL_NTERMS];     /* sd_cal_hold */
    /* the covariance of the fitted coordinates (log eta_F, log eta_BW, then
     * the seconds as they are); rows and columns of terms not fitted are 0 */
    double cov[SD_CAL_NTERMS][SD_CAL_NTERMS];
    double rms_rel_residual, max_rel_residual;
    double loo_median, loo_max; /* |relative error| of the group's rows left out one at a time */
} sd_calibration;

typedef enum { SD_CALIBRATE_BY_MODEL_HARDWARE, SD_CALIBRATE_BY_FAMILY } sd_calibrate_by;

/* What to fit: the step times rows[0..nrows-1], the presets they name, the
 * priors (start: every term's start and held value, and the granularity),
 * the terms to try (fit[i] = 1; all 0: eta_flops, eta_bw and overhead) and
 * the grouping. */
typedef struct {
    const sd_presets *presets;
    const sd_step_time *rows;
    size_t nrows;
    sd_cost_params start;
    int fit[SD_CAL_NTERMS];
    sd_calibrate_by by;
} sd_calibrate_request;

/* Fits every group of rq's rows (in order of first appearance; by family,
 * the pooled fit first).  *out is malloc'd (release with free()), *nout
 * its length; predicted and loo, when not NULL, receive each row's fitted
 * and leave-one-out time (nrows each; a row whose group cannot be refitted
 * without it gets its fitted time).  SD_EINVAL when a row names a model
 * or hardware not in the presets (message "LINE: ..."), when the hardware
 * lacks the model's compute type, when a (model, hardware) group has fewer
 * than 4 rows, when a fit fails to converge, or when its best values lie
 * outside what roofline accepts (eta's in [0.001, 1], seconds in [0, 1]:
 * times no efficiency explains); SD_ENOMEM.  On failure *out is
 * untouched. */
SD_API sd_status sd_calibrate(const sd_calibrate_request *rq, sd_calibration **out, size_t *nout, double *predicted,
                              double *loo, sd_error *err);

/* Fits as saved (the TSV --save-calibration writes): columns model,
 * hardware, granularity, and for each term T its value T (eta's in
 * [0.001, 1], seconds in [0, 1], hop_latency in [-1, 1], below 0 the
 * hardware's), optionally T_se
 * (>= 0), T_fit (a hold name) and the covariance cov_T_U (T before U in
 * the term order, symmetric; 0 when absent); others ignored.  A file
 * without launch, launch_eager or hop_latency columns (older saves) gets
 * 0, 0 and -1.  *out is malloc'd; SD_EINVAL naming file, line and column,
 * SD_ENOMEM. */
SD_API sd_status sd_calibrate_load(const char *path, sd_calibration **out, size_t *n, sd_error *err);

/* The fit for (model, hardware) among fits[0..n-1]: the first that names
 * both, else one for every model on that hardware, else one for its family,
 * else one for "*" on "*"; NULL when none. */
SD_API const sd_calibration *sd_calibrate_find(const sd_calibration *fits, size_t n, const sd_model_spec *model,
                                                 const sd_hardware *hardware);

/* cp's terms set from fit c (the rest of cp -- tp, graphs, granularity --
 * unchanged).  Never fails. */
SD_API void sd_calibrate_apply(const sd_calibration *c, sd_cost_params *cp);

/* The shipped calibration: cost-defaults.tsv found in data_dir as
 * sd_data_find finds it (NULL: the installed data folder), loaded as
 * sd_calibrate_load. */
SD_API sd_status sd_calibrate_load_defaults(const char *data_dir, sd_calibration **out, size_t *n, sd_error *err);

/* rq->params and rq->draft_params from the fits that apply to rq's target
 * and draft on rq->hardware (sd_calibrate_find; a fit of another
 * granularity does not apply); tp, graphs and granularity kept.  A draft
 * without a fit of its own takes the target's terms: then 1 is returned,
 * else 0.  *c and *cd: the fits used, NULL when none.  Never fails. */
SD_API int sd_calibrate_apply_request(const sd_calibration *fits, size_t n, sd_roofline_request *rq,
                                      const sd_calibration **c, const sd_calibration **cd);

/* ndraws copies of rq into out[0..ndraws-1], each with the terms of both
 * models drawn from the normal law of their fits' covariances (the
 * target's c, the draft's cd, which may be the same fit: then one draw
 * serves both; fixed, unused, bound and weak terms keep their values; a
 * draw outside the terms' domains is drawn again), seeded by seed: the
 * draws sd_calibrate_band summarises, for predictions of other shapes
 * (trees, fitted acceptance).  ndraws in [1, 100000].  SD_EINVAL for a
 * fit without covariance (nothing fitted) or one too wide to draw from. */
SD_API sd_status sd_calibrate_draws(const sd_roofline_request *rq, const sd_calibration *c, const sd_calibration *cd,
                                    size_t ndraws, unsigned long seed, sd_roofline_request *out, sd_error *err);

/* The spread of a roofline prediction under a fit's uncertainty: rq
 * evaluated with the terms of both models drawn ndraws times from the
 * normal law of their fits' covariances (the target's c, the draft's
 * cd, which may be the same fit: then one draw serves both; a draw outside
 * the terms' domains is drawn again), seeded by seed.  lo and hi get the
 * q and 1 - q quantiles of improvement_opt and tokens_per_second and the
 * least and greatest gamma_opt over the draws.  ndraws in [10, 100000],
 * q in (0, 0.5).  SD_EINVAL for a fit without covariance (nothing fitted);
 * SD_ENOMEM. */
enum { SD_CALIBRATE_BAND_DRAWS = 200 }; /* the band every command prints: 200 draws, */
#define SD_CALIBRATE_BAND_Q 0.05          /* the 5% and 95% quantiles (a 90% band), */
#define SD_CALIBRATE_BAND_SEED 20261202UL /* one seed */

typedef struct {
    double improvement_lo, improvement_hi;
    double tokens_per_second_lo, tokens_per_second_hi;
    double gamma_lo, gamma_hi;
} sd_calibrate_band_out;

SD_API sd_status sd_calibrate_band(const sd_roofline_request *rq, const sd_calibration *c, const sd_calibration *cd,
                                   double batch, double context, size_t ndraws, double q, unsigned long seed,
                                   sd_calibrate_band_out *out, sd_error *err);

/* The q and 1 - q quantiles of v[0 .. n-1] (sorted in place) into *lo and
 * *hi: how every band over a fit's draws is taken (sd_calibrate_band's, a
 * token tree's speed-up under the cost model).  n >= 1, q in (0, 0.5)
 * (not checked).  Never fails. */
SD_API void sd_calibrate_band_quantiles(double *v, size_t n, double q, double *lo, double *hi);

#endif
