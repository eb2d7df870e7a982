/* test_ngram.c -- the byte-level Kneser-Ney pair on text (issue 13). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "mc/verify_impl.h"
#include "model/model_impl.h"
#include "specdec.h"
#include "testutil.h"

static const char *const GPL = "/usr/share/common-licenses/GPL-3"; /* every Debian system has it */

/* Interpolated Kneser-Ney worked by hand on the cyclic corpus "aab" (V = 2):
 * continuation counts N1+(. a) = 2, N1+(. b) = 1, D = 1/(1 + 2) = 1/3:
 *   P(a) = (2 - 1/3)/3 + (1/3)(2/3)(1/2) = 2/3;
 * bigrams aa, ab, ba once each (n2 = 0: D = 1 is outside (0, 1), so 0.5):
 *   P(a | a) = 0.5/2 + 0.5 (2/2)(2/3) = 7/12,  P(a | b) = 0.5 + 0.5 (2/3) = 5/6;
 * the order-1 draft on raw counts a 2, b 1 (D = 1/3): q(a) = 2/3. */
START_TEST(kneser_ney_by_hand)
{
    sd_model *m;
    sd_error err;
    ck_assert_msg(sd_ngram_model((const unsigned char *)"aab", 3, "aab", &(sd_ngram_config){ .order = 2, .draft_order = 1, .target = NULL, .draft = NULL }, &m, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_model_vocab(m), 2);
    ck_assert_uint_eq(sd_model_contexts(m), 3); /* "", "a", "b" */
    ck_assert_int_eq(sd_model_family(m), SD_FAMILY_NGRAM);
    ck_assert_uint_eq(sd_ngram_byte(m, 1), 'b');
    sd_prefix s;
    sd_model_start(m, &s);
    const sd_context *c = sd_model_lookup(m, &s); /* the empty history: the unigrams */
    ck_assert_uint_eq(c->token[0], 0);
    ck_assert_double_eq_tol(c->p[0], 2.0 / 3, 1e-15);
    ck_assert_double_eq_tol(c->q[0], 2.0 / 3, 1e-15);
    sd_model_advance(m, &s, 0); /* "a" */
    c = sd_model_lookup(m, &s);
    ck_assert_double_eq_tol(c->p[0], 7.0 / 12, 1e-15);
    ck_assert_double_eq_tol(c->q[0], 2.0 / 3, 1e-15);
    ck_assert_double_eq_tol(c->beta, 7.0 / 12 + 1.0 / 3, 1e-15);
    sd_model_advance(m, &s, 1); /* "ab": the history is the last byte, "b" */
    c = sd_model_lookup(m, &s);
    ck_assert_uint_eq(c->token[0], 0);
    ck_assert_double_eq_tol(c->p[0], 5.0 / 6, 1e-15);
    sd_model_free(m);
    /* sampling settings on both models: target greedy (7/12 > 5/12 after "a"), draft at T = 2 */
    sd_sampling tg = sd_sampling_defaults(), dr = sd_sampling_defaults();
    tg.temperature = 0.0, dr.temperature = 2.0;
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"aab", 3, "aab", &(sd_ngram_config){ .order = 2, .draft_order = 1, .target = &tg, .draft = &dr }, &m, &err), SD_OK);
    sd_model_start(m, &s);
    sd_model_advance(m, &s, 0);
    c = sd_model_lookup(m, &s);
    ck_assert_double_eq(c->p[0], 1.0);
    ck_assert_double_eq_tol(c->q[0], sqrt(2.0 / 3) / (sqrt(2.0 / 3) + sqrt(1.0 / 3)), 1e-15);
    ck_assert_double_eq_tol(c->beta, c->q[0], 1e-15);
    sd_model_free(m);
    tg.top_p = 0.0; /* refused, naming the setting */
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"aab", 3, "aab", &(sd_ngram_config){ .order = 2, .draft_order = 1, .target = &tg, .draft = &dr }, &m, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "top_p: ", 7) == 0, "%s", err.msg);
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"aab", 3, "aab", &(sd_ngram_config){ .order = 9, .draft_order = 1, .target = NULL, .draft = NULL }, &m, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "order: ", 7) == 0, "%s", err.msg);
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"aab", 3, "aab", &(sd_ngram_config){ .order = 2, .draft_order = 3, .target = NULL, .draft = NULL }, &m, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "draft_order: ", 13) == 0, "%s", err.msg);
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"a", 1, "x.txt", &(sd_ngram_config){ .order = 2, .draft_order = 1, .target = NULL, .draft = NULL }, &m, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "x.txt: 1 bytes", 14) == 0, "%s", err.msg);
    ck_assert_int_eq(sd_ngram_load("/nonexistent", &(sd_ngram_config){ .order = 5, .draft_order = 2, .target = NULL, .draft = NULL }, &m, &err), SD_EINVAL);
}
END_TEST

/* Every conditional distribution of the GPL pair sums to 1 within 1e-12 and has no zero;
 * unseen histories back off to a context.  (How long the build takes is reported, not
 * tested: a wall time depends on the machine and its load.) */
START_TEST(gpl_distributions_sum_to_one)
{
    sd_model *m;
    sd_error err;
    ck_assert_msg(sd_ngram_load(GPL, &(sd_ngram_config){ .order = 5, .draft_order = 2, .target = NULL, .draft = NULL }, &m, &err) == SD_OK, "%s", err.msg);
    size_t v = sd_model_vocab(m);
    for (size_t i = 0; i < sd_model_contexts(m); i++) {
        const sd_context *c = sd_model_context(m, i);
        double sp = 0, sq = 0;
        for (size_t r = 0; r < v; r++) {
            ck_assert(c->p[r] > 0 && c->q[r] > 0);
            sp += c->p[r], sq += c->q[r];
        }
        ck_assert_msg(fabs(sp - 1) <= 1e-12 && fabs(sq - 1) <= 1e-12, "context %zu: %.17g, %.17g", i, sp, sq);
    }
    sd_prefix s;
    sd_model_start(m, &s);
    for (int k = 0; k < 6; k++)
        sd_model_advance(m, &s, (uint32_t)(v - 1)); /* the last byte six times: not in the corpus */
    const sd_context *c = sd_model_lookup(m, &s);
    ck_assert((size_t)(c - sd_model_context(m, 0)) < sd_model_contexts(m));
    sd_model_free(m);
}
END_TEST

/* With the oracle policy every emitted token's context is verified, so the measured
 * acceptance along the generated path must equal the mean exact beta of the contexts
 * visited (alpha_hat) within 6 SE (the Bernoulli bound sqrt(a(1 - a)/n), conservative for
 * independent trials of varying beta).  Control: the bank's unweighted mean beta, the
 * i.i.d. reading of the contexts, is rejected. */
START_TEST(path_acceptance_is_mean_beta_of_visited_contexts)
{
    sd_model *m;
    ck_assert_int_eq(sd_ngram_load(GPL, &(sd_ngram_config){ .order = 5, .draft_order = 2, .target = NULL, .draft = NULL }, &m, NULL), SD_OK);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find("adjusted"), ec.policy = SD_POLICY_ORACLE, ec.tokens = 300000;
    ec.threads = 2, ec.seed = 17;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat;
    double se = sqrt(a * (1 - a) / n), bank = sd_verify_mean_acceptance(ec.verifier, m);
    ck_assert_msg(fabs(rate - a) <= 6 * se, "rate %.6f, alpha_hat %.6f, se %.2g", rate, a, se);
    ck_assert_msg(fabs(rate - bank) > 6 * se, "control missed: bank mean %.6f", bank);
    sd_engine_stats_free(&s);
    /* the same for deterministic-draft: acceptance p(argmax q) */
    ec.verifier = sd_verify_find("deterministic-draft");
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    n = (double)s.verified, rate = (double)s.accepted / n, a = s.alpha_hat, se = sqrt(a * (1 - a) / n);
    ck_assert_msg(fabs(rate - a) <= 6 * se, "rate %.6f, alpha_hat %.6f, se %.2g", rate, a, se);
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* Output = p at the most visited context (chi-square, p-value >= 1e-6), for the adjusted
 * and deterministic-draft rules; control: the biased target rule is rejected there. */
START_TEST(output_is_p_at_a_fixed_context)
{
    sd_model *m;
    ck_assert_int_eq(sd_ngram_load(GPL, &(sd_ngram_config){ .order = 4, .draft_order = 2, .target = NULL, .draft = NULL }, &m, NULL), SD_OK);
    const char *rules[] = { "adjusted", "deterministic-draft", "target" };
    size_t v = sd_model_vocab(m);
    for (int k = 0; k < 3; k++) {
        sd_engine_config ec = sd_engine_defaults();
        ec.model = m, ec.verifier = sd_verify_find(rules[k]), ec.gamma = 3, ec.tokens = 1000000, ec.threads = 2;
        sd_engine_stats s;
        ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
        size_t best = 0;
        for (size_t c = 1; c < s.contexts; c++)
            if (s.ctx_tokens[c] > s.ctx_tokens[best])
                best = c;
        double stat = 0, dof = 0, pv;
        sd_gof_chisq(s.out_counts + best * v, sd_model_context(m, best)->p, v, &stat, &dof);
        pv = isinf(stat) ? 0.0 : gsl_cdf_chisq_Q(stat, dof);
        if (k < 2)
            ck_assert_msg(pv >= 1e-6, "%s: chi-square %g on %g dof at context %zu (%llu tokens)", rules[k], stat, dof,
                          best, (unsigned long long)s.ctx_tokens[best]);
        else
            ck_assert_msg(pv < 1e-6, "control missed: target passes with chi-square %g on %g dof", stat, dof);
        sd_engine_stats_free(&s);
    }
    sd_model_free(m);
}
END_TEST

START_TEST(markov_fit_and_rows_model)
{
    const double a[] = { 0.9, 0.95, 0.9, 0.2, 0.3, 0.2, 0.9, 0.95 };
    sd_markov k = sd_theory_markov_fit(a, 8); /* hard: the 4 smallest, 0.2, 0.3, 0.2 and one of the 0.9s */
    ck_assert_double_eq_tol(k.a_easy, (0.9 + 0.9 + 0.95 + 0.95) / 4, 1e-15);
    ck_assert_double_eq_tol(k.a_hard, (0.9 + 0.2 + 0.3 + 0.2) / 4, 1e-15);
    /* H E E H H H E E, E E H H H H E E or E E E H H H H E: 4 or 5 of 7 neighbours alike */
    ck_assert_msg(fabs(k.stay - 4.0 / 7) < 1e-15 || fabs(k.stay - 5.0 / 7) < 1e-15, "stay %g", k.stay);
    k = sd_theory_markov_fit((const double[]){ 0.75, 0.75, 0.75 }, 3); /* all tied: the states are alike */
    ck_assert(k.a_easy == 0.75 && k.a_hard == 0.75 && k.stay >= 0.0 && k.stay < 1.0);
    /* a model from matrix rows: each row is a context, rows selected by the history hash */
    const double p[] = { 0.5, 0.5, 0.9, 0.1 }, q[] = { 0.5, 0.5, 0.1, 0.9 }, bad[] = { 0.5, 0.5, 0.9, 0.2 };
    sd_model *m;
    sd_error err;
    ck_assert_int_eq(sd_model_rows(&(sd_model_rows_request){ .p = p, .q = q, .rows = 2, .vocab = 2, .history = 1, .seed = 3 }, &m, &err), SD_OK);
    ck_assert_uint_eq(sd_model_contexts(m), 2);
    ck_assert_double_eq_tol(sd_model_context(m, 1)->beta, 0.2, 1e-15);
    sd_model_free(m);
    ck_assert_int_eq(sd_model_rows(&(sd_model_rows_request){ .p = bad, .q = q, .rows = 2, .vocab = 2, .history = 1, .seed = 3 }, &m, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, "p row 1: ", 9) == 0, "%s", err.msg);
}
END_TEST

Suite *ngram_suite(void)
{
    Suite *s = suite_create("ngram");
    TCase *tc = tcase_create("ngram");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, kneser_ney_by_hand);
    tcase_add_test(tc, gpl_distributions_sum_to_one);
    tcase_add_test(tc, path_acceptance_is_mean_beta_of_visited_contexts);
    tcase_add_test(tc, output_is_p_at_a_fixed_context);
    tcase_add_test(tc, markov_fit_and_rows_model);
    suite_add_tcase(s, tc);
    return s;
}
