/* test_counters_json.c -- the JSON readers of counters.h and the speculation-profile writer.
 *
 * vllm-request, llama-timings, sglang-request and speculation-profile, on the fixtures
 * tests/fixtures/counters-{vllm-request.jsonl, llama-timings.json, sglang-request.json,
 * speculation-profile.json} (each written from the engine source its README row cites) and
 * on bad inputs written inline; every expected count is summed by hand in the comments.
 * Run from the top of the tree (as make does). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/counters.h"
#include "counters/counters_impl.h"
#include "counters_check.h"
#include "testutil.h"

/* ---- vLLM per-request ------------------------------------------------------------------------ */

START_TEST(vllm_request_fixture)
{
    /* histograms [39,1,0,3] (PR #48915's example), [2,3,3,2], sparse {"0":1,"1":1,"2":1,"3":2};
     * by j: 42, 5, 4, 7 = 58 steps; accepted_at = (5+4+7, 4+7, 7) = (16, 11, 7), sum 34 =
     * 10 + 15 + 9; draft tokens 129 + 30 + 15 = 174 */
    const double pos[3] = { 16, 11, 7 };
    sd_counts c = load_ok(fixture_path("counters-vllm-request.jsonl"), NULL);
    expect_format(&c, "vllm-request", 1);
    expect_counts(&c, 3, 58, 174, 34, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "3 vLLM per-request"));
    ck_assert_ptr_nonnull(strstr(c.notes, "1 of 4 responses"));
    sd_counts_options o = { .gamma = 3 };
    c = load_ok(fixture_path("counters-vllm-request.jsonl"), &o);
    expect_format(&c, "vllm-request", 1);
    expect_counts(&c, 3, 58, 174, 34, pos, NULL);
}
END_TEST

START_TEST(vllm_request_shapes)
{
    /* a bare stats object, sparse, gamma given: {"1": 4, "4": 1} -> 5 steps, accepted_at (5, 1, 1, 1) */
    sd_counts_options o = { .gamma = 4 };
    const double pos4[4] = { 5, 1, 1, 1 };
    sd_counts c = load_text("{\"acceptance_histogram\": {\"1\": 4, \"4\": 1}}\n", &o);
    expect_format(&c, "vllm-request", 1);
    expect_counts(&c, 4, 5, 20, 8, pos4, NULL);
    /* an array of responses; drafts shorter than num_spec_tokens (num_draft_tokens 7 < 3 x 3) */
    const double pos2[2] = { 2, 1 };
    c = load_text("[{\"metrics\": {\"speculative_decoding\": {\"acceptance_histogram\": [1, 1, 1],\n"
                  "  \"num_draft_tokens\": 5, \"num_spec_tokens\": 2}}},\n"
                  " {\"metrics\": {\"speculative_decoding\": {\"acceptance_histogram\": [0, 0, 0],"
                  " \"num_spec_steps\": 0, \"mean_acceptance_length\": 1.0, \"draft_acceptance_rate\": 0.0}}}]\n",
                  NULL);
    expect_format(&c, "vllm-request", 1);
    expect_counts(&c, 2, 3, 5, 3, pos2, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "some drafts were shorter"));
}
END_TEST

START_TEST(vllm_request_bad)
{
    const sd_counts_options g4 = { .gamma = 4 }, named = { .gamma_name = "--gamma" };
    expect_fail_at("{\"acceptance_histogram\": [1, 2, 3], \"num_spec_steps\": 7}\n", NULL, 1,
                   "num_spec_steps 7, but acceptance_histogram sums to 6");
    expect_fail_at("{\"acceptance_histogram\": [1, 2, 3], \"num_accepted_draft_tokens\": 7}\n", NULL, 1,
                   "num_accepted_draft_tokens 7, but acceptance_histogram gives 8");
    expect_fail_at("\n{\"acceptance_histogram\": [1, 2, 3], \"num_spec_tokens\": 3}\n", NULL, 2,
                   "has length 3, but num_spec_tokens 3");
    expect_fail_at("{\"acceptance_histogram\": [1, 1], \"num_draft_tokens\": 3}\n", NULL, 1,
                   "num_draft_tokens 3: expected 1 accepted <= it <= 2 steps x 1");
    expect_fail_at("{\"acceptance_histogram\": [1, 1],\n \"mean_acceptance_length\": 1.6}\n", NULL, 2,
                   "mean_acceptance_length 1.6000000000000001, but the histogram gives 1 + accepted / steps = 1.5");
    expect_fail_at("{\"acceptance_histogram\": [2, 2], \"draft_acceptance_rate\": 0.25}\n", NULL, 1,
                   "draft_acceptance_rate 0.25");
    expect_fail_at("{\"acceptance_histogram\": {\"0\": 2, \"3\": 1}}\n", &named, 1, "give it with --gamma");
    expect_fail_at("{\"acceptance_histogram\": {\"0\": 2, \"3\": 1}}\n", NULL, 1, "give it with gamma");
    expect_fail_at("{\"acceptance_histogram\": {\"0\": 2, \"5\": 1}}\n", &g4, 1, "a key 5, beyond gamma 4");
    expect_fail_at("{\"acceptance_histogram\": {\"03\": 1}}\n", &g4, 1, "key \"03\"");
    expect_fail_at("{\"acceptance_histogram\": [1, 2, 3]}\n", &g4, 1, "gamma 4 was given, but the request has 2");
    expect_fail_at("{\"acceptance_histogram\": [1, 2, 3]}\n{\"acceptance_histogram\": [1, 2]}\n", NULL, 2,
                   "the request has 1 speculative tokens, line 1's 2");
    expect_fail_at("{\"acceptance_histogram\": [1, 2.0]}\n", NULL, 1, "acceptance_histogram");
    expect_fail_at("{\"acceptance_histogram\": [1, -2]}\n", NULL, 1, "acceptance_histogram");
    expect_fail_at("{\"acceptance_histogram\": [1, 2]}\n7\n", NULL, 2, "expected an object");
    expect_fail_at("{\"acceptance_histogram\": [1, 2], }\n", NULL, 1, "json:");
    expect_fail_at("[{\"metrics\": {}}]\n{\"x\": \"acceptance_histogram\"}\n", NULL, 0, "no response has");
    expect_fail_at("{\"acceptance_histogram\": [0, 0]}\n", NULL, 0, "zero drafts");
}
END_TEST

/* ---- llama-server timings ------------------------------------------------------------------- */

START_TEST(llama_timings)
{
    /* draft_n 120 + 80 = 200 one-token drafts, 84 + 50 = 134 accepted; the third response
     * has no draft_n */
    sd_counts_options o = { .gamma = 1, .gamma_name = "--gamma" };
    const double pos[1] = { 134 };
    sd_counts c = load_ok(fixture_path("counters-llama-timings.json"), &o);
    expect_format(&c, "llama-timings", 1);
    expect_counts(&c, 1, 200, 200, 134, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "1 of 3 responses"));
    /* JSON Lines of bare timings objects */
    c = load_text("{\"draft_n\": 5, \"draft_n_accepted\": 2}\n{\"timings\": {\"draft_n\": 3, \"draft_n_accepted\": 3}}\n",
                  &o);
    const double pos2[1] = { 5 };
    expect_format(&c, "llama-timings", 1);
    expect_counts(&c, 1, 8, 8, 5, pos2, NULL);
    /* what the timings do not determine */
    o.gamma = 0;
    char path[256];
    snprintf(path, sizeof path, "%s", fixture_path("counters-llama-timings.json"));
    sd_error err = { "" };
    ck_assert_int_eq(sd_counters_load(path, &o, &c, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, ":10: llama-server's timings do not state the draft length: give it with --gamma"));
    o.gamma = 4;
    ck_assert_int_eq(sd_counters_load(path, &o, &c, &err), SD_EINVAL);
    ck_assert_msg(strstr(err.msg, ":10: llama-server's timings give 200 drafted (draft_n) and 134 accepted") != NULL &&
                      strstr(err.msg, "134 / 200 = 0.67 is only a lower bound") != NULL,
                  "%s", err.msg);
    const sd_counts_options g1 = { .gamma = 1 };
    expect_fail_at("{\"timings\": {\"draft_n\": 3, \"draft_n_accepted\": 4}}\n", &g1, 1,
                   "draft_n_accepted 4 exceeds draft_n 3");
    expect_fail_at("{\"timings\":\n {\"draft_n_accepted\": 4}}\n", &g1, 2, "timings has draft_n_accepted without draft_n");
    expect_fail_at("{\"timings\": {\"draft_n\": \"3\", \"draft_n_accepted\": 1}}\n", &g1, 1, "draft_n");
    expect_fail_at("{\"timings\": {\"prompt_n\": 3}, \"x\": \"draft_n_accepted\"}\n", &g1, 0, "no response's timings");
}
END_TEST

/* ---- SGLang meta_info ----------------------------------------------------------------------- */

START_TEST(sglang_request)
{
    /* histograms [2,3,3,2] and [1,1,1,2]: by j 3, 4, 4, 4 = 15 verify passes; accepted_at =
     * (12, 8, 4), 24 = 15 + 9 correct drafts; proposed 30 + 15 = 45 */
    const double pos[3] = { 12, 8, 4 };
    sd_counts c = load_ok(fixture_path("counters-sglang-request.json"), NULL);
    expect_format(&c, "sglang-request", 1);
    expect_counts(&c, 3, 15, 45, 24, pos, NULL);
    /* PR #11144's names, no histogram: prefix counts without positions, gamma = 60 / 20 */
    c = load_text("{\"meta_info\": {\"spec_verify_ct\": 20, \"spec_accept_token_num\": 30, \"spec_draft_token_num\": 60,"
                  " \"spec_accept_rate\": 0.5, \"spec_accept_length\": 2.55, \"completion_tokens\": 51}}\n"
                  "{\"meta_info\": {\"completion_tokens\": 1}}\n",
                  NULL);
    expect_format(&c, "sglang-request", 0);
    expect_counts(&c, 3, 20, 60, 30, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "1 of 2 records"));
    /* one request with a histogram, one without: no positions; gamma given for the second */
    sd_counts_options g2 = { .gamma = 2 };
    c = load_text("[{\"spec_verify_ct\": 2, \"spec_accept_histogram\": [0, 1, 1]},\n"
                  " {\"spec_verify_ct\": 3, \"spec_accepted_drafts\": 1}]\n",
                  &g2);
    expect_format(&c, "sglang-request", 0);
    expect_counts(&c, 2, 5, 10, 4, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Only 1 of the 2 requests"));
    const sd_counts_options named = { .gamma_name = "--gamma" };
    expect_fail_at("{\"spec_verify_ct\": 3, \"spec_num_correct_drafts\": 2}\n", &named, 1,
                   "give it with --gamma (SGLang's --speculative-num-steps)");
    expect_fail_at("{\"spec_verify_ct\": 3, \"completion_tokens\": 9}\n", NULL, 1, "spec_verify_ct without the accepted");
    expect_fail_at("{\"spec_verify_ct\": 3, \"spec_num_correct_drafts\": 2,\n \"spec_accepted_drafts\": 3}\n", NULL, 2,
                   "spec_accepted_drafts 3, but its alias spec_num_correct_drafts 2");
    expect_fail_at("{\"spec_verify_ct\": 3, \"spec_num_correct_drafts\": 2, \"spec_num_proposed_drafts\": 10}\n", NULL,
                   1, "spec_num_proposed_drafts 10 is not spec_verify_ct 3 x a draft length");
    expect_fail_at("{\"spec_verify_ct\": 3, \"spec_correct_drafts_histogram\": [1, 1]}\n", NULL, 1,
                   "spec_verify_ct 3, but the histogram sums to 2");
    expect_fail_at("{\"spec_verify_ct\": 2, \"spec_num_correct_drafts\": 2, \"spec_correct_drafts_histogram\": [1, 1]}\n",
                   NULL, 1, "spec_num_correct_drafts 2, but the histogram gives 1 accepted drafts");
    expect_fail_at("{\"spec_verify_ct\": 2, \"spec_num_proposed_drafts\": 6, \"spec_correct_drafts_histogram\": [1, 1]}\n",
                   NULL, 1, "= 3, but the histogram has 1 + 1 buckets");
    expect_fail_at("{\"spec_verify_ct\": 2, \"spec_num_correct_drafts\": 2, \"spec_num_proposed_drafts\": 4,\n"
                   " \"spec_accept_rate\": 0.4}\n",
                   NULL, 2, "spec_accept_rate 0.40000000000000002, but accepted / proposed drafts = 2 / 4 = 0.5");
    expect_fail_at("{\"spec_verify_ct\": 2, \"spec_num_correct_drafts\": 5, \"spec_num_proposed_drafts\": 4}\n", NULL, 1,
                   "5 accepted drafts exceed the 4 proposed");
    expect_fail_at("{\"spec_verify_ct\": 2, \"spec_correct_drafts_histogram\": [1, 1], \"spec_accept_histogram\": [2, 0]}\n",
                   NULL, 1, "and its alias spec_accept_histogram differ");
    expect_fail_at("{\"completion_tokens\": 3, \"x\": \"spec_verify_ct\"}\n", NULL, 0, "no request's meta_info");
}
END_TEST

/* ---- speculation_profile.json --------------------------------------------------------------- */

START_TEST(speculation_profile)
{
    /* the PR's case: {1: 40, 2: 30, 3: 30}, K = 3: 100 steps, accepted_at = (30 + 30, 30, 0),
     * accepted tokens 30 + 2 x 30 = 90 (mean 1.9) */
    const double pos[3] = { 60, 30, 0 };
    sd_counts c = load_ok(fixture_path("counters-speculation-profile.json"), NULL);
    expect_format(&c, "speculation-profile", 1);
    expect_counts(&c, 3, 100, 300, 90, pos, NULL);
    ck_assert_int_eq(c.gauge, 0);
    /* without the histogram: a gauge of 0.6 + 0.3 + 0 accepted tokens per step */
    c = load_text("{\"schema_version\": \"1.0\", \"measured\": true, \"num_speculative_tokens\": 3,\n"
                  " \"marginal_accept_rates\": [0.6, 0.3, 0.0], \"mean_accept_length\": 1.91,"
                  " \"acceptance_length_histogram\": null}\n",
                  NULL);
    ck_assert_int_eq(c.gauge, 1);
    ck_assert_uint_eq(c.gamma, 3);
    ck_assert_double_eq_tol(c.mean_accepted, 0.9, 1e-15);
    ck_assert_double_eq(c.drafts, 0.0);
    ck_assert_int_eq(c.has_positions, 0);
}
END_TEST

#define P_HEAD "{\"schema_version\": \"1.0\", \"measured\": true, \"num_speculative_tokens\": 3,\n"

START_TEST(speculation_profile_bad)
{
    expect_fail_at("{\"schema_version\": \"2.0\", \"marginal_accept_rates\": []}\n", NULL, 1, "schema_version \"2.0\": expected \"1.0\"");
    expect_fail_at("{\"schema_version\": \"1.0\",\n \"measured\": false, \"marginal_accept_rates\": []}\n", NULL, 2,
                   "measured is false");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0],\n \"mean_accept_length\": 1.95}\n", NULL, 3,
                   "mean_accept_length 1.95, but 1 + sum(marginal_accept_rates) = 1.8999999999999999");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.3, 0.6, 0.0]}\n", NULL, 2, "rises at position 1");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3]}\n", NULL, 2, "has 2 entries, but num_speculative_tokens is 3");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [1.5, 0.3, 0.0]}\n", NULL, 2, "outside [0, 1]");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0],\n"
                   " \"acceptance_length_histogram\": {\"1\": 40, \"2\": 30, \"5\": 30}}\n",
                   NULL, 3, "has length 5, but num_speculative_tokens 3 allows at most 4");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0],\n"
                   " \"acceptance_length_histogram\": {\"1\": 40, \"2\": 60}}\n",
                   NULL, 2, "marginal_accept_rates[1] = 0.29999999999999999, but the histogram gives 0 / 100 = 0");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0], \"mean_accept_length\": 1.91,\n"
                   " \"acceptance_length_histogram\": {\"1\": 40, \"2\": 30, \"3\": 30}}\n",
                   NULL, 2, "mean_accept_length 1.9099999999999999, but the histogram's mean is 1.8999999999999999");
    expect_fail_at(P_HEAD " \"verification_method\": \"block\", \"marginal_accept_rates\": [0.6, 0.3, 0.0]}\n", NULL, 2,
                   "verification_method \"block\"");
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0]}\n{}\n", NULL, 3, "a second document");
    const sd_counts_options g4 = { .gamma = 4 };
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0]}\n", &g4, 1,
                   "gamma 4 was given, but num_speculative_tokens is 3");
    /* the histogram's counts may be written as Python floats */
    sd_counts c = load_text(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0],\n"
                            " \"acceptance_length_histogram\": {\"1\": 40.0, \"2\": 30, \"3\": 30}}\n",
                            NULL);
    ck_assert_double_eq(c.drafts, 100);
    expect_fail_at(P_HEAD " \"marginal_accept_rates\": [0.6, 0.3, 0.0],\n"
                   " \"acceptance_length_histogram\": {\"1\": 40.5, \"2\": 30, \"3\": 30}}\n",
                   NULL, 3, "40.5 is not a whole count");
}
END_TEST

/* ---- the writer: speculation_profile.json from counts, read back ---------------------------- */

START_TEST(profile_round_trip)
{
    /* vLLM V1's fixture: 387 drafts of 3, accepted_at (250, 140, 61), 451 accepted tokens */
    sd_counts c = load_ok(fixture_path("counters-vllm-v1.log"), NULL);
    const double pos[3] = { 250, 140, 61 };
    expect_format(&c, "vllm-v1", 1);
    expect_counts(&c, 3, 387, 1150, 451, pos, NULL);
    char path[256];
    snprintf(path, sizeof path, "%s", write_temp(""));
    FILE *f = fopen(path, "w");
    sd_error err = { "" };
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(sd_counters_write_profile(&c, f, &err) == SD_OK, "%s", err.msg);
    ck_assert_int_eq(fclose(f), 0);
    sd_counts b = load_ok(path, NULL);
    expect_format(&b, "speculation-profile", 1);
    expect_counts(&b, 3, 387, 3 * 387, 451, pos, NULL);
    /* the numbers written: 250/387 = 0.6459948, 140/387 = 0.3617571, 61/387 = 0.1576227;
     * conditional 140/250 = 0.56, 61/140 = 0.4357143; mean 1 + 451/387 = 2.1653747;
     * lengths 1..4: 387 - 250, 250 - 140, 140 - 61, 61 */
    char text[4096];
    f = fopen(path, "r");
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[n] = '\0';
    ck_assert_ptr_nonnull(strstr(text, "\"schema_version\": \"1.0\""));
    ck_assert_ptr_nonnull(strstr(text, "\"measured\": true"));
    ck_assert_ptr_nonnull(strstr(text, "\"marginal_accept_rates\": [0.645995, 0.361757, 0.157623]"));
    ck_assert_ptr_nonnull(strstr(text, "\"conditional_accept_rates\": [0.645995, 0.56, 0.435714]"));
    ck_assert_ptr_nonnull(strstr(text, "\"mean_accept_length\": 2.165375"));
    ck_assert_ptr_nonnull(strstr(text, "\"acceptance_length_histogram\": {\"1\": 137, \"2\": 110, \"3\": 79, \"4\": 61}"));
    ck_assert_ptr_nonnull(strstr(text, "\"implied_mean_accept_length\": 2.165375"));
    ck_assert_ptr_nonnull(strstr(text, "\"abs_delta\": 0.0, \"tolerance\": 0.02, \"passed\": true"));
    /* counts without positions are refused, nothing written */
    sd_counts v0 = load_ok(fixture_path("counters-vllm-v0.log"), NULL);
    char *buf = NULL;
    size_t len = 0;
    f = open_memstream(&buf, &len);
    ck_assert_int_eq(sd_counters_write_profile(&v0, f, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "no per-position prefix counts (format vllm-v0)"));
    fclose(f);
    ck_assert_uint_eq(len, 0);
    free(buf);
}
END_TEST

/* ---- detection ------------------------------------------------------------------------------ */

START_TEST(json_detection)
{
    /* a log whose first line is not JSON is never a JSON reader's */
    sd_counts c = load_text("INFO SpecDecoding metrics: Draft acceptance rate: 50.0%, Mean acceptance length: 2.00, "
                            "Accepted: 4 tokens, Drafted: 8 tokens, Per-position acceptance rate: 0.500, 0.500, 0.000, "
                            "0.000\n{\"acceptance_histogram\": [1, 2]}\n",
                            NULL);
    ck_assert_str_eq(c.format, "vllm-v1");
    /* JSON wins over a log line quoted inside it */
    c = load_text("  \n [{\"msg\": \"SpecDecoding metrics: Accepted: 1 tokens\",\n  \"acceptance_histogram\": [1, 2]}]\n",
                  NULL);
    ck_assert_str_eq(c.format, "vllm-request");
    /* a UTF-8 byte order mark before the JSON, which the parser skips */
    c = load_text("\xEF\xBB\xBF{\"acceptance_histogram\": [1, 2]}\n", NULL);
    ck_assert_str_eq(c.format, "vllm-request");
    expect_fail_at("{\"acceptance_histogram\": [1, 2], \"spec_verify_ct\": 3}\n", NULL, 0,
                   "holds both vllm-request and sglang-request JSON");
    ck_assert(sd_counters_reader_vllm_request.detect(" \"acceptance_histogram\": [", 0));
    ck_assert(!sd_counters_reader_vllm_request.detect("\"acceptance_length_histogram\": {", 0));
    ck_assert(!sd_counters_reader_vllm_request.detect("acceptance_histogram", 0));
    ck_assert(sd_counters_reader_llama_timings.detect("{\"draft_n\":1,\"draft_n_accepted\":1}", 0));
    ck_assert(sd_counters_reader_sglang_request.detect("\"spec_verify_ct\": 1", 0));
    ck_assert(sd_counters_reader_speculation_profile.detect("\"marginal_accept_rates\": [", 0));
    ck_assert_int_eq(sd_counters_reader_vllm_request.by, SD_COUNTERS_BY_JSON);
    ck_assert_int_eq(sd_counters_reader_llama_timings.by, SD_COUNTERS_BY_JSON);
    ck_assert_int_eq(sd_counters_reader_sglang_request.by, SD_COUNTERS_BY_JSON);
    ck_assert_int_eq(sd_counters_reader_speculation_profile.by, SD_COUNTERS_BY_JSON);
}
END_TEST

Suite *counters_json_suite(void)
{
    Suite *s = suite_create("counters_json");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, vllm_request_fixture);
    tcase_add_test(tc, vllm_request_shapes);
    tcase_add_test(tc, vllm_request_bad);
    tcase_add_test(tc, llama_timings);
    tcase_add_test(tc, sglang_request);
    tcase_add_test(tc, speculation_profile);
    tcase_add_test(tc, speculation_profile_bad);
    tcase_add_test(tc, profile_round_trip);
    tcase_add_test(tc, json_detection);
    suite_add_tcase(s, tc);
    return s;
}
