/* test_dist.c -- distribution files, overlap beta and D_LK. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "specdec/dist.h"
#include "specdec/theory.h"
#include "testutil.h"

START_TEST(four_token_example)
{
    sd_dist p, q;
    ck_assert_int_eq(sd_dist_load(data_path("four-token-p.txt"), &p, NULL), SD_OK);
    ck_assert_int_eq(sd_dist_load(data_path("four-token-q.txt"), &q, NULL), SD_OK);
    ck_assert_uint_eq(p.n, 4);
    ck_assert_str_eq(p.labels[1], "B");
    ck_assert_int_eq(sd_dist_compatible(&p, &q, "p", "q", NULL), SD_OK);
    ck_assert_double_eq_tol(sd_dist_overlap(p.p, q.p, 4), 0.55, 1e-15); /* the seed's beta */
    ck_assert_double_eq_tol(sd_dist_tv(p.p, q.p, 4), 0.45, 1e-15);
    sd_dist_free(&p);
    sd_dist_free(&q);
}
END_TEST

/* D_LK = 1 - beta (eq. 6), on Dirichlet draws of many sizes and sparsities. */
START_TEST(dlk_is_one_minus_beta)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    enum { N = 5000 };
    static double p[N], q[N], kappa[N];
    for (int trial = 0; trial < 200; trial++) {
        size_t n = 1 + gsl_rng_uniform_int(r, N);
        double k = pow(10.0, -2.0 + 3.0 * gsl_rng_uniform(r));
        for (size_t i = 0; i < n; i++)
            kappa[i] = k;
        gsl_ran_dirichlet(r, n, kappa, p);
        gsl_ran_dirichlet(r, n, kappa, q);
        double beta = sd_dist_overlap(p, q, n), tv = sd_dist_tv(p, q, n);
        ck_assert(beta >= 0.0 && beta <= 1.0 + 1e-12);
        ck_assert_double_eq_tol(tv, 1.0 - beta, 1e-12);
        ck_assert_double_eq_tol(sd_dist_overlap(p, p, n), 1.0, 1e-12); /* p = q: beta 1 */
        ck_assert_double_eq(sd_dist_tv(p, p, n), 0.0);
        ck_assert_double_eq(sd_dist_overlap(q, p, n), beta);         /* symmetric */
    }
    gsl_rng_free(r);
    /* a distribution whose left-to-right sum rounds above 1: beta(p, p) is still at most 1
     * (a regression: simulate --p-file P --q-file P gave beta 1.0000000000000002 and NaN) */
    const double over[] = { 0.1036265627122147, 0.20013725256866574, 0.10505795727319929, 0.18833747117394958,
                            0.03928411868951342, 0.058798873930021804, 0.20142868102131328, 0.1033290826311224 };
    double naive = 0.0;
    for (int i = 0; i < 8; i++)
        naive += over[i];
    ck_assert(naive > 1.0); /* the premise: the rounding does pass 1 */
    ck_assert_double_eq(sd_dist_overlap(over, over, 8), 1.0);
    ck_assert_double_eq(sd_theory_expected_tokens(sd_dist_overlap(over, over, 8), 5), 6.0);
    const double a[] = { 0.5, 0.5, 0, 0 }, b[] = { 0, 0, 0.25, 0.75 }; /* disjoint: beta 0 */
    ck_assert_double_eq(sd_dist_overlap(a, b, 4), 0.0);
    ck_assert_double_eq(sd_dist_tv(a, b, 4), 1.0);
}
END_TEST

START_TEST(files_accepted)
{
    sd_dist d;
    const char *path = write_temp("# comment\n\n0.25\r\n  0.75  \n# trailing comment\n");
    ck_assert_int_eq(sd_dist_load(path, &d, NULL), SD_OK);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_ptr_null(d.labels);
    ck_assert_double_eq(d.p[1], 0.75);
    sd_dist_free(&d);
    unlink(path);
    path = write_temp("0.3333333\n0.3333333\n0.3333333\n"); /* within 1e-6: rescaled to sum 1 */
    ck_assert_int_eq(sd_dist_load(path, &d, NULL), SD_OK);
    ck_assert_double_eq_tol(d.p[0] + d.p[1] + d.p[2], 1.0, 1e-15);
    sd_dist_free(&d);
    unlink(path);
}
END_TEST

START_TEST(files_rejected)
{
    static const struct { const char *text, *why; } bad[] = {
        { "", "no probabilities" },
        { "# only a comment\n", "no probabilities" },
        { "0.5\n0.5x\n", ":2: '0.5x' is not a number" },
        { "0.5\n-0.5\n1\n", ":2: -0.5 is outside [0, 1]" },
        { "0.5\nnan\n", ":2: 'nan' is not a number" },
        { "0.5\ninf\n", ":2: 'inf' is not a number" },
        { "0.5\n0.6\n", "sum to 1.1" },
        { "0.4\n0.4\n", "sum to 0.8" },
        { "a\t0.5\n0.5\n", ":2: an unlabelled line among labelled ones" },
        { "\t0.5\nb\t0.5\n", ":1: empty label" },
        { "a\t\nb\t0.5\n", ":1: empty value" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_dist d = { 0 };
        sd_error err = { "" };
        const char *path = write_temp(bad[i].text);
        ck_assert_msg(sd_dist_load(path, &d, &err) == SD_EINVAL, "case %zu accepted", i);
        ck_assert_msg(strstr(err.msg, bad[i].why) != NULL, "case %zu: '%s' lacks '%s'", i, err.msg, bad[i].why);
        ck_assert_msg(strncmp(err.msg, path, strlen(path)) == 0, "'%s' does not name the file", err.msg);
        ck_assert_ptr_null(d.p);
        unlink(path);
    }
    sd_dist d;
    sd_error err;
    ck_assert_int_eq(sd_dist_load("/nonexistent/p.txt", &d, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "/nonexistent/p.txt: cannot open: No such file or directory");
    ck_assert_int_eq(sd_dist_load("/tmp", &d, &err), SD_EINVAL); /* a directory: unreadable */
    ck_assert_ptr_nonnull(strstr(err.msg, "read error"));
}
END_TEST

START_TEST(vocabularies_must_match)
{
    double a[] = { 0.5, 0.5 }, b[] = { 0.2, 0.3, 0.5 };
    sd_dist p = { 2, a, NULL }, q = { 3, b, NULL };
    sd_error err;
    ck_assert_int_eq(sd_dist_compatible(&p, &q, "p.txt", "q.txt", &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "p.txt has 2 tokens but q.txt has 3; the vocabularies must match");
    char l1[] = "A", l2[] = "B", l3[] = "C";
    char *la[] = { l1, l2 }, *lb[] = { l1, l3 };
    sd_dist pl = { 2, a, la }, ql = { 2, a, lb };
    ck_assert_int_eq(sd_dist_compatible(&pl, &ql, "p.txt", "q.txt", &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "token 1 is 'B' in p.txt but 'C' in q.txt");
    ck_assert_int_eq(sd_dist_check(a, 2, "x", NULL), SD_OK);
    ck_assert_int_eq(sd_dist_check(a, 0, "x", NULL), SD_EINVAL);
}
END_TEST

START_TEST(multi_draft_acceptance)
{
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    double work[4];
    ck_assert_double_eq_tol(sd_dist_multi_acceptance(p, q, 4, 1, work), 0.55, 1e-15); /* K = 1: beta */
    /* by hand: beta_2 = beta_3 = 0.35, so 1 - 0.45 * 0.65 * 0.65 */
    ck_assert_double_eq_tol(sd_dist_multi_acceptance(p, q, 4, 3, work), 1 - 0.45 * 0.65 * 0.65, 1e-15);
    ck_assert_double_eq_tol(sd_dist_multi_acceptance(p, p, 4, 5, work), 1.0, 1e-15);
    const double a[] = { 1, 0 }, b[] = { 0, 1 }; /* disjoint: no number of drafts helps */
    ck_assert_double_eq(sd_dist_multi_acceptance(a, b, 2, 8, work), 0.0);
}
END_TEST

/* The deterministic-draft acceptance p(argmax q), by hand. */
START_TEST(point_acceptance)
{
    /* q ties for its maximum: the tied token p ranks first */
    ck_assert_double_eq(sd_dist_point_acceptance((const double[]){ 0.1, 0.6, 0.3 }, (const double[]){ 0.4, 0.4, 0.2 }, 3),
                        0.6);
    /* the seed's four-token example: q's argmax is B, p(B) = 0.1 (beta is 0.55) */
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    ck_assert_double_eq(sd_dist_point_acceptance(p, q, 4), 0.1);
    ck_assert_double_eq(sd_dist_point_acceptance(q, p, 4), 0.2); /* p's argmax is A, q(A) = 0.2 */
    ck_assert_double_eq(sd_dist_point_acceptance(p, p, 4), 0.5); /* p = q: max p, not 1 */
    ck_assert_double_eq(sd_dist_point_acceptance((const double[]){ 1, 0 }, (const double[]){ 0, 1 }, 2), 0.0);
    ck_assert_double_eq(sd_dist_point_acceptance((const double[]){ 1 }, (const double[]){ 1 }, 1), 1.0);
    /* q ties across three tokens: the one p ranks first among them, not the first index */
    ck_assert_double_eq(sd_dist_point_acceptance((const double[]){ 0.2, 0.1, 0.3, 0.4 },
                                                 (const double[]){ 0.3, 0.3, 0.3, 0.1 }, 4), 0.3);
}
END_TEST

/* The exact-match acceptance sum p q, by hand, at its limits, and below
 * beta (eq. 1) and min(max p, max q) on high-entropy pairs. */
START_TEST(match_acceptance)
{
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    ck_assert_double_eq_tol(sd_dist_match_acceptance(p, q, 4), 0.1 + 0.04 + 0.045 + 0.025, 1e-15); /* 0.21 < 0.55 */
    ck_assert_double_eq(sd_dist_match_acceptance(q, p, 4), sd_dist_match_acceptance(p, q, 4));
    ck_assert_double_eq_tol(sd_dist_match_acceptance(p, p, 4), 0.25 + 0.01 + 0.09 + 0.01, 1e-15); /* p = q: sum p^2 */
    ck_assert_double_eq(sd_dist_match_acceptance((const double[]){ 0, 1, 0 }, (const double[]){ 0, 1, 0 }, 3), 1.0);
    ck_assert_double_eq(sd_dist_match_acceptance((const double[]){ 1, 0 }, (const double[]){ 0, 1 }, 2), 0.0);
    const double a[] = { 0.2385, 0.0715, 0.31, 0.1525, 0.2275 }, b[] = { 0.0935, 0.4015, 0.0815, 0.3025, 0.121 };
    const double *v[] = { a, b };
    for (size_t i = 0; i < 2; i++)
        for (size_t j = 0; j < 2; j++) {
            double m = sd_dist_match_acceptance(v[i], v[j], 5), ma = 0, mb = 0;
            for (size_t t = 0; t < 5; t++) {
                ma = fmax(ma, v[i][t]);
                mb = fmax(mb, v[j][t]);
            }
            ck_assert(m > 0 && m < sd_dist_overlap(v[i], v[j], 5) && m <= fmin(ma, mb));
        }
}
END_TEST

/* The per-rank acceptance of tree children on the seed's four-token example, by hand: q
 * ranks B (.4), D (.25), A (.2), C (.15), so top-k gives p = .1, .1, .5, .3 (and 0 past the
 * vocabulary); sampled: beta_0 = .55, r_1 = (2/3, 0, 1/3, 0), beta_1 = .2 + .15 = .35,
 * r_2 = (.4667, 0, .1833, 0) / .65, beta_2 = .2 + .15 = .35, so .55, .45 x .35 = .1575 and
 * .45 x .65 x .35 = .102375. */
START_TEST(rank_acceptance)
{
    const double p[4] = { 0.5, 0.1, 0.3, 0.1 }, q[4] = { 0.2, 0.4, 0.15, 0.25 };
    double out[5], work[4];
    sd_dist_rank_acceptance(p, q, 4, 5, 0, out, work);
    ck_assert(out[0] == 0.1 && out[1] == 0.1 && out[2] == 0.5 && out[3] == 0.3 && out[4] == 0.0);
    sd_dist_rank_acceptance(p, q, 4, 3, 1, out, work);
    ck_assert_rel(out[0], 0.55, 1e-15);
    ck_assert_rel(out[1], 0.1575, 1e-14);
    ck_assert_rel(out[2], 0.102375, 1e-14);
    /* the sampled ranks' sum is sd_dist_multi_acceptance, the chance that one of k is accepted */
    sd_dist_rank_acceptance(p, q, 4, 5, 1, out, work);
    ck_assert_rel(out[0] + out[1] + out[2] + out[3] + out[4], sd_dist_multi_acceptance(p, q, 4, 5, work), 1e-14);
    /* p = q: the first draw is always accepted */
    sd_dist_rank_acceptance(p, p, 4, 3, 1, out, work);
    ck_assert_rel(out[0], 1.0, 1e-15);
    ck_assert(out[1] == 0.0 && out[2] == 0.0);
}
END_TEST

Suite *dist_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("dist");
    tcase_set_timeout(tc, 60); /* dlk_is_one_minus_beta draws 200 Dirichlet pairs of up to 5000 tokens */
    tcase_add_test(tc, four_token_example);
    tcase_add_test(tc, dlk_is_one_minus_beta);
    tcase_add_test(tc, files_accepted);
    tcase_add_test(tc, files_rejected);
    tcase_add_test(tc, vocabularies_must_match);
    tcase_add_test(tc, multi_draft_acceptance);
    tcase_add_test(tc, point_acceptance);
    tcase_add_test(tc, match_acceptance);
    tcase_add_test(tc, rank_acceptance);
    suite_add_tcase(s, tc);
    return s;
}
