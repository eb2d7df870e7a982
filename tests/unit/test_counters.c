/* test_counters.c -- the input readers of `specdec fit` (counters.h).
 *
 * Fixtures are in tests/fixtures/counters-* (each cites the format's source
 * on its first line; see tests/fixtures/README.md); bad inputs are written
 * inline.  Run from the top of the tree (as make does).  The last tests hold
 * the private layers of src/counters to their contracts: the text layer's
 * number grammars (text.h) and rate derivation (derive.h), against
 * hand-computed values; the reader table and its recognisers are
 * test_counters_readers.c's. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/counters.h"
#include "counters/counters_impl.h"
#include "counters/derive.h"
#include "counters/text.h"
#include "counters_check.h"
#include "testutil.h"

Suite *counters_suite(void);

/* ---- the tables ---------------------------------------------------------------------------- */

START_TEST(format_names)
{
    const char *const *f = sd_counters_formats();
    static const char *const want[] = { "prometheus",   "vllm-v1",           "vllm-v0",      "llama.cpp",
                                        "tsv",          "histogram",         "vllm-v1-early", "vllm-bench",
                                        "vllm-offline", "sglang",            "trtllm-bench",  "llama-speculative",
                                        "vllm-request", "llama-timings",     "sglang-request", "speculation-profile" };
    /* the order is fixed: a new format comes after these */
    for (size_t i = 0; i < 16; i++)
        ck_assert_str_eq(f[i], want[i]);
}
END_TEST




/* ---- the logs -------------------------------------------------------------------------------- */


START_TEST(vllm_v1_log)
{
    sd_counts c = load_ok(fixture("counters-vllm-v1.log"), NULL);
    const double pos[3] = { 250, 140, 61 };
    ck_assert_str_eq(c.format, "vllm-v1");
    ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(c.has_positions, 1);
    expect_counts(&c, 3, 387, 1150, 451, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Summed 3"));
    ck_assert_ptr_nonnull(strstr(c.notes, "shorter"));
}
END_TEST

/* How drafts are derived from what a line prints. */
START_TEST(vllm_v1_derivation)
{
    /* the oldest line: no mean length, no rates -- drafts = Drafted / gamma, when given */
    const char *oldest = "x SpecDecoding metrics: Draft acceptance rate: 55.0%, Accepted: 110 tokens, Drafted: 200 "
                         "tokens\n";
    expect_fail_at(oldest, NULL, 1, "give the number of speculative tokens with gamma");
    sd_counts_options g4 = { .gamma = 4 };
    const char *path = write_temp(oldest);
    sd_counts c = load_ok(path, &g4);
    unlink(path);
    expect_counts(&c, 4, 50, 200, 110, NULL, NULL);
    ck_assert_int_eq(c.has_positions, 0);

    /* 1000 drafts of 4: the rounded mean length alone allows 998..1002; the
     * rates rule all but 1000 out, so it is derived, not assumed */
    const char *many = "SpecDecoding metrics: Mean acceptance length: 2.30, Accepted: 1300 tokens, Drafted: 4000 tokens, "
                       "Per-position acceptance rate: 0.700, 0.400, 0.150, 0.050, Avg Draft acceptance rate: 32.5%\n";
    path = write_temp(many);
    c = load_ok(path, NULL);
    unlink(path);
    const double pos[4] = { 700, 400, 150, 50 };
    expect_counts(&c, 4, 1000, 4000, 1300, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "the only whole number"));

    /* 20000 drafts: the printed rates fit several numbers of drafts; Drafted / 4 is taken and said */
    const char *big = "SpecDecoding metrics: Mean acceptance length: 2.30, Accepted: 26000 tokens, Drafted: 80000 "
                      "tokens, Per-position acceptance rate: 0.700, 0.400, 0.150, 0.050\n";
    path = write_temp(big);
    c = load_ok(path, NULL);
    unlink(path);
    const double posb[4] = { 14000, 8000, 3000, 1000 };
    expect_counts(&c, 4, 20000, 80000, 26000, posb, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "drafts = drafted tokens / 4"));

    /* rates that cannot come from whole counts with Accepted 33 */
    expect_fail_at("SpecDecoding metrics: Mean acceptance length: 1.89, Accepted: 33 tokens, Drafted: 100 tokens, "
                   "Per-position acceptance rate: 0.541, 0.343, 0.108\n",
                   NULL, 1, "no whole number of drafts");
}
END_TEST

START_TEST(vllm_v0_log)
{
    sd_counts c = load_ok(fixture("counters-vllm-v0.log"), NULL);
    ck_assert_str_eq(c.format, "vllm-v0");
    ck_assert_int_eq(c.kind, SD_COUNTS_ANY);
    ck_assert_int_eq(c.has_positions, 0);
    expect_counts(&c, 4, 140, 560, 250, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "of each of 2 runs"));
    ck_assert_ptr_nonnull(strstr(c.notes, "kind any"));
}
END_TEST

/* ---- vLLM V1's early line, vllm bench serve, spec_decode.py ------------------------------------- */

START_TEST(vllm_v1_early_log)
{
    /* no draft length in the line: refused without --gamma, at the first line of the format */
    expect_fail_path(fixture("counters-vllm-v1-early.log"), NULL, ":2: ");
    expect_fail_path(fixture("counters-vllm-v1-early.log"), NULL, "--gamma");
    /* gamma 3: (219 + 150) / 3 = 123 drafts, 131 + 77 = 208 accepted; the empty interval adds nothing */
    sd_counts_options g3 = { .gamma = 3 };
    sd_counts c = load_ok(fixture("counters-vllm-v1-early.log"), &g3);
    ck_assert_str_eq(c.format, "vllm-v1-early");
    ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(c.has_positions, 0);
    ck_assert_int_eq(c.gauge, 0);
    expect_counts(&c, 3, 123, 369, 208, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Summed 2"));
    ck_assert_ptr_nonnull(strstr(c.notes, "draft tokens / 3 (--gamma)"));
    /* 4 draft tokens are no multiple of 3; the rate must be accepted / draft tokens */
    expect_fail_at("x\nSpeculative metrics: Draft acceptance rate: 0.250, Number of accepted tokens: 1, Number of draft "
                   "tokens: 4, \n",
                   &g3, 2, "4 draft tokens are no multiple of gamma = 3");
    expect_fail_at("Speculative metrics: Draft acceptance rate: 0.900, Number of accepted tokens: 1, Number of draft "
                   "tokens: 3, \n",
                   &g3, 1, "is not accepted / draft tokens");
    expect_fail_at("Speculative metrics: Draft acceptance rate: 0.900, Number of accepted tokens: 4, Number of draft "
                   "tokens: 3, \n",
                   &g3, 1, "4 accepted tokens exceed 3 draft tokens");
    /* V0's line beside it is another format */
    expect_fail_at("Speculative metrics: Draft acceptance rate: 0.333, Number of accepted tokens: 1, Number of draft "
                   "tokens: 3, \nSpeculative metrics: Number of speculative tokens: 3, Number of accepted tokens: 1, "
                   "Number of draft tokens: 3.\n",
                   &g3, 0, "holds both vllm-v0 and vllm-v1-early lines");
}
END_TEST

START_TEST(vllm_bench_block)
{
    /* 81.89 %, 56.75 %, 37.03 % of 1237 drafts allow only 1013, 702 and 458 (+-0.06 each) */
    sd_counts c = load_ok(fixture("counters-vllm-bench.txt"), NULL);
    const double pos[3] = { 1013, 702, 458 };
    ck_assert_str_eq(c.format, "vllm-bench");
    ck_assert_int_eq(c.has_positions, 1);
    expect_counts(&c, 3, 1237, 3711, 2173, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Read 1 'vllm bench serve'"));
    sd_counts_options g4 = { .gamma = 4 };
    expect_fail_path(fixture("counters-vllm-bench.txt"), &g4, "gamma 4 was given, but the block has 3 positions");

    const char *head = "---------------Speculative Decoding---------------\n";
    char text[1200];
    /* two runs summed: 10 drafts of 2, 6 accepted (5, 1), then 20 drafts, 10 accepted (8, 2) */
    snprintf(text, sizeof text,
             "%sAcceptance rate (%%):   30.00     \nAcceptance length:   1.60     \nDrafts:   10   \nDraft tokens:  20 "
             "\nAccepted tokens:   6  \nPer-position acceptance (%%):\n  Position 0:   50.00  \n  Position 1:   10.00  "
             "\n==================================================\n%sDrafts: 20\nDraft tokens: 40\nAccepted tokens: "
             "10\nPer-position acceptance (%%):\n  Position 0: 40.00\n  Position 1: 10.00\n",
             head, head);
    const char *path = write_temp(text);
    c = load_ok(path, NULL);
    unlink(path);
    const double pos2[2] = { 13, 3 };
    expect_counts(&c, 2, 30, 60, 16, pos2, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "2 'vllm bench serve' Speculative Decoding blocks"));
    /* without positions: --gamma */
    snprintf(text, sizeof text, "%sDrafts: 10\nDraft tokens: 20\nAccepted tokens: 6\n", head);
    expect_fail_at(text, NULL, 1, "give the number of speculative tokens with --gamma");
    sd_counts_options g2 = { .gamma = 2 };
    path = write_temp(text);
    c = load_ok(path, &g2);
    unlink(path);
    expect_counts(&c, 2, 10, 20, 6, NULL, NULL);
    ck_assert_int_eq(c.has_positions, 0);
    /* malformed, missing, inconsistent */
    snprintf(text, sizeof text, "x\n%sDrafts: 10\nDraft tokens: 20\nAccepted tokens: six\n", head);
    expect_fail_at(text, NULL, 5, "cannot read Accepted tokens: 'six'");
    snprintf(text, sizeof text, "%sDraft tokens: 20\nAccepted tokens: 6\n", head);
    expect_fail_at(text, NULL, 1, "without 'Drafts:'");
    snprintf(text, sizeof text, "%sAcceptance length: 2.60\nDrafts: 10\nDraft tokens: 20\nAccepted tokens: 6\n", head);
    expect_fail_at(text, &g2, 1, "acceptance length 2.6 is not 1 + accepted / drafts = 1.6");
    snprintf(text, sizeof text,
             "%sDrafts: 10\nDraft tokens: 20\nAccepted tokens: 6\nPer-position acceptance (%%):\n  Position 1: 50.00\n",
             head);
    expect_fail_at(text, NULL, 6, "expected Position 0");
    snprintf(text, sizeof text,
             "%sDrafts: 10\nDraft tokens: 30\nAccepted tokens: 6\nPer-position acceptance (%%):\n  Position 0: "
             "50.00\n  Position 1: 10.00\n",
             head);
    expect_fail_at(text, NULL, 1, "30 draft tokens in 10 drafts is more than gamma = 2 per draft");
    snprintf(text, sizeof text,
             "%sDrafts: 10\nDraft tokens: 20\nAccepted tokens: 7\nPer-position acceptance (%%):\n  Position 0: "
             "50.00\n  Position 1: 10.00\n",
             head);
    expect_fail_at(text, NULL, 1, "no whole per-position counts of 10 drafts");
}
END_TEST

START_TEST(vllm_offline_summary)
{
    /* 523 drafts: 0.77 allows 401..405, 0.53 275..279, 0.34 176..180, 0.18 92..96; rounded
     * 403, 277, 178, 94 sum to 952, two short of 954, raised front first: 405 */
    sd_counts c = load_ok(fixture("counters-vllm-offline.txt"), NULL);
    const double pos[4] = { 405, 277, 178, 94 };
    ck_assert_str_eq(c.format, "vllm-offline");
    ck_assert_int_eq(c.has_positions, 1);
    expect_counts(&c, 4, 523, 2092, 954, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "gamma = its 4 'acceptance at token' lines"));
    /* two runs, the old eagle.py spacing ("token 0:0.50") */
    const char *two = "num_drafts: 10\nnum_draft_tokens: 20\nnum_accepted_tokens: 6\nmean acceptance length: 1.60\n"
                      "acceptance at token 0:0.50\nacceptance at token 1:0.10\n"
                      "num_drafts: 4\nnum_draft_tokens: 8\nnum_accepted_tokens: 3\nacceptance at token 0: 0.50\n"
                      "acceptance at token 1: 0.25\n";
    const char *path = write_temp(two);
    c = load_ok(path, NULL);
    unlink(path);
    const double pos2[2] = { 7, 2 };
    expect_counts(&c, 2, 14, 28, 9, pos2, NULL);
    expect_fail_at("acceptance at token 0: 0.50\n", NULL, 1, "before 'num_drafts:'");
    expect_fail_at("num_drafts: 10\nnum_draft_tokens: 20\nnum_accepted_tokens: 6\n", NULL, 1,
                   "without 'acceptance at token 0:'");
    expect_fail_at("num_drafts: 10\nnum_draft_tokens: 20\nnum_accepted_tokens: 6\nmean acceptance length: 1.70\n"
                   "acceptance at token 0: 0.50\nacceptance at token 1: 0.10\n",
                   NULL, 1, "mean acceptance length 1.7 is not 1 + accepted / drafts = 1.6");
    expect_fail_at("num_drafts: 10\nnum_draft_tokens: 20\nnum_accepted_tokens: 6\nacceptance at token 0: 0.50\n"
                   "acceptance at token 2: 0.10\n",
                   NULL, 5, "expected 'acceptance at token 1'");
    expect_fail_at("num_drafts: 10\nnum_draft_tokens: 20\nnum_accepted_tokens: 6\nacceptance at token 0: 0.10\n"
                   "acceptance at token 1: 0.50\n",
                   NULL, 1, "rise");
    expect_fail_at("num_drafts: 10\nnum_draft_tokens: 30\nnum_accepted_tokens: 6\nacceptance at token 0: 0.50\n"
                   "acceptance at token 1: 0.10\n",
                   NULL, 1, "expected accepted <= draft tokens <= drafts x gamma");
    expect_fail_at("num_drafts: 10\nnum_drafts: 10\n", NULL, 1, "without 'num_draft_tokens:'");
    expect_fail_at("num_drafts: ten\n", NULL, 1, "cannot read num_drafts: 'ten'");
}
END_TEST

/* ---- SGLang --------------------------------------------------------------------------------- */

START_TEST(sglang_decode)
{
    /* version A: 2.78 / 4 = 0.695, 2.60 / 4 = 0.65, 3.12 / 4 = 0.78 fit gamma 3 and nothing
     * else; version B: 1.78 / 3 = 0.593, 1.60 / 3 = 0.533, 2.12 / 3 = 0.707.  Either way the
     * gauge is the mean (2.78 + 2.60 + 3.12) / 3 - 1 = 11 / 6 accepted tokens per verify. */
    const char *fx[2] = { "counters-sglang-a.log", "counters-sglang-b.log" };
    const char *ver[2] = { "version A's rate = len / (gamma + 1)", "version B's rate = (len - 1) / gamma" };
    const char *given[2] = { "fits version A", "fits version B" };
    sd_counts_options g3 = { .gamma = 3 };
    for (int k = 0; k < 2; k++) {
        sd_counts c = load_ok(fixture(fx[k]), NULL);
        ck_assert_str_eq(c.format, "sglang");
        ck_assert_int_eq(c.gauge, 1);
        ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
        ck_assert_uint_eq(c.gamma, 3);
        ck_assert_double_eq_tol(c.mean_accepted, 11.0 / 6.0, 1e-12);
        ck_assert_double_eq(c.drafts, 0.0);
        ck_assert_double_eq(c.reached[0], 0.0);
        ck_assert_msg(strstr(c.notes, ver[k]) != NULL, "%s", c.notes);
        c = load_ok(fixture(fx[k]), &g3);
        ck_assert_msg(strstr(c.notes, given[k]) != NULL, "%s", c.notes);
    }
    /* gamma 4: 2.78 / 5 = 0.556 and 1.78 / 4 = 0.445 are both far from 0.70 */
    sd_counts_options g4 = { .gamma = 4 };
    expect_fail_path(fixture("counters-sglang-a.log"), &g4, ":3: accept len 2.78 and accept rate 0.7 fit neither");
    /* version 0 prints no rate: gamma only from --gamma */
    const char *v0 = "[2025-06-01 12:00:00 TP0] Decode batch. #running-req: 8, #token: 5120, token usage: 0.03, accept "
                     "len: 2.78, gen throughput (token/s): 612.34, #queue-req: 0\n";
    expect_fail_at(v0, NULL, 1, "no accept rate, so no draft length: give the draft length");
    expect_fail_at(v0, NULL, 1, "--gamma");
    const char *path = write_temp(v0);
    sd_counts c = load_ok(path, &g3);
    unlink(path);
    ck_assert_double_eq_tol(c.mean_accepted, 1.78, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.notes, "gamma = 3 from --gamma."));
    /* 2.00 and 0.50 fit A with gamma 3 (2 / 4) and B with gamma 2 (1 / 2): refused */
    expect_fail_at("x\nDecode batch, #running-req: 1, accept len: 2.00, accept rate: 0.50, \n", NULL, 2,
                   "fit more than one draft length or version");
    expect_fail_at("Decode batch, #running-req: 1, accept len: 4.50, \n", &g3, 1,
                   "accept len 4.5 is more than gamma + 1 = 4 tokens per verify");
    expect_fail_at("Decode batch, accept len: 0.50, \n", &g3, 1, "expected a length >= 1");
    expect_fail_at("Decode batch, accept len: two, \n", &g3, 1, "cannot read the accept len");
    expect_fail_at("Decode batch, accept len: 2.00, accept rate: 1.5, \n", &g3, 1, "outside [0, 1]");
    /* 1.00 and 0.90: 1 / (gamma + 1) <= 0.5, 0 / gamma = 0 */
    expect_fail_at("Decode batch, accept len: 1.00, accept rate: 0.90, \n", NULL, 1, "for no gamma in [1, 64]");
}
END_TEST

/* ---- TensorRT-LLM ------------------------------------------------------------------------------ */

START_TEST(trtllm_bench_block)
{
    /* AL = 1 + gamma DAR: 2.64 = 1 + 3 x 0.55 (2.65, within 0.005 + 3 x 0.005) for every
     * statistic and no other gamma; the gauge 3 x 149.83 / 276.00 = 449.49 / 276 */
    sd_counts c = load_ok(fixture("counters-trtllm-bench.txt"), NULL);
    ck_assert_str_eq(c.format, "trtllm-bench");
    ck_assert_int_eq(c.gauge, 1);
    ck_assert_uint_eq(c.gamma, 3);
    ck_assert_double_eq_tol(c.mean_accepted, 449.49 / 276.0, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.notes, "gamma = 3 read from the block"));
    ck_assert_ptr_nonnull(strstr(c.notes, "assumed by trtllm-bench, not measured"));
    sd_counts_options g3 = { .gamma = 3 }, g4 = { .gamma = 4 };
    c = load_ok(fixture("counters-trtllm-bench.txt"), &g3);
    ck_assert_ptr_nonnull(strstr(c.notes, "from --gamma"));
    expect_fail_path(fixture("counters-trtllm-bench.txt"), &g4, ":3: gamma 4 does not fit the block");

    /* one statistic per line, all 28 needed; the affine identity decides gamma */
    char text[2000];
    int n = snprintf(text, sizeof text, "= DECODING STATISTICS (MTP)\n");
    static const char *const tag[4] = { "DT", "ADT", "DAR", "AL" };
    static const char *const key[7] = { "MINIMUM", "MAXIMUM", "AVERAGE", "P50", "P90", "P95", "P99" };
    static const char *const val[4] = { "100.00", "50.00", "0.50", "1.50" };
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 7; k++)
            n += snprintf(text + n, sizeof text - (size_t)n, "[%s] %-7s: %s\n", tag[t], key[k], val[t]);
    /* 1.50 = 1 + gamma x 0.50 fits gamma 1 only (gamma 2 gives 2.00 +- 0.01) */
    const char *path = write_temp(text);
    c = load_ok(path, NULL);
    unlink(path);
    ck_assert_uint_eq(c.gamma, 1);
    ck_assert_double_eq_tol(c.mean_accepted, 0.5, 1e-12);
    /* DAR 0.00 and AL 1.00: every gamma fits */
    char flat[2000];
    snprintf(flat, sizeof flat, "%s", text);
    for (char *p = flat; (p = strstr(p, "0.50\n")) != NULL;)
        memcpy(p, "0.00", 4);
    for (char *p = flat; (p = strstr(p, "1.50\n")) != NULL;)
        memcpy(p, "1.00", 4);
    expect_fail_at(flat, NULL, 1, "several draft lengths fit AL = 1 + gamma x DAR");
    expect_fail_at(flat, NULL, 1, "--gamma");
    expect_fail_at("= DECODING STATISTICS (MTP)\n[DT] MINIMUM: 100.00\n", NULL, 1, "has no '[DT] MAXIMUM' line");
    expect_fail_at("= DECODING STATISTICS (MTP)\n[DT] MINIMUM: lots\n", NULL, 2, "cannot read '[DT] MINIMUM: lots'");
    expect_fail_at("[DT] MINIMUM: 1.00\n", NULL, 1, "before '= DECODING STATISTICS'");
    expect_fail_at("= DECODING STATISTICS (A)\n= DECODING STATISTICS (B)\n", NULL, 2, "a second DECODING STATISTICS");
}
END_TEST

/* llama.cpp's ./speculative: gamma = n_draft, drafts = n_predict - n_accept. */
START_TEST(llama_speculative_counters)
{
    /* 371 - 313 = 58 drafts; 912 tokens of at most 16: 58 x 15 = 870, 42 drafts one longer */
    sd_counts c = load_ok(fixture("counters-llama-speculative.log"), NULL);
    double reached[16];
    for (size_t i = 0; i < 16; i++)
        reached[i] = i < 15 ? 58 : 42;
    ck_assert_str_eq(c.format, "llama-speculative");
    ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(c.has_positions, 0);
    ck_assert_int_eq(c.reached_assumed, 1);
    expect_counts(&c, 16, 58, 912, 313, NULL, reached);
    ck_assert_ptr_nonnull(strstr(c.notes, "drafts = n_predict - n_accept = 58"));
    sd_counts_options g8 = { .gamma = 8 };
    expect_fail_path(fixture("counters-llama-speculative.log"), &g8, ":6: gamma 8 was given, but n_draft = 16");
    /* full drafts: nothing assumed; a parameter line with n_predict is not a field */
    const char *full = "generate: n_ctx = 4096, n_predict = 256, n_keep = 0\nI n_draft   = 4\nI n_predict = 30\n"
                       "I n_drafted = 40\nI n_accept  = 20\nI accept    = 50.000%\n";
    const char *path = write_temp(full);
    c = load_ok(path, NULL);
    unlink(path);
    expect_counts(&c, 4, 10, 40, 20, NULL, NULL);
    ck_assert_int_eq(c.reached_assumed, 0);
    expect_fail_at("n_draft = 4\nn_predict = 30\nn_drafted = 5\nn_accept = 2\n", NULL, 3,
                   "n_drafted = 5 tokens in n_predict - n_accept = 28 verifications of at most n_draft = 4: some "
                   "verifications drafted nothing");
    expect_fail_at("n_draft = 4\nn_predict = 30\nn_drafted = 40\nn_accept = 20\naccept = 40.000%\n", NULL, 5,
                   "accept = 40% is not 100 n_accept / n_drafted = 50%");
    expect_fail_at("n_draft = 4\nn_predict = 30\nn_drafted = 10\nn_accept = 20\n", NULL, 4,
                   "expected n_accept <= n_drafted");
    expect_fail_at("n_draft = 0\nn_predict = 30\nn_drafted = 10\nn_accept = 2\n", NULL, 1, "gamma must be in [1, 64]");
    expect_fail_at("n_draft = 4\nn_predict = x\n", NULL, 2, "cannot read");
    expect_fail_at("n_draft = 4\nn_draft = 4\n", NULL, 2, "a second");
    expect_fail_at("n_draft = 4\nn_predict = 30\nn_accept = 2\n", NULL, 0, "without 'n_drafted = N'");
}
END_TEST

START_TEST(llama_log)
{
    /* requests of 10 and 7 drafts of at most 4 tokens, 31 and 20 drafted */
    sd_counts c = load_ok(fixture("counters-llama.log"), NULL);
    const double pos[4] = { 13, 10, 5, 3 }, reached[4] = { 17, 17, 14, 3 };
    ck_assert_str_eq(c.format, "llama.cpp");
    ck_assert_int_eq(c.has_positions, 1);
    ck_assert_int_eq(c.reached_assumed, 1);
    expect_counts(&c, 4, 17, 51, 31, pos, reached);
    ck_assert_ptr_nonnull(strstr(c.notes, "censored"));
    ck_assert_ptr_nonnull(strstr(c.notes, "'statistics' lines were not used"));
    double sum = 0;
    for (size_t i = 0; i < c.gamma; i++)
        sum += c.reached[i];
    ck_assert_double_eq(sum, c.draft_tokens); /* every drafted token at some position */

    /* only the cumulative statistics lines, with a restart: 17 + 5 drafts; their rates reach
     * only the longest accepted prefix, so the draft length must be given */
    sd_counts_options g4 = { .gamma = 4 };
    expect_fail_path(fixture("counters-llama-stats.log"), NULL, "give it with gamma");
    c = load_ok(fixture("counters-llama-stats.log"), &g4);
    const double spos[4] = { 17, 13, 7, 4 }, sreached[4] = { 22, 22, 19, 8 };
    expect_counts(&c, 4, 22, 71, 41, spos, sreached);
    ck_assert_ptr_nonnull(strstr(c.notes, "2 implementation runs"));
}
END_TEST

START_TEST(llama_without_rates)
{
    /* default verbosity: no rates, so no draft length: it must be given; 7 drafts, 20 tokens:
     * with gamma 3, reached as equal as can be */
    const char *one = "slot print_timing: id  0 | task 40 | draft acceptance = 0.55000 (   11 accepted /    20 "
                      "generated), mean len =  2.57\n";
    expect_fail_at(one, NULL, 1, "does not state the draft length (no per-position rates): give it with gamma");
    sd_counts_options g3 = { .gamma = 3 };
    const char *path = write_temp(one);
    sd_counts c = load_ok(path, &g3);
    unlink(path);
    const double reached[3] = { 7, 7, 6 };
    ck_assert_int_eq(c.has_positions, 0);
    expect_counts(&c, 3, 7, 20, 11, NULL, reached);
    /* gamma 2 cannot hold 20 tokens in 7 drafts */
    sd_counts_options g2 = { .gamma = 2 };
    expect_fail_at(one, &g2, 1, "20 generated tokens in 7 drafts is 2.857 per draft, more than gamma = 2 allows");
    /* with the draft length given */
    sd_counts_options g4 = { .gamma = 4 };
    path = write_temp(one);
    c = load_ok(path, &g4);
    unlink(path);
    const double reached4[4] = { 7, 7, 6, 0 };
    expect_counts(&c, 4, 7, 20, 11, NULL, reached4);
    /* the oldest line gives no drafts at all */
    expect_fail_at("slot print_timing: id  0 | task 2 | \ndraft acceptance rate = 0.57576 (  171 accepted /   297 "
                   "generated)\n",
                   NULL, 2, "no mean acceptance length");
}
END_TEST

/* ---- TSV ------------------------------------------------------------------------------------- */

START_TEST(tsv_shapes)
{
    sd_counts c = load_ok(fixture("counters-positions.tsv"), NULL);
    const double pos[3] = { 230, 131, 57 };
    ck_assert_str_eq(c.format, "tsv");
    expect_counts(&c, 3, 350, 1050, 418, pos, NULL);

    sd_counts_options g4 = { .gamma = 4 };
    c = load_ok(fixture("counters-histogram.tsv"), &g4);
    const double hpos[4] = { 70, 45, 25, 10 };
    ck_assert_str_eq(c.format, "histogram");
    expect_counts(&c, 4, 100, 400, 150, hpos, NULL);

    /* optional columns */
    const char *path = write_temp("gamma\tdrafts\taccepted_2\taccepted_1\tdraft_tokens\taccepted_tokens\n"
                                  "2\t10\t3\t6\t15\t9\n");
    c = load_ok(path, NULL);
    unlink(path);
    const double p2[2] = { 6, 3 };
    expect_counts(&c, 2, 10, 15, 9, p2, NULL);
}
END_TEST


/* ---- bad input: one line naming the file (and line) ------------------------------------------ */


START_TEST(bad_logs)
{
    const char *v1 = "SpecDecoding metrics: Mean acceptance length: 2.02, Accepted: 102 tokens, Drafted: 300 tokens, "
                     "Per-position acceptance rate: ";
    char line[600];
    expect_fail_at("hello\nSpecDecoding metrics: Accepted: x tokens, Drafted: 300 tokens\n", NULL, 2,
                   "cannot read Accepted");
    expect_fail_at("SpecDecoding metrics: Drafted: 300 tokens\n", NULL, 1, "without 'Accepted: N tokens'");
    snprintf(line, sizeof line, "%s0.300, 0.600, 0.120\n", v1);
    expect_fail_at(line, NULL, 1, "rises");
    snprintf(line, sizeof line, "%s-0.600, 0.300, 0.120\n", v1);
    expect_fail_at(line, NULL, 1, "cannot read");
    expect_fail_at("SpecDecoding metrics: Draft acceptance rate: 50.0%, Mean acceptance length: 2.02, Accepted: 102 "
                   "tokens, Drafted: 300 tokens\n",
                   NULL, 1, "is not Accepted / Drafted");
    char many[1200];
    int n = snprintf(many, sizeof many, "SpecDecoding metrics: Accepted: 0 tokens, Drafted: 65 tokens, "
                                        "Per-position acceptance rate: 0.000");
    for (int i = 1; i < 65; i++)
        n += snprintf(many + n, sizeof many - (size_t)n, ", 0.000");
    snprintf(many + n, sizeof many - (size_t)n, "\n");
    expect_fail_at(many, NULL, 1, "gamma beyond 64");
    expect_fail_at("Speculative metrics: Draft acceptance rate: 0.5, Number of speculative tokens: 3, Number of "
                   "accepted tokens: 5, Number of draft tokens: 10, Number of emitted tokens: 9.\n",
                   NULL, 1, "a multiple of 3");
    expect_fail_at("Speculative metrics: Number of speculative tokens: 65, Number of accepted tokens: 5, Number of draft "
                   "tokens: 65.\n",
                   NULL, 1, "gamma must be in [1, 64]");
    expect_fail_at("Speculative metrics: Number of speculative tokens: 4, Number of accepted tokens: -5, Number of draft "
                   "tokens: 8.\n",
                   NULL, 1, "cannot read Number of accepted tokens");
    expect_fail_at("a\nb\ndraft acceptance = 0.5 (1 accepted of 2 generated)\n", NULL, 3, "expected '= RATE");
    expect_fail_at("draft acceptance = 0.9 (1 accepted / 2 generated), mean len = 1.50\n", NULL, 1,
                   "rate = accepted / generated");
    expect_fail_at("x\n     acc per pos = (0.500)\n", NULL, 2, "without its 'draft acceptance' line");
    expect_fail_at("statistics draft: #calls(b,g,a) = 1 2, #gen drafts = 2, #acc drafts = 1, #gen tokens = 4, #acc "
                   "tokens = 1\n",
                   NULL, 1, "cannot read '#calls(b,g,a)");
    expect_fail_at("SpecDecoding metrics: Accepted: 1 tokens, Drafted: 3 tokens\nSpeculative metrics: Number of "
                   "speculative tokens: 3, Number of accepted tokens: 1, Number of draft tokens: 3.\n",
                   NULL, 0, "holds both vllm-v1 and vllm-v0 lines");
}
END_TEST

START_TEST(bad_tsv_and_options)
{
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\tnan\t3\n", NULL, 2, "drafts");
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\t-4\t3\n", NULL, 2, "is outside");
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\t4.5\t3\n", NULL, 2, "not a whole number");
    expect_fail_at("# comment\ngamma\tdrafts\taccepted_1\taccepted_2\n2\t10\t3\t4\n", NULL, 3, "cannot rise");
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\t0\t0\n", NULL, 0, "zero drafts");
    expect_fail_at("gamma\tdrafts\taccepted_1\n65\t10\t3\n", NULL, 2, "gamma");
    expect_fail_at("gamma\tdrafts\taccepted_65\n65\t10\t3\n", NULL, 0, "gamma beyond 64");
    expect_fail_at("gamma\tdrafts\taccepted_1\tmodel\n1\t10\t3\tx\n", NULL, 0, "column 'model' is unknown");
    sd_counts_options g3 = { .gamma = 3 };
    expect_fail_at("accepted\tcount\n0\t5\n4\t1\n", &g3, 3, "accepted 4 exceeds gamma 3");
    expect_fail_at("accepted\tcount\n0\t5\n", NULL, 0, "does not state the draft length: give it with gamma");
    expect_fail_at("nothing to see\nhere\n", NULL, 0, "no speculative-decoding counts found");
    expect_fail_at("", NULL, 0, "no speculative-decoding counts found");
    sd_counts_options g65 = { .gamma = 65 };
    expect_fail_at("accepted\tcount\n0\t5\n", &g65, 0, "gamma 65 is beyond 64");
    sd_counts_options fmt = { .format = "vllm" };
    expect_fail_at("accepted\tcount\n0\t5\n", &fmt, 0, "unknown format 'vllm'; expected one of prometheus");
    sd_counts_options since = { .since = "/dev/null" };
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\t10\t3\n", &since, 0, "apply to a Prometheus scrape");
    sd_counts_options g2 = { .gamma = 2 };
    expect_fail_at("gamma\tdrafts\taccepted_1\n1\t10\t3\n", &g2, 0, "gamma 2 was given");

    sd_counts c, sentinel;
    memset(&c, 0x5a, sizeof c);
    sentinel = c;
    sd_error err;
    ck_assert_int_eq(sd_counters_load("/nonexistent/counts.prom", NULL, &c, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "/nonexistent/counts.prom: cannot open: No such file or directory");
    ck_assert_int_eq(memcmp(&c, &sentinel, sizeof c), 0);
}
END_TEST

/* ---- the private layers: the reader table, the text layer, rate derivation ------------------ */

START_TEST(text_lines)
{
    char path[] = "/tmp/specdec-counters-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char body[] = "a\r\nbb\n\nc\0dd\nlast";
    ck_assert_int_eq(write(fd, body, sizeof body - 1), (ssize_t)(sizeof body - 1));
    close(fd);
    sd_text_lines t;
    sd_error err = { "" };
    ck_assert_int_eq(sd_text_read(path, &t, &err), SD_OK);
    ck_assert_uint_eq(t.n, 5);
    ck_assert_str_eq(t.line[0], "a"); /* the CR before the line feed goes */
    ck_assert_str_eq(t.line[1], "bb");
    ck_assert_str_eq(t.line[2], "");
    ck_assert_str_eq(t.line[3], "c"); /* a line ends at a NUL byte */
    ck_assert_str_eq(t.line[4], "last");
    ck_assert_uint_eq(t.longest, 4);
    sd_text_free(&t);
    ck_assert_ptr_null(t.buf);
    sd_text_free(&t);
    fd = open(path, O_WRONLY | O_TRUNC);
    close(fd);
    ck_assert_int_eq(sd_text_read(path, &t, &err), SD_OK);
    ck_assert_uint_eq(t.n, 0);
    sd_text_free(&t);
    unlink(path);
    ck_assert_int_eq(sd_text_read(path, &t, &err), SD_EINVAL);
    ck_assert_ptr_null(t.line);
    ck_assert_ptr_eq(strstr(err.msg, path), err.msg);

    const char *s = " \t x, y ";
    size_t n = strlen(s);
    ck_assert_ptr_eq(sd_text_skip_blank(s), s + 3);
    sd_text_trim(&s, &n);
    ck_assert(sd_text_span_is(s, n, "x, y"));
    ck_assert(!sd_text_span_is(s, n, "x, y "));
    const char *list = "a, (b, c),[d,e] ,f(1,2),";
    const char *it;
    size_t len;
    static const char *const items[] = { "a", "(b, c)", "[d,e]", "f(1,2)" };
    for (size_t i = 0; i < 4; i++) {
        ck_assert(sd_text_next_item(&list, &it, &len));
        ck_assert_msg(sd_text_span_is(it, len, items[i]), "item %zu: '%.*s'", i, (int)len, it);
    }
    ck_assert(!sd_text_next_item(&list, &it, &len));
}
END_TEST

START_TEST(text_numbers)
{
    uint64_t v = 7;
    ck_assert(sd_text_count("0", 1, &v) && v == 0);
    ck_assert(sd_text_count("9007199254740992", 16, &v) && v == 9007199254740992u);
    ck_assert(sd_text_count("123x", 3, &v) && v == 123); /* the span only */
    v = 7;
    ck_assert(!sd_text_count("", 0, &v));
    ck_assert(!sd_text_count("+1", 2, &v));
    ck_assert(!sd_text_count("1 ", 2, &v));
    ck_assert(!sd_text_count("9007199254740993", 16, &v)); /* 2^53 + 1, which a double rounds to 2^53 */
    ck_assert(!sd_text_count("9007199254740994", 16, &v)); /* 2^53 + 2 */
    ck_assert(!sd_text_count("00000000000000001", 17, &v)); /* 17 digits */
    ck_assert_uint_eq(v, 7);

    double x = 0.0, h = 0.0;
    ck_assert(sd_text_decimal("0.600", 5, &x, &h));
    ck_assert_double_eq(x, 0.6);
    ck_assert_double_eq_tol(h, 0.0005, 1e-18);
    ck_assert(sd_text_decimal("3", 1, &x, &h) && x == 3.0 && h == 0.5);
    ck_assert(sd_text_decimal("5.", 2, &x, &h) && x == 5.0 && h == 0.5);
    ck_assert(sd_text_decimal("-1.25", 5, &x, &h) && x == -1.25);
    ck_assert_double_eq_tol(h, 0.005, 1e-18);
    ck_assert(sd_text_decimal("+.5", 3, &x, &h) && x == 0.5);
    ck_assert_double_eq_tol(h, 0.05, 1e-17);
    ck_assert(sd_text_decimal("nan", 3, &x, &h) && isnan(x) && h == 0.0);
    ck_assert(sd_text_decimal("-inf", 4, &x, &h) && isinf(x) && x < 0.0);
    x = 9.0;
    ck_assert(!sd_text_decimal("NaN", 3, &x, &h));
    ck_assert(!sd_text_decimal("1e3", 3, &x, &h));
    ck_assert(!sd_text_decimal(".", 1, &x, &h));
    ck_assert(!sd_text_decimal("1.2.3", 5, &x, &h));
    ck_assert(!sd_text_decimal("", 0, &x, &h));
    char digits[64];
    memset(digits, '1', sizeof digits);
    ck_assert(sd_text_decimal(digits, 63, &x, &h) && x > 1e62); /* 63 bytes fit, 64 do not */
    x = 9.0;
    ck_assert(!sd_text_decimal(digits, 64, &x, &h));
    ck_assert_double_eq(x, 9.0);

    double r[3];
    size_t k = 9;
    ck_assert(sd_text_rates(" 0.600, 0.30,0.1 ", 17, r, 3, &k, &h));
    ck_assert_uint_eq(k, 3);
    ck_assert(r[0] == 0.6 && r[1] == 0.3 && r[2] == 0.1);
    ck_assert_double_eq_tol(h, 0.05, 1e-17); /* the coarsest: "0.1" */
    ck_assert(sd_text_rates("  ", 2, r, 3, &k, &h) && k == 0 && h == 0.0);
    ck_assert(sd_text_rates("0.1,0.1,0.1,0.1", 15, r, 3, &k, &h) && k == 4); /* more than max: max + 1 */
    ck_assert(!sd_text_rates("0.5, 1.5", 8, r, 3, &k, &h));
    ck_assert(!sd_text_rates("0.5,,0.4", 8, r, 3, &k, &h));
    ck_assert(!sd_text_rates("-0.1", 4, r, 3, &k, &h));

    ck_assert(sd_text_go_float("1.5e3", 5, &x) && x == 1500.0);
    ck_assert(sd_text_go_float("+Inf", 4, &x) && isinf(x) && x > 0.0);
    ck_assert(sd_text_go_float("-infinity", 9, &x) && isinf(x) && x < 0.0);
    ck_assert(sd_text_go_float("NaN", 3, &x) && isnan(x));
    ck_assert(sd_text_go_float(".5", 2, &x) && x == 0.5);
    ck_assert(sd_text_go_float("5.E-1", 5, &x) && x == 0.5);
    ck_assert(sd_text_go_float("1e-400", 6, &x) && x == 0.0); /* an underflow is read */
    x = 9.0;
    ck_assert(!sd_text_go_float("1e400", 5, &x)); /* an overflow is not */
    ck_assert(!sd_text_go_float("1e", 2, &x));
    ck_assert(!sd_text_go_float("e5", 2, &x));
    ck_assert(!sd_text_go_float("0x10", 4, &x));
    ck_assert(!sd_text_go_float("1_000", 5, &x));
    ck_assert(!sd_text_go_float("", 0, &x));
}
END_TEST

/* A count one above 2^53 in a log line is refused, not read as 2^53. */
START_TEST(count_beyond_2_53)
{
    expect_fail_at("Speculative metrics: Number of speculative tokens: 1, Number of accepted tokens: "
                   "9007199254740993, Number of draft tokens: 9007199254740993.\n",
                   NULL, 1, "cannot read Number of accepted tokens: '9007199254740993'");
    expect_fail_at("SpecDecoding metrics: Accepted: 9007199254740993 tokens, Drafted: 9007199254740993 tokens\n",
                   NULL, 1, "cannot read Accepted");
}
END_TEST

START_TEST(derive_lines)
{
    /* vLLM V1's "Mean acceptance length: 2.02, Accepted: 102, Drafted: 300, rates 0.600, 0.300, 0.120":
     * 102 / 1.025 = 99.5 and 102 / 1.015 = 100.5 leave 100 drafts only; counts 60, 30, 12 */
    const double r3[3] = { 0.600, 0.300, 0.120 };
    sd_derive_in a = { .A = 102, .D = 300, .has_x = 1, .x = 1.02, .hx = 0.005, .k = 3, .r = r3, .hr = 0.0005,
                       .kmax = 3, .full = 1, .c0 = -1 };
    sd_derive_out o;
    ck_assert_int_eq(sd_derive_solve(&a, &o), SD_DERIVE_OK);
    ck_assert_uint_eq(o.n, 100);
    ck_assert(o.c[0] == 60 && o.c[1] == 30 && o.c[2] == 12);
    ck_assert(o.nlo == 100 && o.nhi == 100 && o.full == 0);

    /* Accepted 10 of 30 drafted, gamma 3, nothing else printed: 10 .. 30 drafts fit; full takes 30 / 3 */
    sd_derive_in b = { .A = 10, .D = 30, .kmax = 3, .full = 1, .c0 = -1 };
    sd_derive_out ob;
    ck_assert_int_eq(sd_derive_solve(&b, &ob), SD_DERIVE_OK);
    ck_assert(ob.n == 10 && ob.full == 1);

    /* A = 50 with the same printed figures: 49 drafts is the only number A / x allows, but
     * 0.600 x 49 = 29.4 is no whole count within +-0.0005 x 49 */
    sd_derive_in c = a;
    c.A = 50;
    c.D = 100;
    c.full = 0;
    ck_assert_int_eq(sd_derive_solve(&c, &o), SD_DERIVE_INCONSISTENT);

    /* nothing bounds the drafts above */
    sd_derive_in d = { .c0 = -1 };
    ck_assert_int_eq(sd_derive_solve(&d, &o), SD_DERIVE_UNKNOWN);

    /* the sums of lines a and b */
    sd_derive_sum s = { 0 };
    ck_assert_int_eq(sd_derive_solve(&a, &o), SD_DERIVE_OK);
    sd_derive_add(&s, &a, &o);
    sd_derive_add(&s, &b, &ob);
    ck_assert_uint_eq(s.lines, 2);
    ck_assert(s.drafts == 110.0 && s.D == 330.0 && s.A == 112.0);
    ck_assert(s.c[0] == 60.0 && s.c[1] == 30.0 && s.c[2] == 12.0);
    ck_assert(s.full == 1 && s.ambiguous == 0 && s.no_positions == 1);
    ck_assert(s.nlo == 110.0 && s.nhi == 110.0);

    ck_assert_double_eq_tol(sd_derive_widen(0.0005), 0.0005 + 0.0005e-9 + 1e-12, 1e-18);
    const double up[2] = { 0.5, 0.6 };
    sd_error err = { "" };
    sd_counters_ctx cx = { "p", &(sd_counts_options){ 0 }, &err };
    ck_assert_int_eq(sd_derive_rates_fall(&cx, 7, up, 1), SD_OK);
    ck_assert_int_eq(sd_derive_rates_fall(&cx, 7, up, 2), SD_EINVAL);
    ck_assert_str_eq(err.msg, "p:7: the per-position acceptance rate rises from 0.5 at position 1 to 0.6 at 2: "
                              "impossible, a draft accepted through position 2 was accepted through 1");
}
END_TEST

START_TEST(derive_reached)
{
    /* llama.cpp statistics: 10 drafts, 31 tokens, accepted through positions 1..4: 8, 6, 4, 2.  At
     * least 10, 6, 4, 2 drafts reach positions 1..4 (22 tokens); the other 9 go to the earliest
     * positions: 4 to position 2, 5 to position 3 -> 10, 10, 9, 2 */
    const uint64_t c[4] = { 8, 6, 4, 2 };
    double reached[4] = { 1.0, 0.0, 0.0, 0.0 };
    ck_assert(sd_derive_fill_reached(10, 31, c, 4, 4, reached));
    ck_assert(reached[0] == 11.0 && reached[1] == 10.0 && reached[2] == 9.0 && reached[3] == 2.0); /* added */
    double none[4] = { 0.0, 0.0, 0.0, 0.0 };
    ck_assert(sd_derive_fill_reached(10, 22, c, 4, 4, none) && none[1] == 6.0); /* the least tokens */
    ck_assert(sd_derive_fill_reached(10, 40, c, 4, 4, none)); /* every draft 4 long */
    double keep[4] = { 0.0, 0.0, 0.0, 0.0 };
    ck_assert(!sd_derive_fill_reached(10, 21, c, 4, 4, keep)); /* fewer tokens than the counts need */
    ck_assert(!sd_derive_fill_reached(10, 41, c, 4, 4, keep)); /* more than 10 drafts of 4 hold */
    ck_assert(!sd_derive_fill_reached(7, 20, c, 4, 4, keep));  /* 8 accepted of 7 drafts */
    ck_assert(!sd_derive_fill_reached(10, 31, c, 4, 3, keep)); /* 4 positions in drafts of 3 */
    ck_assert(!sd_derive_fill_reached(0, 0, c, 0, 4, keep));
    ck_assert(!sd_derive_fill_reached(10, 31, c, 0, 0, keep));
    ck_assert(keep[0] == 0.0 && keep[1] == 0.0 && keep[2] == 0.0 && keep[3] == 0.0);
}
END_TEST

Suite *counters_suite(void)
{
    Suite *s = suite_create("counters");
    TCase *tc = tcase_create("counters");
    tcase_add_test(tc, format_names);
    tcase_add_test(tc, vllm_v1_log);
    tcase_add_test(tc, vllm_v1_derivation);
    tcase_add_test(tc, vllm_v0_log);
    tcase_add_test(tc, vllm_v1_early_log);
    tcase_add_test(tc, vllm_bench_block);
    tcase_add_test(tc, vllm_offline_summary);
    tcase_add_test(tc, sglang_decode);
    tcase_add_test(tc, trtllm_bench_block);
    tcase_add_test(tc, llama_speculative_counters);
    tcase_add_test(tc, llama_log);
    tcase_add_test(tc, llama_without_rates);
    tcase_add_test(tc, tsv_shapes);
    tcase_add_test(tc, bad_logs);
    tcase_add_test(tc, bad_tsv_and_options);
    tcase_add_test(tc, text_lines);
    tcase_add_test(tc, text_numbers);
    tcase_add_test(tc, count_beyond_2_53);
    tcase_add_test(tc, derive_lines);
    tcase_add_test(tc, derive_reached);
    counters_readers_tests(tc);
    suite_add_tcase(s, tc);
    return s;
}
