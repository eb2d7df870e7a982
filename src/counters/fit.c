/* fit.c -- alpha, the i.i.d. test and the fitted models from engine counters
 * (see fit.h); the predictions and their bootstrap are fit_predict.c's.
 *
 * The likelihood of the position counts is binomial per position: t_k
 * tests, A_k passes, probability alpha_k.  The i.i.d. and per-position
 * maxima are closed forms; the geometric and Markov models are fitted with
 * GSL's Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2) on
 * unconstrained parameters (logistic and log transforms).  Cost: O(gamma)
 * per likelihood evaluation (O(gamma log gamma) for the Markov model), a
 * few hundred evaluations per fit.
 */
#include "fit_impl.h"

#include <math.h>
#include <stdio.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_roots.h>

static const double Z95 = 1.959963984540054;  /* the standard normal's 97.5% quantile */
static const double PROB_EDGE = 1e-12;        /* model probabilities kept inside (0, 1) */
enum { SIMPLEX_ITERATIONS = 2000 };

static const char *const MODEL_NAMES[] = { "iid", "geometric", "markov" };

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

void sd_fit_draft_lengths(const sd_counts *c, double *n)
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
    sd_fit_draft_lengths(c, n);
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

/* ---- the fitted models ------------------------------------------------------------------ */

void sd_fit_model_positions(const sd_fit *f, sd_fit_model m, size_t g, double *a)
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
