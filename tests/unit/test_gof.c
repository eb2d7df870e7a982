/* test_gof.c -- goodness of fit (gof.h): Pearson's chi-square, and the
 * engine's output against what a rule must emit. */
#include <math.h>
#include <stdint.h>

#include "specdec/engine.h"
#include "specdec/model.h"
#include "specdec/gof.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "testutil.h"

/* A greedy run's output fits the greedy rule exactly (statistic 0) and is
 * caught against sampling from p.  (From the engine suite's
 * greedy_emits_the_argmax, on its run.) */
START_TEST(greedy_output_fits_greedy_not_sampling)
{
    sd_synth_config c = { .family = SD_FAMILY_LOGITS, .vocab = 50, .zipf_s = 1.5, .kappa = 1.0, .temperature = 0.7,
        .calibrated = 1, .alpha = 0.6, .regime = SD_REGIME_CONSTANT, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 16, .history = 2, .seed = 3, .threads = 1 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    sd_engine_config ec = { .model = m, .verifier = sd_verify_find("greedy"), .policy = SD_POLICY_FIXED, .gamma = 3,
        .tokens = 50000, .seed = 1, .threads = 2, .drafts = 1 };
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    sd_gof g;
    ck_assert_int_eq(sd_gof_output(m, sd_verify_find("greedy"), &s, &g, NULL), SD_OK);
    ck_assert_double_eq(g.statistic, 0.0);
    /* against sampling from p the greedy output is caught at once */
    ck_assert_int_eq(sd_gof_output(m, sd_verify_find("adjusted"), &s, &g, NULL), SD_OK);
    ck_assert(g.pvalue < 1e-7);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* Pearson's statistic and its degrees of freedom worked by hand; each call
 * adds to *stat and *dof. */
START_TEST(chisq_by_hand)
{
    double stat = 0, dof = 0;
    /* 100 counts against four cells of 25: (225 + 25 + 25 + 225) / 25 = 20 on 3 dof */
    sd_gof_chisq((const uint64_t[]){ 10, 20, 30, 40 }, (const double[]){ 0.25, 0.25, 0.25, 0.25 }, 4, &stat, &dof);
    ck_assert_double_eq_tol(stat, 20.0, 1e-12);
    ck_assert_double_eq(dof, 3);
    sd_gof_chisq((const uint64_t[]){ 10, 20, 30, 40 }, (const double[]){ 0.25, 0.25, 0.25, 0.25 }, 4, &stat, &dof);
    ck_assert_double_eq_tol(stat, 40.0, 1e-12); /* added */
    ck_assert_double_eq(dof, 6);
    /* thin cells pooled: expected 50, 45, 3, 2 -- the last two expect 5 together and form one cell:
     * 2^2/50 + 0 + (7 - 5)^2/5 = 0.88 on 3 - 1 = 2 dof */
    stat = 0, dof = 0;
    sd_gof_chisq((const uint64_t[]){ 48, 45, 5, 2 }, (const double[]){ 0.5, 0.45, 0.03, 0.02 }, 4, &stat, &dof);
    ck_assert_double_eq_tol(stat, 0.88, 1e-12);
    ck_assert_double_eq(dof, 2);
    /* a pool too thin (expected 2 + 1 = 3) joins the last big cell: (44 + 4, 47 + 3) = (48, 50):
     * 2^2/50 + 2^2/50 = 0.16 on 1 dof */
    stat = 0, dof = 0;
    sd_gof_chisq((const uint64_t[]){ 52, 44, 3, 1 }, (const double[]){ 0.5, 0.47, 0.02, 0.01 }, 4, &stat, &dof);
    ck_assert_double_eq_tol(stat, 0.16, 1e-12);
    ck_assert_double_eq(dof, 1);
    /* every cell thin: one pooled cell, nothing to test (0 dof) */
    stat = 0, dof = 0;
    sd_gof_chisq((const uint64_t[]){ 2, 1 }, (const double[]){ 0.5, 0.5 }, 2, &stat, &dof);
    ck_assert_double_eq(stat, 0);
    ck_assert_double_eq(dof, 0);
    /* a count where the probability is 0: infinite */
    stat = 0, dof = 0;
    sd_gof_chisq((const uint64_t[]){ 5, 5, 1 }, (const double[]){ 0.5, 0.5, 0 }, 3, &stat, &dof);
    ck_assert(isinf(stat) && stat > 0);
    ck_assert_double_eq(dof, 1);
    /* a zero count where the probability is 0 is fine */
    stat = 0, dof = 0;
    sd_gof_chisq((const uint64_t[]){ 5, 5, 0 }, (const double[]){ 0.5, 0.5, 0 }, 3, &stat, &dof);
    ck_assert_double_eq(stat, 0);
    ck_assert_double_eq(dof, 1);
    /* no counts: nothing added */
    stat = 1.5, dof = 2;
    sd_gof_chisq((const uint64_t[]){ 0, 0 }, (const double[]){ 0.5, 0.5 }, 2, &stat, &dof);
    ck_assert_double_eq(stat, 1.5);
    ck_assert_double_eq(dof, 2);
}
END_TEST

/* One context of a pair, p = (0.2, 0.5, 0.3) over tokens 0, 1, 2, with 100
 * hand-made emitted tokens (counted by rank, as the engine does) against
 * the adjusted rule, which must emit p: 20, 60, 20 gives 10^2/50 + 10^2/30 =
 * 16/3 on 2 dof, p-value exp(-8/3) (chi-square with 2 dof), total variation
 * (10 + 10) / 2 / 100 = 0.1; 20, 50, 30 fits exactly. */
START_TEST(output_by_hand)
{
    const double p[] = { 0.2, 0.5, 0.3 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, p, 3, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    const sd_verifier *adj = sd_verify_find("adjusted");
    static const uint64_t by_token[][3] = { { 20, 60, 20 }, { 20, 50, 30 } };
    static const double stat[] = { 16.0 / 3, 0 }, tv[] = { 0.1, 0 };
    for (int k = 0; k < 2; k++) {
        uint64_t ctx_tokens[1] = { 100 }, out[3];
        for (size_t r = 0; r < 3; r++)
            out[r] = by_token[k][c->token[r]];
        sd_engine_stats s = { .tokens = 100, .vocab = 3, .contexts = 1, .ctx_tokens = ctx_tokens, .out_counts = out };
        sd_gof g;
        ck_assert_int_eq(sd_gof_output(m, adj, &s, &g, NULL), SD_OK);
        ck_assert_double_eq_tol(g.statistic, stat[k], 1e-12);
        ck_assert_double_eq(g.dof, 2);
        ck_assert_double_eq_tol(g.pvalue, exp(-stat[k] / 2), 1e-12);
        ck_assert_double_eq_tol(g.tv, tv[k], 1e-15);
    }
    sd_model_free(m);
    /* a token p forbids: an infinite statistic, p-value 0 */
    const double p0[] = { 0.5, 0.5, 0.0 };
    ck_assert_int_eq(sd_model_pair(p0, p, 3, &m, NULL), SD_OK);
    c = sd_model_context(m, 0);
    uint64_t ctx_tokens[1] = { 100 }, out[3];
    for (size_t r = 0; r < 3; r++)
        out[r] = c->token[r] == 2 ? 1 : c->token[r] == 0 ? 50 : 49;
    sd_engine_stats s = { .tokens = 100, .vocab = 3, .contexts = 1, .ctx_tokens = ctx_tokens, .out_counts = out };
    sd_gof g;
    ck_assert_int_eq(sd_gof_output(m, adj, &s, &g, NULL), SD_OK);
    ck_assert(isinf(g.statistic));
    ck_assert_double_eq(g.pvalue, 0.0);
    /* nothing emitted: no cells (dof 0, p-value 1), tv NaN */
    uint64_t zero_ctx[1] = { 0 }, zero_out[3] = { 0 };
    s = (sd_engine_stats){ .tokens = 0, .vocab = 3, .contexts = 1, .ctx_tokens = zero_ctx, .out_counts = zero_out };
    ck_assert_int_eq(sd_gof_output(m, adj, &s, &g, NULL), SD_OK);
    ck_assert_double_eq(g.statistic, 0);
    ck_assert_double_eq(g.dof, 0);
    ck_assert_double_eq(g.pvalue, 1.0);
    ck_assert(isnan(g.tv));
    sd_model_free(m);
}
END_TEST

Suite *gof_suite(void)
{
    Suite *s = suite_create("gof");
    TCase *tc = tcase_create("gof");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, greedy_output_fits_greedy_not_sampling);
    suite_add_tcase(s, tc);
    TCase *hand = tcase_create("by hand");
    tcase_add_test(hand, chisq_by_hand);
    tcase_add_test(hand, output_by_hand);
    suite_add_tcase(s, hand);
    return s;
}
