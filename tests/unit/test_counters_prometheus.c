/* test_counters_prometheus.c -- the prometheus reader and writer of counters.h: a /metrics
 * scrape of vLLM's, llama.cpp's, TensorRT-LLM's or SGLang's speculative-decoding metrics.
 *
 * Fixtures are tests/fixtures/counters-*.prom (each cites the engine source it follows on its
 * first line; see tests/fixtures/README.md); bad inputs are written inline.  Every expected
 * count is worked out by hand in the comments.  Run from the top of the tree (as make does). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/counters.h"
#include "counters/counters_impl.h"
#include "counters_check.h"
#include "testutil.h"

/* ---- vLLM and llama.cpp --------------------------------------------------------------------- */

START_TEST(prometheus_two_engines)
{
    sd_counts c = load_ok(fixture("counters-two-engines.prom"), NULL);
    const double pos[3] = { 960, 680, 400 };
    ck_assert_str_eq(c.format, "prometheus");
    ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(c.has_positions, 1);
    ck_assert_int_eq(c.reached_assumed, 0);
    expect_counts(&c, 3, 1400, 4200, 2040, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Summed 2 series"));
    ck_assert_ptr_nonnull(strstr(c.notes, "engine=\"1\""));

    /* one engine by its model name, plain and quoted */
    const double pos0[3] = { 700, 500, 300 }, pos1[3] = { 260, 180, 100 };
    sd_counts_options o = { .select = "model_name=meta-llama/Llama-3.1-8B-Instruct" };
    c = load_ok(fixture("counters-two-engines.prom"), &o);
    expect_counts(&c, 3, 1000, 3000, 1500, pos0, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Selected"));
    o.select = "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"";
    c = load_ok(fixture("counters-two-engines.prom"), &o);
    expect_counts(&c, 3, 1000, 3000, 1500, pos0, NULL);
    /* the escaped label value, as decoded: a quote, a backslash and a line feed */
    o.select = "model_name=weird \"quoted\" \\ name\n";
    c = load_ok(fixture("counters-two-engines.prom"), &o);
    expect_counts(&c, 3, 400, 1200, 540, pos1, NULL);
    ck_assert_msg(strchr(c.notes, '\n') == NULL, "a line feed reached the notes");
    o.select = "engine=1";
    c = load_ok(fixture("counters-two-engines.prom"), &o);
    expect_counts(&c, 3, 400, 1200, 540, pos1, NULL);
    /* named explicitly, with the gamma it has */
    sd_counts_options named = { .format = "prometheus", .gamma = 3 };
    c = load_ok(fixture("counters-two-engines.prom"), &named);
    expect_counts(&c, 3, 1400, 4200, 2040, pos, NULL);
}
END_TEST

START_TEST(prometheus_since)
{
    char early[4096];
    snprintf(early, sizeof early, "%s", fixture("counters-since-early.prom"));
    sd_counts_options o = { .since = early };
    sd_counts c = load_ok(fixture("counters-two-engines.prom"), &o);
    const double pos[3] = { 680, 480, 280 };
    expect_counts(&c, 3, 1000, 3000, 1440, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "increase since the earlier scrape"));

    /* the same with a select: engine 0 only */
    o.select = "engine=0";
    c = load_ok(fixture("counters-two-engines.prom"), &o);
    const double pos0[3] = { 420, 300, 180 };
    expect_counts(&c, 3, 600, 1800, 900, pos0, NULL);

    /* a counter that decreased: a restart */
    char restart[4096], later[4096];
    snprintf(restart, sizeof restart, "%s", fixture("counters-since-restart.prom"));
    snprintf(later, sizeof later, "%s", fixture("counters-two-engines.prom"));
    sd_counts_options r = { .since = restart };
    sd_error err;
    ck_assert_int_eq(sd_counters_load(later, &r, &c, &err), SD_EINVAL);
    char head[4200];
    snprintf(head, sizeof head, "%s:24: counter vllm:spec_decode_num_drafts{", later);
    ck_assert_msg(strncmp(err.msg, head, strlen(head)) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "decreased between scrapes"));
    ck_assert_ptr_nonnull(strstr(err.msg, "restart?"));

    /* the scrapes swapped: engine 1 vanished */
    sd_counts_options w = { .since = later };
    ck_assert_int_eq(sd_counters_load(early, &w, &c, &err), SD_EINVAL);
    ck_assert_msg(strncmp(err.msg, early, strlen(early)) == 0, "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(err.msg, "restart?"));
}
END_TEST

/* The corners of the exposition syntax the format allows. */
START_TEST(prometheus_syntax)
{
    const char *text = "# TYPE \"vllm:spec_decode_num_drafts_total\" counter\r\n"
                       "{\"vllm:spec_decode_num_drafts_total\", engine = \"0\" , } 10\r\n"
                       "  vllm:spec_decode_num_draft_tokens_total{engine=\"0\",} 20 -1\n"
                       "vllm:spec_decode_num_accepted_tokens_total{\"engine\"=\"0\"}9\n"
                       "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\",engine=\"0\"}\t3.0e0\n"
                       "vllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",position=\"0\"} 6\n"
                       "other_metric{x=\"}{,=\\\\\"} -inf\nother_metric2 Infinity\nother_metric3 .5\n";
    const char *path = write_temp(text);
    sd_counts c = load_ok(path, NULL);
    unlink(path);
    const double pos[2] = { 6, 3 };
    expect_counts(&c, 2, 10, 20, 9, pos, NULL);
}
END_TEST

/* llama.cpp's /metrics: vLLM's names under llamacpp: (PR #26389). */
START_TEST(prometheus_llamacpp)
{
    sd_counts c = load_ok(fixture("counters-llamacpp.prom"), NULL);
    const double pos[3] = { 70, 55, 42 };
    ck_assert_str_eq(c.format, "prometheus");
    ck_assert_int_eq(c.kind, SD_COUNTS_PREFIX);
    expect_counts(&c, 3, 87, 259, 167, pos, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "Read llama.cpp's metrics"));
    ck_assert_ptr_nonnull(strstr(c.notes, "not checked in its source"));
    ck_assert_ptr_null(strstr(c.notes, "vLLM"));
    /* the names without _total, as the PR lists them */
    const char *plain = "llamacpp:spec_decode_num_drafts 10\nllamacpp:spec_decode_num_draft_tokens 20\n"
                        "llamacpp:spec_decode_num_accepted_tokens 9\n"
                        "llamacpp:spec_decode_num_accepted_tokens_per_pos{position=\"0\"} 6\n"
                        "llamacpp:spec_decode_num_accepted_tokens_per_pos{position=\"1\"} 3\n";
    const char *path = write_temp(plain);
    c = load_ok(path, NULL);
    const double pos2[2] = { 6, 3 };
    expect_counts(&c, 2, 10, 20, 9, pos2, NULL);
    /* an earlier scrape of another engine */
    sd_counts_options o = { .since = fixture("counters-since-early.prom") };
    expect_fail_path(path, &o, "has vLLM's counters, this scrape llama.cpp's");
    unlink(path);
    /* one engine per scrape; missing counters named with the engine's prefix */
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\nllamacpp:spec_decode_num_drafts 10\n", NULL, 2,
                   "llamacpp:spec_decode_num_drafts is llama.cpp's, but line 1 has vLLM's counters");
    expect_fail_at("llamacpp:spec_decode_num_drafts_total 10\n", NULL, 0,
                   "missing counters: llamacpp:spec_decode_num_draft_tokens, llamacpp:spec_decode_num_accepted_tokens");
    expect_fail_at("# TYPE llamacpp:spec_decode_num_drafts gauge\n", NULL, 1,
                   "is declared a gauge; llama.cpp's is a counter");
    ck_assert(sd_counters_reader_prometheus.detect("llamacpp:spec_decode_num_drafts 3", 0));
    ck_assert(!sd_counters_reader_prometheus.detect("llamacpp:tokens_predicted_total 3", 0));
}
END_TEST

/* ---- the writer ------------------------------------------------------------------------------ */

static void round_trip(const char *name, const sd_counts_options *o)
{
    sd_counts c = load_ok(fixture(name), o), back;
    char path[] = "/tmp/specdec-counters-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    sd_error err = { "" };
    ck_assert_msg(sd_counters_write_prometheus(&c, f, &err) == SD_OK, "%s", err.msg);
    fclose(f);
    back = load_ok(path, NULL);
    unlink(path);
    ck_assert_str_eq(back.format, "prometheus");
    ck_assert_int_eq(back.kind, SD_COUNTS_PREFIX);
    ck_assert_int_eq(back.has_positions, 1);
    expect_counts(&back, c.gamma, c.drafts, c.draft_tokens, c.accepted_tokens, c.accepted_at, NULL);
}

START_TEST(writer_round_trip)
{
    sd_counts_options g4 = { .gamma = 4 };
    round_trip("counters-two-engines.prom", NULL);
    round_trip("counters-vllm-v1.log", NULL);
    round_trip("counters-llama.log", NULL);
    round_trip("counters-positions.tsv", NULL);
    round_trip("counters-histogram.tsv", &g4);

    /* what vLLM's counters cannot hold: nothing is written */
    sd_counts v0 = load_ok(fixture("counters-vllm-v0.log"), NULL), bad;
    char buf[64] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    sd_error err;
    ck_assert_int_eq(sd_counters_write_prometheus(&v0, f, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "kind any"));
    bad = load_ok(fixture("counters-positions.tsv"), NULL);
    bad.accepted_at[2] = bad.accepted_at[1] + 1;
    ck_assert_int_eq(sd_counters_write_prometheus(&bad, f, &err), SD_EINVAL);
    bad.accepted_at[2] = 57, bad.drafts = 0.5;
    ck_assert_int_eq(sd_counters_write_prometheus(&bad, f, &err), SD_EINVAL);
    bad.drafts = 350, bad.gamma = 0;
    ck_assert_int_eq(sd_counters_write_prometheus(&bad, f, &err), SD_EINVAL);
    fflush(f);
    ck_assert_int_eq(ftell(f), 0);
    fclose(f);

    /* a format name with a line feed stays in its comment line */
    sd_counts odd = load_ok(fixture("counters-positions.tsv"), NULL);
    snprintf(odd.format, sizeof odd.format, "x\nvllm:spec_decode_num_drafts 5");
    char path[] = "/tmp/specdec-counters-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    f = fdopen(fd, "w");
    ck_assert_int_eq(sd_counters_write_prometheus(&odd, f, &err), SD_OK);
    fclose(f);
    sd_counts back = load_ok(path, NULL);
    unlink(path);
    ck_assert_double_eq(back.drafts, 350);
}
END_TEST

#define PROM_OK_TAIL                                                                                                  \
    "vllm:spec_decode_num_draft_tokens_total 20\nvllm:spec_decode_num_accepted_tokens_total 9\n"                      \
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"0\"} 6\n"                                          \
    "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"} 3\n"

START_TEST(bad_prometheus)
{
    expect_fail_at("# TYPE x gauge\nx 1\nvllm:spec_decode_num_drafts_total{engine=\"0\" 10\n" PROM_OK_TAIL, NULL, 3,
                   "malformed exposition line");
    expect_fail_at("# TYPE x gauge\nx{a=\"\\x\"} 1\n", NULL, 2, "malformed exposition line");
    expect_fail_at("# TYPE x gauge\nx{a=\"b\"} one\n", NULL, 2, "not a number");
    expect_fail_at("# TYPE x gauge\nx 1 2 3\n", NULL, 2, "timestamp");
    expect_fail_at("# TYPE vllm:spec_decode_num_drafts_total gauge\n", NULL, 1, "is declared a gauge");
    expect_fail_at("# HELP x \\t\n", NULL, 1, "HELP");
    expect_fail_at("# TYPE x gauge\nx 1\n", NULL, 0, "no speculative-decoding counters: expected vLLM's "
                                                    "vllm:spec_decode_num_drafts, vllm:spec_decode_num_draft_tokens");
    expect_fail_at("# TYPE x gauge\nx 1\n", NULL, 0, "or llama.cpp's llamacpp:spec_decode_num_drafts, ");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\n", NULL, 0,
                   "missing counters: vllm:spec_decode_num_draft_tokens, vllm:spec_decode_num_accepted_tokens, "
                   "vllm:spec_decode_num_accepted_tokens_per_pos");
    expect_fail_at("vllm:spec_decode_num_drafts_total NaN\n" PROM_OK_TAIL, NULL, 1, "not a whole count");
    expect_fail_at("vllm:spec_decode_num_drafts_total -10\n" PROM_OK_TAIL, NULL, 1, "not a whole count");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10.5\n" PROM_OK_TAIL, NULL, 1, "not a whole count");
    expect_fail_at("vllm:spec_decode_num_drafts_total +Inf\n" PROM_OK_TAIL, NULL, 1, "not a whole count");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 20\n"
                   "vllm:spec_decode_num_accepted_tokens_total 9\n"
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"0\"} 3\n"
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"} 6\n",
                   NULL, 5, "rises");
    expect_fail_at("vllm:spec_decode_num_drafts_total 0\nvllm:spec_decode_num_draft_tokens_total 0\n"
                   "vllm:spec_decode_num_accepted_tokens_total 0\n"
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"0\"} 0\n",
                   NULL, 0, "zero drafts");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\n" PROM_OK_TAIL
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"64\"} 0\n",
                   NULL, 6, "gamma beyond 64");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\n" PROM_OK_TAIL "vllm:spec_decode_num_drafts 10\n", NULL, 6,
                   "the same series again (first on line 1)");
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\nvllm:spec_decode_num_draft_tokens_total 20\n"
                   "vllm:spec_decode_num_accepted_tokens_total 12\n"
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"0\"} 6\n"
                   "vllm:spec_decode_num_accepted_tokens_per_pos_total{position=\"1\"} 3\n",
                   NULL, 0, "12 accepted tokens, but the per-position counts sum to 9");
    expect_fail_at("vllm:spec_decode_num_drafts_total{engine=\"0\"} 10\n" PROM_OK_TAIL, NULL, 1,
                   "has no vllm:spec_decode_num_draft_tokens");
    sd_counts_options sel = { .select = "engine=7" };
    expect_fail_at("vllm:spec_decode_num_drafts_total{engine=\"0\"} 10\n", &sel, 0,
                   "no speculative-decoding counters with engine=7");
    sd_counts_options bad_sel = { .select = "engine" };
    expect_fail_at("vllm:spec_decode_num_drafts_total 10\n", &bad_sel, 0, "expected label=value");
}
END_TEST

/* ---- TensorRT-LLM ---------------------------------------------------------------------------- */

START_TEST(trtllm_positions)
{
    /* drafted 400, 400, 380 and accepted 300, 210, 140 at positions 0..2: 400 drafts, 1180
     * draft tokens, 650 accepted; the iteration counters (1190, 655) beside them are not used */
    sd_counts c = load_ok(fixture("counters-trtllm.prom"), NULL);
    const double pos[3] = { 300, 210, 140 }, reached[3] = { 400, 400, 380 };
    expect_format(&c, "prometheus", 1);
    expect_counts(&c, 3, 400, 1180, 650, pos, reached);
    ck_assert_int_eq(c.reached_assumed, 0);
    ck_assert_ptr_nonnull(strstr(c.notes, "Read TensorRT-LLM's metrics"));
    ck_assert_ptr_nonnull(strstr(c.notes, "(1190 draft tokens, 655 accepted) are not used"));
    ck_assert(
        sd_counters_reader_prometheus.detect("trtllm_spec_decode_drafted_tokens_total{token_position=\"0\"} 1.0", 0));
    ck_assert(!sd_counters_reader_prometheus.detect("trtllm_request_success_total 3.0", 0));

    /* two workers summed, and one selected: 10 + 6 drafts */
    const char *two = "trtllm_spec_decode_drafted_tokens_total{token_position=\"0\",worker=\"0\"} 10\n"
                      "trtllm_spec_decode_drafted_tokens_total{token_position=\"1\",worker=\"0\"} 9\n"
                      "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\",worker=\"0\"} 7\n"
                      "trtllm_spec_decode_accepted_tokens_total{token_position=\"1\",worker=\"0\"} 4\n"
                      "trtllm_spec_decode_drafted_tokens_total{token_position=\"0\",worker=\"1\"} 6\n"
                      "trtllm_spec_decode_drafted_tokens_total{token_position=\"1\",worker=\"1\"} 6\n"
                      "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\",worker=\"1\"} 3\n"
                      "trtllm_spec_decode_accepted_tokens_total{token_position=\"1\",worker=\"1\"} 1\n"
                      "trtllm_spec_decode_drafted_tokens_created{token_position=\"0\",worker=\"0\"} 999\n";
    c = load_text(two, NULL);
    const double pos2[2] = { 10, 5 }, reached2[2] = { 16, 15 };
    expect_counts(&c, 2, 16, 31, 15, pos2, reached2);
    ck_assert_ptr_nonnull(strstr(c.notes, "Summed 2 series"));
    sd_counts_options sel = { .select = "worker=1" };
    c = load_text(two, &sel);
    const double pos1[2] = { 3, 1 };
    expect_counts(&c, 2, 6, 12, 4, pos1, NULL);
}
END_TEST

START_TEST(trtllm_iterations)
{
    /* the iteration counters alone: 300 draft tokens / --gamma 3 = 100 drafts, 170 accepted */
    const char *it = "# TYPE trtllm_spec_decode_num_draft_tokens counter\n"
                     "trtllm_spec_decode_num_draft_tokens_total{engine_type=\"trtllm\"} 300.0\n"
                     "trtllm_spec_decode_num_accepted_tokens_total{engine_type=\"trtllm\"} 170.0\n"
                     "trtllm_spec_decode_acceptance_length{engine_type=\"trtllm\"} 2.5\n";
    sd_counts_options g3 = { .gamma = 3, .gamma_name = "--gamma" };
    sd_counts c = load_text(it, &g3);
    expect_format(&c, "prometheus", 0);
    expect_counts(&c, 3, 100, 300, 170, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "drafts = draft tokens / 3 (--gamma)"));
    sd_counts_options named = { .gamma_name = "--gamma" };
    expect_fail_at(it, &named, 2, "give the draft length (max_draft_len) with --gamma");
    sd_counts_options g7 = { .gamma = 7 };
    expect_fail_at(it, &g7, 0, "300 draft tokens are no multiple of gamma = 7");
    /* the gauge alone is not read: it holds one iteration */
    expect_fail_at("trtllm_spec_decode_acceptance_length 2.5\n", &g3, 0,
                   "missing counters: trtllm_spec_decode_num_draft_tokens, trtllm_spec_decode_num_accepted_tokens "
                   "(or the per-position");
}
END_TEST

START_TEST(trtllm_bad)
{
    const char *d = "trtllm_spec_decode_drafted_tokens_total{token_position=\"0\"} 10\n"
                    "trtllm_spec_decode_drafted_tokens_total{token_position=\"1\"} 5\n";
    char text[1024];
    snprintf(text, sizeof text, "%s%s", d,
             "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} 7\n"
             "trtllm_spec_decode_accepted_tokens_total{token_position=\"1\"} 6\n");
    expect_fail_at(text, NULL, 4, "at position 1 is 6, more than the 5 drafted there");
    snprintf(text, sizeof text, "%s%s", d, "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} 7\n");
    expect_fail_at(text, NULL, 1, "have 2 drafted and 1 accepted positions");
    expect_fail_at("trtllm_spec_decode_drafted_tokens_total{token_position=\"0\"} 8\n"
                   "trtllm_spec_decode_drafted_tokens_total{token_position=\"1\"} 10\n"
                   "trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} 7\n"
                   "trtllm_spec_decode_accepted_tokens_total{token_position=\"1\"} 5\n",
                   NULL, 2, "a draft with a token at position 1 has one at 0");
    expect_fail_at("trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} 7\n", NULL, 0,
                   "missing counters: trtllm_spec_decode_drafted_tokens");
    expect_fail_at("trtllm_spec_decode_accepted_tokens_total{position=\"0\"} 7\n", NULL, 1,
                   "trtllm_spec_decode_accepted_tokens without a token_position label");
    expect_fail_at("trtllm_spec_decode_accepted_tokens_total{token_position=\"0\"} 7.5\n", NULL, 1,
                   "7.5 is not a whole count");
}
END_TEST

/* ---- SGLang ----------------------------------------------------------------------------------- */

START_TEST(sglang_counters)
{
    /* 12050 generation tokens (6100 + 5950) - 50 requests (30 + 20) - 5000 verifies = 7000
     * accepted drafts over 5000 drafts of gamma 3 (sglang:spec_num_steps) */
    sd_counts c = load_ok(fixture("counters-sglang.prom"), NULL);
    expect_format(&c, "prometheus", 0);
    ck_assert_int_eq(c.gauge, 0);
    expect_counts(&c, 3, 5000, 15000, 7000, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "gamma from sglang:spec_num_steps"));
    ck_assert_ptr_nonnull(strstr(c.notes, "sglang:spec_accept_length (the last logging window) is 2.35"));
    ck_assert_ptr_null(strstr(c.notes, "trees"));
    /* --gamma wins over the gauge */
    sd_counts_options g4 = { .gamma = 4 };
    c = load_ok(fixture("counters-sglang.prom"), &g4);
    expect_counts(&c, 4, 5000, 20000, 7000, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "not gamma + 1: the drafts are trees"));
    ck_assert(sd_counters_reader_prometheus.detect("sglang:spec_accept_length{tp_rank=\"0\"} 2.35", 0));
    ck_assert(!sd_counters_reader_prometheus.detect("sglang:num_requests_total 3", 0));

    /* since an earlier scrape: 2000 verifies, 4020 tokens, 20 requests -> 3000 verifies, 8030
     * tokens, 30 requests, 5000 accepted */
    const char *early = "sglang:generation_tokens_total{engine_type=\"unified\",is_streaming=\"false\","
                        "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 4020.0\n"
                        "sglang:spec_verify_calls_total{engine_type=\"unified\",model_name=\"meta-llama/"
                        "Llama-3.1-8B-Instruct\"} 2000.0\n"
                        "sglang:num_requests_total{engine_type=\"unified\",is_streaming=\"false\","
                        "model_name=\"meta-llama/Llama-3.1-8B-Instruct\"} 20.0\n"
                        "sglang:spec_num_steps 5\n";
    char path[256];
    snprintf(path, sizeof path, "%s", write_temp(early));
    sd_counts_options since = { .since = path };
    c = load_ok(fixture("counters-sglang.prom"), &since);
    unlink(path);
    expect_counts(&c, 3, 3000, 9000, 5000, NULL, NULL);
    ck_assert_ptr_nonnull(strstr(c.notes, "series absent from it counted whole"));
}
END_TEST

START_TEST(sglang_gauges)
{
    /* version A: 2.6 / 0.65 - 1 = 3; version B would need (2.6 - 1) / 0.65 = 2.46 */
    sd_counts c = load_ok(fixture("counters-sglang-gauge.prom"), NULL);
    expect_format(&c, "prometheus", 0);
    ck_assert_int_eq(c.gauge, 1);
    ck_assert_uint_eq(c.gamma, 3);
    ck_assert_double_eq_tol(c.mean_accepted, 1.6, 1e-12);
    ck_assert_double_eq(c.drafts, 0.0);
    ck_assert_ptr_nonnull(strstr(c.notes, "version A's rate = len / (gamma + 1)"));
    /* version B: (2.35 - 1) / 0.45 = 3; A would need 2.35 / 0.45 - 1 = 4.22 */
    c = load_text("sglang:spec_accept_length 2.35\nsglang:spec_accept_rate 0.45\n", NULL);
    ck_assert_uint_eq(c.gamma, 3);
    ck_assert_double_eq_tol(c.mean_accepted, 1.35, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.notes, "version B's rate = (len - 1) / gamma"));
    /* two ranks: the plain mean of 2.2 and 2.6 */
    c = load_text("sglang:spec_accept_length{tp_rank=\"0\"} 2.2\nsglang:spec_accept_length{tp_rank=\"1\"} 2.6\n"
                  "sglang:spec_num_steps{tp_rank=\"0\"} 4\n",
                  NULL);
    ck_assert_uint_eq(c.gamma, 4);
    ck_assert_double_eq_tol(c.mean_accepted, 1.4, 1e-12);
    ck_assert_ptr_nonnull(strstr(c.notes, "the plain mean over its label sets"));
}
END_TEST

START_TEST(sglang_bad)
{
    sd_counts_options named = { .gamma_name = "--gamma" };
    /* len 2, rate 0.5: version A says 3, B says 2 */
    expect_fail_at("sglang:spec_accept_length 2\nsglang:spec_accept_rate 0.5\n", &named, 0,
                   "give the draft length (SGLang's --speculative-num-steps) with --gamma: the scrape has no "
                   "sglang:spec_num_steps, and its accept length and rate fit no one draft length");
    expect_fail_at("sglang:spec_accept_length 2\n", &named, 0, "no accept length and rate gauges to tell it");
    expect_fail_at("sglang:spec_verify_calls_total 10\nsglang:generation_tokens_total 40\nsglang:num_requests_total 2\n",
                   &named, 0, "with --gamma");
    expect_fail_at("sglang:spec_accept_length 0.0\nsglang:spec_num_steps 3\n", NULL, 0, "no decode window has been logged");
    expect_fail_at("sglang:spec_accept_length 5.0\nsglang:spec_num_steps 3\n", NULL, 0,
                   "5 is outside [1, gamma + 1 = 4]");
    expect_fail_at("sglang:spec_accept_length 2.0\nsglang:spec_num_steps 2.5\n", NULL, 0,
                   "sglang:spec_num_steps 2.5 is not a draft length");
    /* 100 - 1 - 10 = 89 accepted of at most 30 */
    expect_fail_at("sglang:spec_verify_calls_total 10\nsglang:generation_tokens_total 100\n"
                   "sglang:num_requests_total 1\nsglang:spec_num_steps 3\n",
                   NULL, 0, "= 89 accepted draft tokens, outside [0, 30] for gamma = 3");
    expect_fail_at("sglang:spec_verify_calls_total 10\nsglang:spec_num_steps 3\n", NULL, 0,
                   "missing counters: sglang:generation_tokens, sglang:num_requests");
    expect_fail_at("# HELP sglang:generation_tokens_total x\nsglang:generation_tokens_total 100\n"
                   "sglang:num_requests_total 1\n",
                   NULL, 0,
                   "SGLang's metrics without speculative decoding");
    expect_fail_at("# TYPE sglang:spec_verify_calls gauge\n", NULL, 1, "is declared a gauge; SGLang's is a counter");
    expect_fail_at("# TYPE sglang:spec_accept_length counter\n", NULL, 1, "is declared a counter; SGLang's is a gauge");
    expect_fail_at("sglang:spec_accept_length NaN\n", NULL, 1, "sglang:spec_accept_length: NaN is not a finite number");
    expect_fail_at("sglang:spec_accept_length 2\nvllm:spec_decode_num_drafts 3\n", NULL, 2,
                   "is vLLM's, but line 1 has SGLang's counters");
}
END_TEST

Suite *counters_prometheus_suite(void)
{
    Suite *s = suite_create("counters_prometheus");
    TCase *tc = tcase_create("counters_prometheus");
    tcase_add_test(tc, prometheus_two_engines);
    tcase_add_test(tc, prometheus_since);
    tcase_add_test(tc, prometheus_syntax);
    tcase_add_test(tc, prometheus_llamacpp);
    tcase_add_test(tc, writer_round_trip);
    tcase_add_test(tc, bad_prometheus);
    tcase_add_test(tc, trtllm_positions);
    tcase_add_test(tc, trtllm_iterations);
    tcase_add_test(tc, trtllm_bad);
    tcase_add_test(tc, sglang_counters);
    tcase_add_test(tc, sglang_gauges);
    tcase_add_test(tc, sglang_bad);
    suite_add_tcase(s, tc);
    return s;
}
