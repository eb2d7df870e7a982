/* test_ufunc.c -- the closed forms over arrays (ufunc.h): the table's rows, strides, domains, and
 * every point against a reference computed apart from the row (a sum of alpha^j in long double,
 * the scalar calls of theory.h point by point). */
#include <math.h>
#include <string.h>

#include "specdec/theory.h"
#include "specdec/ufunc.h"
#include "testutil.h"

START_TEST(table_is_well_formed)
{
    size_t n = 0;
    for (const sd_ufunc *f; (f = sd_ufunc_at(n)) != NULL; n++) {
        ck_assert_ptr_eq(sd_ufunc_find(f->name), f); /* names are unique */
        ck_assert(f->nin >= 1 && f->nin <= SD_UFUNC_MAX_IN && f->nout >= 1 && f->nout <= SD_UFUNC_MAX_OUT);
        ck_assert(f->doc != NULL && strlen(f->doc) > 10 && f->eval != NULL);
        for (size_t k = 0; k < f->nin; k++)
            ck_assert(f->in[k] != NULL && (f->dom[k].name == NULL || strcmp(f->dom[k].name, f->in[k]) == 0));
        for (size_t j = 0; j < f->nout; j++)
            ck_assert(f->out[j] != NULL);
    }
    ck_assert_uint_ge(n, 15);
    ck_assert_ptr_null(sd_ufunc_find("no_such_form"));
}
END_TEST

/* E(N) over a grid of alpha against sum_{j <= gamma} alpha^j in long double, with a
 * scalar gamma (stride 0); the same points as an array of gamma give the same bits. */
START_TEST(expected_tokens_against_a_sum)
{
    enum { N = 101 };
    double alpha[N], g4[N], y[N], y2[N];
    for (int i = 0; i < N; i++)
        alpha[i] = i / (double)(N - 1), g4[i] = 4;
    const double gamma = 4, *in[] = { alpha, &gamma }, *in2[] = { alpha, g4 };
    double *out[] = { y }, *out2[] = { y2 };
    const size_t stride[] = { 1, 0 }, stride2[] = { 1, 1 };
    const sd_ufunc *f = sd_ufunc_find("expected_tokens");
    sd_error err;
    ck_assert_int_eq(sd_ufunc_eval(f, N, in, stride, out, &err), SD_OK);
    ck_assert_int_eq(sd_ufunc_eval(f, N, in2, stride2, out2, &err), SD_OK);
    for (int i = 0; i < N; i++) {
        long double s = 0, p = 1;
        for (int j = 0; j <= 4; j++, p *= alpha[i])
            s += p;
        ck_assert_rel(y[i], (double)s, 1e-14);
        ck_assert(memcmp(&y[i], &y2[i], sizeof y[i]) == 0);
    }
    ck_assert_double_eq(y[N - 1], 5.0); /* alpha = 1: gamma + 1 */
    ck_assert_double_eq(y[0], 1.0);     /* alpha = 0 */
}
END_TEST

/* The multi-output rows equal their scalar functions point by point; optimal_gamma is
 * optimal's first output; alpha_from_length inverts mean_acceptance_length. */
START_TEST(rows_equal_their_scalar_calls)
{
    enum { N = 7 };
    const double alpha[N] = { 0, 0.1, 0.5, 0.8, 0.95, 0.999, 1 }, cost = 0.05, gamma = 6;
    double y[5][N], g[N];
    const double *in[] = { alpha, &cost };
    double *out[] = { y[0], y[1], y[2], y[3], y[4] }, *out1[] = { g };
    const size_t stride[] = { 1, 0 };
    sd_error err;
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("optimal"), N, in, stride, out, &err), SD_OK);
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("optimal_gamma"), N, in, stride, out1, &err), SD_OK);
    for (int i = 0; i < N; i++) {
        sd_optimum o;
        ck_assert_int_eq(sd_theory_optimal(alpha[i], cost, &o, &err), SD_OK);
        ck_assert(memcmp(&y[0][i], &o.gamma_opt, sizeof(double)) == 0 && memcmp(&g[i], &o.gamma_opt, 8) == 0);
        ck_assert(memcmp(&y[1][i], &o.improvement_opt, sizeof(double)) == 0);
        ck_assert(memcmp(&y[4][i], &o.ceiling, sizeof(double)) == 0);
    }
    double len[N], back[N];
    const double *lin[] = { alpha, &gamma }, *bin[] = { len, &gamma };
    double *lout[] = { len }, *bout[] = { back };
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("mean_acceptance_length"), N, lin, stride, lout, &err), SD_OK);
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("alpha_from_length"), N, bin, stride, bout, &err), SD_OK);
    for (int i = 0; i < N; i++)
        ck_assert_msg(fabs(back[i] - alpha[i]) < 1e-8, "alpha %g came back as %.17g", alpha[i], back[i]);
}
END_TEST

/* A point outside a domain fails the call before anything is written, naming the input and
 * the point; so do NaN, an infinity and a gamma that is not whole.  No points is not an error. */
START_TEST(domains_are_checked_first)
{
    double alpha[4] = { 0.5, 0.6, 0.7, 2.0 }, y[4] = { -1, -1, -1, -1 };
    const double gamma = 3, cost = 0.1, *in[] = { alpha, &gamma, &cost };
    double *out[] = { y };
    const size_t stride[] = { 1, 0, 0 };
    const sd_ufunc *f = sd_ufunc_find("improvement");
    sd_error err;
    ck_assert_int_eq(sd_ufunc_eval(f, 4, in, stride, out, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "alpha: 2 is outside [0, 1] (point 3 of 4)");
    for (int i = 0; i < 4; i++)
        ck_assert_double_eq(y[i], -1);
    alpha[3] = NAN;
    ck_assert_int_eq(sd_ufunc_eval(f, 4, in, stride, out, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "alpha: nan is outside [0, 1] (point 3 of 4)");
    alpha[3] = 0.9;
    const double half = 2.5, *in2[] = { alpha, &half, &cost };
    ck_assert_int_eq(sd_ufunc_eval(f, 4, in2, stride, out, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "gamma: 2.5 is not a whole number"));
    const double mu = INFINITY, *in3[] = { alpha, &gamma, &mu }; /* an infinity lies outside [0, inf) */
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("flop_factor"), 4, in3, stride, out, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "mu: inf is outside [0, inf) (point 0 of 4)");
    ck_assert_int_eq(sd_ufunc_eval(f, 0, in, stride, out, &err), SD_OK);
    ck_assert_int_eq(sd_ufunc_eval(f, 4, in, stride, out, &err), SD_OK); /* the control: all in range */
    ck_assert_rel(y[3], sd_theory_improvement(0.9, 3, 0.1), 0);
    const double length = 9, *lin[] = { &length, &gamma }; /* past gamma + 1: the solver's own check */
    ck_assert_int_eq(sd_ufunc_eval(sd_ufunc_find("alpha_from_length"), 1, lin, stride, out, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "(point 0 of 1)"));
}
END_TEST

Suite *ufunc_suite(void)
{
    Suite *s = suite_create("ufunc");
    TCase *tc = tcase_create("ufunc");
    tcase_add_test(tc, table_is_well_formed);
    tcase_add_test(tc, expected_tokens_against_a_sum);
    tcase_add_test(tc, rows_equal_their_scalar_calls);
    tcase_add_test(tc, domains_are_checked_first);
    suite_add_tcase(s, tc);
    return s;
}
