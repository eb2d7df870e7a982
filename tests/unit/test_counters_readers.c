/* test_counters_readers.c -- the readers of src/counters as counters_impl.h lists them: the
 * table made from readers.def and each row's recogniser; and what the readers share: a part
 * of an input added to the whole, and the draft length the caller gave held to the input's
 * (counts.c).  Part of counters_suite (test_counters.c), through counters_readers_tests. */
#include <string.h>

#include "counters/counters_impl.h"
#include "counters_check.h"

/* Every line of readers.def: its ID and the row it names. */
#define SD_COUNTERS_READER(id) { #id, &sd_counters_reader_##id },
static const struct {
    const char *id;
    const sd_counters_reader *row;
} LISTED[] = {
#include "counters/readers.def"
};
#undef SD_COUNTERS_READER
#define NLISTED (sizeof LISTED / sizeof *LISTED)

/* The table and the names are readers.def's rows in its order; each row is whole, named
 * as its ID, once; only the scrape takes select and since, and it is the one fallback. */
START_TEST(reader_table)
{
    const char *const *f = sd_counters_formats();
    size_t n = 0;
    for (; sd_counters_readers[n] != NULL; n++) {
        const sd_counters_reader *r = sd_counters_readers[n];
        char id[sizeof r->name];
        ck_assert_uint_lt(n, NLISTED);
        ck_assert_ptr_eq(r, LISTED[n].row);
        ck_assert_ptr_eq(f[n], r->name);
        ck_assert(r->name[0] != '\0' && memchr(r->name, '\0', sizeof r->name) != NULL);
        ck_assert(r->detect != NULL && r->read != NULL);
        for (size_t i = 0; i < sizeof id; i++)
            id[i] = r->name[i] == '-' || r->name[i] == '.' ? '_' : r->name[i];
        ck_assert_str_eq(id, LISTED[n].id);
        for (size_t k = 0; k < n; k++)
            ck_assert_str_ne(f[k], r->name);
        ck_assert_int_eq(r->scrape, strcmp(r->name, "prometheus") == 0);
        ck_assert_int_eq(r->by == SD_COUNTERS_FALLBACK, strcmp(r->name, "prometheus") == 0);
    }
    ck_assert_uint_eq(n, NLISTED);
    ck_assert_ptr_null(f[n]);
}
END_TEST

/* A file no reader recognises, or a format no reader has: the message names every format. */
START_TEST(reader_names_in_messages)
{
    const char *const *f = sd_counters_formats();
    const sd_counts_options bogus = { .format = "vllm-v2" };
    const char *path = write_temp("nothing to see\nhere\n");
    for (int k = 0; k < 2; k++) {
        sd_counts c;
        sd_error err = { "" };
        ck_assert_int_eq(sd_counters_load(path, k ? &bogus : NULL, &c, &err), SD_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.msg, k ? "unknown format 'vllm-v2'; expected one of prometheus, "
                                                : "no speculative-decoding counts found: expected one of the formats "
                                                  "prometheus, "));
        for (size_t i = 0; f[i] != NULL; i++)
            ck_assert_msg(strstr(err.msg, f[i]) != NULL, "'%s' does not name %s", err.msg, f[i]);
    }
    unlink(path);
}
END_TEST

/* The recognisers, line by line: { row, line, first, whether the row claims it }. */
START_TEST(reader_recognisers)
{
    static const struct {
        const sd_counters_reader *r;
        const char *line;
        int first, want;
    } CASES[] = {
        { &sd_counters_reader_prometheus, "  vllm:spec_decode_num_drafts_total 3", 0, 1 },
        { &sd_counters_reader_prometheus, "{\"vllm:spec_decode_num_drafts\"} 3", 0, 1 },
        { &sd_counters_reader_prometheus, "# HELP x y", 1, 1 },
        { &sd_counters_reader_prometheus, "# HELP x y", 0, 0 },
        { &sd_counters_reader_prometheus, "vllm:num_requests_running 1", 0, 0 },
        { &sd_counters_reader_vllm_v1, "INFO [metrics.py:84] SpecDecoding metrics: Accepted: 1 tokens", 0, 1 },
        { &sd_counters_reader_vllm_v1, "SpecDecoding metrics Accepted", 0, 0 },
        { &sd_counters_reader_vllm_v0, "x Speculative metrics: Draft acceptance rate: 0.5, System efficiency: 0.4", 0,
          1 },
        { &sd_counters_reader_vllm_v0, "x Speculative metrics: Draft acceptance rate: 0.5", 0, 0 },
        { &sd_counters_reader_vllm_v1_early, "x Speculative metrics: Draft acceptance rate: 0.5", 0, 1 },
        { &sd_counters_reader_vllm_v1_early, "Speculative metrics: Number of speculative tokens: 3", 0, 0 },
        { &sd_counters_reader_vllm_bench, "---------------Speculative Decoding---------------", 0, 1 },
        { &sd_counters_reader_vllm_bench, "Speculative Decoding", 0, 0 },
        { &sd_counters_reader_vllm_bench, "--- Speculative Decoding ---", 0, 0 },
        { &sd_counters_reader_vllm_offline, "num_drafts: 3", 0, 1 },
        { &sd_counters_reader_vllm_offline, "acceptance at token 0: 0.50", 0, 1 },
        { &sd_counters_reader_vllm_offline, "num_drafts = 3", 0, 0 },
        { &sd_counters_reader_sglang, "[x TP0] Decode batch, #running-req: 1, accept len: 1.50, ", 0, 1 },
        { &sd_counters_reader_sglang, "Decode batch. #running-req: 1, accept len: 1.50", 0, 1 },
        { &sd_counters_reader_sglang, "Decode batch, #running-req: 1, #token: 5", 0, 0 },
        { &sd_counters_reader_trtllm_bench, "= DECODING STATISTICS (Eagle)", 0, 1 },
        { &sd_counters_reader_trtllm_bench, "[DAR] AVERAGE: 0.55", 0, 1 },
        { &sd_counters_reader_trtllm_bench, "[DARK] AVERAGE: 0.55", 0, 0 },
        { &sd_counters_reader_llama_speculative, "0.06.896.015 I n_drafted = 912", 0, 1 },
        { &sd_counters_reader_llama_speculative, "generate: n_ctx = 4096, n_predict = 256, n_keep = 0", 0, 0 },
        { &sd_counters_reader_llama_speculative, "xn_drafted = 912", 0, 0 },
        { &sd_counters_reader_llama_cpp, "slot print_timing: draft acceptance rate = 0.5 (1 accepted / 2 generated)", 0,
          1 },
        { &sd_counters_reader_llama_cpp, "     acc per pos = (0.5)", 0, 1 },
        { &sd_counters_reader_llama_cpp, "statistics ngram: #calls(b,g,a) = 1 2 2, #gen drafts = 2", 0, 1 },
        { &sd_counters_reader_llama_cpp, "statistics ngram: nothing", 0, 0 },
        { &sd_counters_reader_tsv, " drafts \tx\tgamma", 0, 1 },
        { &sd_counters_reader_tsv, "gamma drafts", 0, 0 },
        { &sd_counters_reader_histogram, "count\taccepted ", 0, 1 },
        { &sd_counters_reader_histogram, "accepted\tcounts", 0, 0 },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++)
        ck_assert_msg(CASES[i].r->detect(CASES[i].line, CASES[i].first) == CASES[i].want, "%s on '%s': expected %d",
                      CASES[i].r->name, CASES[i].line, CASES[i].want);
}
END_TEST

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
    tcase_add_test(tc, reader_table);
    tcase_add_test(tc, reader_names_in_messages);
    tcase_add_test(tc, reader_recognisers);
    tcase_add_test(tc, counts_block_add);
    tcase_add_test(tc, counts_gamma_agrees);
}
