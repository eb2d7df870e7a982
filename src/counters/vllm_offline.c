/* vllm_offline.c -- the vllm-offline reader: the summary of vLLM's
 * examples/offline_inference/spec_decode.py (see counters_impl.h).
 *
 * Source: vllm-project/vllm, examples/offline_inference/spec_decode.py @
 * eb987dffa144e73e064c00de74f60f54da54ff99, after llm.get_metrics():
 *   print(f"total_num_output_tokens: {total_num_output_tokens}")
 *   print(f"num_drafts: {num_drafts}")
 *   print(f"num_draft_tokens: {num_draft_tokens}")
 *   print(f"num_accepted_tokens: {num_accepted_tokens}")
 *   print(f"mean acceptance length: {acceptance_length:.2f}")    1 + accepted / drafts
 *   print(f"acceptance at token {i}: {acceptance_rate:.2f}")     acceptance_counts[i] / drafts
 * (between "-" * 50 rules).  The counts are vLLM's counters vllm:spec_decode_num_drafts,
 * _num_draft_tokens, _num_accepted_tokens and the vector _num_accepted_tokens_per_pos
 * (vllm/v1/spec_decode/metrics.py, SpecDecodingStats.observe_draft), summed over the
 * engines; position i counts the drafts whose first i+1 tokens were accepted (kind PREFIX),
 * so its count is rate x drafts, a whole number within the printed rounding (+-0.005),
 * adjusted to sum to the accepted tokens (derive.h).  gamma = the number of "acceptance at
 * token" lines (the script's --num-spec-tokens).  A summary starts at its num_drafts line;
 * several in one file (runs) are summed.  The older eagle.py printed only the mean length
 * and the rates, without counts: refused (no number of drafts). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

typedef struct {
    size_t line;
    uint64_t n, D, A;
    int has_n, has_D, has_A, has_L;
    double L, hL;
    size_t k;
    double r[MAXG], hr;
} off_block;

enum { OFF_NONE, OFF_DRAFTS, OFF_FIELD };

/* Which line of the summary line is (OFF_DRAFTS: num_drafts, which starts one), *key and *v
 * (trimmed spans) its parts. */
static int off_kind(const char *line, const char **key, size_t *kn, const char **v, size_t *vn)
{
    static const char *const KEYS[] = { "num_drafts", "num_draft_tokens", "num_accepted_tokens",
                                        "mean acceptance length", "acceptance at token " };
    const char *s = sd_text_skip_blank(line);
    const char *colon = strchr(s, ':');
    if (colon == NULL)
        return OFF_NONE;
    *key = s;
    *kn = (size_t)(colon - s);
    *v = colon + 1;
    *vn = strlen(*v);
    sd_text_trim(key, kn);
    sd_text_trim(v, vn);
    for (size_t i = 0; i < sizeof KEYS / sizeof *KEYS; i++) {
        size_t m = strlen(KEYS[i]);
        if (i < 4 ? sd_text_span_is(*key, *kn, KEYS[i]) : (*kn > m && memcmp(*key, KEYS[i], m) == 0))
            return i == 0 ? OFF_DRAFTS : OFF_FIELD;
    }
    return OFF_NONE;
}

/* One field of the summary into *b.  SD_EINVAL when malformed or repeated. */
static sd_status off_field(const sd_counters_ctx *cx, size_t ln, const char *key, size_t kn, const char *v, size_t vn,
                           off_block *b)
{
    int ok;
    if (sd_text_span_is(key, kn, "num_drafts"))
        ok = sd_text_count(v, vn, &b->n) && !b->has_n++;
    else if (sd_text_span_is(key, kn, "num_draft_tokens"))
        ok = sd_text_count(v, vn, &b->D) && !b->has_D++;
    else if (sd_text_span_is(key, kn, "num_accepted_tokens"))
        ok = sd_text_count(v, vn, &b->A) && !b->has_A++;
    else if (sd_text_span_is(key, kn, "mean acceptance length"))
        ok = sd_text_decimal(v, vn, &b->L, &b->hL) && !b->has_L++;
    else {
        uint64_t i;
        double x, h;
        size_t m = strlen("acceptance at token ");
        if (!sd_text_count(key + m, kn - m, &i) || i != b->k || b->k == MAXG)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: spec_decode.py summary: expected 'acceptance at token %zu' (at most %d "
                                  "positions): '%.*s'",
                                  cx->path, ln, b->k, MAXG, (int)kn, key);
        ok = sd_text_decimal(v, vn, &x, &h) && x >= 0.0 && x <= 1.0;
        if (ok) {
            b->r[b->k++] = x;
            b->hr = fmax(b->hr, h);
        }
    }
    if (!ok)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: spec_decode.py summary: cannot read %.*s: '%.*s'",
                              cx->path, ln, (int)kn, key, (int)vn, v);
    return SD_OK;
}

/* A finished summary checked and added to c (blocks: the count so far). */
static sd_status off_add(const sd_counters_ctx *cx, const off_block *b, sd_counts *c, size_t *blocks)
{
    const char *miss = !b->has_n ? "num_drafts" : !b->has_D ? "num_draft_tokens" : !b->has_A ? "num_accepted_tokens"
                       : b->k == 0 ? "acceptance at token 0" : NULL;
    if (miss != NULL)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: spec_decode.py summary without '%s:'", cx->path, b->line,
                              miss);
    if (b->A > b->D || (double)b->D > (double)b->n * (double)b->k)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu accepted of %llu draft tokens in %llu drafts of at most %zu: expected "
                              "accepted <= draft tokens <= drafts x gamma",
                              cx->path, b->line, (unsigned long long)b->A, (unsigned long long)b->D,
                              (unsigned long long)b->n, b->k);
    if (b->n > 0 && b->has_L && !(fabs(1.0 + (double)b->A / (double)b->n - b->L) <= sd_derive_widen(b->hL)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the mean acceptance length %.6g is not 1 + accepted / drafts = %.6g", cx->path,
                              b->line, b->L, 1.0 + (double)b->A / (double)b->n);
    sd_status st = sd_counts_gamma_agrees(cx, b->line, b->k, "the summary has %zu positions", b->k);
    if (st != SD_OK)
        return st;
    if (*blocks > 0 && b->k != c->gamma)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: a summary with %zu positions, but an earlier one has %zu",
                              cx->path, b->line, b->k, c->gamma);
    st = sd_derive_rates_fall(cx, b->line, b->r, b->k);
    if (st != SD_OK || b->n == 0)
        return st;
    sd_derive_in in = { .A = b->A, .D = b->D, .k = b->k, .r = b->r, .hr = b->hr, .kmax = b->k, .n_fixed = b->n,
                        .c0 = -1 };
    sd_derive_out out;
    if (sd_derive_solve(&in, &out) != SD_DERIVE_OK)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: no whole per-position counts of %llu drafts reproduce the printed acceptance "
                              "at each token and sum to %llu accepted tokens",
                              cx->path, b->line, (unsigned long long)b->n, (unsigned long long)b->A);
    sd_counts_block part = { .drafts = (double)b->n, .draft_tokens = (double)b->D, .accepted_tokens = (double)b->A,
                             .positions = b->k };
    for (size_t i = 0; i < b->k; i++)
        part.accepted_at[i] = (double)out.c[i];
    c->gamma = b->k;
    sd_counts_add(c, &part);
    (*blocks)++;
    return SD_OK;
}

static sd_status vllm_offline_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    off_block b;
    int open = 0;
    size_t blocks = 0;
    sd_status st = SD_OK;
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *key, *v;
        size_t kn, vn;
        int kind = off_kind(t->line[i], &key, &kn, &v, &vn);
        if (kind == OFF_NONE)
            continue;
        if (kind == OFF_DRAFTS) {
            if (open)
                st = off_add(cx, &b, c, &blocks);
            memset(&b, 0, sizeof b);
            b.line = i + 1;
            open = 1;
        } else if (!open) {
            st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: spec_decode.py summary: '%.*s' before 'num_drafts:'",
                                cx->path, i + 1, (int)kn, key);
            break;
        }
        if (st == SD_OK)
            st = off_field(cx, i + 1, key, kn, v, vn, &b);
    }
    if (st == SD_OK && open)
        st = off_add(cx, &b, c, &blocks);
    if (st != SD_OK)
        return st;
    if (blocks == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no spec_decode.py summary with drafts (num_drafts: N >= 1)",
                              cx->path);
    c->has_positions = 1;
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c, "Read %zu vLLM spec_decode.py summar%s%s (vLLM's counters over the run).", blocks,
                   blocks == 1 ? "y" : "ies", blocks > 1 ? ", summed" : "");
    sd_counts_note(c,
                   "gamma = its %zu 'acceptance at token' lines; per-position counts = rate x drafts, whole numbers "
                   "within the printed rounding (0.005), adjusted to sum to the accepted tokens.",
                   c->gamma);
    return SD_OK;
}

static int vllm_offline_detect(const char *line, int first)
{
    const char *key, *v;
    size_t kn, vn;
    (void)first;
    return off_kind(line, &key, &kn, &v, &vn) != OFF_NONE;
}

/* The row of vllm-offline: examples/offline_inference/spec_decode.py's summary.  detect: a line
 * "num_drafts:", "num_draft_tokens:", "num_accepted_tokens:", "mean acceptance length:" or
 * "acceptance at token i:".  read: each summary (from its num_drafts line) with its
 * per-position counts derived, the summaries summed. */
const sd_counters_reader sd_counters_reader_vllm_offline = {
    .name = "vllm-offline",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = vllm_offline_detect,
    .read = vllm_offline_read,
};
