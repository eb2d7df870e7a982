/* test_schedule.c -- schedule exports read back by each engine's own lookup
 * rule, written here from the engines' source as doc/roofline.md cites it:
 *   vLLM   build_dynamic_sd_schedule_lookup (vllm/v1/spec_decode/dynamic/utils.py):
 *          inclusive [start, end, K] ranges from 1, sorted, not overlapping; a
 *          gap takes the previous K, a batch past the last range the last K;
 *   SGLang batch_size_key_for_batch (speculative/adaptive_step_router.py):
 *          keys[max(0, bisect_right(keys, bs) - 1)], without CUDA-graph padding;
 *   TRT    get_draft_len_for_batch_size (_torch/speculative/utils.py): the
 *          first key >= bs (bisect_left), 0 beyond the largest; the smallest
 *          key must map to max_draft_len, no value above it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec.h"
#include "testutil.h"

enum { MAXR = 16 };

typedef struct {
    long long a[MAXR], b[MAXR], k[MAXR];
    size_t n;
    long long top; /* num_speculative_tokens or max_draft_len */
} parsed;

static char *export_text(sd_schedule_engine e, const sd_schedule_bucket *b, size_t nb)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sd_error err = { "" };
    ck_assert_msg(sd_schedule_export(e, b, nb, f, &err) == SD_OK, "%s", err.msg);
    fclose(f);
    return text;
}

/* vLLM: {"num_speculative_tokens": N, "num_speculative_tokens_per_batch_size": [[a, b, k], ...]} */
static parsed parse_vllm(const char *s)
{
    parsed p = { .n = 0 };
    const char *q = strstr(s, "\"num_speculative_tokens\": ");
    ck_assert_ptr_nonnull(q);
    ck_assert_int_eq(sscanf(q, "\"num_speculative_tokens\": %lld", &p.top), 1);
    q = strstr(s, "_per_batch_size\": [");
    ck_assert_ptr_nonnull(q);
    q += strlen("_per_batch_size\": [");
    int used;
    while (p.n < MAXR && sscanf(q, " [%lld, %lld, %lld]%n", &p.a[p.n], &p.b[p.n], &p.k[p.n], &used) == 3) {
        p.n++;
        q += used;
        if (*q == ',')
            q++;
    }
    ck_assert_str_eq(q, "]}\n");
    /* the engine's validation */
    ck_assert_int_eq(p.a[0], 1);
    for (size_t i = 0; i < p.n; i++) {
        ck_assert(p.a[i] <= p.b[i] && p.k[i] >= 0 && p.k[i] <= p.top);
        ck_assert(i == 0 || p.a[i] > p.b[i - 1]);
    }
    return p;
}

static long long lookup_vllm(const parsed *p, long long bs)
{
    long long k = p->k[0];
    for (size_t i = 0; i < p->n && p->a[i] <= bs; i++)
        k = p->k[i]; /* within the range, or a gap after it, or past the last */
    return k < p->top ? k : p->top;
}

/* SGLang: {\n  "KEY": {"candidate_steps": [K]},\n ...} */
static parsed parse_sglang(const char *s)
{
    parsed p = { .n = 0 };
    ck_assert(strncmp(s, "{\n", 2) == 0);
    const char *q = s + 2;
    int used;
    while (p.n < MAXR && sscanf(q, "  \"%lld\": {\"candidate_steps\": [%lld]}%n", &p.a[p.n], &p.k[p.n], &used) == 2) {
        ck_assert(p.n == 0 || p.a[p.n] > p.a[p.n - 1]);
        p.n++;
        q += used;
        q += *q == ',';
        ck_assert_int_eq(*q, '\n');
        q++;
    }
    ck_assert_str_eq(q, "}\n");
    return p;
}

static long long lookup_sglang(const parsed *p, long long bs)
{
    size_t right = 0; /* bisect_right(keys, bs) */
    while (right < p->n && p->a[right] <= bs)
        right++;
    return p->k[right > 0 ? right - 1 : 0];
}

/* TRT: speculative_config:\n  max_draft_len: M\n  draft_len_schedule:\n    KEY: K\n ... */
static parsed parse_trtllm(const char *s)
{
    parsed p = { .n = 0 };
    int used;
    ck_assert_int_eq(sscanf(s, "speculative_config:\n  max_draft_len: %lld\n  draft_len_schedule:\n%n", &p.top, &used), 1);
    const char *q = s + used;
    while (p.n < MAXR && sscanf(q, "    %lld: %lld\n%n", &p.b[p.n], &p.k[p.n], &used) == 2) {
        ck_assert(p.b[p.n] >= 1 && p.k[p.n] >= 0 && p.k[p.n] <= p.top);
        ck_assert(p.n == 0 || p.b[p.n] > p.b[p.n - 1]);
        p.n++;
        q += used;
    }
    ck_assert_str_eq(q, "");
    ck_assert_int_eq(p.k[0], p.top); /* the smallest key maps to max_draft_len */
    return p;
}

static long long lookup_trtllm(const parsed *p, long long bs)
{
    for (size_t i = 0; i < p->n; i++) /* bisect_left: the first key >= bs */
        if (p->b[i] >= bs)
            return p->k[i];
    return 0; /* min_draft_len */
}

/* Every batch 1..1100 gets the gamma of the bucket at or below it (the first
 * bucket for batches below it); above the last evaluated batch (1024) vLLM
 * and SGLang keep the last gamma, TensorRT-LLM stops. */
START_TEST(engines_read_the_schedule)
{
    const sd_schedule_bucket b[] = { { 2, 32, 5 }, { 64, 256, 3 }, { 512, 1024, 1 } };
    char *v = export_text(SD_SCHEDULE_VLLM, b, 3), *g = export_text(SD_SCHEDULE_SGLANG, b, 3),
         *t = export_text(SD_SCHEDULE_TRTLLM, b, 3);
    ck_assert_str_eq(v, "{\"num_speculative_tokens\": 5, \"num_speculative_tokens_per_batch_size\": [[1, 63, 5], "
                        "[64, 511, 3], [512, 1024, 1]]}\n");
    parsed pv = parse_vllm(v), pg = parse_sglang(g), pt = parse_trtllm(t);
    ck_assert_uint_eq(pv.n, 3);
    ck_assert_uint_eq(pg.n, 3);
    ck_assert_uint_eq(pt.n, 3);
    for (long long bs = 1; bs <= 1100; bs++) {
        long long want = bs < 64 ? 5 : bs < 512 ? 3 : 1;
        ck_assert_int_eq(lookup_vllm(&pv, bs), want);
        ck_assert_int_eq(lookup_sglang(&pg, bs), want);
        ck_assert_int_eq(lookup_trtllm(&pt, bs), bs <= 1024 ? want : 0);
    }
    free(v), free(g), free(t);
}
END_TEST

/* What an engine cannot take is refused, nothing written: a rising gamma
 * for TensorRT-LLM (its smallest key must be the longest draft), gamma 0
 * everywhere, overlapping or unsorted buckets, a gamma that is not whole. */
START_TEST(refused)
{
    const sd_schedule_bucket rise[] = { { 1, 8, 2 }, { 16, 64, 3 } };
    const sd_schedule_bucket zero[] = { { 1, 8, 0 } };
    const sd_schedule_bucket overlap[] = { { 1, 8, 2 }, { 8, 64, 1 } };
    const sd_schedule_bucket frac[] = { { 1, 8, 2.5 } };
    struct {
        sd_schedule_engine e;
        const sd_schedule_bucket *b;
        size_t n;
        const char *want;
    } cases[] = {
        { SD_SCHEDULE_TRTLLM, rise, 2, "gamma rises from 2 at batch 1 to 3 at batch 16" },
        { SD_SCHEDULE_VLLM, zero, 1, "do not speculate" },
        { SD_SCHEDULE_SGLANG, overlap, 2, "bucket 2 (batches 8 to 64, gamma 1)" },
        { SD_SCHEDULE_VLLM, frac, 1, "a whole gamma in [0, 256]" },
        { SD_SCHEDULE_VLLM, rise, 0, "no bucket" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        sd_error err = { "" };
        ck_assert_int_eq(sd_schedule_export(cases[i].e, cases[i].b, cases[i].n, f, &err), SD_EINVAL);
        fclose(f);
        ck_assert_uint_eq(len, 0);
        ck_assert_msg(strstr(err.msg, cases[i].want) != NULL, "'%s' lacks '%s'", err.msg, cases[i].want);
        free(text);
    }
    /* a rising gamma is fine where the engine allows it */
    char *v = export_text(SD_SCHEDULE_VLLM, rise, 2);
    ck_assert_str_eq(v, "{\"num_speculative_tokens\": 3, \"num_speculative_tokens_per_batch_size\": [[1, 15, 2], "
                        "[16, 64, 3]]}\n");
    free(v);
    ck_assert_str_eq(sd_schedule_engine_names()[SD_SCHEDULE_TRTLLM], "trtllm");
    ck_assert_ptr_null(sd_schedule_engine_names()[3]);
}
END_TEST

Suite *schedule_suite(void)
{
    Suite *s = suite_create("schedule");
    TCase *tc = tcase_create("schedule");
    tcase_add_test(tc, engines_read_the_schedule);
    tcase_add_test(tc, refused);
    suite_add_tcase(s, tc);
    return s;
}
