/* test_partial.c -- sharded engine runs and their partial results: a merge
 * of any number of shards is the unsharded run, bit for bit; the text form
 * round-trips exactly; the merge refuses missing, doubled and foreign parts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "specdec/engine.h"
#include "specdec/partial.h"
#include "specdec/synth.h"
#include "specdec/verify.h"
#include "testutil.h"

static sd_model *model(unsigned vocab, sd_regime regime)
{
    sd_synth_config c = { .family = SD_FAMILY_ZIPF, .vocab = vocab, .zipf_s = 1.2, .kappa = 0.5, .temperature = 1.0,
        .calibrated = 1, .alpha = 0.7, .regime = regime, .concentration = 20, .alpha_easy = 0.95,
        .alpha_hard = 0.3, .stay = 0.9, .contexts = 8, .history = 2, .seed = 5, .threads = 1 };
    sd_model *m;
    ck_assert_int_eq(sd_synth_model(&c, &m, NULL), SD_OK);
    return m;
}

/* Every count and the alpha estimate, compared exactly. */
static void assert_same(const sd_engine_stats *a, const sd_engine_stats *b)
{
    ck_assert_uint_eq(a->iterations, b->iterations);
    ck_assert_uint_eq(a->tokens, b->tokens);
    ck_assert_uint_eq(a->sequences, b->sequences);
    ck_assert_uint_eq(a->draft_calls, b->draft_calls);
    ck_assert_uint_eq(a->target_calls, b->target_calls);
    ck_assert_uint_eq(a->target_positions, b->target_positions);
    ck_assert_uint_eq(a->verified, b->verified);
    ck_assert_uint_eq(a->accepted, b->accepted);
    ck_assert(memcmp(&a->alpha_hat, &b->alpha_hat, sizeof(double)) == 0);
    ck_assert_uint_eq(a->nchunks, b->nchunks);
    ck_assert(memcmp(a->chunk_beta, b->chunk_beta, a->nchunks * sizeof(double)) == 0);
    ck_assert(memcmp(a->n_hist, b->n_hist, (a->max_n + 1) * sizeof(uint64_t)) == 0);
    ck_assert(memcmp(a->reached, b->reached, a->max_gamma * sizeof(uint64_t)) == 0);
    ck_assert(memcmp(a->ctx_tokens, b->ctx_tokens, a->contexts * sizeof(uint64_t)) == 0);
    ck_assert((a->out_counts == NULL) == (b->out_counts == NULL));
    if (a->out_counts != NULL)
        ck_assert(memcmp(a->out_counts, b->out_counts, a->contexts * a->vocab * sizeof(uint64_t)) == 0);
    ck_assert(memcmp(a->pos_counts, b->pos_counts, a->positions * a->vocab * sizeof(uint64_t)) == 0);
    ck_assert((a->moves == NULL) == (b->moves == NULL));
    if (a->moves != NULL)
        ck_assert(memcmp(a->moves, b->moves, 2 * (a->max_gamma + 1) * SD_MOVE_BINS * sizeof(uint64_t)) == 0);
}

/* The run's n shards, each written as text and read back, then merged. */
static void shard_and_merge(sd_engine_config ec, unsigned n, unsigned threads, sd_engine_stats *merged)
{
    sd_partial *parts = calloc(n, sizeof *parts);
    const char **names = calloc(n, sizeof *names);
    for (unsigned i = 0; i < n; i++) {
        sd_partial p = sd_partial_init(i + 1, n);
        sd_engine_io io = { .record = record_partial, .arg = &p };
        ec.shard = i + 1, ec.nshards = n, ec.io = &io, ec.threads = threads;
        sd_engine_stats s;
        sd_error err;
        ck_assert_int_eq(sd_partial_add_context(&p, "run 0 simulate\x1f--seed\x1f" "7", &err), SD_OK);
        ck_assert_int_eq(sd_engine_run(&ec, &s, &err), SD_OK);
        ck_assert(s.iterations > 0); /* what the caller gets always counts something */
        sd_engine_stats_free(&s);
        ck_assert_uint_eq(p.nruns, 1);
        char path[64];
        snprintf(path, sizeof path, "/tmp/specdec-partial-%ld-%u", (long)getpid(), i);
        FILE *f = fopen(path, "w+");
        ck_assert_int_eq(sd_partial_write(&p, f, &err), SD_OK);
        rewind(f);
        size_t line = 0;
        int got;
        ck_assert_int_eq(sd_partial_read(f, path, &line, &parts[i], &got, &err), SD_OK);
        ck_assert_int_eq(got, 1);
        assert_same(&parts[i].runs[0].stats, &p.runs[0].stats);
        ck_assert_int_eq(sd_partial_read(f, path, &line, &parts[n - 1], &got, &err), SD_OK); /* end of file */
        ck_assert_int_eq(got, 0);
        fclose(f);
        unlink(path);
        sd_partial_free(&p);
        names[i] = "part";
    }
    sd_partial m;
    sd_error err;
    ck_assert_int_eq(sd_partial_merge(parts, names, n, &m, &err), SD_OK);
    ck_assert_uint_eq(m.nruns, 1);
    ck_assert_uint_eq(m.ncontext, 1);
    *merged = m.runs[0].stats;
    m.runs[0].stats = (sd_engine_stats){ 0 };
    sd_partial_free(&m);
    for (unsigned i = 0; i < n; i++)
        sd_partial_free(&parts[i]);
    free(parts);
    free(names);
}

START_TEST(shards_merge_bit_for_bit)
{
    sd_model *m = model(300, SD_REGIME_MARKOV);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find("adjusted"), ec.gamma = 4, ec.tokens = 150000, ec.seed = 11;
    ec.positions = 3;
    sd_engine_stats whole;
    ck_assert_int_eq(sd_engine_run(&ec, &whole, NULL), SD_OK);
    ck_assert_uint_ge(whole.nchunks, 8);
    static const unsigned shards[] = { 1, 2, 3, 7 }, threads[] = { 1, 2, 3, 1 };
    for (int k = 0; k < 4; k++) {
        sd_engine_stats merged;
        shard_and_merge(ec, shards[k], threads[k], &merged);
        assert_same(&merged, &whole);
        sd_engine_stats_free(&merged);
    }
    /* more shards than chunks: the empty ones record nothing, the merge is still exact */
    sd_engine_stats merged;
    shard_and_merge(ec, (unsigned)whole.nchunks + 2, 2, &merged);
    assert_same(&merged, &whole);
    sd_engine_stats_free(&merged);
    /* the heuristic policy's moves and no output counts */
    ec.policy = SD_POLICY_HEURISTIC, ec.gamma_max = 9, ec.skip_outputs = 1;
    sd_engine_stats_free(&whole);
    ck_assert_int_eq(sd_engine_run(&ec, &whole, NULL), SD_OK);
    ck_assert_ptr_null(whole.out_counts);
    ck_assert_ptr_nonnull(whole.moves);
    shard_and_merge(ec, 3, 2, &merged);
    assert_same(&merged, &whole);
    sd_engine_stats_free(&merged);
    sd_engine_stats_free(&whole);
    sd_model_free(m);
}
END_TEST

/* A negative control: merging the wrong parts must not pass as the run. */
START_TEST(merge_refuses_wrong_parts)
{
    sd_model *m = model(50, SD_REGIME_CONSTANT);
    sd_engine_config ec = sd_engine_defaults();
    ec.model = m, ec.verifier = sd_verify_find("adjusted"), ec.gamma = 3, ec.tokens = 60000, ec.seed = 3;
    sd_partial p[4];
    const char *names[] = { "a", "b", "c", "d" };
    for (unsigned i = 0; i < 4; i++) { /* shards 1, 2, 3 of 3; then shard 2 of another seed */
        p[i] = sd_partial_init(i < 3 ? i + 1 : 2, 3);
        sd_engine_io io = { .record = record_partial, .arg = &p[i] };
        ec.shard = p[i].shard, ec.nshards = 3, ec.io = &io, ec.seed = i < 3 ? 3 : 4;
        sd_engine_stats s;
        ck_assert_int_eq(sd_engine_run(&ec, &s, NULL), SD_OK);
        sd_engine_stats_free(&s);
    }
    sd_partial out;
    sd_error err;
    const sd_partial missing[] = { p[0], p[2] };
    ck_assert_int_eq(sd_partial_merge(missing, names, 2, &out, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "shard 2/3 is missing");
    const sd_partial doubled[] = { p[0], p[1], p[1], p[2] };
    ck_assert_int_eq(sd_partial_merge(doubled, names, 4, &out, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "shard 2/3 is given twice (b and c)");
    const sd_partial foreign[] = { p[0], p[3], p[2] };
    ck_assert_int_eq(sd_partial_merge(foreign, names, 3, &out, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "b: run 1 differs from a's"));
    const sd_partial good[] = { p[2], p[0], p[1] }; /* any order */
    ck_assert_int_eq(sd_partial_merge(good, names, 3, &out, &err), SD_OK);
    sd_partial_free(&out);
    /* a truncated text is refused, with the file named */
    FILE *f = tmpfile();
    ck_assert_int_eq(sd_partial_write(&p[0], f, &err), SD_OK);
    long size = ftell(f);
    char *text = malloc((size_t)size + 1);
    rewind(f);
    ck_assert_uint_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    for (long cut = 40; cut < size; cut += size / 7) {
        FILE *g = fmemopen(text, (size_t)cut, "r");
        size_t line = 0;
        int got;
        sd_partial q;
        ck_assert_int_eq(sd_partial_read(g, "cut.part", &line, &q, &got, &err), SD_EINVAL);
        ck_assert_ptr_nonnull(strstr(err.msg, "cut.part"));
        fclose(g);
    }
    free(text);
    for (int i = 0; i < 4; i++)
        sd_partial_free(&p[i]);
    sd_model_free(m);
}
END_TEST

/* Replica sets: exact through the text (NaN and infinities included), each
 * slot taken from the part that ran it; a slot claimed twice or by no part
 * is refused (the negative controls). */
START_TEST(replicas_round_trip_and_merge)
{
    enum { R = 5, F = 3 };
    double v[R * F];
    for (int i = 0; i < R * F; i++)
        v[i] = i == 4 ? NAN : i == 7 ? -INFINITY : (i + 1) / 7.0;
    sd_partial p[2] = { sd_partial_init(1, 2), sd_partial_init(2, 2) };
    unsigned char have[2][R] = { { 1, 0, 1, 0, 1 }, { 0, 1, 0, 1, 0 } };
    sd_error err;
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(sd_partial_add_context(&p[i], "run 0 serving", &err), SD_OK);
        ck_assert_int_eq(sd_partial_add_replicas(&p[i], 0xabcdefu, R, F, v, have[i], &err), SD_OK);
        FILE *f = tmpfile();
        ck_assert_int_eq(sd_partial_write(&p[i], f, &err), SD_OK);
        rewind(f);
        sd_partial_free(&p[i]);
        size_t line = 0;
        int got;
        ck_assert_int_eq(sd_partial_read(f, "p", &line, &p[i], &got, &err), SD_OK);
        ck_assert_int_eq(got, 1);
        fclose(f);
    }
    const char *names[] = { "a", "b", "c" };
    sd_partial m;
    ck_assert_int_eq(sd_partial_merge(p, names, 2, &m, &err), SD_OK);
    ck_assert_uint_eq(m.nreplicas, 1);
    for (int i = 0; i < R * F; i++) {
        double x = m.replicas[0].value[i];
        if (i == 4)
            ck_assert(isnan(x));
        else
            ck_assert(memcmp(&x, &v[i], sizeof x) == 0);
    }
    sd_partial_free(&m);
    /* slot 1 in both parts, slot 4 in none */
    sd_partial q[2] = { sd_partial_init(1, 2), sd_partial_init(2, 2) };
    unsigned char twice[2][R] = { { 1, 1, 1, 0, 1 }, { 0, 1, 0, 1, 0 } }, none[2][R] = { { 1, 0, 1, 0, 0 },
                                                                                         { 0, 1, 0, 1, 0 } };
    for (int i = 0; i < 2; i++)
        ck_assert_int_eq(sd_partial_add_replicas(&q[i], 0xabcdefu, R, F, v, twice[i], &err), SD_OK);
    ck_assert_int_eq(sd_partial_merge(q, names, 2, &m, &err), SD_EINVAL);
    ck_assert_str_eq(err.msg, "replica set 1: slot 1 is given twice (a and b)");
    for (int i = 0; i < 2; i++) {
        sd_partial_free(&q[i]);
        q[i] = sd_partial_init((uint32_t)i + 1, 2);
        ck_assert_int_eq(sd_partial_add_replicas(&q[i], 0xabcdefu, R, F, v, none[i], &err), SD_OK);
    }
    ck_assert_int_eq(sd_partial_merge(q, names, 2, &m, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "slot 4 is in no part"));
    /* another fingerprint is another job */
    sd_partial_free(&q[1]);
    q[1] = sd_partial_init(2, 2);
    ck_assert_int_eq(sd_partial_add_replicas(&q[1], 0xabcdeeu, R, F, v, have[1], &err), SD_OK);
    ck_assert_int_eq(sd_partial_merge(q, names, 2, &m, &err), SD_EINVAL);
    ck_assert_ptr_nonnull(strstr(err.msg, "replica set 1 differs"));
    ck_assert_int_eq(sd_partial_add_replicas(&q[1], 1, 0, F, v, have[1], &err), SD_EINVAL);
    for (int i = 0; i < 2; i++) {
        sd_partial_free(&p[i]);
        sd_partial_free(&q[i]);
    }
}
END_TEST

Suite *partial_suite(void)
{
    Suite *s = suite_create("partial");
    TCase *tc = tcase_create("partial");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, shards_merge_bit_for_bit);
    tcase_add_test(tc, merge_refuses_wrong_parts);
    tcase_add_test(tc, replicas_round_trip_and_merge);
    suite_add_tcase(s, tc);
    return s;
}
