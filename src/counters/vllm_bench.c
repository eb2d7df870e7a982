/* vllm_bench.c -- the vllm-bench reader: the "Speculative Decoding" block of `vllm bench
 * serve` (see counters_impl.h).
 *
 * Source: vllm-project/vllm, vllm/benchmarks/serve.py @ 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1
 * (fetch_spec_decode_metrics and the summary printed after the latency sections):
 *   print("{s:{c}^{n}}".format(s="Speculative Decoding", n=50, c="-"))
 *   "{:<40} {:<10.2f}" "Acceptance rate (%):"    100 accepted / draft tokens
 *   "{:<40} {:<10.2f}" "Acceptance length:"      1 + accepted / drafts
 *   "{:<40} {:<10}"    "Drafts:", "Draft tokens:", "Accepted tokens:"   (int)
 *   "Per-position acceptance (%):" then "{:<40} {:<10.2f}" "  Position {i}:"  100 per_pos[i] / drafts
 *   "=" * 50
 * Every value is left-justified in 10 columns, so value lines end in blanks.  The counts are
 * the differences of vLLM's vllm:spec_decode_* counters (vllm/v1/spec_decode/metrics.py,
 * SpecDecodingProm) between a /metrics scrape before and one after the run, summed over the
 * engines: per_pos[i] counts the drafts whose first i+1 tokens were accepted (kind PREFIX),
 * so position i's count is rate x drafts, a whole number the printed rate (to +-0.005 %)
 * allows (derive.h), adjusted to sum to the accepted tokens.  Several blocks (runs) in one
 * file are summed.  gamma = the number of positions (vLLM's num_speculative_tokens); a block
 * without positions needs --gamma. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

#define HEADER "Speculative Decoding"

typedef struct {
    size_t line;
    uint64_t drafts, D, A;
    int has_n, has_D, has_A, has_P, has_L, in_pos;
    double P, hP, L, hL;
    size_t k;
    double r[MAXG], hr;
} bench_block;

/* 1 when line is the block's header: dashes, "Speculative Decoding", dashes. */
static int bench_header(const char *line)
{
    const char *m = strstr(line, HEADER);
    if (m == NULL || m == line || m[-1] != '-')
        return 0;
    for (const char *s = sd_text_skip_blank(line); s < m; s++)
        if (*s != '-')
            return 0;
    const char *e = m + strlen(HEADER);
    if (*e != '-')
        return 0;
    while (*e == '-')
        e++;
    return *sd_text_skip_blank(e) == '\0';
}

/* One "key: value" line of a block into *b.  0: the line is not one of the block's; 1: read;
 * SD_EINVAL (returned through *st) when malformed or repeated. */
static int bench_field(const sd_counters_ctx *cx, size_t ln, const char *line, bench_block *b, sd_status *st)
{
    const char *s = sd_text_skip_blank(line);
    const char *colon = strchr(s, ':');
    *st = SD_OK;
    if (colon == NULL)
        return 0;
    const char *key = s;
    size_t kn = (size_t)(colon - s);
    const char *v = colon + 1;
    size_t vn = strlen(v);
    uint64_t pos;
    double h;
    int ok = 1;
    sd_text_trim(&key, &kn);
    sd_text_trim(&v, &vn);
    if (sd_text_span_is(key, kn, "Acceptance rate (%)"))
        ok = sd_text_decimal(v, vn, &b->P, &b->hP) && !b->has_P++;
    else if (sd_text_span_is(key, kn, "Acceptance length"))
        ok = sd_text_decimal(v, vn, &b->L, &b->hL) && !b->has_L++;
    else if (sd_text_span_is(key, kn, "Drafts"))
        ok = sd_text_count(v, vn, &b->drafts) && !b->has_n++;
    else if (sd_text_span_is(key, kn, "Draft tokens"))
        ok = sd_text_count(v, vn, &b->D) && !b->has_D++;
    else if (sd_text_span_is(key, kn, "Accepted tokens"))
        ok = sd_text_count(v, vn, &b->A) && !b->has_A++;
    else if (sd_text_span_is(key, kn, "Per-position acceptance (%)"))
        ok = vn == 0 && !b->in_pos++;
    else if (kn > 9 && memcmp(key, "Position ", 9) == 0 && b->in_pos) {
        double x;
        if (!sd_text_count(key + 9, kn - 9, &pos) || pos != b->k || b->k == MAXG) {
            *st = sd_status_fail(cx->err, SD_EINVAL,
                                 "%s:%zu: vLLM bench 'Speculative Decoding' block: expected Position %zu (at most %d): "
                                 "'%.*s'",
                                 cx->path, ln, b->k, MAXG, (int)kn, key);
            return 1;
        }
        ok = sd_text_decimal(v, vn, &x, &h) && x >= 0.0 && x <= 100.0;
        if (ok) {
            b->r[b->k++] = x / 100.0;
            b->hr = fmax(b->hr, h / 100.0);
        }
    } else
        return 0;
    if (!ok)
        *st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM bench 'Speculative Decoding' block: cannot read %.*s: '%.*s'",
                             cx->path, ln, (int)kn, key, (int)vn, v);
    return 1;
}

/* The checks of a finished block, and its counts into *out. */
static sd_status bench_check(const sd_counters_ctx *cx, const bench_block *b, sd_counts_block *out)
{
    const char *miss = !b->has_n ? "Drafts" : !b->has_D ? "Draft tokens" : !b->has_A ? "Accepted tokens" : NULL;
    if (miss != NULL)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: vLLM bench 'Speculative Decoding' block without '%s:'",
                              cx->path, b->line, miss);
    if (b->drafts == 0 || b->A > b->D)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu drafts, %llu draft tokens, %llu accepted: expected drafts >= 1 and "
                              "accepted <= draft tokens",
                              cx->path, b->line, (unsigned long long)b->drafts, (unsigned long long)b->D,
                              (unsigned long long)b->A);
    if (b->has_P && b->D > 0 && !(fabs(100.0 * (double)b->A / (double)b->D - b->P) <= sd_derive_widen(b->hP)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the acceptance rate %.6g%% is not 100 accepted / draft tokens = %.6g%%",
                              cx->path, b->line, b->P, 100.0 * (double)b->A / (double)b->D);
    if (b->has_L && !(fabs(1.0 + (double)b->A / (double)b->drafts - b->L) <= sd_derive_widen(b->hL)))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the acceptance length %.6g is not 1 + accepted / drafts = %.6g", cx->path,
                              b->line, b->L, 1.0 + (double)b->A / (double)b->drafts);
    size_t g = b->k ? b->k : cx->opt->gamma;
    if (g == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the block has no per-position acceptance: give the number of speculative "
                              "tokens with --gamma",
                              cx->path, b->line);
    sd_status st = b->k ? sd_counts_gamma_agrees(cx, b->line, b->k, "the block has %zu positions", b->k) : SD_OK;
    if (st != SD_OK)
        return st;
    if ((double)b->D > (double)b->drafts * (double)g)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu draft tokens in %llu drafts is more than gamma = %zu per draft", cx->path,
                              b->line, (unsigned long long)b->D, (unsigned long long)b->drafts, g);
    if (sd_derive_rates_fall(cx, b->line, b->r, b->k) != SD_OK)
        return SD_EINVAL;
    sd_derive_in in = { .A = b->A, .D = b->D, .k = b->k, .r = b->r, .hr = b->hr, .kmax = g,
                        .n_fixed = b->drafts, .c0 = -1 };
    sd_derive_out d;
    if (b->k && sd_derive_solve(&in, &d) != SD_DERIVE_OK)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: no whole per-position counts of %llu drafts reproduce the printed "
                              "per-position acceptance and sum to %llu accepted tokens",
                              cx->path, b->line, (unsigned long long)b->drafts, (unsigned long long)b->A);
    *out = (sd_counts_block){ .drafts = (double)b->drafts, .draft_tokens = (double)b->D,
                              .accepted_tokens = (double)b->A, .positions = b->k };
    for (size_t i = 0; i < b->k; i++)
        out->accepted_at[i] = (double)d.c[i];
    return SD_OK;
}

/* Adds a finished block to c (blocks: the count so far). */
static sd_status bench_add(const sd_counters_ctx *cx, const bench_block *b, sd_counts *c, size_t *blocks)
{
    sd_counts_block part;
    sd_status st = bench_check(cx, b, &part);
    if (st != SD_OK)
        return st;
    size_t g = b->k ? b->k : cx->opt->gamma;
    if (*blocks > 0 && (g != c->gamma || (b->k > 0) != c->has_positions))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: a block with %zu positions, but an earlier one has %zu%s", cx->path, b->line,
                              b->k, c->has_positions ? c->gamma : 0, c->has_positions ? "" : " (gamma given)");
    c->gamma = g;
    c->has_positions = b->k > 0;
    sd_counts_add(c, &part);
    (*blocks)++;
    return SD_OK;
}

static sd_status vllm_bench_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    bench_block b;
    int open = 0;
    size_t blocks = 0;
    sd_status st = SD_OK;
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *s = t->line[i];
        if (bench_header(s)) {
            if (open)
                st = bench_add(cx, &b, c, &blocks);
            memset(&b, 0, sizeof b);
            b.line = i + 1;
            open = 1;
        } else if (open && !bench_field(cx, i + 1, s, &b, &st) && st == SD_OK && *sd_text_skip_blank(s) != '\0') {
            st = bench_add(cx, &b, c, &blocks); /* the "=====" rule, or whatever follows the block */
            open = 0;
        }
    }
    if (st == SD_OK && open)
        st = bench_add(cx, &b, c, &blocks);
    if (st != SD_OK)
        return st;
    if (blocks == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no vLLM bench '%s' block", cx->path, HEADER);
    for (size_t i = 0; i < c->gamma; i++)
        c->reached[i] = c->drafts;
    sd_counts_note(c,
                   "Read %zu 'vllm bench serve' Speculative Decoding block%s (each the difference of vLLM's counters "
                   "over one run)%s.",
                   blocks, blocks == 1 ? "" : "s", blocks > 1 ? ", summed" : "");
    if (c->has_positions)
        sd_counts_note(c,
                       "gamma = its %zu positions; per-position counts = rate x drafts, whole numbers within the "
                       "printed rounding (0.005%%), adjusted to sum to the accepted tokens.",
                       c->gamma);
    else
        sd_counts_note(c, "No per-position acceptance: gamma = %zu from --gamma.", c->gamma);
    return SD_OK;
}

static int vllm_bench_detect(const char *line, int first)
{
    (void)first;
    return bench_header(line);
}

/* The row of vllm-bench: `vllm bench serve`'s "Speculative Decoding" block.  detect: its header
 * line (dashes around "Speculative Decoding").  read: each block's counts and per-position
 * counts derived from the printed rates, the blocks summed. */
const sd_counters_reader sd_counters_reader_vllm_bench = {
    .name = "vllm-bench",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = vllm_bench_detect,
    .read = vllm_bench_read,
};
