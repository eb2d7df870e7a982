/* test_sample.c -- speculative sampling at one position, many times
 * (sample.h): the seed's four-token example, refusals, shards by blocks. */
#include <stdint.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "specdec/gof.h"
#include "specdec/model.h"
#include "specdec/partial.h"
#include "specdec/sample.h"
#include "specdec/verify.h"
#include "testutil.h"

/* sample: draws in blocks of SD_SAMPLE_BLOCK, sharded by block. */
START_TEST(sample_shards)
{
    sd_model *m;
    static const double pp[] = { 0.1, 0.2, 0.3, 0.4 }, qq[] = { 0.4, 0.3, 0.2, 0.1 };
    ck_assert_int_eq(sd_model_pair(pp, qq, 4, &m, NULL), SD_OK);
    sd_sample_config sc = { .model = m, .verifier = sd_verify_find("adjusted"), .drafts = 1,
                            .draws = 2 * (uint64_t)SD_SAMPLE_BLOCK + 12345, .seed = 9 };
    uint64_t whole[4], part[4], sum[4] = { 0 };
    double expect[4];
    ck_assert_int_eq(sd_sample_run(&sc, whole, expect, NULL), SD_OK);
    sd_partial parts[2] = { sd_partial_init(1, 2), sd_partial_init(2, 2) };
    for (unsigned i = 0; i < 2; i++) {
        sd_engine_io io = { .record = record_partial, .arg = &parts[i] };
        sc.shard = i + 1, sc.nshards = 2, sc.io = &io;
        ck_assert_int_eq(sd_sample_run(&sc, part, expect, NULL), SD_OK);
        for (int t = 0; t < 4; t++)
            sum[t] += part[t];
    }
    ck_assert(memcmp(sum, whole, sizeof whole) == 0);
    /* three blocks: shard 1 draws blocks 0 and 2 (the last, 12345 draws), shard 2 block 1 */
    ck_assert_uint_eq(parts[0].runs[0].stats.tokens, (uint64_t)SD_SAMPLE_BLOCK + 12345);
    ck_assert_uint_eq(parts[1].runs[0].stats.tokens, (uint64_t)SD_SAMPLE_BLOCK);
    sd_partial_free(&parts[0]);
    sd_partial_free(&parts[1]);
    sd_model_free(m);
}
END_TEST

/* The seed's four-token example, p = (0.5, 0.1, 0.3, 0.1) over A, B, C, D and
 * q = (0.2, 0.4, 0.15, 0.25), beta = 0.55.  expect is what the rule emits:
 * adjusted p (also with 3 drafts), target min(p, q) + (1 - beta) p =
 * (0.425, 0.145, 0.285, 0.145) (the seed's Case 1), by token id.  The counts
 * of 200000 draws sum to the draws and fit expect: Pearson's chi-square has
 * p-value >= 1e-7 (a correct sampler fails with probability 1e-7).  Negative
 * control: the same counts against the other rule's law, which differs by
 * 0.075 at A, give p-value < 1e-7 (a noncentrality of about 8000: never
 * missed). */
START_TEST(four_token_counts_and_expectations)
{
    const double p[] = { 0.5, 0.1, 0.3, 0.1 }, q[] = { 0.2, 0.4, 0.15, 0.25 };
    const double target[] = { 0.425, 0.145, 0.285, 0.145 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, q, 4, &m, NULL), SD_OK);
    static const char *const rules[] = { "adjusted", "target", "adjusted" };
    static const size_t drafts[] = { 1, 1, 3 };
    const double *want[] = { p, target, p }, *other[] = { target, p, target };
    enum { DRAWS = 200000 };
    for (int k = 0; k < 3; k++) {
        sd_sample_config sc = { .model = m, .verifier = sd_verify_find(rules[k]), .drafts = drafts[k], .draws = DRAWS,
                                .seed = 5 };
        uint64_t counts[4];
        double expect[4];
        sd_error err;
        ck_assert_msg(sd_sample_run(&sc, counts, expect, &err) == SD_OK, "%s", err.msg);
        uint64_t total = 0;
        for (int t = 0; t < 4; t++) {
            total += counts[t];
            ck_assert_double_eq_tol(expect[t], want[k][t], 1e-15);
        }
        ck_assert_uint_eq(total, DRAWS);
        double stat = 0, dof = 0, cstat = 0, cdof = 0;
        sd_gof_chisq(counts, expect, 4, &stat, &dof);
        ck_assert_double_eq(dof, 3);
        ck_assert_msg(gsl_cdf_chisq_Q(stat, dof) >= 1e-7, "%s x%zu: chi-square %g", rules[k], drafts[k], stat);
        sd_gof_chisq(counts, other[k], 4, &cstat, &cdof);
        ck_assert_msg(gsl_cdf_chisq_Q(cstat, cdof) < 1e-7, "control missed: chi-square %g", cstat);
        /* the seed decides the draws: again the same, another seed others */
        uint64_t again[4];
        ck_assert_int_eq(sd_sample_run(&sc, again, expect, NULL), SD_OK);
        ck_assert_mem_eq(again, counts, sizeof counts);
        sc.seed = 6;
        ck_assert_int_eq(sd_sample_run(&sc, again, expect, NULL), SD_OK);
        ck_assert(memcmp(again, counts, sizeof counts) != 0);
    }
    sd_model_free(m);
}
END_TEST

/* Refusals name the field, and leave counts and expect untouched. */
START_TEST(refusals_name_the_field)
{
    const double p[] = { 0.5, 0.5 };
    sd_model *m;
    ck_assert_int_eq(sd_model_pair(p, p, 2, &m, NULL), SD_OK);
    static const struct {
        const char *rule;
        size_t drafts;
        uint64_t draws;
        const char *prefix;
    } bad[] = {
        { "greedy", 1, 10, "verifier: " }, { "block", 1, 10, "verifier: " }, { NULL, 1, 10, "verifier: " },
        { "adjusted", 0, 10, "drafts: " }, { "adjusted", 65, 10, "drafts: " },
        { "target", 2, 10, "drafts: several drafts need the adjusted rule" },
        { "adjusted", 1, 0, "draws: " },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sd_sample_config sc = { .model = m, .verifier = bad[i].rule ? sd_verify_find(bad[i].rule) : NULL,
                                .drafts = bad[i].drafts, .draws = bad[i].draws, .seed = 1 };
        uint64_t counts[2] = { 7, 7 };
        double expect[2] = { 9, 9 };
        sd_error err;
        ck_assert_int_eq(sd_sample_run(&sc, counts, expect, &err), SD_EINVAL);
        ck_assert_msg(strncmp(err.msg, bad[i].prefix, strlen(bad[i].prefix)) == 0, "case %zu: %s", i, err.msg);
        ck_assert(counts[0] == 7 && counts[1] == 7 && expect[0] == 9 && expect[1] == 9);
    }
    sd_model_free(m);
}
END_TEST

Suite *sample_suite(void)
{
    Suite *s = suite_create("sample");
    TCase *tc = tcase_create("sample");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sample_shards);
    suite_add_tcase(s, tc);
    TCase *one = tcase_create("one position");
    tcase_set_timeout(one, 30); /* 1.2 million draws: well under a second, more under ASan */
    tcase_add_test(one, four_token_counts_and_expectations);
    tcase_add_test(one, refusals_name_the_field);
    suite_add_tcase(s, one);
    return s;
}
