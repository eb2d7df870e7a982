/* test_path.c -- acceptance along the paths a target generates (path.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/model.h"
#include "specdec/path.h"
#include "specdec/verify.h"
#include "testutil.h"

/* A pair model has one context, so every entry of the path is its
 * acceptance: beta = 0.55 (adjusted) on the seed's four-token example,
 * p(argmax q) = p(B) = 0.1 (deterministic-draft), 0 (greedy: q's argmax B is
 * not p's A) -- over three segments of 4096 tokens and part of a fourth. */
START_TEST(a_pair_path_is_its_acceptance)
{
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    enum { N = 3 * 4096 + 100 };
    double *out = malloc(N * sizeof *out);
    static const char *const rules[] = { "adjusted", "deterministic-draft", "greedy" };
    static const double want[] = { 0.55, 0.1, 0.0 };
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < N; i++)
            out[i] = -1;
        ck_assert_int_eq(sd_path_acceptance(m, sd_verify_find(rules[k]), N, 3, out, NULL), SD_OK);
        for (size_t i = 0; i < N; i++)
            ck_assert_msg(fabs(out[i] - want[k]) <= 1e-15, "%s: out[%zu] = %.17g", rules[k], i, out[i]);
    }
    free(out);
    sd_model_free(m);
}
END_TEST

/* Two rows of one target p = (0.4, 0.3, 0.2, 0.1) and two drafts -- q = p
 * (beta 1) and q = (0.1, 0.2, 0.3, 0.4) (beta 0.1 + 0.2 + 0.2 + 0.1 = 0.6) --
 * chosen by the last token (history 1).  The path's tokens come from p
 * whatever the row, so out[i] = beta(row(t)) for an i.i.d. token t ~ p: the
 * entries are i.i.d., with mean mu = sum_t p(t) beta(row(t)) and variance
 * sum_t p(t) beta(row(t))^2 - mu^2, row(t) read from the model's lookup.
 * Over 20000 entries the mean lies within 6 standard errors of mu (a
 * correct path fails with probability 2e-9).  Negative control: the mean
 * of the rows' betas (0.8, the bank read as i.i.d.) and the mean under
 * tokens drawn from (p + q_1) / 2 instead of p are over 9.1 standard errors
 * away.  The seed gives the same path; another seed another. */
START_TEST(the_path_follows_the_target)
{
    const double pr[] = { 0.4, 0.3, 0.2, 0.1 }, q1[] = { 0.1, 0.2, 0.3, 0.4 };
    double p[8], q[8];
    memcpy(p, pr, sizeof pr), memcpy(p + 4, pr, sizeof pr);
    memcpy(q, pr, sizeof pr), memcpy(q + 4, q1, sizeof q1);
    sd_model_rows_request rq = { .p = p, .q = q, .rows = 2, .vocab = 4, .history = 1, .seed = 4 };
    sd_model *m;
    ck_assert_int_eq(sd_model_rows(&rq, &m, NULL), SD_OK);
    const sd_verifier *adj = sd_verify_find("adjusted");
    const double beta[] = { sd_model_context(m, 0)->beta, sd_model_context(m, 1)->beta }; /* as sd_verify_acceptance */
    ck_assert_double_eq_tol(beta[0], 1.0, 1e-15);
    ck_assert_double_eq_tol(beta[1], 0.6, 1e-15);
    double b_of[4], mu = 0, m2 = 0, mu_q = 0;
    int rows_used[2] = { 0, 0 };
    for (uint32_t t = 0; t < 4; t++) {
        sd_prefix s;
        sd_model_start(m, &s);
        sd_model_advance(m, &s, t);
        size_t row = (size_t)(sd_model_lookup(m, &s) - sd_model_context(m, 0));
        rows_used[row] = 1;
        b_of[t] = beta[row];
        mu += pr[t] * b_of[t];
        m2 += pr[t] * b_of[t] * b_of[t];
        mu_q += 0.5 * (pr[t] + q1[t]) * b_of[t];
    }
    ck_assert_msg(rows_used[0] && rows_used[1], "seed 4 sends every token to one row"); /* the premise */
    enum { N = 20000 };
    double *out = malloc(N * sizeof *out), *again = malloc(N * sizeof *again), sum = 0;
    ck_assert_int_eq(sd_path_acceptance(m, adj, N, 17, out, NULL), SD_OK);
    for (size_t i = 0; i < N; i++) {
        ck_assert(out[i] == beta[0] || out[i] == beta[1]);
        sum += out[i];
    }
    double mean = sum / N, se = sqrt((m2 - mu * mu) / N);
    ck_assert_msg(fabs(mean - mu) <= 6 * se, "mean %.6f, expected %.6f (se %.2g)", mean, mu, se);
    ck_assert_msg(fabs(0.8 - mu) > 9.1 * se, "control: the bank's mean 0.8 is within 9.1 se");
    ck_assert_msg(fabs(mu_q - mu) > 9.1 * se, "control: the q mixture's %.6f is within 9.1 se", mu_q);
    ck_assert_int_eq(sd_path_acceptance(m, adj, N, 17, again, NULL), SD_OK);
    ck_assert_mem_eq(again, out, N * sizeof *out);
    ck_assert_int_eq(sd_path_acceptance(m, adj, N, 18, again, NULL), SD_OK);
    ck_assert(memcmp(again, out, N * sizeof *out) != 0);
    free(out);
    free(again);
    sd_model_free(m);
}
END_TEST

Suite *path_suite(void)
{
    Suite *s = suite_create("path");
    TCase *tc = tcase_create("path");
    tcase_add_test(tc, a_pair_path_is_its_acceptance);
    tcase_add_test(tc, the_path_follows_the_target);
    suite_add_tcase(s, tc);
    return s;
}
