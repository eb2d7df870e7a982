/* test_theory.c -- closed forms against the seed's numbers, identities,
 * a 113-bit brute-force reference, brute-force optima and a GSL minimiser;
 * the shipped data files at their published rounding. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_rng.h>

#include "specdec/theory.h"
#include "specdec/tsv.h"
#include "testutil.h"

/* ---- reference: E(N) = sum_{j=0..gamma} alpha^j by plain summation in
 * binary128 (113-bit significand): 10^7 terms lose at most ~1e-27. */
#ifdef __SIZEOF_FLOAT128__
__extension__ typedef __float128 wide;
enum { HUGE_GAMMA = 10000000 };
#else
typedef long double wide;
enum { HUGE_GAMMA = 100000 };
#endif

static double brute_expected(double alpha, double gamma)
{
    wide a = alpha, term = 1, sum = 0;
    for (double j = 0; j <= gamma && term > 0; j += 1.0) {
        sum += term;
        term *= a;
    }
    return (double)sum;
}

/* The seed's table for alpha = 0.8, c = 0.02: gamma, E(N), 1 + gamma c, f. */
static const double SEED_TABLE[][4] = {
    { 1, 1.80, 1.02, 1.76 },  { 2, 2.44, 1.04, 2.35 },  { 3, 2.95, 1.06, 2.78 },
    { 5, 3.69, 1.10, 3.35 },  { 7, 4.16, 1.14, 3.65 },  { 10, 4.57, 1.20, 3.81 },
    { 15, 4.86, 1.30, 3.74 }, { 20, 4.95, 1.40, 3.54 }, { 25, 4.98, 1.50, 3.32 },
};

START_TEST(seed_table_rows)
{
    for (size_t i = 0; i < sizeof SEED_TABLE / sizeof SEED_TABLE[0]; i++) {
        const double *r = SEED_TABLE[i];
        ck_assert_double_eq_tol(sd_theory_expected_tokens(0.8, r[0]), r[1], 0.005);
        ck_assert_double_eq_tol(sd_theory_cost_factor(r[0], 0.02), r[2], 0.005);
        ck_assert_double_eq_tol(sd_theory_improvement(0.8, r[0], 0.02), r[3], 0.005);
    }
}
END_TEST

START_TEST(seed_optimum_is_11_not_10)
{
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(0.8, 0.02, &o, NULL), SD_OK);
    ck_assert_double_eq(o.gamma_opt, 11.0);
    ck_assert_double_eq_tol(o.improvement_opt, 3.8167, 5e-5);
    ck_assert_double_eq_tol(o.ceiling, 5.0, 1e-15);
    /* checked against neighbours computed by the brute-force reference */
    double f10 = brute_expected(0.8, 10) / 1.20, f11 = brute_expected(0.8, 11) / 1.22,
           f12 = brute_expected(0.8, 12) / 1.24;
    ck_assert(f11 > f10 && f11 > f12);
    ck_assert_rel(o.improvement_opt, f11, 1e-15);
}
END_TEST

START_TEST(paper_flop_factor)
{
    /* Leviathan et al. 2023, Table 1: alpha 0.8, gamma 5, mu 0: 1.63x FLOPs, 3.69 tokens */
    ck_assert_double_eq_tol(sd_theory_flop_factor(0.8, 5, 0.0), 1.63, 0.005);
    ck_assert_double_eq_tol(sd_theory_expected_tokens(0.8, 5), 3.69, 0.005);
    ck_assert_rel(sd_theory_flop_factor(0.8, 5, 0.0537), (5 * 0.0537 + 6) / brute_expected(0.8, 5), 1e-15);
    ck_assert_rel(sd_theory_flop_factor(1.0, 7, 0.0), 1.0, 1e-15);
}
END_TEST

/* E(N) against the binary128 sums, relative error <= 1e-13, across alpha in
 * [0, 1] (near 1 included) and gamma up to 10^4; then gamma = 10^7. */
START_TEST(expected_tokens_high_precision)
{
    static const double alphas[] = { 0.0, 1e-300, 1e-10, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.99, 0.999,
                                     1 - 1e-6, 1 - 1e-9, 1 - 1e-12, 1 - DBL_EPSILON, 1.0 };
    static const double gammas[] = { 1, 2, 3, 7, 10, 25, 100, 1000, 10000 };
    double worst = 0.0;
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++)
        for (size_t j = 0; j < sizeof gammas / sizeof gammas[0]; j++) {
            double got = sd_theory_expected_tokens(alphas[i], gammas[j]);
            double ref = brute_expected(alphas[i], gammas[j]);
            ck_assert_rel(got, ref, 1e-13);
            worst = fmax(worst, fabs(got - ref) / ref);
        }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 20261129);
    for (int k = 0; k < 400; k++) {
        double a = k % 2 ? gsl_rng_uniform(r) : 1.0 - pow(10.0, -15.0 * gsl_rng_uniform(r));
        double g = 1.0 + (double)gsl_rng_uniform_int(r, 10000);
        ck_assert_rel(sd_theory_expected_tokens(a, g), brute_expected(a, g), 1e-13);
    }
    gsl_rng_free(r);
    ck_assert(worst < 1e-14); /* in practice a few ulp */
}
END_TEST

START_TEST(expected_tokens_huge_gamma)
{
    static const double alphas[] = { 0.5, 1 - 1e-7, 1 - 1e-9, 1 - 1e-12, 1 - 1e-15, 1.0 };
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++)
        ck_assert_rel(sd_theory_expected_tokens(alphas[i], HUGE_GAMMA),
                      brute_expected(alphas[i], HUGE_GAMMA), 1e-13);
    /* gamma far past any loop: the geometric limit and the alpha = 1 line */
    ck_assert_rel(sd_theory_expected_tokens(0.5, 1e15), 2.0, 1e-15);
    ck_assert_rel(sd_theory_expected_tokens(0.8, 1e15), 5.0, 1e-14);
    ck_assert_double_eq(sd_theory_expected_tokens(1.0, 1e15), 1e15 + 1);
}
END_TEST

START_TEST(limits)
{
    /* alpha = 0: one token, whatever gamma */
    ck_assert_double_eq(sd_theory_expected_tokens(0.0, 7), 1.0);
    ck_assert_double_eq(sd_theory_pmf(0.0, 7, 1), 1.0);
    ck_assert_double_eq(sd_theory_pmf(0.0, 7, 2), 0.0);
    /* alpha = 1: gamma + 1 tokens; alpha -> 1 approaches it */
    ck_assert_double_eq(sd_theory_expected_tokens(1.0, 7), 8.0);
    ck_assert_double_eq(sd_theory_pmf(1.0, 7, 8), 1.0);
    ck_assert_double_eq(sd_theory_pmf(1.0, 7, 7), 0.0);
    ck_assert_rel(sd_theory_expected_tokens(1 - 1e-14, 7), 8.0 - 28e-14, 1e-15);
    /* c = 0: improvement equals E(N), the cost factor is 1 */
    ck_assert_double_eq(sd_theory_cost_factor(25, 0.0), 1.0);
    ck_assert_double_eq(sd_theory_improvement(0.6180339, 9, 0.0), sd_theory_expected_tokens(0.6180339, 9));
    /* the oracle ceiling */
    ck_assert_rel(sd_theory_ceiling(0.8), 5.0, 1e-15);
    ck_assert(isinf(sd_theory_ceiling(1.0)));
    ck_assert_double_eq(sd_theory_ceiling(0.0), 1.0);
    /* outside the domain: NaN, never a value */
    ck_assert(isnan(sd_theory_expected_tokens(-0.1, 3)));
    ck_assert(isnan(sd_theory_expected_tokens(1.1, 3)));
    ck_assert(isnan(sd_theory_expected_tokens(NAN, 3)));
    ck_assert(isnan(sd_theory_expected_tokens(0.5, -1)));
    ck_assert(isnan(sd_theory_improvement(0.5, 3, -0.01)));
    ck_assert(isnan(sd_theory_flop_factor(0.5, 3, INFINITY)));
}
END_TEST

START_TEST(identities)
{
    static const double alphas[] = { 0.0, 0.123, 0.5, 0.8, 0.97531, 1 - 1e-9, 1.0 };
    static const double gammas[] = { 1, 2, 5, 11, 64, 300 };
    for (size_t i = 0; i < sizeof alphas / sizeof alphas[0]; i++)
        for (size_t j = 0; j < sizeof gammas / sizeof gammas[0]; j++) {
            double a = alphas[i], g = gammas[j], total = 0, mean = 0, tail = 0;
            for (double n = 1; n <= g + 1; n++) {
                double pmf = sd_theory_pmf(a, g, n);
                ck_assert(pmf >= 0.0 && pmf <= 1.0);
                total += pmf;
                mean += n * pmf;
                tail += sd_theory_survival(a, g, n);
                /* P(N >= n) = sum of the PMF from n up */
                double up = 0;
                for (double m = n; m <= g + 1 && g <= 64; m++)
                    up += sd_theory_pmf(a, g, m);
                if (g <= 64)
                    ck_assert_double_eq_tol(up, sd_theory_survival(a, g, n), 1e-13);
            }
            ck_assert_double_eq_tol(total, 1.0, 1e-13);
            ck_assert_rel(mean, sd_theory_expected_tokens(a, g), 1e-12);
            ck_assert_rel(tail, sd_theory_expected_tokens(a, g), 1e-12);
            ck_assert_double_eq(sd_theory_pmf(a, g, 0), 0.0);
            ck_assert_double_eq(sd_theory_pmf(a, g, g + 2), 0.0);
            ck_assert_double_eq(sd_theory_survival(a, g, g + 2), 0.0);
        }
    /* f(1) = (1 + alpha) / (1 + c) */
    for (double a = 0; a <= 1.0; a += 0.0625)
        for (double c = 0; c <= 0.5; c += 0.03125)
            ck_assert_rel(sd_theory_improvement(a, 1, c), (1 + a) / (1 + c), 2e-16);
}
END_TEST

/* ---- the optimum -------------------------------------------------------- */

/* Brute force: the best whole gamma in 1..limit, first of ties. */
static double scan_best(double alpha, double cost, double limit, double *best_f)
{
    double best = 1;
    *best_f = sd_theory_improvement(alpha, 1, cost);
    for (double g = 2; g <= limit; g++) {
        double f = sd_theory_improvement(alpha, g, cost);
        if (f > *best_f)
            *best_f = f, best = g;
    }
    return best;
}

/* gamma_opt against the scan: equal, or equally good to 1e-15 (a tie in
 * double precision).  Returns 1 when equal (or both "do not speculate"), 0
 * when only the tie let it pass. */
static int check_against_scan(double alpha, double cost, double limit)
{
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(alpha, cost, &o, NULL), SD_OK);
    double f_scan, g_scan = scan_best(alpha, cost, limit, &f_scan);
    if (alpha <= cost) {
        ck_assert_msg(o.gamma_opt == 0.0, "alpha %g <= c %g but gamma_opt %g", alpha, cost, o.gamma_opt);
        ck_assert_msg(f_scan <= 1.0 + 1e-15, "alpha %g <= c %g yet f(%g) = %.17g > 1", alpha, cost, g_scan, f_scan);
        ck_assert_double_eq(o.improvement_opt, 1.0);
        return 1;
    }
    ck_assert_msg(g_scan < limit, "scan limit %g too small for alpha %g c %g", limit, alpha, cost);
    ck_assert_msg(o.gamma_opt == g_scan || fabs(o.improvement_opt - f_scan) <= 1e-15 * f_scan,
                  "alpha %.17g c %.17g: gamma_opt %g (f %.17g), scan %g (f %.17g)", alpha, cost,
                  o.gamma_opt, o.improvement_opt, g_scan, f_scan);
    ck_assert(o.gamma_opt >= 1.0 && o.improvement_opt >= 1.0); /* > 1 exactly; = 1 after rounding at alpha = c + ulp */
    ck_assert_msg(fabs(o.gamma_continuous - o.gamma_opt) <= 1.0, "alpha %g c %g: continuous %g, whole %g",
                  alpha, cost, o.gamma_continuous, o.gamma_opt);
    return !(o.gamma_opt < g_scan) && !(o.gamma_opt > g_scan);
}

/* 10^4 (alpha, c) points, both sides of alpha = c, against a scan of gamma = 1..2000. */
START_TEST(optimum_matches_brute_force_grid)
{
    int zero = 0, positive = 0, equal = 0;
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 100; j++) {
            double alpha = 0.99 * (i + 0.5) / 100.0 + 0.005 * (j % 2);
            double cost = pow(10.0, -4.0 + 4.0 * j / 99.0);
            equal += check_against_scan(alpha, cost, 2000);
            if (alpha <= cost)
                zero++;
            else
                positive++;
        }
    /* f never ties in double precision on this grid: every gamma_opt is the
     * scan's exactly, none passes by the tie allowance alone */
    ck_assert_int_eq(equal, 100 * 100);
    ck_assert(zero > 1000 && positive > 1000);
}
END_TEST

/* The regimes at the edges of the Lambert W branch, with wider scans. */
START_TEST(optimum_edge_regimes)
{
    /* near the branch point: alpha -> 1 with c not small */
    check_against_scan(0.9999, 0.3, 5000);
    check_against_scan(0.9999, 0.9, 5000);
    check_against_scan(0.999999, 0.5, 20000);
    /* far out: tiny c, where -e^{-(1+d)} underflows */
    check_against_scan(1e-3, 1e-300, 5000);
    check_against_scan(0.5, 1e-280, 5000);
    check_against_scan(0.3, 1e-320, 5000);
    check_against_scan(0.3, 5e-324, 5000);
    /* tiny c with small alpha, both sides of alpha = c */
    check_against_scan(1e-5, 5e-6, 100);
    check_against_scan(5e-6, 1e-5, 100);
    check_against_scan(1e-9, 1e-12, 100);
    /* the boundary alpha = c and just above it */
    check_against_scan(0.3, 0.3, 100);
    check_against_scan(nextafter(0.3, 1.0), 0.3, 100);
}
END_TEST

START_TEST(optimum_unbounded_and_degenerate)
{
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(0.5, 0.0, &o, NULL), SD_OK); /* c = 0 */
    ck_assert(isinf(o.gamma_opt) && isinf(o.gamma_continuous));
    ck_assert_rel(o.improvement_opt, 2.0, 1e-15);
    ck_assert_rel(o.expected_tokens_opt, 2.0, 1e-15);
    ck_assert_int_eq(sd_theory_optimal(1.0, 0.25, &o, NULL), SD_OK); /* alpha = 1, c < 1 */
    ck_assert(isinf(o.gamma_opt));
    ck_assert_rel(o.improvement_opt, 4.0, 1e-15);
    ck_assert(isinf(o.expected_tokens_opt) && isinf(o.ceiling));
    ck_assert_int_eq(sd_theory_optimal(1.0, 0.0, &o, NULL), SD_OK);
    ck_assert(isinf(o.gamma_opt) && isinf(o.improvement_opt));
    ck_assert_int_eq(sd_theory_optimal(1.0, 1.0, &o, NULL), SD_OK); /* alpha <= c */
    ck_assert_double_eq(o.gamma_opt, 0.0);
    ck_assert_int_eq(sd_theory_optimal(0.0, 0.0, &o, NULL), SD_OK);
    ck_assert_double_eq(o.gamma_opt, 0.0);
    ck_assert_double_eq(o.improvement_opt, 1.0);
    ck_assert_double_eq(o.expected_tokens_opt, 1.0);
    ck_assert_int_eq(sd_theory_optimal(0.0, 0.1, &o, NULL), SD_OK);
    ck_assert_double_eq(o.gamma_continuous, 0.0);
    ck_assert_int_eq(sd_theory_optimal(0.5, 7.0, &o, NULL), SD_OK); /* c > 1 */
    ck_assert_double_eq(o.gamma_opt, 0.0);
    ck_assert_double_eq(o.gamma_continuous, 0.0);

    sd_error err;
    ck_assert_int_eq(sd_theory_optimal(-0.01, 0.1, &o, &err), SD_EINVAL);
    ck_assert_int_eq(sd_theory_optimal(NAN, 0.1, &o, &err), SD_EINVAL);
    ck_assert_int_eq(sd_theory_optimal(0.5, -1e-9, &o, &err), SD_EINVAL);
    ck_assert_int_eq(sd_theory_optimal(0.5, INFINITY, &o, &err), SD_EINVAL);
    ck_assert_int_eq(sd_theory_optimal(0.5, NAN, &o, &err), SD_EINVAL);
}
END_TEST

/* The real optimum against GSL's Brent minimiser on -f(gamma). */
typedef struct { double alpha, cost; } ac;
static double neg_f(double g, void *p)
{
    const ac *x = p;
    return -sd_theory_improvement(x->alpha, g, x->cost);
}

static void check_continuous(double alpha, double cost)
{
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal(alpha, cost, &o, NULL), SD_OK);
    ac x = { alpha, cost };
    gsl_function fn = { neg_f, &x };
    double f_scan, g_scan = scan_best(alpha, cost, 100000, &f_scan);
    gsl_min_fminimizer *m = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
    ck_assert_msg(gsl_min_fminimizer_set(m, &fn, g_scan, 0.0, 2 * g_scan + 2) == GSL_SUCCESS,
                  "alpha %g c %g: no bracket around %g", alpha, cost, g_scan);
    int status = GSL_CONTINUE;
    for (int i = 0; i < 500 && status == GSL_CONTINUE; i++) {
        gsl_min_fminimizer_iterate(m);
        status = gsl_min_test_interval(gsl_min_fminimizer_x_lower(m), gsl_min_fminimizer_x_upper(m),
                                       1e-9, 1e-10);
    }
    double g_min = gsl_min_fminimizer_x_minimum(m);
    gsl_min_fminimizer_free(m);
    /* f is flat at its top: the minimiser locates it to ~sqrt(eps) */
    ck_assert_msg(fabs(o.gamma_continuous - g_min) <= 1e-6 * fmax(1.0, g_min),
                  "alpha %g c %g: continuous %.12g, minimiser %.12g", alpha, cost, o.gamma_continuous, g_min);
}

START_TEST(continuous_optimum_matches_minimiser)
{
    check_continuous(0.8, 0.02);     /* Lambert W */
    check_continuous(0.6, 0.05);
    check_continuous(0.95, 0.001);
    check_continuous(0.9999, 0.3);   /* near the branch point */
    check_continuous(0.99999, 0.7);
    check_continuous(0.99, 0.002);   /* d near the switch to the near-branch solve */
    check_continuous(0.9, 0.0155);
}
END_TEST

/* The sign of f'(gamma) from its definition, in log space so that it is
 * resolved even where f itself is flat in double precision (checked at
 * gamma* (1 -+ 1e-7): near the branch point the margin is itself flat):
 * f' > 0  <=>  alpha^t |ln alpha| (1 + gamma c) > c (1 - alpha^t),  t = gamma + 1. */
static double log_slope_margin(double alpha, double cost, double g)
{
    double l = log(alpha);
    return (g + 1) * l + log(-l) + log1p(g * cost) - log(cost) - log1p(-exp((g + 1) * l));
}

START_TEST(continuous_optimum_is_stationary)
{
    static const double pts[][2] = {
        { 0.8, 0.02 }, { 0.6, 0.05 }, { 0.9999, 0.3 }, { 0.999999, 0.5 }, { 0.99999999, 0.9 },
        { 0.5, 1e-280 }, { 0.05, 1e-270 }, { 1e-3, 1e-300 }, { 0.3, 1e-320 }, { 0.3, 5e-324 },
        { 0.999, 1e-200 }, { 0.9, 0.0155 }, { 0.99, 0.002 }, { 1e-5, 5e-6 }, { 1 - 1e-12, 1e-6 },
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        sd_optimum o;
        double a = pts[i][0], c = pts[i][1];
        ck_assert_int_eq(sd_theory_optimal(a, c, &o, NULL), SD_OK);
        double g = o.gamma_continuous;
        if (g <= 0.0) { /* f decreases from gamma = 0 */
            ck_assert_msg(log_slope_margin(a, c, 0.0) <= 0.0, "alpha %g c %g: f rises at 0", a, c);
            continue;
        }
        ck_assert_msg(log_slope_margin(a, c, g * (1 - 1e-7)) > 0.0, "alpha %g c %g: f falls before %.17g", a, c, g);
        ck_assert_msg(log_slope_margin(a, c, g * (1 + 1e-7)) < 0.0, "alpha %g c %g: f rises after %.17g", a, c, g);
    }
}
END_TEST

/* ---- beyond i.i.d. acceptance ---------------------------------------------------- */

START_TEST(acceptance_vectors)
{
    double a[40];
    for (int i = 0; i < 40; i++)
        a[i] = 0.8;
    for (size_t g = 1; g <= 40; g++)
        ck_assert_rel(sd_theory_expected_tokens_vec(a, g), sd_theory_expected_tokens(0.8, (double)g), 1e-14);
    const double v[] = { 0.9, 0.5, 0.25 }; /* 1 + 0.9 + 0.45 + 0.1125 */
    ck_assert_rel(sd_theory_expected_tokens_vec(v, 3), 2.4625, 1e-15);
    ck_assert_double_eq(sd_theory_expected_tokens_vec(v, 0), 1.0);
    sd_optimum o;
    ck_assert_int_eq(sd_theory_optimal_vec(a, 40, 0.02, &o, NULL), SD_OK);
    ck_assert_double_eq(o.gamma_opt, 11.0); /* a constant vector agrees with the Lambert-W optimum */
    sd_optimum lw;
    ck_assert_int_eq(sd_theory_optimal(0.8, 0.02, &lw, NULL), SD_OK);
    ck_assert_rel(o.improvement_opt, lw.improvement_opt, 1e-14);
    const double low[] = { 0.01, 0.9 };
    ck_assert_int_eq(sd_theory_optimal_vec(low, 2, 0.05, &o, NULL), SD_OK);
    ck_assert_double_eq(o.gamma_opt, 0.0); /* no gamma pays: f(1) = 1.01/1.05, f(2) = 1.019/1.1 */
    const double bad[] = { 0.5, 1.5 };
    ck_assert_int_eq(sd_theory_optimal_vec(bad, 2, 0.05, &o, NULL), SD_EINVAL);
}
END_TEST

/* The Markov closed form against the idealised chain simulated directly
 * (not the engine): stay decided per emitted token, acceptance per regime. */
START_TEST(markov_transfer_matrix)
{
    const sd_markov iid = { 0.9, 0.3, 0.5 }; /* stay 1/2: each position's regime is a fresh coin */
    for (double g = 1; g <= 12; g++)
        ck_assert_rel(sd_theory_markov_expected_tokens(&iid, g), sd_theory_expected_tokens(0.6, g), 1e-13);
    const sd_markov same = { 0.7, 0.7, 0.95 };
    ck_assert_rel(sd_theory_markov_expected_tokens(&same, 6), sd_theory_expected_tokens(0.7, 6), 1e-13);

    const sd_markov m = { 0.95, 0.3, 0.9 };
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 99);
    enum { ITER = 2000000, G = 5 };
    int regime = 0;
    double sum = 0, sumsq = 0;
    for (int k = 0; k < 1000 + ITER; k++) {
        int n = 0;
        for (;;) { /* drafts until a rejection or G acceptances; each emitted token steps the chain */
            int accept = n < G && gsl_rng_uniform(r) < (regime ? m.a_hard : m.a_easy);
            if (gsl_rng_uniform(r) >= m.stay)
                regime ^= 1;
            n++;
            if (!accept)
                break;
        }
        if (k >= 1000)
            sum += n, sumsq += (double)n * n;
    }
    gsl_rng_free(r);
    double mean = sum / ITER, se = sqrt((sumsq / ITER - mean * mean) / ITER);
    double exact = sd_theory_markov_expected_tokens(&m, G);
    ck_assert_msg(fabs(mean - exact) < 6 * se, "simulated %.6f, transfer matrix %.6f (se %.2g)", mean, exact, se);
    ck_assert_msg(fabs(mean - sd_theory_expected_tokens(0.625, G)) > 12 * se, "the i.i.d. formula is not caught");
    ck_assert(isnan(sd_theory_markov_expected_tokens(&(sd_markov){ 0.9, 0.3, 1.0 }, 5)));
}
END_TEST

/* Reference for the doubling: the position-by-position recursion of the
 * transfer matrices (w_{k+1} = w_k diag(a) T), O(gamma). */
static double markov_stepwise(const sd_markov *m, int gamma)
{
    const double a[2] = { m->a_easy, m->a_hard }, s = m->stay;
    const double T[2][2] = { { s, 1 - s }, { 1 - s, s } };
    double e[2], q[2][2] = { { 0, 0 }, { 0, 0 } };
    for (int r0 = 0; r0 < 2; r0++) {
        double w[2] = { r0 == 0, r0 == 1 };
        e[r0] = 0;
        for (int k = 0; k <= gamma; k++) {
            e[r0] += w[0] + w[1];
            double nw[2] = { 0, 0 };
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 2; c++) {
                    q[r0][c] += w[r] * (k == gamma ? 1.0 : 1.0 - a[r]) * T[r][c];
                    nw[c] += w[r] * a[r] * T[r][c];
                }
            w[0] = nw[0], w[1] = nw[1];
        }
    }
    double v0 = q[1][0] / (q[0][1] + q[1][0]);
    return v0 * e[0] + (1 - v0) * e[1];
}

/* Issue 10: markov --gamma 1e9 took 20 s a row (an O(gamma) loop); now
 * O(log gamma) by doubling, equal to the stepwise recursion. */
START_TEST(markov_large_gamma)
{
    const sd_markov ms[] = { { 0.95, 0.3, 0.9 }, { 0.999, 0.1, 0.99 }, { 1.0, 0.5, 0.7 }, { 0.2, 0.8, 0.0 } };
    for (int i = 0; i < 4; i++)
        for (int g = 0; g <= 300; g += (g < 20 ? 1 : 37))
            ck_assert_rel(sd_theory_markov_expected_tokens(&ms[i], g), markov_stepwise(&ms[i], g), 1e-12);
    /* gamma -> inf: the stepwise sum has converged by 20000 positions at stay 0.9 */
    ck_assert_rel(sd_theory_markov_expected_tokens(&ms[0], 1e9), markov_stepwise(&ms[0], 20000), 1e-12);
    ck_assert_rel(sd_theory_markov_expected_tokens(&ms[0], 9007199254740992.0), markov_stepwise(&ms[0], 20000),
                  1e-12);
    ck_assert(isnan(sd_theory_markov_expected_tokens(&ms[0], 2.5))); /* not a draft length */
    const sd_markov ones = { 1.0, 1.0, 0.5 }; /* never rejected: E(N) = gamma + 1 */
    ck_assert_rel(sd_theory_markov_expected_tokens(&ones, 1e9), 1e9 + 1, 1e-12);
}
END_TEST

START_TEST(metrics_round_trip)
{
    for (double a = 0.0; a <= 1.0; a += 0.03125)
        for (double g = 1; g <= 30; g += 7) {
            double back, e = sd_theory_expected_tokens(a, g);
            ck_assert_int_eq(sd_theory_alpha_from_length(e, g, &back, NULL), SD_OK);
            ck_assert_double_eq_tol(back, a, 1e-12);
            ck_assert_int_eq(sd_theory_alpha_from_rate((e - 1) / g, g, &back, NULL), SD_OK);
            ck_assert_double_eq_tol(back, a, 1e-12);
        }
    double x;
    sd_error err;
    ck_assert_int_eq(sd_theory_alpha_from_length(7.0, 5, &x, &err), SD_EINVAL); /* above gamma + 1 */
    ck_assert_ptr_nonnull(strstr(err.msg, "[1, 6]"));
    ck_assert_int_eq(sd_theory_alpha_from_length(0.5, 5, &x, &err), SD_EINVAL);
    ck_assert_int_eq(sd_theory_alpha_from_rate(1.2, 5, &x, &err), SD_EINVAL);
}
END_TEST

/* A two-state Markov acceptance fitted to a sequence by hand (from the ngram
 * suite's markov_fit_and_rows_model). */
START_TEST(markov_fit)
{
    const double a[] = { 0.9, 0.95, 0.9, 0.2, 0.3, 0.2, 0.9, 0.95 };
    sd_markov k = sd_theory_markov_fit(a, 8); /* hard: the 4 smallest, 0.2, 0.3, 0.2 and one of the 0.9s */
    ck_assert_double_eq_tol(k.a_easy, (0.9 + 0.9 + 0.95 + 0.95) / 4, 1e-15);
    ck_assert_double_eq_tol(k.a_hard, (0.9 + 0.2 + 0.3 + 0.2) / 4, 1e-15);
    /* H E E H H H E E, E E H H H H E E or E E E H H H H E: 4 or 5 of 7 neighbours alike */
    ck_assert_msg(fabs(k.stay - 4.0 / 7) < 1e-15 || fabs(k.stay - 5.0 / 7) < 1e-15, "stay %g", k.stay);
    k = sd_theory_markov_fit((const double[]){ 0.75, 0.75, 0.75 }, 3); /* all tied: the states are alike */
    ck_assert(k.a_easy == 0.75 && k.a_hard == 0.75 && k.stay >= 0.0 && k.stay < 1.0);
}
END_TEST

/* ---- the shipped data, at the published rounding ----------------------------- */

/* Decimals written in a number like "3.69". */
static int decimals_of(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot ? (int)strlen(dot + 1) : 0;
}

static void check_reported(const char *path)
{
    sd_tsv t;
    ck_assert_int_eq(sd_tsv_load(path, 1, 1000, &t, NULL), SD_OK);
    size_t a = sd_tsv_column(&t, "alpha"), c = sd_tsv_column(&t, "cost"), g = sd_tsv_column(&t, "gamma"),
           r = sd_tsv_column(&t, "reported");
    ck_assert(a != (size_t)-1 && c != (size_t)-1 && g != (size_t)-1 && r != (size_t)-1);
    ck_assert_uint_gt(t.nrows, 0);
    for (size_t i = 0; i < t.nrows; i++) {
        double f = sd_theory_improvement(strtod(t.row[i].field[a], NULL), strtod(t.row[i].field[g], NULL),
                                         strtod(t.row[i].field[c], NULL));
        char rounded[32];
        snprintf(rounded, sizeof rounded, "%.*f", decimals_of(t.row[i].field[r]), f);
        ck_assert_msg(strcmp(rounded, t.row[i].field[r]) == 0, "%s:%zu: eq. (10) gives %s, published %s", path,
                      t.row[i].line, rounded, t.row[i].field[r]);
    }
    sd_tsv_free(&t);
}

START_TEST(shipped_scenarios_reproduce_published_numbers)
{
    check_reported(data_path("seed-table.tsv"));
    check_reported(data_path("leviathan2023.tsv"));
    char flop[16]; /* Table 1's FLOP factor */
    snprintf(flop, sizeof flop, "%.2f", sd_theory_flop_factor(0.8, 5, 0));
    ck_assert_str_eq(flop, "1.63");
}
END_TEST

/* Engine metrics and the "_at" forms by hand, at alpha 0.8, gamma 5:
 * E(N) = (1 - 0.8^6) / 0.2 = 3.68928. */
START_TEST(metrics_and_forms_at_a_length)
{
    sd_metrics k = sd_theory_metrics(0.8, 5);
    ck_assert_rel(k.mean_acceptance_length, 3.68928, 1e-14);
    ck_assert_rel(k.acceptance_rate, 2.68928 / 5, 1e-14);
    ck_assert_rel(k.system_efficiency, 3.68928 / 6, 1e-14);
    k = sd_theory_metrics(0.8, 0); /* no drafts: no rate; one token */
    ck_assert(isnan(k.acceptance_rate));
    ck_assert_double_eq(k.mean_acceptance_length, 1.0);
    ck_assert_double_eq(k.system_efficiency, 1.0);
    k = sd_theory_metrics(-0.1, 5);
    ck_assert(isnan(k.acceptance_rate) && isnan(k.mean_acceptance_length) && isnan(k.system_efficiency));
    ck_assert_rel(sd_theory_improvement_at(3.68928, 5, 0.02), 3.68928 / 1.1, 1e-15);
    ck_assert_rel(sd_theory_flop_factor_at(3.68928, 5, 0.05), 6.25 / 3.68928, 1e-15);
    ck_assert(isnan(sd_theory_improvement_at(0.5, 5, 0.02))); /* tokens >= 1 */
    ck_assert(isnan(sd_theory_flop_factor_at(0.5, 5, 0.05)));
    ck_assert(isnan(sd_theory_improvement_at(2, 5, -1)));
}
END_TEST

/* The Markov chain's per-position survival: 1 at k = 0, summing to E(N)
 * over k = 0..gamma; with stay 1/2 each position's state is a fresh coin,
 * so it is the mean acceptance to the k; the stationary mean per position
 * is the two states' average. */
START_TEST(markov_survival_and_mean)
{
    const sd_markov m = { 0.95, 0.3, 0.9 }, coin = { 0.9, 0.3, 0.5 };
    ck_assert_double_eq_tol(sd_theory_markov_mean_alpha(&m), 0.625, 1e-15);
    ck_assert_double_eq_tol(sd_theory_markov_mean_alpha(&coin), 0.6, 1e-15);
    for (double g = 1; g <= 12; g++) {
        double sum = 0;
        ck_assert_double_eq(sd_theory_markov_survival(&m, g, 0), 1.0);
        for (double k = 0; k <= g; k++) {
            sum += sd_theory_markov_survival(&m, g, k);
            ck_assert_rel(sd_theory_markov_survival(&coin, g, k), pow(0.6, k), 1e-13);
        }
        ck_assert_rel(sum, sd_theory_markov_expected_tokens(&m, g), 1e-13);
    }
    /* iterations start after a rejection, more often in the hard state: below the mean */
    ck_assert(sd_theory_markov_survival(&m, 5, 1) < 0.625);
    ck_assert(isnan(sd_theory_markov_survival(&m, 5, 6)));   /* k in [0, gamma] */
    ck_assert(isnan(sd_theory_markov_survival(&m, 5, 1.5))); /* whole */
}
END_TEST

Suite *theory_suite(void)
{
    Suite *s = suite_create("theory");
    TCase *tc = tcase_create("closed forms");
    tcase_add_test(tc, seed_table_rows);
    tcase_add_test(tc, seed_optimum_is_11_not_10);
    tcase_add_test(tc, paper_flop_factor);
    tcase_add_test(tc, limits);
    tcase_add_test(tc, identities);
    suite_add_tcase(s, tc);
    TCase *hp = tcase_create("high precision");
    tcase_set_timeout(hp, 300);
    tcase_add_test(hp, expected_tokens_high_precision);
    tcase_add_test(hp, expected_tokens_huge_gamma);
    suite_add_tcase(s, hp);
    TCase *opt = tcase_create("optimum");
    tcase_set_timeout(opt, 300);
    tcase_add_test(opt, optimum_matches_brute_force_grid);
    tcase_add_test(opt, optimum_edge_regimes);
    tcase_add_test(opt, optimum_unbounded_and_degenerate);
    tcase_add_test(opt, continuous_optimum_matches_minimiser);
    tcase_add_test(opt, continuous_optimum_is_stationary);
    suite_add_tcase(s, opt);
    TCase *dep = tcase_create("dependence and metrics");
    tcase_set_timeout(dep, 120);
    tcase_add_test(dep, acceptance_vectors);
    tcase_add_test(dep, markov_transfer_matrix);
    tcase_add_test(dep, markov_large_gamma);
    tcase_add_test(dep, metrics_round_trip);
    tcase_add_test(dep, markov_fit);
    tcase_add_test(dep, metrics_and_forms_at_a_length);
    tcase_add_test(dep, markov_survival_and_mean);
    suite_add_tcase(s, dep);
    TCase *pub = tcase_create("published numbers");
    tcase_set_timeout(pub, 120);
    tcase_add_test(pub, shipped_scenarios_reproduce_published_numbers);
    suite_add_tcase(s, pub);
    return s;
}
