/* schedule.c -- a draft-length schedule in vLLM's, SGLang's or TensorRT-LLM's syntax (see schedule.h).
 *
 * Every engine gets the same ranges: bucket i covers [start_i, end_i] with
 * start_0 = 1, start_i = batch_from_i, end_i = start_{i+1} - 1 and the last
 * end its batch_to.  The writers only spell those ranges in each syntax.
 */
#include "specdec/schedule.h"

#include <math.h>

static const char *const ENGINE_NAMES[] = { [SD_SCHEDULE_VLLM] = "vllm", [SD_SCHEDULE_SGLANG] = "sglang",
                                            [SD_SCHEDULE_TRTLLM] = "trtllm", NULL };

const char *const *sd_schedule_engine_names(void) { return ENGINE_NAMES; }

enum { BATCH_MAX = 2147483647, GAMMA_MAX = 256 };

typedef struct {
    long long start, end, gamma;
} range;

static int whole_in(double x, double lo, double hi) { return x >= lo && x <= hi && floor(x) >= x; }

/* The ranges of b (above) into r; SD_EINVAL naming the first bucket at fault. */
static sd_status ranges(sd_schedule_engine e, const sd_schedule_bucket *b, size_t nb, range *r, sd_error *err)
{
    if (nb == 0)
        return sd_status_fail(err, SD_EINVAL, "schedule: no bucket");
    long long top = 0;
    for (size_t i = 0; i < nb; i++) {
        if (!whole_in(b[i].batch_from, 1, BATCH_MAX) || !whole_in(b[i].batch_to, b[i].batch_from, BATCH_MAX) ||
            !whole_in(b[i].gamma, 0, GAMMA_MAX) || (i > 0 && !(b[i].batch_from > b[i - 1].batch_to)))
            return sd_status_fail(err, SD_EINVAL,
                                  "schedule: bucket %zu (batches %.17g to %.17g, gamma %.17g): expected whole batches "
                                  "in [1, %d], ascending and not overlapping, and a whole gamma in [0, %d]",
                                  i + 1, b[i].batch_from, b[i].batch_to, b[i].gamma, BATCH_MAX, GAMMA_MAX);
        r[i].start = i == 0 ? 1 : (long long)b[i].batch_from;
        r[i].end = (long long)b[i].batch_to;
        if (i > 0)
            r[i - 1].end = r[i].start - 1;
        r[i].gamma = (long long)b[i].gamma;
        top = r[i].gamma > top ? r[i].gamma : top;
    }
    if (top == 0)
        return sd_status_fail(err, SD_EINVAL, "schedule: gamma is 0 at every batch: do not speculate (run without "
                              "speculative decoding)");
    for (size_t i = 1; e == SD_SCHEDULE_TRTLLM && i < nb; i++)
        if (r[i].gamma > r[0].gamma)
            return sd_status_fail(err, SD_EINVAL,
                                  "schedule: gamma rises from %lld at batch 1 to %lld at batch %lld, but "
                                  "TensorRT-LLM's draft_len_schedule needs the smallest batch's draft to be the "
                                  "longest (max_draft_len)",
                                  r[0].gamma, r[i].gamma, r[i].start);
    return SD_OK;
}

static long long longest(const range *r, size_t nb)
{
    long long top = 0;
    for (size_t i = 0; i < nb; i++)
        top = r[i].gamma > top ? r[i].gamma : top;
    return top;
}

static void write_vllm(const range *r, size_t nb, FILE *out)
{
    fprintf(out, "{\"num_speculative_tokens\": %lld, \"num_speculative_tokens_per_batch_size\": [", longest(r, nb));
    for (size_t i = 0; i < nb; i++)
        fprintf(out, "%s[%lld, %lld, %lld]", i ? ", " : "", r[i].start, r[i].end, r[i].gamma);
    fprintf(out, "]}\n");
}

static void write_sglang(const range *r, size_t nb, FILE *out)
{
    fprintf(out, "{\n");
    for (size_t i = 0; i < nb; i++)
        fprintf(out, "  \"%lld\": {\"candidate_steps\": [%lld]}%s\n", r[i].start, r[i].gamma, i + 1 < nb ? "," : "");
    fprintf(out, "}\n");
}

static void write_trtllm(const range *r, size_t nb, FILE *out)
{
    fprintf(out, "speculative_config:\n  max_draft_len: %lld\n  draft_len_schedule:\n", r[0].gamma);
    for (size_t i = 0; i < nb; i++)
        fprintf(out, "    %lld: %lld\n", r[i].end, r[i].gamma);
}

sd_status sd_schedule_export(sd_schedule_engine e, const sd_schedule_bucket *b, size_t nb, FILE *out, sd_error *err)
{
    range r[64];
    if (nb > sizeof r / sizeof *r)
        return sd_status_fail(err, SD_EINVAL, "schedule: %zu buckets; at most %zu", nb, sizeof r / sizeof *r);
    sd_status st = ranges(e, b, nb, r, err);
    if (st != SD_OK)
        return st;
    if (e == SD_SCHEDULE_VLLM)
        write_vllm(r, nb, out);
    else if (e == SD_SCHEDULE_SGLANG)
        write_sglang(r, nb, out);
    else
        write_trtllm(r, nb, out);
    if (ferror(out))
        return sd_status_fail(err, SD_EIO, "schedule: write error");
    return SD_OK;
}
