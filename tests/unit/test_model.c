/* test_model.c -- models (model.h): given distributions in rank space,
 * their errors, the family names, and prefixes summarised by their last
 * tokens. */
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

/* One pair in rank space by hand: p = (0.1, 0.4, 0.2, 0.3) ranks tokens 1, 3,
 * 2, 0; q = (0.5, 0.1, 0.3, 0.1) in that order is (0.1, 0.1, 0.3, 0.5), so
 * q's argmax is rank 3 (token 0), beta = 0.1 + 0.1 + 0.2 + 0.1 = 0.5 (eq. 1),
 * and the residual max(0, p - q) is (0.3, 0.2, 0, 0), norm (0.6, 0.4, 0, 0).
 * A one-row model gives every prefix its row. */
START_TEST(pair_in_rank_space)
{
    const double p[] = { 0.1, 0.4, 0.2, 0.3 }, q[] = { 0.5, 0.1, 0.3, 0.1 };
    sd_model *m;
    sd_error err;
    ck_assert_msg(sd_model_pair(p, q, 4, &m, &err) == SD_OK, "%s", err.msg);
    ck_assert_uint_eq(sd_model_vocab(m), 4);
    ck_assert_uint_eq(sd_model_contexts(m), 1);
    ck_assert_uint_eq(sd_model_history(m), 0);
    ck_assert_int_eq(sd_model_family(m), SD_FAMILY_FILE);
    ck_assert_double_eq(sd_model_build_seconds(m), 0.0);
    ck_assert_uint_gt(sd_model_bytes(m), 4 * 2 * sizeof(double));
    const sd_context *c = sd_model_context(m, 0);
    static const uint32_t token[] = { 1, 3, 2, 0 };
    static const double pr[] = { 0.4, 0.3, 0.2, 0.1 }, qr[] = { 0.1, 0.1, 0.3, 0.5 }, res[] = { 0.6, 0.4, 0, 0 };
    for (size_t r = 0; r < 4; r++) {
        ck_assert_uint_eq(c->token[r], token[r]);
        ck_assert_double_eq(c->p[r], pr[r]); /* copies, exactly */
        ck_assert_double_eq(c->q[r], qr[r]);
        ck_assert_double_eq_tol(c->p_cdf.c[r + 1] - c->p_cdf.c[r], pr[r], 1e-15); /* the samplers, in rank space */
        ck_assert_double_eq_tol(c->q_cdf.c[r + 1] - c->q_cdf.c[r], qr[r], 1e-15);
        ck_assert_double_eq_tol((c->residual_cdf.c[r + 1] - c->residual_cdf.c[r]) / c->residual_cdf.total, res[r],
                                1e-15);
    }
    ck_assert_uint_eq(c->argmax_q, 3);
    ck_assert_double_eq_tol(c->beta, 0.5, 1e-15);
    ck_assert(isnan(c->target_alpha)); /* not calibrated */
    sd_prefix s;
    sd_model_start(m, &s);
    ck_assert_uint_eq(s.len, 0);
    ck_assert_ptr_eq(sd_model_lookup(m, &s), c);
    for (uint32_t t = 0; t < 20; t++) {
        sd_model_advance(m, &s, t % 4);
        ck_assert_ptr_eq(sd_model_lookup(m, &s), c);
    }
    ck_assert_uint_eq(s.len, 20);
    sd_model_free(m);
    /* p = q: no residual mass, and the residual sampler is p's */
    ck_assert_int_eq(sd_model_pair(p, p, 4, &m, NULL), SD_OK);
    c = sd_model_context(m, 0);
    ck_assert_double_eq_tol(c->beta, 1.0, 1e-15);
    for (size_t r = 0; r < 4; r++)
        ck_assert_double_eq_tol(c->residual_cdf.c[r + 1] - c->residual_cdf.c[r], pr[r], 1e-15);
    sd_model_free(m);
    sd_model_free(NULL); /* allowed */
}
END_TEST

/* The row of a prefix is chosen by its last `history` tokens: with history 2
 * the prefixes [a, x, y] and [b, b, a, x, y] get one row whatever a and b are,
 * both x and y matter, and the rows are spread (9 endings, 4 rows; the
 * hash is fixed by the seed: a hash of y alone, or of nothing, is caught).
 * With history 0 every prefix gets the same row. */
START_TEST(the_last_tokens_choose_the_row)
{
    enum { ROWS = 4, V = 3 };
    double p[ROWS * V], q[ROWS * V];
    for (size_t i = 0; i < ROWS; i++)
        for (size_t t = 0; t < V; t++) {
            p[i * V + t] = (double)(t + 1) / 6;     /* 1/6, 2/6, 3/6 */
            q[i * V + t] = t == i % V ? 0.5 : 0.25; /* rows differ in q */
        }
    sd_model_rows_request rq = { .p = p, .q = q, .rows = ROWS, .vocab = V, .history = 2, .seed = 9 };
    sd_model *m;
    ck_assert_int_eq(sd_model_rows(&rq, &m, NULL), SD_OK);
    ck_assert_uint_eq(sd_model_contexts(m), ROWS);
    ck_assert_uint_eq(sd_model_history(m), 2);
    const sd_context *row[V][V];
    size_t used[ROWS] = { 0 };
    for (uint32_t x = 0; x < V; x++)
        for (uint32_t y = 0; y < V; y++)
            for (uint32_t a = 0; a < V; a++)
                for (uint32_t b = 0; b < V; b++) {
                    sd_prefix s1, s2;
                    sd_model_start(m, &s1);
                    sd_model_start(m, &s2);
                    const uint32_t t1[] = { a, x, y }, t2[] = { b, b, a, x, y };
                    for (int k = 0; k < 3; k++)
                        sd_model_advance(m, &s1, t1[k]);
                    for (int k = 0; k < 5; k++)
                        sd_model_advance(m, &s2, t2[k]);
                    const sd_context *c1 = sd_model_lookup(m, &s1);
                    ck_assert_ptr_eq(c1, sd_model_lookup(m, &s2));
                    size_t i = (size_t)(c1 - sd_model_context(m, 0));
                    ck_assert_uint_lt(i, ROWS);
                    if (a == 0 && b == 0)
                        row[x][y] = c1, used[i]++;
                    else
                        ck_assert_ptr_eq(c1, row[x][y]);
                }
    size_t distinct = 0, x_matters = 0, y_matters = 0;
    for (size_t i = 0; i < ROWS; i++)
        distinct += used[i] > 0;
    for (size_t u = 0; u < V; u++)
        for (size_t v = 0; v < V; v++)
            for (size_t w = 0; w < V; w++) {
                x_matters += row[u][w] != row[v][w];
                y_matters += row[w][u] != row[w][v];
            }
    ck_assert_uint_ge(distinct, 2);
    ck_assert_uint_gt(x_matters, 0); /* the older of the two tokens counts too */
    ck_assert_uint_gt(y_matters, 0);
    sd_model_free(m);
    rq.history = 0;
    ck_assert_int_eq(sd_model_rows(&rq, &m, NULL), SD_OK);
    sd_prefix s;
    sd_model_start(m, &s);
    const sd_context *c0 = sd_model_lookup(m, &s);
    for (uint32_t t = 0; t < 30; t++) {
        sd_model_advance(m, &s, (t * 7) % V);
        ck_assert_ptr_eq(sd_model_lookup(m, &s), c0);
    }
    sd_model_free(m);
}
END_TEST

/* Refusals name the field: rows, history, and the row ("p", "q" for one row;
 * "p row i", "q row i" for several); *out untouched. */
START_TEST(rows_refused_naming_the_field)
{
    const double ok[] = { 0.5, 0.5, 0.25, 0.75 }, bad[] = { 0.5, 0.5, 0.25, 0.7 };
    static const struct {
        size_t rows, history;
        int bad_p, bad_q;
        const char *prefix;
    } cases[] = {
        { 0, 0, 0, 0, "rows: " },     { 2, 9, 0, 0, "history: 9 is outside [0, 8]" },
        { 1, 0, 1, 0, "p: " },        { 1, 0, 0, 1, "q: " },
        { 2, 1, 1, 0, "p row 1: " },  { 2, 1, 0, 1, "q row 1: " },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* bad's second row is no distribution (it sums to 0.95); a one-row case takes it as its row */
        const double *pv = cases[i].bad_p ? (cases[i].rows == 1 ? bad + 2 : bad) : ok;
        const double *qv = cases[i].bad_q ? (cases[i].rows == 1 ? bad + 2 : bad) : ok;
        sd_model_rows_request rq = { .p = pv, .q = qv, .rows = cases[i].rows, .vocab = 2,
                                     .history = cases[i].history, .seed = 1 };
        sd_model *m = NULL;
        sd_error err;
        ck_assert_int_eq(sd_model_rows(&rq, &m, &err), SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, cases[i].prefix, strlen(cases[i].prefix)) == 0, "case %zu: %s", i, err.msg);
        ck_assert_ptr_null(m);
    }
    sd_model *m = NULL;
    sd_error err;
    ck_assert_int_eq(sd_model_pair(ok, bad + 2, 2, &m, &err), SD_EINVAL); /* the pair: p or q */
    ck_assert_msg(strncmp(err.msg, "q: ", 3) == 0, "%s", err.msg);
    ck_assert_ptr_null(m);
}
END_TEST

START_TEST(family_names)
{
    static const char *const want[] = { [SD_FAMILY_ZIPF] = "zipf", [SD_FAMILY_DIRICHLET] = "dirichlet",
                                        [SD_FAMILY_LOGITS] = "logits", [SD_FAMILY_FILE] = "file",
                                        [SD_FAMILY_NGRAM] = "ngram" };
    for (int f = SD_FAMILY_ZIPF; f <= SD_FAMILY_NGRAM; f++)
        ck_assert_str_eq(sd_model_family_name((sd_family)f), want[f]);
    const char *const *synth = sd_synth_family_names(); /* the synthetic ones: synth.h's names */
    for (int f = SD_FAMILY_ZIPF; f <= SD_FAMILY_LOGITS; f++)
        ck_assert_str_eq(synth[f], sd_model_family_name((sd_family)f));
    ck_assert_ptr_null(synth[SD_FAMILY_LOGITS + 1]);
}
END_TEST

Suite *model_suite(void)
{
    Suite *s = suite_create("model");
    TCase *tc = tcase_create("model");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, invalid_distributions_rejected);
    suite_add_tcase(s, tc);
    TCase *rk = tcase_create("rank space");
    tcase_add_test(rk, pair_in_rank_space);
    tcase_add_test(rk, the_last_tokens_choose_the_row);
    tcase_add_test(rk, rows_refused_naming_the_field);
    tcase_add_test(rk, family_names);
    suite_add_tcase(s, rk);
    TCase *pre = tcase_create("rows and prefixes");
    tcase_set_timeout(pre, 120);
    tcase_add_test(pre, prefix_is_its_last_tokens);
    tcase_add_test(pre, rows_model);
    suite_add_tcase(s, pre);
    return s;
}
