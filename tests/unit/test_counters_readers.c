/* test_counters_readers.c -- what the readers of src/counters share (counters_impl.h): a part
 * of an input added to the whole, and the draft length the caller gave held to the input's
 * (counts.c).  Part of counters_suite (test_counters.c), through counters_readers_tests. */
#include <string.h>

#include "counters/counters_impl.h"
#include "counters_check.h"

/* A histogram of drafts by accepted tokens, made a block and added to the counts twice. */
START_TEST(counts_block_add)
{
    static const double h[4] = { 3, 5, 2, 7 }; /* h[j]: drafts that accepted exactly j tokens */
    sd_counts_block b = { 0 };
    for (size_t j = 0; j < 4; j++)
        sd_counts_block_accepting(&b, j, h[j]);
    ck_assert_uint_eq(b.positions, 3);
    ck_assert_double_eq(b.drafts, 17);
    ck_assert_double_eq(b.accepted_tokens, 5 + 2 * 2 + 3 * 7);
    ck_assert_double_eq(b.accepted_at[0], 14);
    ck_assert_double_eq(b.accepted_at[1], 9);
    ck_assert_double_eq(b.accepted_at[2], 7);
    ck_assert_double_eq(b.accepted_at[3], 0);
    b.draft_tokens = 41;
    sd_counts c;
    memset(&c, 0, sizeof c);
    c.accepted_at[3] = 11; /* beyond the block's positions: left alone */
    sd_counts_add(&c, &b);
    sd_counts_add(&c, &b);
    ck_assert_double_eq(c.drafts, 34);
    ck_assert_double_eq(c.draft_tokens, 82);
    ck_assert_double_eq(c.accepted_tokens, 60);
    ck_assert_double_eq(c.accepted_at[0], 28);
    ck_assert_double_eq(c.accepted_at[2], 14);
    ck_assert_double_eq(c.accepted_at[3], 11);
    /* a block without positions adds its totals only */
    const sd_counts_block totals = { .drafts = 2, .draft_tokens = 5, .accepted_tokens = 3 };
    sd_counts_add(&c, &totals);
    ck_assert_double_eq(c.drafts, 36);
    ck_assert_double_eq(c.draft_tokens, 87);
    ck_assert_double_eq(c.accepted_tokens, 63);
    ck_assert_double_eq(c.accepted_at[0], 28);
    /* no drafts that accepted j tokens still make the block reach position j */
    sd_counts_block empty = { 0 };
    sd_counts_block_accepting(&empty, 5, 0.0);
    ck_assert_uint_eq(empty.positions, 5);
    ck_assert_double_eq(empty.drafts, 0);
}
END_TEST

/* The caller's gamma against the input's: none given or the same passes; another is refused
 * naming both, with the line or without one. */
START_TEST(counts_gamma_agrees)
{
    sd_counts_options o = { 0 };
    sd_error err = { "" };
    const sd_counters_ctx cx = { "run.log", &o, &err };
    ck_assert_int_eq(sd_counts_gamma_agrees(&cx, 7, 5, "the block has %zu positions", (size_t)5), SD_OK);
    o.gamma = 5;
    ck_assert_int_eq(sd_counts_gamma_agrees(&cx, 7, 5, "the block has %zu positions", (size_t)5), SD_OK);
    ck_assert_str_eq(err.msg, "");
    o.gamma = 4;
    ck_assert_int_eq(sd_counts_gamma_agrees(&cx, 7, 5, "the block has %zu positions", (size_t)5), SD_EINVAL);
    ck_assert_str_eq(err.msg, "run.log:7: gamma 4 was given, but the block has 5 positions");
    ck_assert_int_eq(sd_counts_gamma_agrees(&cx, 0, 13, "the request has %zu (%s)", (size_t)13, "num_spec_tokens"),
                     SD_EINVAL);
    ck_assert_str_eq(err.msg, "run.log: gamma 4 was given, but the request has 13 (num_spec_tokens)");
}
END_TEST

void counters_readers_tests(TCase *tc)
{
    tcase_add_test(tc, counts_block_add);
    tcase_add_test(tc, counts_gamma_agrees);
}
