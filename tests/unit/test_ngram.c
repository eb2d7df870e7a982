/* test_ngram.c -- the byte-level Kneser-Ney pair on text (ngram.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/model.h"
#include "specdec/ngram.h"
#include "specdec/sampling.h"
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

/* The defaults; the pair as logits matrices, by hand on the cyclic corpus
 * "aab" (kneser_ney_by_hand's numbers): row i is at the context after the
 * byte before position i -- "b" (P(a) = 5/6), "a" (7/12), "a" -- and the
 * order-1 draft is 2/3, 1/3 everywhere. */
START_TEST(defaults_and_logits)
{
    sd_ngram_config d = sd_ngram_defaults();
    ck_assert(d.order == 5 && d.draft_order == 2 && d.target == NULL && d.draft == NULL);
    sd_model *m;
    ck_assert_int_eq(sd_ngram_model((const unsigned char *)"aab", 3, "aab",
                                    &(sd_ngram_config){ .order = 2, .draft_order = 1, .target = NULL, .draft = NULL },
                                    &m, NULL), SD_OK);
    double p[6], q[6];
    sd_ngram_logits(m, 3, p, q);
    static const double pa[] = { 5.0 / 6, 7.0 / 12, 7.0 / 12 };
    for (int i = 0; i < 3; i++) {
        ck_assert_double_eq_tol(exp(p[2 * i]), pa[i], 1e-15);
        ck_assert_double_eq_tol(exp(p[2 * i + 1]), 1 - pa[i], 1e-15);
        ck_assert_double_eq_tol(exp(q[2 * i]), 2.0 / 3, 1e-15);
        ck_assert_double_eq_tol(exp(q[2 * i + 1]), 1.0 / 3, 1e-15);
    }
    ck_assert_uint_eq(sd_ngram_byte(m, 0), 'a');
    ck_assert_uint_eq(sd_model_history(m), 1); /* order - 1 */
    sd_model_free(m);
}
END_TEST

Suite *ngram_suite(void)
{
    Suite *s = suite_create("ngram");
    TCase *tc = tcase_create("ngram");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, kneser_ney_by_hand);
    tcase_add_test(tc, gpl_distributions_sum_to_one);
    tcase_add_test(tc, defaults_and_logits);
    suite_add_tcase(s, tc);
    return s;
}
