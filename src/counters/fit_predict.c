/* fit_predict.c -- the predictions of a fit (fit.h): E(N) and the improvement
 * at gamma' = 1..gamma_max with their bootstrap intervals, and the draft
 * length they recommend.
 *
 * The bootstrap redraws the counts from the measured acceptance, position
 * by position (sequential binomials, gsl_ran_binomial; a normal beyond 32
 * bits), refits each replicate with sd_fit_counts under the data's chosen
 * model, and takes the 2.5% and 97.5% quantiles of the replicates' E(N)
 * (gsl_stats_quantile_from_sorted_data).
 * With cost draws, replicate b's E(N) is divided by draw b mod ncost_draws.
 * Cost: replicates x (a fit + gamma_max E(N)), and a sort of the replicates
 * per gamma'.
 */
#include "fit_impl.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/rng.h"

/* ---- the bootstrap ----------------------------------------------------------------------- */

static double binomial_draw(gsl_rng *r, double p, double n)
{
    if (n <= 0.0)
        return 0.0;
    if (n < 4294967295.0)
        return (double)gsl_ran_binomial(r, fmin(1.0, fmax(0.0, p)), (unsigned)llround(n));
    double x = n * p + gsl_ran_gaussian(r, sqrt(n * p * (1.0 - p))); /* beyond 32 bits: normal */
    return fmin(n, fmax(0.0, round(x)));
}

/* One replicate of the counts: the measured alpha_k redrawn position by
 * position (the drafts' stopping resampled), the lengths as measured. */
static void resample(const sd_counts *c, const sd_fit *f, gsl_rng *r, sd_counts *out)
{
    *out = *c;
    if (f->estimator == SD_FIT_EST_ANY) {
        out->accepted_tokens = binomial_draw(r, f->alpha_any, c->draft_tokens);
        if (c->has_emitted) { /* the prefixes at the emitted tokens' alpha, gamma long */
            double sum = 0.0;
            for (double alive = c->drafts, i = 0; i < (double)c->gamma && alive > 0.0; i++)
                sum += (alive = binomial_draw(r, f->alpha, alive));
            out->emitted_tokens = c->drafts + sum;
            out->accepted_tokens = fmax(out->accepted_tokens, sum);
        }
        return;
    }
    if (f->estimator == SD_FIT_EST_PREFIX_MEAN) { /* each length's drafts, position by position at alpha */
        double n[SD_COUNTS_MAX_GAMMA], sum = 0.0;
        sd_fit_draft_lengths(c, n);
        for (size_t l = 1; l <= c->gamma; l++)
            for (double alive = n[l - 1], i = 0; i < (double)l && alive > 0.0; i++)
                sum += (alive = binomial_draw(r, f->alpha, alive));
        out->accepted_tokens = sum;
        return;
    }
    double prev_a = c->drafts, prev_r = c->drafts, sum = 0.0;
    for (size_t k = 0; k < c->gamma; k++) {
        double t = fmax(c->accepted_at[k], prev_r > 0.0 ? round(prev_a * c->reached[k] / prev_r) : 0.0);
        out->accepted_at[k] = binomial_draw(r, f->cond[k], t);
        sum += out->accepted_at[k];
        prev_a = out->accepted_at[k];
        prev_r = c->reached[k];
    }
    out->accepted_tokens = sum;
}

/* E(N) at gamma' = 1..gamma_max for every replicate: e[b * gamma_max + g - 1]. */
static sd_status bootstrap(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, double *e, sd_error *err)
{
    gsl_rng *r = sd_rng_stream(rq->seed, 0);
    if (r == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    for (size_t b = 0; b < rq->replicates && st == SD_OK; b++) {
        sd_counts cb;
        sd_fit fb;
        resample(c, f, r, &cb);
        if ((st = sd_fit_counts(&cb, f->level, &fb, err)) == SD_EINVAL) { /* no test in this replicate: keep f */
            fb = *f;
            st = SD_OK;
        }
        fb.chosen = f->chosen; /* the model is the data's choice; its parameters the replicate's */
        for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++)
            e[b * rq->gamma_max + g - 1] = sd_fit_expected_tokens(&fb, f->chosen, g);
    }
    gsl_rng_free(r);
    return st;
}

/* The 2.5% and 97.5% quantiles of x[0], x[stride], ... (n values; sorted in place). */
static void interval(double *x, size_t stride, size_t n, double *lo, double *hi)
{
    gsl_sort(x, stride, n);
    *lo = gsl_stats_quantile_from_sorted_data(x, stride, n, 0.025);
    *hi = gsl_stats_quantile_from_sorted_data(x, stride, n, 0.975);
}

/* ---- the predictions ---------------------------------------------------------------------- */

sd_status sd_fit_request_check(const sd_fit_request *rq, sd_error *err)
{
    if (rq->gamma_max < 1 || rq->gamma_max > 4096)
        return sd_status_fail(err, SD_EINVAL, "gamma_max: %zu is outside [1, 4096]", rq->gamma_max);
    for (size_t g = 0; rq->cost && g < rq->gamma_max; g++)
        if (!(rq->cost[g] > 0.0 && isfinite(rq->cost[g])))
            return sd_status_fail(err, SD_EINVAL, "cost: the cost of gamma %zu is %g; need a finite value > 0", g + 1,
                                  rq->cost[g]);
    for (size_t k = 0; rq->cost && rq->cost_draws && k < rq->ncost_draws * rq->gamma_max; k++)
        if (!(rq->cost_draws[k] > 0.0 && isfinite(rq->cost_draws[k])))
            return sd_status_fail(err, SD_EINVAL, "cost_draws: draw %zu's cost of gamma %zu is %g; need a finite "
                                  "value > 0", k / rq->gamma_max, k % rq->gamma_max + 1, rq->cost_draws[k]);
    return SD_OK;
}

sd_status sd_fit_predict(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, sd_fit_prediction *out,
                         sd_error *err)
{
    sd_status st = sd_fit_request_check(rq, err);
    if (st != SD_OK)
        return st;
    double *boot = NULL, *ratio = NULL;
    size_t reps = f->has_interval ? rq->replicates : 0; /* a gauge: no counts to resample */
    size_t nc = rq->cost && rq->cost_draws ? rq->ncost_draws : 0;
    size_t nf = reps > 0 ? reps : nc; /* the improvement's draws: replicates, else cost draws alone */
    if ((reps > 0 && (boot = malloc(reps * rq->gamma_max * sizeof *boot)) == NULL) ||
        (nc > 0 && nf > 0 && (ratio = malloc(nf * sizeof *ratio)) == NULL)) {
        free(boot);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu bootstrap replicates", reps);
    }
    const sd_fit_request brq = { .gamma_max = rq->gamma_max, .replicates = reps, .seed = rq->seed };
    st = reps > 0 ? bootstrap(c, f, &brq, boot, err) : SD_OK;
    for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++) {
        sd_fit_prediction *q = &out[g - 1];
        double e = sd_fit_expected_tokens(f, f->chosen, g), cost = rq->cost ? rq->cost[g - 1] : 1.0;
        *q = (sd_fit_prediction){ .expected_tokens = e, .expected_tokens_lo = e, .expected_tokens_hi = e,
                                  .improvement = e / cost, .extrapolated = g > f->gamma };
        if (ratio != NULL) /* improvement b: replicate b's E(N) over cost draw b mod nc, before the sort */
            for (size_t b = 0; b < nf; b++)
                ratio[b] = (reps > 0 ? boot[b * rq->gamma_max + g - 1] : e) /
                           rq->cost_draws[(b % nc) * rq->gamma_max + g - 1];
        if (reps > 0)
            interval(boot + g - 1, rq->gamma_max, reps, &q->expected_tokens_lo, &q->expected_tokens_hi);
        q->improvement_lo = q->expected_tokens_lo / cost;
        q->improvement_hi = q->expected_tokens_hi / cost;
        if (ratio != NULL)
            interval(ratio, 1, nf, &q->improvement_lo, &q->improvement_hi);
        if (rq->cost == NULL)
            q->improvement = q->improvement_lo = q->improvement_hi = NAN;
    }
    free(boot);
    free(ratio);
    return st;
}

/* ---- the recommendation -------------------------------------------------------------------- */

sd_status sd_fit_recommend_points(const sd_fit_prediction *p, size_t n, sd_fit_recommend *out, sd_error *err)
{
    if (n == 0)
        return sd_status_fail(err, SD_EINVAL, "points: no prediction to recommend from");
    for (size_t g = 0; g < n; g++)
        if (isnan(p[g].improvement))
            return sd_status_fail(err, SD_EINVAL, "cost: the recommendation needs the cost of each gamma");
    size_t best = 0, from, to;
    for (size_t g = 1; g < n; g++)
        if (p[g].improvement > p[best].improvement)
            best = g;
    const sd_fit_prediction *b = &p[best];
    for (from = best; from > 0 && p[from - 1].improvement >= b->improvement_lo; from--)
        ;
    for (to = best; to + 1 < n && p[to + 1].improvement >= b->improvement_lo; to++)
        ;
    int speculate = b->improvement > 1.0;
    *out = (sd_fit_recommend){
        .gamma = speculate ? best + 1 : 0, .best = best + 1, .improvement = b->improvement,
        .improvement_lo = b->improvement_lo, .improvement_hi = b->improvement_hi,
        .expected_tokens = b->expected_tokens, .expected_tokens_lo = b->expected_tokens_lo,
        .expected_tokens_hi = b->expected_tokens_hi, .from = speculate ? from + 1 : 0, .to = speculate ? to + 1 : 0,
        .at_cap = speculate && best + 1 == n, .extrapolated = b->extrapolated, .gamma_max = n,
    };
    return SD_OK;
}
