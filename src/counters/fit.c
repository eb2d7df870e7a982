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
#include <gsl/gsl_roots.h>
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

static const char *const ESTIMATOR_NAMES[] = { [SD_FIT_EST_POSITIONS] = "positions",
                                               [SD_FIT_EST_PREFIX_MEAN] = "prefix-mean",
                                               [SD_FIT_EST_GAUGE] = "gauge", [SD_FIT_EST_ANY] = "any" };

const char *sd_fit_estimator_name(sd_fit_estimator e) { return ESTIMATOR_NAMES[e]; }

static const char *const TEST_NAMES[] = { [SD_FIT_TEST_NONE] = "none", [SD_FIT_TEST_LR] = "likelihood-ratio",
                                          [SD_FIT_TEST_EMITTED] = "emitted-tokens" };

const char *sd_fit_test_name(sd_fit_test t) { return TEST_NAMES[t]; }

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

/* ---- the estimators ---------------------------------------------------------------------- */

/* positions: t_k and A_k from the counts (fit.h); the i.i.d. and per-position
 * maxima and the likelihood-ratio test. */
static void by_positions(const sd_counts *c, sd_fit *f)
{
    double prev_a = c->drafts, prev_r = c->drafts;
    for (size_t k = 0; k < c->gamma; k++) {
        double r = c->reached[k];
        /* at least the drafts that passed position k were tested there (the censoring ratio
         * can fall below them when where a draft stops depends on its acceptance) */
        f->tested[k] = fmax(c->accepted_at[k], prev_r > 0.0 ? prev_a * r / prev_r : 0.0);
        f->passed[k] = c->accepted_at[k];
        f->trials += f->tested[k];
        f->accepted += f->passed[k];
        prev_a = c->accepted_at[k];
        prev_r = r;
    }
    if (!(f->trials > 0.0))
        return;
    f->alpha = f->accepted / f->trials;
    wilson(f->accepted, f->trials, &f->alpha_lo, &f->alpha_hi);
    size_t positions = 0;
    for (size_t k = 0; k < f->gamma; k++) {
        f->cond[k] = f->tested[k] > 0.0 ? f->passed[k] / f->tested[k] : 0.0;
        wilson(f->passed[k], f->tested[k], &f->cond_lo[k], &f->cond_hi[k]);
        f->ll_iid += binomial_ll(f->passed[k], f->tested[k], f->alpha);
        f->ll_positions += binomial_ll(f->passed[k], f->tested[k], f->cond[k]);
        positions += f->tested[k] > 0.0;
    }
    f->measured_en = 1.0 + c->accepted_tokens / c->drafts;
    if (positions > 1) {
        f->test = SD_FIT_TEST_LR;
        f->test_statistic = fmax(0.0, 2.0 * (f->ll_positions - f->ll_iid));
        f->test_dof = (double)positions - 1.0;
        f->test_pvalue = gsl_cdf_chisq_Q(f->test_statistic, f->test_dof);
    }
}

/* The drafts of each length l = 1..gamma behind the counts, n[l - 1]: from
 * reached (R_l - R_{l+1}), or all gamma long for a gauge (one draft). */
static void draft_lengths(const sd_counts *c, double *n)
{
    for (size_t l = 1; l <= c->gamma; l++)
        n[l - 1] = c->gauge ? (l == c->gamma) : c->reached[l - 1] - (l < c->gamma ? c->reached[l] : 0.0);
}

/* prefix-mean's m(alpha) and v(alpha) (fit.h) over the drafts' lengths n[]. */
static void prefix_moments(const double *n, size_t gamma, double alpha, double *m, double *v)
{
    *m = 0.0;
    *v = 0.0;
    double mu = 0.0, second = 0.0, power = 1.0;
    for (size_t l = 1; l <= gamma; l++) {
        power *= alpha;
        mu += power;                              /* sum_{i<=l} alpha^i */
        second += (2.0 * (double)l - 1.0) * power; /* sum_{i<=l} (2i - 1) alpha^i = E[X^2] */
        *m += n[l - 1] * mu;
        *v += n[l - 1] * fmax(0.0, second - mu * mu);
    }
}

typedef struct {
    const double *n;
    size_t gamma;
    double target, z; /* the root of m(alpha) + z sqrt(v(alpha)) - target */
} prefix_root;

static double prefix_residual(double alpha, void *arg)
{
    const prefix_root *p = arg;
    double m, v;
    prefix_moments(p->n, p->gamma, alpha, &m, &v);
    return m + p->z * sqrt(v) - p->target;
}

/* The root of p's residual in [lo, hi], where it changes sign (GSL's Brent
 * solver, to 1e-13 in alpha). */
static sd_status prefix_solve(prefix_root *p, double lo, double hi, double *x, sd_error *err)
{
    gsl_function fn = { .function = prefix_residual, .params = p };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    int status = gsl_root_fsolver_set(s, &fn, lo, hi);
    for (int it = 0; status == GSL_SUCCESS && it < 200; it++) {
        if ((status = gsl_root_fsolver_iterate(s)) != GSL_SUCCESS)
            break;
        lo = gsl_root_fsolver_x_lower(s);
        hi = gsl_root_fsolver_x_upper(s);
        if ((status = gsl_root_test_interval(lo, hi, 1e-13, 0.0)) != GSL_CONTINUE)
            break;
        status = GSL_SUCCESS;
    }
    *x = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    if (status != GSL_SUCCESS)
        return sd_status_fail(err, SD_EFAIL, "fit: the truncated-geometric equation's root finder failed");
    return SD_OK;
}

/* prefix-mean and gauge: alpha from m(alpha) = the accepted tokens, and (not
 * for a gauge) its score interval. */
static sd_status by_prefix_mean(const sd_counts *c, sd_fit *f, sd_error *err)
{
    double n[SD_COUNTS_MAX_GAMMA], top, v;
    draft_lengths(c, n);
    f->accepted = c->gauge ? c->mean_accepted : c->accepted_tokens;
    prefix_moments(n, c->gamma, 1.0, &top, &v); /* the drafted tokens: every one accepted */
    f->trials = top;
    f->measured_en = 1.0 + (c->gauge ? c->mean_accepted : c->accepted_tokens / c->drafts);
    if (!(top > 0.0))
        return SD_OK;
    prefix_root p = { n, c->gamma, f->accepted, 0.0 };
    sd_status st = SD_OK;
    f->alpha = f->accepted <= 0.0 ? 0.0 : f->accepted >= top ? 1.0 : -1.0;
    if (f->alpha < 0.0 && (st = prefix_solve(&p, 0.0, 1.0, &f->alpha, err)) != SD_OK)
        return st;
    f->alpha_lo = f->alpha_hi = f->alpha;
    f->has_interval = !c->gauge;
    if (c->gauge)
        return SD_OK;
    /* lo: m + z sd reaches the total; hi: m - z sd does.  At alpha_hat = 0 or 1 the
     * residual vanishes at the end itself (sd = 0): the bracket starts just inside. */
    p.z = Z95;
    if (f->accepted > 0.0 && (st = prefix_solve(&p, 0.0, fmin(f->alpha, 1.0 - 1e-15), &f->alpha_lo, err)) != SD_OK)
        return st;
    p.z = -Z95;
    if (f->accepted < top && (st = prefix_solve(&p, fmax(f->alpha, 1e-15), 1.0, &f->alpha_hi, err)) != SD_OK)
        return st;
    prefix_moments(n, c->gamma, f->alpha, &top, &v);
    f->measured_en_se = sqrt(v) / c->drafts;
    return SD_OK;
}

/* any's test (fit.h): the Wald statistic of the measured prefix against eq.
 * (1) at alpha_hat, from the emitted tokens. */
static void emitted_test(const sd_counts *c, sd_fit *f)
{
    double g = (double)c->gamma, a = f->alpha, b = 1.0 - a;
    double pl = 1.0, el = 0.0, el2 = 0.0, els = 0.0, dm = 0.0; /* pl = alpha^l */
    for (size_t l = 0; l <= c->gamma; l++) {
        double P = l < c->gamma ? pl * b : pl;                            /* P(L = l) */
        double es = l < c->gamma ? (double)l + (g - (double)l - 1.0) * a : g; /* E[S | L = l] */
        el += P * (double)l;
        el2 += P * (double)l * (double)l;
        els += P * (double)l * es;
        if (l > 0)
            dm += (double)l * pl / a; /* m'(alpha) = sum_l l alpha^(l-1) */
        pl *= a;
    }
    double var_l = el2 - el * el, var_s = g * a * b, cov = els - el * g * a;
    double var = (var_l - 2.0 * dm * cov / g + dm * dm * var_s / (g * g)) / c->drafts;
    f->measured_en = c->emitted_tokens / c->drafts;
    f->measured_en_se = sqrt(fmax(0.0, var_l) / c->drafts);
    if (!(a > 0.0 && a < 1.0 && var > 0.0))
        return; /* alpha_hat at 0 or 1: the prefix is determined, nothing to test */
    double d = (f->measured_en - 1.0) - el;
    f->test = SD_FIT_TEST_EMITTED;
    f->test_statistic = d * d / var;
    f->test_dof = 1.0;
    f->test_pvalue = gsl_cdf_chisq_Q(f->test_statistic, 1.0);
}

/* any (vLLM V0): accepted / drafted tokens; with emitted tokens, their test,
 * and alpha from them (fit.h). */
static sd_status by_any(const sd_counts *c, sd_fit *f, sd_error *err)
{
    f->trials = c->draft_tokens;
    f->accepted = c->accepted_tokens;
    if (!(f->trials > 0.0))
        return SD_OK;
    f->alpha = f->accepted / f->trials;
    wilson(f->accepted, f->trials, &f->alpha_lo, &f->alpha_hi);
    f->alpha_any = f->alpha;
    f->alpha_any_lo = f->alpha_lo;
    f->alpha_any_hi = f->alpha_hi;
    if (!c->has_emitted)
        return SD_OK;
    emitted_test(c, f);
    sd_counts prefix = *c; /* the emitted tokens' prefixes: every draft gamma long */
    prefix.accepted_tokens = c->emitted_tokens - c->drafts;
    prefix.draft_tokens = c->drafts * (double)c->gamma;
    for (size_t i = 0; i < c->gamma; i++)
        prefix.reached[i] = c->drafts;
    double t = f->trials, a = f->accepted, en = f->measured_en, se = f->measured_en_se;
    sd_status st = by_prefix_mean(&prefix, f, err);
    f->trials = t, f->accepted = a, f->measured_en = en, f->measured_en_se = se;
    return st;
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
    f->chosen = f->test_pvalue < f->level ? f->non_iid : SD_FIT_IID;
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
    sd_fit f = { .level = level, .chosen = SD_FIT_IID, .non_iid = SD_FIT_IID, .gamma = c->gamma,
                 .has_positions = c->has_positions && !c->gauge, .has_interval = 1, .test_pvalue = 1.0 };
    sd_status st = SD_OK;
    f.estimator = c->gauge                      ? SD_FIT_EST_GAUGE
                  : c->kind == SD_COUNTS_ANY    ? SD_FIT_EST_ANY
                  : c->has_positions            ? SD_FIT_EST_POSITIONS
                                                : SD_FIT_EST_PREFIX_MEAN;
    if (f.estimator == SD_FIT_EST_POSITIONS)
        by_positions(c, &f);
    else if (f.estimator == SD_FIT_EST_ANY)
        st = by_any(c, &f, err);
    else
        st = by_prefix_mean(c, &f, err);
    if (st == SD_OK && !(f.trials > 0.0))
        st = sd_status_fail(err, SD_EINVAL, "counts: no draft position was ever tested");
    if (st == SD_OK && f.test == SD_FIT_TEST_LR)
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
        draft_lengths(c, n);
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

/* ---- the tables -------------------------------------------------------------------------- */

typedef struct {
    double e, e_lo, e_hi, f, f_lo, f_hi;
} prediction;

static sd_status predict(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, prediction *p, sd_error *err)
{
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
    sd_status st = reps > 0 ? bootstrap(c, f, &brq, boot, err) : SD_OK;
    for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++) {
        prediction *q = &p[g - 1];
        q->e = sd_fit_expected_tokens(f, f->chosen, g);
        q->e_lo = q->e;
        q->e_hi = q->e;
        double cost = rq->cost ? rq->cost[g - 1] : 1.0;
        q->f = q->e / cost;
        if (ratio != NULL) /* improvement b: replicate b's E(N) over cost draw b mod nc */
            for (size_t b = 0; b < nf; b++)
                ratio[b] = (reps > 0 ? boot[b * rq->gamma_max + g - 1] : q->e) /
                           rq->cost_draws[(b % nc) * rq->gamma_max + g - 1];
        if (reps > 0)
            interval(boot + g - 1, rq->gamma_max, reps, &q->e_lo, &q->e_hi);
        q->f_lo = q->e_lo / cost;
        q->f_hi = q->e_hi / cost;
        if (ratio != NULL)
            interval(ratio, 1, nf, &q->f_lo, &q->f_hi);
    }
    free(boot);
    free(ratio);
    return st;
}

/* The advice of the predictions p[0 .. n-1] (a cost given). */
typedef struct {
    size_t best;     /* the best gamma' by the point estimate, 0-based */
    size_t from, to; /* the gamma' whose improvement reaches the best's lower bound */
    int speculate;   /* 0: no gamma' improves on plain decoding (improvement <= 1): gamma 0 */
    int at_cap;      /* 1: the best is the last gamma' predicted (gamma_max) */
} advice;

static advice recommend(const prediction *p, size_t n)
{
    advice a = { 0 };
    for (size_t g = 1; g < n; g++)
        if (p[g].f > p[a.best].f)
            a.best = g;
    a.from = a.to = a.best;
    while (a.from > 0 && p[a.from - 1].f >= p[a.best].f_lo)
        a.from--;
    while (a.to + 1 < n && p[a.to + 1].f >= p[a.best].f_lo)
        a.to++;
    a.speculate = p[a.best].f > 1.0;
    a.at_cap = a.speculate && a.best + 1 == n;
    return a;
}

static sd_status advice_notes(const sd_fit_request *rq, const prediction *p, sd_table *t, sd_error *err)
{
    advice a = recommend(p, rq->gamma_max);
    const prediction *b = &p[a.best];
    if (!a.speculate)
        return sd_table_note(t, err, "do not speculate (gamma 0): no gamma improves on plain decoding; the best, gamma "
                             "%zu, gives %.4g (95%% interval %.4g-%.4g).", a.best + 1, b->f, b->f_lo, b->f_hi);
    sd_status st = sd_table_note(t, err, "recommended gamma %zu (improvement %.4g, 95%% interval %.4g-%.4g); gamma %zu "
                                 "to %zu reach its lower bound.", a.best + 1, b->f, b->f_lo, b->f_hi, a.from + 1,
                                 a.to + 1);
    if (st == SD_OK && a.at_cap)
        st = sd_table_note(t, err, "the optimum sits at the cap, gamma_max = %zu: a longer draft may be better (raise "
                           "the cap).", rq->gamma_max);
    return st;
}

/* The sentence on how alpha was estimated, and what the test and the
 * models can say with these counts. */
static sd_status estimator_notes(const sd_counts *c, const sd_fit *f, sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    switch (f->estimator) {
    case SD_FIT_EST_POSITIONS:
        return sd_table_note(t, err, "gamma <= %zu: the measured acceptance per position; beyond: the %s model "
                             "(i.i.d. test p = %.3g at level %g).", f->gamma, MODEL_NAMES[f->chosen], f->test_pvalue,
                             f->level);
    case SD_FIT_EST_PREFIX_MEAN:
        return sd_table_note(t, err, "estimator prefix-mean: prefix counts without per-position data; alpha = %.4g "
                             "solves sum_i R_i alpha^i = %.0f accepted tokens (eq. 1's truncated geometric over the "
                             "drafts' lengths); every gamma uses eq. (1); no test of i.i.d. is possible without "
                             "positions.", f->alpha, c->accepted_tokens);
    case SD_FIT_EST_GAUGE:
        return sd_table_note(t, err, "estimator gauge: a mean of %.4g accepted tokens per draft and no counts, so "
                             "alpha = %.4g (solving sum_{i<=%zu} alpha^i = the mean) has no interval and i.i.d. cannot "
                             "be tested; every gamma uses eq. (1).", c->mean_accepted, f->alpha, f->gamma);
    case SD_FIT_EST_ANY:
        st = sd_table_note(t, err, "estimator any: vLLM V0 counts every position that passed its own test, so "
                           "accepted / drafted tokens = %.4g (%.4g-%.4g) estimates alpha under i.i.d.", f->alpha_any,
                           f->alpha_any_lo, f->alpha_any_hi);
        if (st == SD_OK && c->has_emitted)
            st = sd_table_note(t, err, "Its emitted tokens give the measured E(N) = %.4g at gamma %zu, where eq. (1) "
                               "at that alpha gives %.4g: i.i.d. test (1 degree of freedom) p = %.3g at level %g%s. The "
                               "predictions use alpha = %.4g (%.4g-%.4g), which reproduces the measured E(N) (the "
                               "prefix-mean estimator on the emitted tokens), and eq. (1) at every gamma. The Markov "
                               "fit needs per-position counts.", f->measured_en, f->gamma,
                               sd_theory_expected_tokens(f->alpha_any, (double)f->gamma), f->test_pvalue, f->level,
                               f->test_pvalue < f->level ? ": i.i.d. is rejected, so predictions at other gammas than "
                               "the measured are suspect" : "", f->alpha, f->alpha_lo, f->alpha_hi);
        else if (st == SD_OK)
            st = sd_table_note(t, err, "Without emitted tokens, E(N) is not measured and i.i.d. cannot be tested; every "
                               "gamma uses eq. (1).");
        return st;
    }
    return st;
}

static sd_status predictions_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, const prediction *p,
                                   sd_table *t, sd_error *err)
{
    sd_status st = SD_OK;
    for (size_t g = 1; g <= rq->gamma_max && st == SD_OK; g++) {
        const prediction *q = &p[g - 1];
        int extra = g > f->gamma;
        const char *model = !extra && f->has_positions ? "measured" : MODEL_NAMES[f->chosen];
        const sd_cell with_cost[] = { sd_int((long long)g), sd_real(q->e), sd_real(q->e_lo), sd_real(q->e_hi),
                                      sd_real(q->f), sd_real(q->f_lo), sd_real(q->f_hi),
                                      sd_text(extra ? "yes" : "no"), sd_text(model) };
        const sd_cell without[] = { sd_int((long long)g), sd_real(q->e), sd_real(q->e_lo), sd_real(q->e_hi),
                                    sd_text(extra ? "yes" : "no"), sd_text(model) };
        st = sd_table_add(t, rq->cost ? with_cost : without, err);
    }
    if (st == SD_OK && rq->cost)
        st = advice_notes(rq, p, t, err);
    if (st == SD_OK)
        st = estimator_notes(c, f, t, err);
    if (st == SD_OK && !f->has_interval)
        st = sd_table_note(t, err, "the intervals are the estimates themselves: a gauge carries no counts to give one.");
    if (st == SD_OK && !rq->cost)
        st = sd_table_note(t, err, "no cost given: E(N) only; a cost (or the presets) adds the improvement and the "
                           "recommended gamma.");
    return st;
}

static sd_status positions_table(const sd_fit *f, sd_table *t, sd_error *err)
{
    if (!f->has_positions)
        return sd_status_fail(err, SD_EINVAL, "report: these counts carry no per-position data (estimator %s); use "
                              "predictions or summary", ESTIMATOR_NAMES[f->estimator]);
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

static sd_status summary_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, const prediction *p,
                               sd_table *t, sd_error *err)
{
    char range[32] = "";
    advice a = { 0 };
    if (rq->cost) {
        a = recommend(p, rq->gamma_max);
        if (a.speculate)
            snprintf(range, sizeof range, "%zu-%zu", a.from + 1, a.to + 1);
        else
            snprintf(range, sizeof range, "none");
    }
    int pos = f->has_positions && f->test == SD_FIT_TEST_LR;
    const sd_cell row[] = {
        sd_text(c->format), sd_text(c->kind == SD_COUNTS_PREFIX ? "prefix" : "any"), sd_real(c->drafts),
        sd_int((long long)c->gamma), sd_text(ESTIMATOR_NAMES[f->estimator]), sd_real(f->alpha), sd_real(f->alpha_lo),
        sd_real(f->alpha_hi), sd_real(f->measured_en), sd_text(TEST_NAMES[f->test]), sd_real(f->test_statistic),
        sd_real(f->test_dof), sd_real(f->test_pvalue), sd_real(pos ? f->geo_alpha : f->alpha),
        sd_real(pos ? f->geo_rho : 1.0), sd_real(pos ? f->markov.a_easy : f->alpha),
        sd_real(pos ? f->markov.a_hard : f->alpha), sd_real(pos ? f->markov.stay : 0.0),
        sd_text(MODEL_NAMES[f->non_iid]), sd_text(MODEL_NAMES[f->chosen]),
        sd_int(a.speculate ? (long long)a.best + 1 : 0), sd_text(range), sd_text(a.at_cap ? "yes" : "no"),
    };
    sd_status st = sd_table_add(t, row, err);
    if (st == SD_OK && c->notes[0] != '\0')
        st = sd_table_note(t, err, "%s", c->notes);
    if (st == SD_OK)
        st = estimator_notes(c, f, t, err);
    if (st == SD_OK && rq->cost)
        st = advice_notes(rq, p, t, err);
    return st;
}

static const char *const PREDICTION_COLS[] = { "gamma", "expected_tokens", "expected_tokens_lo", "expected_tokens_hi",
                                                "improvement", "improvement_lo", "improvement_hi", "extrapolated",
                                                "model" };
static const char *const PREDICTION_COLS_NO_COST[] = { "gamma", "expected_tokens", "expected_tokens_lo",
                                                        "expected_tokens_hi", "extrapolated", "model" };
static const char *const POSITION_COLS[] = { "position", "tested", "accepted", "alpha_k", "alpha_k_lo", "alpha_k_hi",
                                             "alpha_iid", "alpha_k_model", "model" };
static const char *const SUMMARY_COLS[] = { "format", "counts", "drafts", "gamma", "estimator", "alpha", "alpha_lo",
                                            "alpha_hi", "measured_expected_tokens", "test", "test_statistic",
                                            "test_dof", "test_pvalue", "geometric_alpha", "geometric_rho",
                                            "markov_alpha_easy", "markov_alpha_hard", "markov_stay", "non_iid_model",
                                            "chosen_model", "recommended_gamma", "gamma_within_interval", "at_cap" };
#define NCOLS(a) (sizeof(a) / sizeof *(a))

sd_status sd_fit_table(const sd_counts *c, const sd_fit *f, const sd_fit_request *rq, sd_fit_report report,
                       sd_table **out, sd_error *err)
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
    const char *const *cols = POSITION_COLS;
    size_t ncols = NCOLS(POSITION_COLS);
    if (report == SD_FIT_REPORT_PREDICTIONS) {
        cols = rq->cost ? PREDICTION_COLS : PREDICTION_COLS_NO_COST;
        ncols = rq->cost ? NCOLS(PREDICTION_COLS) : NCOLS(PREDICTION_COLS_NO_COST);
    } else if (report == SD_FIT_REPORT_SUMMARY) {
        cols = SUMMARY_COLS;
        ncols = rq->cost ? NCOLS(SUMMARY_COLS) : NCOLS(SUMMARY_COLS) - 3; /* no recommendation without a cost */
    }
    prediction *p = calloc(rq->gamma_max, sizeof *p);
    sd_table *t = sd_table_alloc(ncols, cols);
    sd_status st = p == NULL || t == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory") : SD_OK;
    if (st == SD_OK && report != SD_FIT_REPORT_POSITIONS)
        st = predict(c, f, rq, p, err);
    if (st == SD_OK)
        st = report == SD_FIT_REPORT_PREDICTIONS ? predictions_table(c, f, rq, p, t, err)
             : report == SD_FIT_REPORT_POSITIONS ? positions_table(f, t, err)
                                                 : summary_table(c, f, rq, p, t, err);
    free(p);
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    *out = t;
    return SD_OK;
}
