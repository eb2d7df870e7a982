/* theory.c -- closed forms of speculative decoding (see theory.h).
 *
 * The optimum uses GSL's lower branch of the Lambert W function where it is
 * well conditioned and a GSL Brent root finder on the same equation written
 * in u = ln v elsewhere:
 *   near the branch point (d small: alpha -> 1 with c not small) W_{-1} loses
 *   digits like eps/d, so solve expm1(u) - u = d directly;
 *   far out (d large: small c) -e^{-(1+d)} underflows to -0, so solve in
 *   log space: u = ln d + log1p((1 + u)/d).
 * Cost: O(1) in every case (a bounded number of root-finder iterations).
 */
#include "specdec/theory.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_sf_lambert.h>
#include <gsl/gsl_sort.h>

static int alpha_ok(double alpha) { return alpha >= 0.0 && alpha <= 1.0; }
static int nonneg_ok(double x) { return x >= 0.0 && x < INFINITY; }

/* Whole draft lengths up to this are summed term by term (the usual ones: faster than expm1 and log). */
enum { SHORT_GAMMA = 8 };

double sd_theory_expected_tokens(double alpha, double gamma)
{
    if (!alpha_ok(alpha) || !nonneg_ok(gamma))
        return NAN;
    if (alpha <= 0.0)
        return 1.0; /* only the resampled token: 0^0 = 1 */
    if (alpha >= 1.0)
        return gamma + 1.0;
    /* The first terms by Horner's rule (positive terms: at most 2 ulp a term), up to gamma
     * when it is whole and short; the rest, alpha^(S+1) times the tail's closed form, where
     * 1 - alpha^k = -expm1(k ln alpha) has no cancellation near alpha = 1 (the relative
     * error of the product is amplified by |x|/(e^|x| - 1) <= 1).  Each part grows with
     * gamma and rounding keeps the order, so E(N) never decreases in gamma. */
    double s = fmin(floor(gamma), SHORT_GAMMA), e = 1.0, a = 1.0; /* e = sum_{j <= s} alpha^j, a = alpha^s */
    for (double j = 0; j < s; j++) {
        e = 1.0 + alpha * e;
        a *= alpha;
    }
    if (gamma <= s)
        return e;
    double rest = gamma - s; /* the terms alpha^(s+1) .. alpha^gamma: alpha^(s+1) sum_{j < rest} alpha^j */
    return e + a * alpha * (-expm1(rest * log(alpha)) / (1.0 - alpha));
}

double sd_theory_pmf(double alpha, double gamma, double n)
{
    if (!alpha_ok(alpha) || !nonneg_ok(gamma) || !(fabs(n) < INFINITY))
        return NAN;
    if (n < 1.0 || n > gamma + 1.0 || floor(n) < n)
        return 0.0;
    if (n <= gamma)
        return pow(alpha, n - 1.0) * (1.0 - alpha); /* eq. (2) */
    return pow(alpha, gamma);                       /* eq. (3) */
}

double sd_theory_survival(double alpha, double gamma, double n)
{
    if (!alpha_ok(alpha) || !nonneg_ok(gamma) || !(fabs(n) < INFINITY))
        return NAN;
    if (n <= 1.0)
        return 1.0;
    if (n > gamma + 1.0)
        return 0.0;
    return pow(alpha, ceil(n) - 1.0);
}

double sd_theory_cost_factor(double gamma, double cost)
{
    if (!nonneg_ok(gamma) || !nonneg_ok(cost))
        return NAN;
    return 1.0 + gamma * cost;
}

double sd_theory_improvement_at(double tokens, double gamma, double cost)
{
    if (!(tokens >= 1.0))
        return NAN;
    return tokens / sd_theory_cost_factor(gamma, cost);
}

double sd_theory_improvement(double alpha, double gamma, double cost)
{
    return sd_theory_improvement_at(sd_theory_expected_tokens(alpha, gamma), gamma, cost);
}

double sd_theory_flop_factor_at(double tokens, double gamma, double mu)
{
    if (!nonneg_ok(mu) || !nonneg_ok(gamma) || !(tokens >= 1.0))
        return NAN;
    return (gamma * mu + gamma + 1.0) / tokens;
}

double sd_theory_flop_factor(double alpha, double gamma, double mu)
{
    return sd_theory_flop_factor_at(sd_theory_expected_tokens(alpha, gamma), gamma, mu);
}

sd_metrics sd_theory_metrics(double alpha, double gamma)
{
    double e = sd_theory_expected_tokens(alpha, gamma);
    /* accepted drafts per drafted token: (E(N) - 1) / gamma, E(N) counting the bonus token */
    return (sd_metrics){ .acceptance_rate = (e - 1.0) / gamma, .mean_acceptance_length = e,
                         .system_efficiency = e / (gamma + 1.0) };
}

double sd_theory_ceiling(double alpha)
{
    if (!alpha_ok(alpha))
        return NAN;
    return alpha >= 1.0 ? INFINITY : 1.0 / (1.0 - alpha);
}

/* ---- the stationary point of eq. (10) ------------------------------------ */

/* expm1(u) - u for u >= 0, to a few ulp: a Taylor series where the
 * subtraction would cancel.  u^2/2 (1 + u/3 (1 + u/4 (1 + ... u/12))); the
 * first omitted term is below 1e-19 of the sum for u < 1/8. */
static double expm1_minus_id(double u)
{
    if (u < 0.125) {
        double s = 1.0;
        for (int k = 12; k >= 3; k--)
            s = 1.0 + s * u / k;
        return s * u * u / 2.0;
    }
    return expm1(u) - u;
}

typedef struct {
    double d;    /* right-hand side of expm1(u) - u = d                */
    double ln_d; /* ln d, kept separately because d may overflow      */
} u_equation;

static double near_branch(double u, void *params)
{
    const u_equation *e = params;
    return expm1_minus_id(u) - e->d;
}

static double far_out(double u, void *params)
{
    const u_equation *e = params;
    /* e^u - u - 1 = d  <=>  u = ln d + log1p((1 + u) / d) */
    return u - e->ln_d - log1p((1.0 + u) * exp(-e->ln_d));
}

/* Brent's method (GSL) on a bracketing interval, to 2 eps relative. */
static sd_status brent(double (*fn)(double, void *), void *params, double lo, double hi, double *root,
                       sd_error *err)
{
    enum { MAX_ITER = 200 };
    gsl_function f = { fn, params };
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (s == NULL)
        return sd_status_fail(err, SD_ENOMEM, "optimal: out of memory");
    int status = gsl_root_fsolver_set(s, &f, lo, hi);
    for (int iter = 0; status == GSL_SUCCESS; iter++) {
        status = gsl_root_fsolver_iterate(s);
        if (status != GSL_SUCCESS)
            break;
        status = gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
                                        0.0, 2.0 * DBL_EPSILON);
        if (status == GSL_CONTINUE)
            status = iter + 1 < MAX_ITER ? GSL_SUCCESS : GSL_EMAXITER;
        else
            break;
    }
    *root = gsl_root_fsolver_root(s);
    gsl_root_fsolver_free(s);
    if (status != GSL_SUCCESS)
        return sd_status_fail(err, SD_EFAIL, "GSL root finder failed: %s", gsl_strerror(status));
    return SD_OK;
}

/* Where each method is used, by d: below NEAR_BRANCH the Brent solve of
 * expm1(u) - u = d (W_{-1} loses eps/d there); above FAR_OUT the log-space
 * solve (e^{-(1+d)} heads for underflow); gsl_sf_lambert_Wm1_e in between. */
static const double NEAR_BRANCH = 1e-2;
static const double FAR_OUT = 600.0;

/* u = ln v > 0 with v - ln v = 1 + d, i.e. expm1(u) - u = d, for d > 0
 * given as ln d. */
static sd_status solve_u(double ln_d, double *u, sd_error *err)
{
    u_equation eq = { exp(ln_d), ln_d };
    if (ln_d < log(NEAR_BRANCH)) {
        double s = sqrt(2.0 * eq.d); /* u^2/2 < expm1(u) - u: the root lies in (s/2, s) */
        return brent(near_branch, &eq, 0.5 * s, s, u, err);
    }
    if (ln_d > log(FAR_OUT))
        return brent(far_out, &eq, ln_d, ln_d + 1.0, u, err);
    gsl_sf_result w;
    int status = gsl_sf_lambert_Wm1_e(-exp(-(1.0 + eq.d)), &w);
    if (status != GSL_SUCCESS)
        return sd_status_fail(err, SD_EFAIL, "optimal: Lambert W failed: %s", gsl_strerror(status));
    *u = log(-w.val);
    return SD_OK;
}

/* The real gamma >= 0 maximising eq. (10): 0 when f does not increase at 0. */
static sd_status continuous_optimum(double alpha, double cost, double *gamma, sd_error *err)
{
    *gamma = 0.0;
    if (alpha <= 0.0 || cost >= 1.0)
        return SD_OK; /* f = 1/(1 + gamma c), or d <= 0: decreasing from gamma = 0 */
    if (cost <= 0.0 || alpha >= 1.0) {
        *gamma = INFINITY;
        return SD_OK;
    }
    double neg_l = -log(alpha); /* > 0 */
    double ln_d = log(neg_l) + log1p(-cost) - log(cost);
    double u;
    sd_status st = solve_u(ln_d, &u, err);
    if (st != SD_OK)
        return st;
    double g = u / neg_l - 1.0;
    *gamma = g > 0.0 ? g : 0.0;
    return SD_OK;
}

sd_status sd_theory_optimal(double alpha, double cost, sd_optimum *opt, sd_error *err)
{
    if (!alpha_ok(alpha))
        return sd_status_fail(err, SD_EINVAL, "alpha: %g is outside [0, 1]", alpha);
    if (!nonneg_ok(cost))
        return sd_status_fail(err, SD_EINVAL, "cost: %g is outside [0, inf)", cost);

    opt->ceiling = sd_theory_ceiling(alpha);
    sd_status st = continuous_optimum(alpha, cost, &opt->gamma_continuous, err);
    if (st != SD_OK)
        return st;

    if (alpha <= cost) { /* no gamma gives f > 1: see theory.h */
        opt->gamma_opt = 0.0;
        opt->improvement_opt = 1.0;
        opt->expected_tokens_opt = 1.0;
        return SD_OK;
    }
    if (cost <= 0.0 || alpha >= 1.0) { /* unbounded: f increases for ever */
        opt->gamma_opt = INFINITY;
        opt->expected_tokens_opt = sd_theory_ceiling(alpha);
        opt->improvement_opt = cost <= 0.0 ? opt->expected_tokens_opt : 1.0 / cost;
        return SD_OK;
    }

    /* f is quasi-concave, so its whole maximiser is floor or ceil of the real
     * one; one more step either side absorbs rounding in gamma*.  Where f is
     * flat to double precision (tiny c: 1 + gamma c rounds to 1) ties go to
     * the candidate nearest gamma*. */
    double gs = opt->gamma_continuous, base = floor(gs);
    double best = 1.0, best_f = sd_theory_improvement(alpha, 1.0, cost);
    for (int k = -1; k <= 2; k++) {
        double g = fmax(1.0, base + k);
        double f = sd_theory_improvement(alpha, g, cost);
        if (f > best_f || (!(f < best_f) && fabs(g - gs) < fabs(best - gs))) {
            best = g;
            best_f = f;
        }
    }
    opt->gamma_opt = best;
    opt->improvement_opt = best_f;
    opt->expected_tokens_opt = sd_theory_expected_tokens(alpha, best);
    return SD_OK;
}

/* ---- beyond i.i.d. acceptance ------------------------------------------------ */

double sd_theory_expected_tokens_vec(const double *a, size_t gamma)
{
    double e = 1.0, run = 1.0;
    for (size_t i = 0; i < gamma; i++) {
        if (!alpha_ok(a[i]))
            return NAN;
        run *= a[i];
        e += run;
    }
    return e;
}

sd_status sd_theory_optimal_vec(const double *a, size_t n, double cost, sd_optimum *opt, sd_error *err)
{
    if (!nonneg_ok(cost))
        return sd_status_fail(err, SD_EINVAL, "cost: %g is outside [0, inf)", cost);
    double e = 1.0, run = 1.0, best_f = 1.0;
    *opt = (sd_optimum){ .gamma_opt = 0.0, .improvement_opt = 1.0, .expected_tokens_opt = 1.0,
                         .gamma_continuous = NAN, .ceiling = NAN };
    for (size_t g = 1; g <= n; g++) {
        if (!alpha_ok(a[g - 1]))
            return sd_status_fail(err, SD_EINVAL, "acceptance %zu is %g; must be in [0, 1]", g, a[g - 1]);
        run *= a[g - 1];
        e += run;
        double f = e / (1.0 + (double)g * cost);
        if (f > best_f) {
            best_f = f;
            *opt = (sd_optimum){ .gamma_opt = (double)g, .improvement_opt = f, .expected_tokens_opt = e,
                                 .gamma_continuous = NAN, .ceiling = NAN };
        }
    }
    return SD_OK;
}

double sd_theory_markov_mean_alpha(const sd_markov *m) { return 0.5 * (m->a_easy + m->a_hard); }

typedef struct {
    double m[2][2];
} mat2;

static mat2 mat2_mul(const mat2 *x, const mat2 *y)
{
    mat2 z;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            z.m[i][j] = x->m[i][0] * y->m[0][j] + x->m[i][1] * y->m[1][j];
    return z;
}

static mat2 mat2_add(const mat2 *x, const mat2 *y)
{
    mat2 z;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            z.m[i][j] = x->m[i][j] + y->m[i][j];
    return z;
}

/* M^n and the geometric sum G = I + M + ... + M^(n-1), by doubling:
 * G_2k = G_k + M^k G_k, G_k+1 = I + M G_k.  O(log n) 2x2 products. */
static void mat2_power_sum(const mat2 *m, double n, mat2 *power, mat2 *sum)
{
    const mat2 id = { { { 1, 0 }, { 0, 1 } } };
    if (n < 1.0) {
        *power = id, *sum = (mat2){ { { 0, 0 }, { 0, 0 } } };
        return;
    }
    mat2 p, g;
    mat2_power_sum(m, floor(n / 2), &p, &g);
    mat2 pg = mat2_mul(&p, &g);
    *sum = mat2_add(&g, &pg);      /* G_2k */
    *power = mat2_mul(&p, &p);     /* M^2k */
    if (fmod(n, 2.0) > 0.5) {      /* one more: G_2k+1 = I + M G_2k, M^2k+1 */
        mat2 mg = mat2_mul(m, sum);
        *sum = mat2_add(&id, &mg);
        *power = mat2_mul(m, power);
    }
}

/* The chain's matrices and the stationary law v of an iteration's start
 * state at draft length gamma (see theory.h); 0 outside the domain. */
static int markov_start(const sd_markov *m, double gamma, mat2 *M, double v[2], mat2 *G1)
{
    if (!alpha_ok(m->a_easy) || !alpha_ok(m->a_hard) || !(m->stay >= 0.0 && m->stay < 1.0) || !nonneg_ok(gamma) ||
        floor(gamma) < gamma)
        return 0;
    const double s = m->stay;
    const mat2 T = { { { s, 1.0 - s }, { 1.0 - s, s } } };
    const mat2 D = { { { m->a_easy, 0 }, { 0, m->a_hard } } }, R = { { { 1.0 - m->a_easy, 0 }, { 0, 1.0 - m->a_hard } } };
    /* w_k = e_r0 M^k, M = D T: P(drafts 1..k accepted, state r at position k + 1) */
    *M = mat2_mul(&D, &T);
    mat2 Mg, G, Mg1;
    mat2_power_sum(M, gamma, &Mg, &G);       /* M^gamma, sum_{k < gamma} M^k */
    mat2_power_sum(M, gamma + 1, &Mg1, G1);  /* sum_{k <= gamma} M^k */
    /* the next start: rejected at k < gamma (R T) or all accepted (the bonus
     * token steps the chain: M^gamma T) */
    mat2 RT = mat2_mul(&R, &T), GRT = mat2_mul(&G, &RT), MgT = mat2_mul(&Mg, &T);
    mat2 Q = mat2_add(&GRT, &MgT);
    double flow = Q.m[0][1] + Q.m[1][0]; /* stationary law of the 2-state start chain */
    v[0] = flow > 0.0 ? Q.m[1][0] / flow : 0.5;
    v[1] = 1.0 - v[0];
    return 1;
}

double sd_theory_markov_expected_tokens(const sd_markov *m, double gamma)
{
    mat2 M, G1;
    double v[2];
    if (!markov_start(m, gamma, &M, v, &G1))
        return NAN;
    /* E(N | r0) = sum_{k=0..gamma} |w_k| (P(N > k)), weighed by the start law */
    return v[0] * (G1.m[0][0] + G1.m[0][1]) + v[1] * (G1.m[1][0] + G1.m[1][1]);
}

double sd_theory_markov_survival(const sd_markov *m, double gamma, double k)
{
    mat2 M, G1, Mk, Gk;
    double v[2];
    if (!markov_start(m, gamma, &M, v, &G1) || !(k >= 0.0 && k <= gamma) || floor(k) < k)
        return NAN;
    mat2_power_sum(&M, k, &Mk, &Gk);
    return v[0] * (Mk.m[0][0] + Mk.m[0][1]) + v[1] * (Mk.m[1][0] + Mk.m[1][1]);
}

/* ---- engine metrics ----------------------------------------------------------- */

typedef struct {
    double gamma, target;
} length_eq;

static double length_gap(double alpha, void *p)
{
    const length_eq *q = p;
    return sd_theory_expected_tokens(alpha, q->gamma) - q->target;
}

sd_status sd_theory_alpha_from_length(double mean_length, double gamma, double *alpha, sd_error *err)
{
    if (!(gamma >= 1.0 && gamma < INFINITY))
        return sd_status_fail(err, SD_EINVAL, "gamma: %g is outside [1, inf)", gamma);
    if (!(mean_length >= 1.0 && mean_length <= gamma + 1.0))
        return sd_status_fail(err, SD_EINVAL, "mean_length: %.10g is outside [1, %.10g] = [1, gamma + 1]; "
                              "no alpha in [0, 1] gives it", mean_length, gamma + 1.0);
    if (mean_length <= 1.0 || mean_length >= gamma + 1.0) {
        *alpha = mean_length <= 1.0 ? 0.0 : 1.0;
        return SD_OK;
    }
    length_eq eq = { gamma, mean_length };
    return brent(length_gap, &eq, 0.0, 1.0, alpha, err); /* E(N) rises with alpha: one root in [0, 1] */
}

sd_status sd_theory_alpha_from_rate(double rate, double gamma, double *alpha, sd_error *err)
{
    if (!(rate >= 0.0 && rate <= 1.0))
        return sd_status_fail(err, SD_EINVAL, "rate: %.10g is outside [0, 1]; no alpha in [0, 1] gives it", rate);
    sd_status st = sd_theory_alpha_from_length(1.0 + rate * gamma, gamma, alpha, err);
    return st;
}

sd_markov sd_theory_markov_fit(const double *a, size_t n)
{
    /* hard: the n/2 smallest values (ties as gsl_sort_index leaves them), so the two states
     * hold equal shares, as the symmetric chain's stationary law does */
    size_t *idx = malloc(n * sizeof *idx);
    unsigned char *hard = calloc(n, 1);
    double sum[2] = { 0, 0 }, cnt[2] = { 0, 0 }, same = 0, mean = 0;
    if (idx == NULL || hard == NULL) { /* no room: one state at the mean */
        free(idx), free(hard);
        for (size_t i = 0; i < n; i++)
            mean += a[i] / (double)n;
        return (sd_markov){ mean, mean, 0.5 };
    }
    gsl_sort_index(idx, a, 1, n);
    for (size_t j = 0; j < n / 2; j++)
        hard[idx[j]] = 1;
    for (size_t i = 0; i < n; i++) {
        sum[hard[i]] += a[i];
        cnt[hard[i]] += 1;
        same += i > 0 && hard[i] == hard[i - 1];
    }
    free(idx), free(hard);
    if (!(cnt[1] > 0)) /* n = 1: one state */
        return (sd_markov){ sum[0] / cnt[0], sum[0] / cnt[0], 0.5 };
    double stay = same / (double)(n - 1);
    return (sd_markov){ sum[0] / cnt[0], sum[1] / cnt[1], stay < 1.0 ? stay : 0.5 };
}
