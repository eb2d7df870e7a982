/* test_engine_stats.c -- what a Monte Carlo run counts (engine_stats.h):
 * the means of a hand-made histogram, and the merge of two runs' counts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/engine_stats.h"
#include "testutil.h"

/* Two iterations emitted N = 1, one N = 2, three N = 3: 6 iterations, 13
 * tokens, mean 13/6; sum n^2 h = 33, so sum h (n - mean)^2 = 33 - 169/6 =
 * 29/6, the sample variance 29/30 and the standard error
 * sqrt(29/30 / 6) = sqrt(29/180). */
START_TEST(mean_n_and_its_se_by_hand)
{
    uint64_t hist[4] = { 0, 2, 1, 3 };
    sd_engine_stats s = { .iterations = 6, .tokens = 13, .max_gamma = 2, .max_n = 3, .n_hist = hist };
    ck_assert_rel(sd_engine_stats_mean_n(&s), 13.0 / 6, 1e-15);
    ck_assert_rel(sd_engine_stats_mean_n_se(&s), sqrt(29.0 / 180), 1e-14);
    uint64_t same[4] = { 0, 0, 4, 0 }; /* no spread: se 0 */
    s = (sd_engine_stats){ .iterations = 4, .tokens = 8, .max_gamma = 2, .max_n = 3, .n_hist = same };
    ck_assert_double_eq(sd_engine_stats_mean_n(&s), 2.0);
    ck_assert_double_eq(sd_engine_stats_mean_n_se(&s), 0.0);
    uint64_t one[4] = { 0, 0, 0, 1 }; /* one iteration: the mean, an infinite se */
    s = (sd_engine_stats){ .iterations = 1, .tokens = 3, .max_gamma = 2, .max_n = 3, .n_hist = one };
    ck_assert_double_eq(sd_engine_stats_mean_n(&s), 3.0);
    ck_assert(isinf(sd_engine_stats_mean_n_se(&s)) && sd_engine_stats_mean_n_se(&s) > 0);
    uint64_t none[4] = { 0 }; /* none: NaN and +inf */
    s = (sd_engine_stats){ .max_gamma = 2, .max_n = 3, .n_hist = none };
    ck_assert(isnan(sd_engine_stats_mean_n(&s)));
    ck_assert(isinf(sd_engine_stats_mean_n_se(&s)) && sd_engine_stats_mean_n_se(&s) > 0);
}
END_TEST

/* Statistics of max_gamma 2, 2 tokens, 2 contexts, 1 position and 3 chunks
 * (moves and output counts as asked), every counter k + base at index k. */
static sd_engine_stats hand_stats(int moves, int outputs, size_t vocab, size_t nchunks, uint64_t base)
{
    sd_engine_stats s = { .max_gamma = 2, .max_n = 3, .vocab = vocab, .contexts = 2, .positions = 1,
                          .nchunks = nchunks };
    s.iterations = base + 1, s.tokens = base + 2, s.sequences = base + 3, s.draft_calls = base + 4;
    s.target_calls = base + 5, s.target_positions = base + 6, s.verified = base + 7, s.accepted = base + 8;
    s.n_hist = calloc(4, sizeof *s.n_hist);
    s.reached = calloc(2, sizeof *s.reached);
    s.accepted_at = calloc(2, sizeof *s.accepted_at);
    s.ctx_tokens = calloc(2, sizeof *s.ctx_tokens);
    s.out_counts = outputs ? calloc(2 * vocab, sizeof *s.out_counts) : NULL;
    s.pos_counts = calloc(vocab, sizeof *s.pos_counts);
    s.moves = moves ? calloc(2 * 3 * SD_MOVE_BINS, sizeof *s.moves) : NULL;
    s.chunk_beta = calloc(nchunks, sizeof *s.chunk_beta);
    for (size_t k = 0; k < 4; k++)
        s.n_hist[k] = base + k;
    for (size_t k = 0; k < 2; k++)
        s.reached[k] = base + k, s.accepted_at[k] = base + k, s.ctx_tokens[k] = base + k;
    for (size_t k = 0; outputs && k < 2 * vocab; k++)
        s.out_counts[k] = base + k;
    for (size_t k = 0; k < vocab; k++)
        s.pos_counts[k] = base + k;
    for (size_t k = 0; moves && k < 2 * 3 * SD_MOVE_BINS; k++)
        s.moves[k] = base + k;
    return s;
}

/* Merging adds every count and places the chunk sums; alpha_hat is their
 * sum over the tokens: here a's chunk 0 (2.5) and b's chunks 1 and 2 (3, 1)
 * over 2 + 12 tokens = 6.5 / 14.  Another shape is refused, into unchanged. */
START_TEST(merge_adds_and_refuses_another_shape)
{
    sd_engine_stats a = hand_stats(1, 1, 2, 3, 0), b = hand_stats(1, 1, 2, 3, 10);
    a.chunk_beta[0] = 2.5;
    b.chunk_beta[1] = 3.0, b.chunk_beta[2] = 1.0;
    sd_error err;
    ck_assert_int_eq(sd_engine_stats_merge(&a, &b, &err), SD_OK);
    ck_assert_uint_eq(a.iterations, 1 + 11);
    ck_assert_uint_eq(a.tokens, 2 + 12);
    ck_assert_uint_eq(a.sequences, 3 + 13);
    ck_assert_uint_eq(a.draft_calls, 4 + 14);
    ck_assert_uint_eq(a.target_calls, 5 + 15);
    ck_assert_uint_eq(a.target_positions, 6 + 16);
    ck_assert_uint_eq(a.verified, 7 + 17);
    ck_assert_uint_eq(a.accepted, 8 + 18);
    for (size_t k = 0; k < 4; k++)
        ck_assert_uint_eq(a.n_hist[k], 2 * k + 10);
    for (size_t k = 0; k < 2; k++) {
        ck_assert_uint_eq(a.reached[k], 2 * k + 10);
        ck_assert_uint_eq(a.accepted_at[k], 2 * k + 10);
        ck_assert_uint_eq(a.ctx_tokens[k], 2 * k + 10);
        ck_assert_uint_eq(a.pos_counts[k], 2 * k + 10);
    }
    for (size_t k = 0; k < 4; k++)
        ck_assert_uint_eq(a.out_counts[k], 2 * k + 10);
    for (size_t k = 0; k < 2 * 3 * SD_MOVE_BINS; k++)
        ck_assert_uint_eq(a.moves[k], 2 * k + 10);
    ck_assert_double_eq(a.chunk_beta[0], 2.5);
    ck_assert_double_eq(a.chunk_beta[1], 3.0);
    ck_assert_double_eq(a.chunk_beta[2], 1.0);
    ck_assert_double_eq(a.alpha_hat, 6.5 / 14);
    ck_assert_uint_eq(b.tokens, 12); /* from is not touched */
    ck_assert_uint_eq(b.n_hist[3], 13);
    /* another shape: each refused, into as it was */
    sd_engine_stats other[] = { hand_stats(1, 1, 3, 3, 0), hand_stats(0, 1, 2, 3, 0), hand_stats(1, 0, 2, 3, 0),
                                hand_stats(1, 1, 2, 4, 0), hand_stats(1, 1, 2, 3, 0), hand_stats(1, 1, 2, 3, 0),
                                hand_stats(1, 1, 2, 3, 0) };
    other[4].max_gamma = 1, other[4].max_n = 2;
    other[5].contexts = 1;
    other[6].positions = 0;
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        err.msg[0] = '\0';
        ck_assert_int_eq(sd_engine_stats_merge(&a, &other[i], &err), SD_EINVAL);
        ck_assert_msg(strstr(err.msg, "differ in shape") != NULL, "case %zu: %s", i, err.msg);
        ck_assert_uint_eq(a.tokens, 14);
        ck_assert_uint_eq(a.n_hist[3], 16);
        ck_assert_double_eq(a.alpha_hat, 6.5 / 14);
        if (i == 4)
            other[i].max_gamma = 2, other[i].max_n = 3; /* its own arrays' shape, for the free */
        sd_engine_stats_free(&other[i]);
    }
    sd_engine_stats_free(&a);
    sd_engine_stats zero = { 0 };
    ck_assert_mem_eq(&a, &zero, sizeof a); /* free leaves it zeroed */
    sd_engine_stats_free(&a);              /* and a second free is harmless */
    sd_engine_stats_free(&b);
}
END_TEST

Suite *engine_stats_suite(void)
{
    Suite *s = suite_create("engine_stats");
    TCase *tc = tcase_create("engine_stats");
    tcase_add_test(tc, mean_n_and_its_se_by_hand);
    tcase_add_test(tc, merge_adds_and_refuses_another_shape);
    suite_add_tcase(s, tc);
    return s;
}
