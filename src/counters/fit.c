/* fit.c -- alpha, the i.i.d. test and predictions from engine counters (see fit.h).
 *
 * The likelihood of the position counts is binomial per position: t_k
 * tests, A_k passes, probability alpha_k.  The i.i.d. and per-position
 * maxima are closed forms; the geometric and Markov models are fitted with
 * GSL's Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2) on
 * unconstrained parameters (logistic and log transforms).  Cost: O(gamma)
 * per likelihood evaluation (O(gamma log gamma) for the Markov model), a
 * few hundred evaluations per fit; the bootstrap refits each replicate.
 */
#include "specdec/fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/rng.h"

static const double Z95 = 1.959963984540054;  /* the standard normal's 97.5% quantile */
static const double PROB_EDGE = 1e-12;        /* model probabilities kept inside (0, 1) */
enum { SIMPLEX_ITERATIONS = 2000 };

static const char *const MODEL_NAMES[] = { "iid", "geometric", "markov" };

static const char *const REPORT_NAMES[] = { [SD_FIT_REPORT_PREDICTIONS] = "predictions",
                                            [SD_FIT_REPORT_POSITIONS] = "positions",
                                            [SD_FIT_REPORT_SUMMARY] = "summary", NULL };

const char *const *sd_fit_report_names(void) { return REPORT_NAMES; }

const char *sd_fit_model_name(sd_fit_model m) { return MODEL_NAMES[m]; }

/* Wilson's score interval for k successes in n trials at 95%. */
static void wilson(double k, double n, double *lo, double *hi)
{
    if (!(n > 0.0)) {
        *lo = 0.0, *hi = 1.0;
        return;
    }
    double p = k / n, z2 = Z95 * Z95, den = 1.0 + z2 / n;
    double centre = (p + z2 / (2.0 * n)) / den;
    double half = Z95 * sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / den;
    *lo = fmax(0.0, centre - half), *hi = fmin(1.0, centre + half);
}

/* k log p + (n - k) log(1 - p), with 0 log 0 = 0. */
static double binomial_ll(double k, double n, double p)
{
    double ll = 0.0;
    if (k > 0.0)
        ll += k * log(p);
    if (n - k > 0.0)
        ll += (n - k) * log1p(-p);
    return ll;
}

static double clamp_prob(double p) { return fmin(1.0 - PROB_EDGE, fmax(PROB_EDGE, p)); }

/* ---- the models' position probabilities ------------------------------------------- */

static double logistic(double x) { return 1.0 / (1.0 + exp(-x)); }

/* alpha_k, k = 1..g, of model m with parameters x (unconstrained), into a. */
static void model_positions(sd_fit_model m, const double *x, size_t measured, size_t g, double *a)
{
    if (m == SD_FIT_GEOMETRIC) {
        double alpha = logistic(x[0]), rho = exp(x[1]);
        for (size_t k = 0; k < g; k++)
            a[k] = fmin(1.0, alpha * pow(rho, (double)k));
        return;
    }
    const sd_markov mk = { logistic(x[0]), logistic(x[1]), 0.999999 * logistic(x[2]) };
    double prev = 1.0; /* S_0 */
    for (size_t k = 1; k <= g; k++) {
        /* the start law is that of the measured draft length */
        double s = sd_theory_markov_survival(&mk, (double)(measured > k ? measured : k), (double)k);
        a[k - 1] = prev > 0.0 ? s / prev : 0.0;
        prev = s;
    }
}

typedef struct {
    const sd_fit *f;
    sd_fit_model m;
} objective;

static double negative_ll(const gsl_vector *v, void *arg)
{
    const objective *o = arg;
    double a[SD_COUNTS_MAX_GAMMA], x[3] = { gsl_vector_get(v, 0), gsl_vector_get(v, 1), 0.0 };
    if (o->m == SD_FIT_MARKOV)
        x[2] = gsl_vector_get(v, 2);
    model_positions(o->m, x, o->f->gamma, o->f->gamma, a);
    double ll = 0.0;
    for (size_t k = 0; k < o->f->gamma; k++)
        ll += binomial_ll(o->f->passed[k], o->f->tested[k], clamp_prob(a[k]));
    return isfinite(ll) ? -ll : 1e300;
}

/* Maximises model m's likelihood from the start x (n parameters); x holds
 * the maximiser, *ll the maximum. */
static sd_status fit_model(const sd_fit *f, sd_fit_model m, double *x, size_t n, double *ll, sd_error *err)
{
    objective o = { f, m };
    gsl_multimin_function fn = { .f = negative_ll, .n = n, .params = &o };
    gsl_vector *start = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
    gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
    if (start == NULL || step == NULL || s == NULL) {
        gsl_vector_free(start), gsl_vector_free(step), gsl_multimin_fminimizer_free(s);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        gsl_vector_set(start, i, x[i]), gsl_vector_set(step, i, 0.5);
    int status = gsl_multimin_fminimizer_set(s, &fn, start, step);
    for (int it = 0; status == GSL_SUCCESS && it < SIMPLEX_ITERATIONS; it++) {
        if ((status = gsl_multimin_fminimizer_iterate(s)) != GSL_SUCCESS)
            break;
        if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), 1e-9) == GSL_SUCCESS)
            break;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = gsl_vector_get(s->x, i);
    *ll = -s->fval;
    gsl_vector_free(start), gsl_vector_free(step), gsl_multimin_fminimizer_free(s);
    if (status != GSL_SUCCESS && status != GSL_CONTINUE)
        return sd_status_fail(err, SD_EFAIL, "fit: the %s model's simplex failed", MODEL_NAMES[m]);
    return SD_OK;
}

/* ---- the fit --------------------------------------------------------------------------- */

/* t_k and A_k from the counts (fit.h); the i.i.d. and per-position maxima. */
static sd_status closed_forms(const sd_counts *c, sd_fit *f, sd_error *err)
{
    f->gamma = c->gamma;
    f->has_positions = c->has_positions;
    f->trials = 0.0;
    f->accepted = 0.0;
    if (!c->has_positions) { /* vLLM V0: accepted / drafted tokens, i.i.d. only */
        f->trials = c->draft_tokens;
        f->accepted = c->accepted_tokens;
    } else {
        double prev_a = c->drafts, prev_r = c->drafts;
        for (size_t k = 0; k < c->gamma; k++) {
            double r = c->reached[k];
            f->tested[k] = prev_r > 0.0 ? prev_a * r / prev_r : 0.0;
            f->passed[k] = c->accepted_at[k];
            f->trials += f->tested[k];
            f->accepted += f->passed[k];
            prev_a = c->accepted_at[k];
            prev_r = r;
        }
    }
    if (!(f->trials > 0.0))
        return sd_status_fail(err, SD_EINVAL, "counts: no draft position was ever tested");
    f->alpha = f->accepted / f->trials;
    wilson(f->accepted, f->trials, &f->alpha_lo, &f->alpha_hi);
    f->ll_iid = 0.0;
    f->ll_positions = 0.0;
    size_t positions = 0;
    for (size_t k = 0; f->has_positions && k < f->gamma; k++) {
        f->cond[k] = f->tested[k] > 0.0 ? f->passed[k] / f->tested[k] : 0.0;
        wilson(f->passed[k], f->tested[k], &f->cond_lo[k], &f->cond_hi[k]);
        f->ll_iid += binomial_ll(f->passed[k], f->tested[k], f->alpha);
        f->ll_positions += binomial_ll(f->passed[k], f->tested[k], f->cond[k]);
        positions += f->tested[k] > 0.0;
    }
    f->lr_statistic = fmax(0.0, 2.0 * (f->ll_positions - f->ll_iid));
    f->lr_dof = positions > 1 ? (double)positions - 1.0 : 0.0;
    f->lr_pvalue = f->lr_dof > 0.0 ? gsl_cdf_chisq_Q(f->lr_statistic, f->lr_dof) : 1.0;
    return SD_OK;
}

/* The geometric and Markov fits, and the choice between the models. */
static sd_status non_iid(sd_fit *f, sd_error *err)
{
    double a0 = clamp_prob(f->alpha), logit = log(a0 / (1.0 - a0));
    double g[2] = { logit, 0.0 }, mk[3] = { logit + 1.0, logit - 1.0, 2.0 };
    sd_status st;
    if ((st = fit_model(f, SD_FIT_GEOMETRIC, g, 2, &f->ll_geometric, err)) != SD_OK ||
        (st = fit_model(f, SD_FIT_MARKOV, mk, 3, &f->ll_markov, err)) != SD_OK)
        return st;
    f->geo_alpha = logistic(g[0]);
    f->geo_rho = exp(g[1]);
    f->markov = (sd_markov){ .a_easy = logistic(mk[0]), .a_hard = logistic(mk[1]), .stay = 0.999999 * logistic(mk[2]) };
    if (f->markov.a_easy < f->markov.a_hard) { /* name the states by their acceptance */
        double t = f->markov.a_easy;
        f->markov.a_easy = f->markov.a_hard;
        f->markov.a_hard = t;
    }
    double aic_geo = 2.0 * 2 - 2.0 * f->ll_geometric, aic_markov = 2.0 * 3 - 2.0 * f->ll_markov;
    f->non_iid = aic_markov < aic_geo ? SD_FIT_MARKOV : SD_FIT_GEOMETRIC;
    f->chosen = f->lr_pvalue < f->level ? f->non_iid : SD_FIT_IID;
    return SD_OK;
}

sd_status sd_fit_counts_from_engine(const sd_engine_stats *s, size_t gamma, sd_counts *out, sd_error *err)
{
    if (gamma < 1 || gamma > SD_COUNTS_MAX_GAMMA || gamma > s->max_gamma)
        return sd_status_fail(err, SD_EINVAL, "gamma: %zu is outside [1, %d] or beyond the run's", gamma, SD_COUNTS_MAX_GAMMA);
    if (s->iterations == 0)
        return sd_status_fail(err, SD_EINVAL, "stats: the run has no iteration");
    sd_counts c = { .gamma = gamma, .drafts = (double)s->iterations, .draft_tokens = (double)s->draft_calls,
                    .accepted_tokens = (double)s->accepted, .has_positions = 1, .kind = SD_COUNTS_PREFIX };
    for (size_t i = 0; i < gamma; i++) { /* drafts that verified position i + 1 and accepted it */
        c.accepted_at[i] = (double)s->accepted_at[i];
        c.reached[i] = (double)s->iterations;
    }
    snprintf(c.format, sizeof c.format, "engine");
    *out = c;
    return SD_OK;
}

sd_status sd_fit_counts(const sd_counts *c, double level, sd_fit *out, sd_error *err)
{
    if (!(level > 0.0 && level < 1.0))
        return sd_status_fail(err, SD_EINVAL, "level: %g is outside (0, 1)", level);
    if (c->gamma < 1 || c->gamma > SD_COUNTS_MAX_GAMMA)
        return sd_status_fail(err, SD_EINVAL, "counts: gamma %zu is outside [1, %d]", c->gamma, SD_COUNTS_MAX_GAMMA);
    sd_fit f = { .level = level, .chosen = SD_FIT_IID, .non_iid = SD_FIT_IID };
    sd_status st = closed_forms(c, &f, err);
    if (st == SD_OK && f.has_positions && f.lr_dof > 0.0)
        st = non_iid(&f, err);
    if (st == SD_OK)
        *out = f;
    return st;
}

/* ---- predictions --------------------------------------------------------------------- */

/* The fitted model's alpha_k, k = 1..g, into a. */
static void fitted_positions(const sd_fit *f, sd_fit_model m, size_t g, double *a)
{
    if (m == SD_FIT_IID || !f->has_positions) {
        for (size_t k = 0; k < g; k++)
            a[k] = f->alpha;
        return;
    }
    double x[3];
    if (m == SD_FIT_GEOMETRIC) {
        x[0] = log(f->geo_alpha / (1.0 - f->geo_alpha));
        x[1] = log(f->geo_rho);
    } else {
        x[0] = log(f->markov.a_easy / (1.0 - f->markov.a_easy));
        x[1] = log(f->markov.a_hard / (1.0 - f->markov.a_hard));
        x[2] = log(f->markov.stay / (0.999999 - f->markov.stay));
    }
    model_positions(m, x, f->gamma, g, a);
}

double sd_fit_expected_tokens(const sd_fit *f, sd_fit_model m, size_t g)
{
    if (g < 1)
        return NAN;
    if (m == SD_FIT_IID || !f->has_positions)
        return m == f->chosen && f->has_positions && g <= f->gamma ? sd_theory_expected_tokens_vec(f->cond, g)
                                                                   : sd_theory_expected_tokens(f->alpha, (double)g);
    if (m == f->chosen && g <= f->gamma) /* the measured positions: no model */
        return sd_theory_expected_tokens_vec(f->cond, g);
    if (m == SD_FIT_MARKOV) /* the chain at draft length g: its start law is g's */
        return sd_theory_markov_expected_tokens(&f->markov, (double)g);
    double e = 1.0, run = 1.0;
    for (size_t k = 0; k < g; k++) /* geometric: 1 + sum_k prod_{j <= k} alpha rho^(j-1) */
        e += (run *= fmin(1.0, f->geo_alpha * pow(f->geo_rho, (double)k)));
    return e;
}

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
    if (!c->has_positions) {
        out->accepted_tokens = binomial_draw(r, f->alpha, c->draft_tokens);
        return;
    }
    double prev_a = c->drafts, prev_r = c->drafts, sum = 0.0;
    for (size_t k = 0; k < c->gamma; k++) {
        double t = prev_r > 0.0 ? round(prev_a * c->reached[k] / prev_r) : 0.0;
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

/* ---- the tables -------------------------------------------------------------------------- */

typedef struct {
    double e, e_lo, e_hi, f, f_lo, f_hi;
} prediction;

static sd_status predict(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, prediction *p, sd_error *err)
{
    double *boot = NULL;
    if (rq->replicates > 0 && (boot = malloc(rq->replicates * rq->gamma_max * sizeof *boot)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu bootstrap replicates", rq->replicates);
    sd_status st = rq->replicates > 0 ? bootstrap(c, f, rq, boot, err) : SD_OK;
    for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++) {
        prediction *q = &p[g - 1];
        q->e = sd_fit_expected_tokens(f, f->chosen, g);
        q->e_lo = q->e;
        q->e_hi = q->e;
        if (rq->replicates > 0)
            interval(boot + g - 1, rq->gamma_max, rq->replicates, &q->e_lo, &q->e_hi);
        double cost = rq->cost[g - 1];
        q->f = q->e / cost;
        q->f_lo = q->e_lo / cost;
        q->f_hi = q->e_hi / cost;
    }
    free(boot);
    return st;
}

/* The best gamma' by the point estimate, and the gamma' whose improvement
 * reaches the best's lower bound. */
static size_t recommend(const prediction *p, size_t n, size_t *from, size_t *to)
{
    size_t best = 0;
    for (size_t g = 1; g < n; g++)
        if (p[g].f > p[best].f)
            best = g;
    *from = *to = best;
    while (*from > 0 && p[*from - 1].f >= p[best].f_lo)
        (*from)--;
    while (*to + 1 < n && p[*to + 1].f >= p[best].f_lo)
        (*to)++;
    return best;
}

static sd_status predictions_table(const sd_fit *f, const prediction *p, size_t n, sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    for (size_t g = 1; g <= n && st == SD_OK; g++) {
        const prediction *q = &p[g - 1];
        int extra = g > f->gamma;
        const sd_cell row[] = { sd_int((long long)g), sd_real(q->e), sd_real(q->e_lo), sd_real(q->e_hi), sd_real(q->f),
                                sd_real(q->f_lo), sd_real(q->f_hi), sd_text(extra ? "yes" : "no"),
                                sd_text(!f->has_positions || extra ? MODEL_NAMES[f->chosen] : "measured") };
        st = sd_table_add(t, row, err);
    }
    size_t from, to, best = recommend(p, n, &from, &to);
    if (st == SD_OK)
        st = sd_table_note(t, err, "recommended gamma %zu (improvement %.4g, 95%% interval %.4g-%.4g); gamma %zu to %zu "
                           "reach its lower bound.", best + 1, p[best].f, p[best].f_lo, p[best].f_hi, from + 1, to + 1);
    if (st == SD_OK && f->has_positions)
        st = sd_table_note(t, err, "gamma <= %zu: the measured acceptance per position; beyond: the %s model "
                           "(i.i.d. test p = %.3g at level %g).", f->gamma, MODEL_NAMES[f->chosen], f->lr_pvalue,
                           f->level);
    return st;
}

static sd_status positions_table(const sd_fit *f, sd_table *t, sd_error *err)
{
    if (!f->has_positions)
        return sd_status_fail(err, SD_EINVAL, "report: these counts carry no per-position data (vLLM V0); use predictions "
                              "or summary");
    double model[SD_COUNTS_MAX_GAMMA];
    fitted_positions(f, f->non_iid, f->gamma, model);
    sd_status st = SD_OK;
    for (size_t k = 0; k < f->gamma && st == SD_OK; k++) {
        const sd_cell row[] = { sd_int((long long)k + 1), sd_real(f->tested[k]), sd_real(f->passed[k]),
                                sd_real(f->cond[k]), sd_real(f->cond_lo[k]), sd_real(f->cond_hi[k]), sd_real(f->alpha),
                                sd_real(model[k]), sd_text(MODEL_NAMES[f->non_iid]) };
        st = sd_table_add(t, row, err);
    }
    return st;
}

static sd_status summary_table(const sd_counts *c, const sd_fit *f, const prediction *p, size_t n, sd_table *t,
                               sd_error *err)
{
    size_t from, to, best = recommend(p, n, &from, &to);
    char range[32];
    snprintf(range, sizeof range, "%zu-%zu", from + 1, to + 1);
    const sd_cell row[] = {
        sd_text(c->format), sd_text(c->kind == SD_COUNTS_PREFIX ? "prefix" : "any"), sd_real(c->drafts),
        sd_int((long long)c->gamma), sd_real(f->alpha), sd_real(f->alpha_lo), sd_real(f->alpha_hi),
        sd_real(f->lr_statistic), sd_real(f->lr_dof), sd_real(f->lr_pvalue),
        sd_real(f->has_positions ? f->geo_alpha : f->alpha), sd_real(f->has_positions ? f->geo_rho : 1.0),
        sd_real(f->has_positions ? f->markov.a_easy : f->alpha), sd_real(f->has_positions ? f->markov.a_hard : f->alpha),
        sd_real(f->has_positions ? f->markov.stay : 0.0), sd_text(MODEL_NAMES[f->non_iid]),
        sd_text(MODEL_NAMES[f->chosen]), sd_int((long long)best + 1), sd_text(range),
    };
    sd_status st = sd_table_add(t, row, err);
    if (st == SD_OK && c->notes[0] != '\0')
        st = sd_table_note(t, err, "%s", c->notes);
    return st;
}

static const char *const PREDICTION_COLS[] = { "gamma", "expected_tokens", "expected_tokens_lo", "expected_tokens_hi",
                                                "improvement", "improvement_lo", "improvement_hi", "extrapolated",
                                                "model" };
static const char *const POSITION_COLS[] = { "position", "tested", "accepted", "alpha_k", "alpha_k_lo", "alpha_k_hi",
                                             "alpha_iid", "alpha_k_model", "model" };
static const char *const SUMMARY_COLS[] = { "format", "counts", "drafts", "gamma", "alpha", "alpha_lo", "alpha_hi",
                                            "lr_statistic", "lr_dof", "lr_pvalue", "geometric_alpha", "geometric_rho",
                                            "markov_alpha_easy", "markov_alpha_hard", "markov_stay", "non_iid_model",
                                            "chosen_model", "recommended_gamma", "gamma_within_interval" };

sd_status sd_fit_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, sd_fit_report report,
                       sd_table **out, sd_error *err)
{
    if (rq->gamma_max < 1 || rq->gamma_max > 4096)
        return sd_status_fail(err, SD_EINVAL, "gamma_max: %zu is outside [1, 4096]", rq->gamma_max);
    for (size_t g = 0; g < rq->gamma_max; g++)
        if (!(rq->cost[g] > 0.0 && isfinite(rq->cost[g])))
            return sd_status_fail(err, SD_EINVAL, "cost: the cost of gamma %zu is %g; need a finite value > 0", g + 1,
                                  rq->cost[g]);
    const char *const *cols = report == SD_FIT_REPORT_PREDICTIONS ? PREDICTION_COLS
                              : report == SD_FIT_REPORT_POSITIONS ? POSITION_COLS : SUMMARY_COLS;
    size_t ncols = report == SD_FIT_REPORT_SUMMARY ? sizeof SUMMARY_COLS / sizeof *SUMMARY_COLS : 9;
    prediction *p = calloc(rq->gamma_max, sizeof *p);
    sd_table *t = sd_table_alloc(ncols, cols);
    sd_status st = p == NULL || t == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory") : SD_OK;
    if (st == SD_OK && report != SD_FIT_REPORT_POSITIONS)
        st = predict(c, f, rq, p, err);
    if (st == SD_OK)
        st = report == SD_FIT_REPORT_PREDICTIONS ? predictions_table(f, p, rq->gamma_max, t, err)
             : report == SD_FIT_REPORT_POSITIONS ? positions_table(f, t, err)
                                                 : summary_table(c, f, p, rq->gamma_max, t, err);
    free(p);
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    *out = t;
    return SD_OK;
}
