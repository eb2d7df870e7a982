/* test_verify.c -- the verification rules (verify.h): edge cases of the
 * acceptance test, the rules by name, deterministic-draft's and
 * exact-match's losslessness, each rule's acceptance of two distributions. */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "mc/verify_impl.h"
#include "specdec/dist.h"
#include "specdec/engine.h"
#include "specdec/gof.h"
#include "specdec/model.h"
#include "specdec/rng.h"
#include "specdec/sample.h"
#include "specdec/verify.h"
#include "testutil.h"

static size_t rank_of(const sd_context *c, size_t n, uint32_t token)
{
    for (size_t r = 0; r < n; r++)
        if (c->token[r] == token)
            return r;
    ck_abort_msg("token %u not found", token);
    return 0;
}

START_TEST(p_zero_never_accepted_q_zero_accepted)
{
    const sd_verifier *adj = sd_verify_find("adjusted");
    gsl_rng *tiny = gsl_rng_alloc(script_type()); /* every uniform the least, 2^-53: words 0, then 1 << 11 */
    script_load(tiny, (const uint32_t[]){ 0u, 2048u }, 2);
    sd_model *m;
    /* token 1 has p = 0: never accepted, even with u at its least */
    const double p1[] = { 1.0, 0.0 }, q1[] = { 0.5, 0.5 };
    ck_assert_int_eq(sd_model_pair(p1, q1, 2, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    uint32_t x = (uint32_t)rank_of(c, 2, 1);
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(adj->accept(c, x, tiny), 0);
    sd_model_free(m);
    /* token 1 has q = 0 and p > 0: accepted whenever offered */
    const double p2[] = { 0.5, 0.5 }, q2[] = { 1.0, 0.0 };
    ck_assert_int_eq(sd_model_pair(p2, q2, 2, &m, NULL), SD_OK);
    c = sd_model_context(m, 0);
    x = (uint32_t)rank_of(c, 2, 1);
    gsl_rng *r = sd_rng_stream(9, 0);
    for (int i = 0; i < 1000; i++) {
        ck_assert_int_eq(adj->accept(c, x, r), 1);
        ck_assert_uint_eq(c->token[sd_verify_draft(adj, c, r)], 0); /* q never drafts token 1 */
    }
    sd_model_free(m);
    gsl_rng_free(r);
    gsl_rng_free(tiny);
}
END_TEST

START_TEST(p_equals_q_never_rejects)
{
    const double p[] = { 0.1, 0.2, 0.3, 0.4 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, p, 4, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    ck_assert_double_eq_tol(c->beta, 1.0, 1e-15);
    gsl_rng *r = sd_rng_stream(5, 0);
    const sd_verifier *adj = sd_verify_find("adjusted");
    size_t bad = 0;
    for (int i = 0; i < 100000; i++) {
        uint32_t x = sd_verify_draft(adj, c, r);
        bad += x >= 4 || !adj->accept(c, x, r) || adj->resample(c, x, r) >= 4; /* the empty residual falls back to p */
    }
    ck_assert_uint_eq(bad, 0);
    gsl_rng_free(r);
    sd_model_free(m);
}
END_TEST

START_TEST(rules_by_name)
{
    ck_assert_ptr_nonnull(sd_verify_find("adjusted"));
    ck_assert_ptr_nonnull(sd_verify_find("target"));
    ck_assert(sd_verify_find("greedy")->greedy);
    ck_assert_ptr_null(sd_verify_find("block-ish"));
    /* the seed's Case 1 on the four-token example: P(B) = 0.10 + 0.45 * 0.10 */
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    double out[4];
    sd_verify_find("target")->output(c, 4, out);
    ck_assert_double_eq_tol(out[rank_of(c, 4, 1)], 0.145, 1e-15);
    sd_verify_find("adjusted")->output(c, 4, out);
    ck_assert_double_eq_tol(out[rank_of(c, 4, 1)], 0.10, 1e-15);
    sd_model_free(m);
}
END_TEST

/* deterministic-draft: the output is p (chi-square, p-value >= 1e-6) and the
 * acceptance p(argmax q) (6 SE); negative controls: the same rule resampling from p with
 * the draft kept is rejected by the same chi-square, and sum min(p, q) is > 9.1 SE away. */
START_TEST(deterministic_draft_is_lossless)
{
    const double p[] = { 0.31, 0.07, 0.22, 0.005, 0.185, 0.21 }, q[] = { 0.12, 0.4, 0.1, 0.08, 0.2, 0.1 };
    enum { V = 6 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, V, &m, NULL), SD_OK);
    const sd_verifier *dd = sd_verify_find("deterministic-draft");
    ck_assert(sd_verify_is_greedy(dd) && sd_verify_is_lossless(dd) && !sd_verify_is_blockwise(dd));
    const sd_context *c = sd_model_context(m, 0);
    ck_assert_uint_eq(c->token[c->argmax_q], 1); /* q's argmax: token 1, p = 0.07 */
    ck_assert_double_eq(sd_verify_acceptance(dd, c), 0.07);
    sd_verifier kept = *dd;
    kept.resample = sd_verify_find("target")->resample;
    const sd_verifier *rules[] = { dd, &kept };
    for (int k = 0; k < 2; k++) {
        uint64_t counts[V];
        double expect[V], stat = 0, dof = 0;
        sd_sample_config sc = { .model = m, .verifier = rules[k], .drafts = 1, .draws = 1000000, .seed = 5 };
        ck_assert_int_eq(sd_sample_run(&sc, counts, expect, NULL), SD_OK);
        for (size_t t = 0; t < V; t++)
            ck_assert_double_eq_tol(expect[t], p[t], 1e-15);
        sd_gof_chisq(counts, expect, V, &stat, &dof);
        double pv = gsl_cdf_chisq_Q(stat, dof);
        if (k == 0)
            ck_assert_msg(pv >= 1e-6, "chi-square %g on %g dof", stat, dof);
        else
            ck_assert_msg(pv < 1e-6, "control missed: chi-square %g on %g dof", stat, dof);
    }
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = dd, ec.gamma = 2, ec.tokens = 200000, ec.threads = 2;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(0.07 * 0.93 / n);
    ck_assert_msg(fabs(rate - 0.07) <= 6 * se, "rate %g, se %g", rate, se);
    ck_assert(fabs(rate - sd_dist_overlap(p, q, V)) > 9.1 * se); /* control: eq. (1) is not its acceptance */
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* exact-match: the row's joint law of (accepted, emitted token) at one
 * position is the literal rule's -- x ~ q, y ~ p independent, accept iff
 * x = y, else emit y: P(accept, x) = q(x) p(x), P(reject, y) = p(y) (1 -
 * q(y)) -- by chi-square on 2V cells (p-value >= 1e-6), for the row and
 * for the literal algorithm run beside it; the control (resampling from p
 * with the draft kept: P(reject, y) = (1 - sum p q) p(y)) is rejected by
 * the same test.  Then the output is p and the engine's acceptance is
 * sum p q (6 SE), eq. (1) more than 40 SE away. */
START_TEST(exact_match_is_the_literal_rule)
{
    const double p[] = { 0.31, 0.07, 0.22, 0.005, 0.185, 0.21 }, q[] = { 0.12, 0.4, 0.1, 0.08, 0.2, 0.1 };
    enum { V = 6, DRAWS = 1000000 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, V, &m, NULL), SD_OK);
    const sd_verifier *em = sd_verify_find("exact-match");
    ck_assert(!sd_verify_is_greedy(em) && sd_verify_is_lossless(em) && !sd_verify_is_blockwise(em));
    const sd_context *c = sd_model_context(m, 0);
    double match = 0.0;
    for (size_t t = 0; t < V; t++)
        match += p[t] * q[t];
    ck_assert_double_eq_tol(sd_verify_acceptance(em, c), match, 4 * DBL_EPSILON);
    double law[2 * V]; /* by rank: accepted x, then rejected and emitted y */
    for (size_t r = 0; r < V; r++) {
        law[r] = c->q[r] * c->p[r];
        law[V + r] = c->p[r] * (1.0 - c->q[r]);
    }
    sd_verifier kept = *em;
    kept.resample = sd_verify_find("target")->resample;
    for (int k = 0; k < 3; k++) { /* 0: the row, 1: the literal algorithm, 2: the control */
        uint64_t counts[2 * V] = { 0 };
        gsl_rng *r = sd_rng_stream(11, (uint64_t)k);
        for (int d = 0; d < DRAWS; d++) {
            uint32_t x = sd_verify_draft(em, c, r);
            if (k == 1) {
                uint32_t y = (uint32_t)sd_cdf_draw(&c->p_cdf, r);
                counts[y == x ? x : V + y]++;
                continue;
            }
            const sd_verifier *v = k == 0 ? em : &kept;
            counts[v->accept(c, x, r) ? x : V + v->resample(c, x, r)]++;
        }
        gsl_rng_free(r);
        double stat = 0, dof = 0;
        sd_gof_chisq(counts, law, 2 * V, &stat, &dof);
        double pv = gsl_cdf_chisq_Q(stat, dof);
        if (k < 2)
            ck_assert_msg(pv >= 1e-6, "%d: chi-square %g on %g dof", k, stat, dof);
        else
            ck_assert_msg(pv < 1e-6, "control missed: chi-square %g on %g dof", stat, dof);
    }
    uint64_t counts[V];
    double expect[V], stat = 0, dof = 0;
    sd_sample_config sc = { .model = m, .verifier = em, .drafts = 1, .draws = DRAWS, .seed = 5 };
    ck_assert_int_eq(sd_sample_run(&sc, counts, expect, NULL), SD_OK);
    for (size_t t = 0; t < V; t++)
        ck_assert_double_eq_tol(expect[t], p[t], 1e-15);
    sd_gof_chisq(counts, expect, V, &stat, &dof);
    ck_assert_msg(gsl_cdf_chisq_Q(stat, dof) >= 1e-6, "chi-square %g on %g dof", stat, dof);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = em, ec.gamma = 2, ec.tokens = 200000, ec.threads = 2;
    sd_engine_stats s;
    ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
    double n = (double)s.verified, rate = (double)s.accepted / n, se = sqrt(match * (1 - match) / n);
    ck_assert_msg(fabs(rate - match) <= 6 * se, "rate %g, se %g", rate, se);
    ck_assert(fabs(rate - sd_dist_overlap(p, q, V)) > 40 * se); /* control: eq. (1) is not its acceptance */
    sd_engine_stats_free(&s);
    sd_model_free(m);
}
END_TEST

/* Each rule's acceptance of two distributions (sd_verify_dist_acceptance)
 * equals its acceptance at the context made of them, on pairs with ties in
 * p and in q; greedy has none. */
START_TEST(dist_acceptance_is_the_contexts)
{
    static const double pairs[][2][5] = {
        { { 0.2385, 0.0715, 0.31, 0.1525, 0.2275 }, { 0.0935, 0.4015, 0.0815, 0.3025, 0.121 } },
        { { 0.3, 0.3, 0.1, 0.2, 0.1 }, { 0.1, 0.35, 0.35, 0.1, 0.1 } },
        { { 0.2, 0.2, 0.2, 0.2, 0.2 }, { 0.2, 0.2, 0.2, 0.2, 0.2 } },
        { { 0, 0, 1, 0, 0 }, { 0.5, 0, 0.25, 0.25, 0 } },
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        sd_model *m;
        ck_assert_int_eq(sd_model_pair(pairs[i][0], pairs[i][1], 5, &m, NULL), SD_OK);
        const sd_context *c = sd_model_context(m, 0);
        for (size_t k = 0; sd_verify_at(k) != NULL; k++) {
            const sd_verifier *v = sd_verify_at(k);
            sd_dist_acceptance_fn f = sd_verify_dist_acceptance(v);
            if (v == sd_verify_find("greedy")) {
                ck_assert(f == NULL);
                continue;
            }
            ck_assert(f != NULL);
            double a = f(pairs[i][0], pairs[i][1], 5);
            ck_assert_msg(fabs(a - sd_verify_acceptance(v, c)) <= 4 * DBL_EPSILON, "pair %zu, %s: %.17g, %.17g", i,
                          sd_verify_name(v), a, sd_verify_acceptance(v, c));
        }
        sd_model_free(m);
    }
}
END_TEST

/* The rule table: the six rules in order, found by their names, their
 * flags; on the seed's four-token example each rule's acceptance and the
 * law of the token it emits at one position (by rank, back to tokens). */
START_TEST(the_table_and_one_position)
{
    static const char *const names[] = { "adjusted", "target", "greedy", "block", "deterministic-draft",
                                         "exact-match" };
    static const int greedy[] = { 0, 0, 1, 0, 1, 0 }, blockwise[] = { 0, 0, 0, 1, 0, 0 },
                     lossless[] = { 1, 0, 1, 1, 1, 1 };
    enum { NRULES = sizeof names / sizeof names[0] };
    for (size_t i = 0; i < NRULES; i++) {
        const sd_verifier *v = sd_verify_at(i);
        ck_assert_ptr_nonnull(v);
        ck_assert_str_eq(sd_verify_name(v), names[i]);
        ck_assert_ptr_eq(sd_verify_find(names[i]), v);
        ck_assert(sd_verify_summary(v) != NULL && sd_verify_summary(v)[0] != '\0');
        ck_assert_int_eq(sd_verify_is_greedy(v), greedy[i]);
        ck_assert_int_eq(sd_verify_is_blockwise(v), blockwise[i]);
        ck_assert_int_eq(sd_verify_is_lossless(v), lossless[i]);
    }
    ck_assert_ptr_null(sd_verify_at(NRULES));
    ck_assert_str_eq(sd_verify_names(), "adjusted, target, greedy, block, deterministic-draft, exact-match");
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    const sd_context *c = sd_model_context(m, 0);
    /* acceptance: beta 0.55; greedy 0 (q's argmax B is not p's A); p(B) = 0.1; sum p q = 0.21 */
    static const double acc[] = { 0.55, 0.55, 0.0, 0.55, 0.1, 0.21 };
    /* the emitted token's law by token: p, the seed's Case 1 min(p, q) + 0.45 p, p's argmax, p, p, p */
    static const double law[][4] = { { 0.5, 0.1, 0.3, 0.1 }, { 0.425, 0.145, 0.285, 0.145 }, { 1, 0, 0, 0 },
                                     { 0.5, 0.1, 0.3, 0.1 }, { 0.5, 0.1, 0.3, 0.1 }, { 0.5, 0.1, 0.3, 0.1 } };
    for (size_t i = 0; i < NRULES; i++) {
        const sd_verifier *v = sd_verify_at(i);
        ck_assert_double_eq_tol(sd_verify_acceptance(v, c), acc[i], 1e-15);
        double out[4];
        sd_verify_output(v, c, 4, out);
        for (size_t r = 0; r < 4; r++)
            ck_assert_msg(fabs(out[r] - law[i][c->token[r]]) <= 1e-15, "%s: rank %zu: %.17g", names[i], r, out[r]);
        ck_assert_double_eq_tol(sd_verify_mean_acceptance(v, m), acc[i], 1e-15); /* one context: its acceptance */
    }
    gsl_rng *r = sd_rng_stream(4, 0); /* greedy rules draft q's argmax, rank of token B */
    for (int k = 0; k < 20; k++) {
        ck_assert_uint_eq(c->token[sd_verify_draft(sd_verify_find("greedy"), c, r)], 1);
        ck_assert_uint_eq(c->token[sd_verify_draft(sd_verify_find("deterministic-draft"), c, r)], 1);
    }
    gsl_rng_free(r);
    sd_model_free(m);
}
END_TEST

Suite *verify_suite(void)
{
    Suite *s = suite_create("verify");
    TCase *tc = tcase_create("verify");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, p_zero_never_accepted_q_zero_accepted);
    tcase_add_test(tc, p_equals_q_never_rejects);
    tcase_add_test(tc, rules_by_name);
    tcase_add_test(tc, deterministic_draft_is_lossless);
    tcase_add_test(tc, the_table_and_one_position);
    tcase_add_test(tc, exact_match_is_the_literal_rule);
    tcase_add_test(tc, dist_acceptance_is_the_contexts);
    suite_add_tcase(s, tc);
    return s;
}
