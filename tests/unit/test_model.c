/* test_model.c -- models (model.h): given distributions in rank space,
 * their errors, and prefixes summarised by their last tokens. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "specdec/model.h"
#include "specdec/rng.h"
#include "specdec/synth.h"
#include "testutil.h"

START_TEST(invalid_distributions_rejected)
{
    sd_model *m = NULL;
    sd_error err;
    const double ok[] = { 0.5, 0.5 }, nan_[] = { 0.5, NAN }, neg[] = { 1.5, -0.5 }, inf_[] = { INFINITY, 0.5 };
    ck_assert_int_eq(sd_model_pair(nan_, ok, 2, &m, &err), SD_EINVAL);
    ck_assert_int_eq(sd_model_pair(ok, neg, 2, &m, &err), SD_EINVAL);
    ck_assert_int_eq(sd_model_pair(inf_, ok, 2, &m, &err), SD_EINVAL);
    ck_assert_ptr_null(m);
}
END_TEST

/* A prefix is its last k tokens: two prefixes with the same last tokens
 * reach the same contexts, whatever their lengths -- also across the
 * length counter's wrap after 2^32 - 1 tokens (the ring keeps its slots),
 * where a long generation would otherwise lose its history. */
START_TEST(prefix_is_its_last_tokens)
{
    sd_synth_config sc = sd_synth_defaults();
    sc.vocab = 50, sc.history = 3, sc.contexts = 64;
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&sc, &m, NULL), SD_OK);
    gsl_rng *r = sd_rng_stream(11, 0);
    sd_prefix a, b;
    sd_model_start(m, &a);
    sd_model_start(m, &b);
    b.len = UINT32_MAX - 20; /* wraps after 21 tokens */
    size_t differ = 0;
    for (int i = 0; i < 100; i++) {
        uint32_t t = (uint32_t)gsl_rng_uniform_int(r, 50);
        sd_model_advance(m, &a, t);
        sd_model_advance(m, &b, t);
        if (i >= 2)
            ck_assert_ptr_eq(sd_model_lookup(m, &a), sd_model_lookup(m, &b));
    }
    ck_assert_uint_lt(b.len, 100); /* b wrapped */
    /* the control: a different newest token moves the lookup, mostly */
    for (uint32_t t = 0; t < 50; t++) {
        sd_prefix c = a, d = a;
        sd_model_advance(m, &c, t);
        sd_model_advance(m, &d, (t + 1) % 50);
        differ += sd_model_lookup(m, &c) != sd_model_lookup(m, &d);
    }
    ck_assert_uint_gt(differ, 40);
    gsl_rng_free(r);
    sd_model_free(m);
}
END_TEST

/* A model from matrix rows (from the ngram suite's markov_fit_and_rows_model). */
START_TEST(rows_model)
{
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

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, invalid_distributions_rejected);
    suite_add_tcase(s, tc);
    TCase *pre = tcase_create("rows and prefixes");
    tcase_set_timeout(pre, 120);
    tcase_add_test(pre, prefix_is_its_last_tokens);
    tcase_add_test(pre, rows_model);
    suite_add_tcase(s, pre);
    return s;
}
