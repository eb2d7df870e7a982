/* test_sample.c -- speculative sampling at one position, many times
 * (sample.h): sharded by blocks. */
#include <stdint.h>
#include <string.h>

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

Suite *sample_suite(void)
{
    Suite *s = suite_create("sample");
    TCase *tc = tcase_create("sample");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sample_shards);
    suite_add_tcase(s, tc);
    return s;
}
