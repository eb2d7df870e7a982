/* trtllm_bench.c -- the trtllm-bench reader: the "DECODING STATISTICS" block of TensorRT-LLM's
 * trtllm-bench report (see counters_impl.h).
 *
 * Source: NVIDIA/TensorRT-LLM, tensorrt_llm/bench/dataclasses/reporting.py @
 * 0249976575050d2c624a5f285683c66de311a3b7 (generate_statistics_summary and the report):
 *   "= DECODING STATISTICS ({mode})", then four sections, each a header and seven lines
 *   f"[{tag}] {key.upper():<7}: {v:.2f}" for minimum, maximum, average, p50, p90, p95, p99 of
 *   a per-request list: DT (number of draft tokens), ADT (accepted draft tokens), DAR (draft
 *   acceptance rate) and AL (acceptance length).
 * Per request r with decode_iteration i_r and output tokens o_r:
 *   DT_r = max_draft_len x (i_r + 1)  -- assumed, not measured: every iteration is taken to
 *          draft max_draft_len tokens;
 *   ADT_r = o_r - i_r - 1;  DAR_r = ADT_r / DT_r;  AL_r = o_r / (i_r + 1) = 1 + gamma DAR_r.
 * So AL = 1 + gamma x DAR holds for every request, hence for the average and each percentile
 * (an affine map commutes with both): gamma = (AL - 1) / DAR is read from the block when
 * exactly one whole gamma fits all seven pairs within their printed rounding (+-0.005 each),
 * else it comes from --gamma (and must fit).  The mean accepted tokens per iteration pooled
 * over the requests is sum ADT_r / sum (i_r + 1) = gamma x average ADT / average DT (the
 * request count cancels); the block prints no count of requests or iterations, so the result
 * is a gauge (counters.h: alpha without an interval).  Kind PREFIX: the accepted tokens are
 * the output beyond one token per iteration, i.e. accepted prefixes.  Uncertain: whether the
 * first (context) iteration, which drafts nothing, is among the i_r + 1; the engine's own
 * acceptance length divides by i_r + 1 and so does this reader.  One block per file. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

#define MARKER "DECODING STATISTICS"

enum { T_DT, T_ADT, T_DAR, T_AL, T_N };
enum { K_MIN, K_MAX, K_AVG, K_P50, K_P90, K_P95, K_P99, K_N };
static const char *const TAGS[T_N] = { "[DT]", "[ADT]", "[DAR]", "[AL]" };
static const char *const KEYS[K_N] = { "MINIMUM", "MAXIMUM", "AVERAGE", "P50", "P90", "P95", "P99" };

typedef struct {
    double v[T_N][K_N], h[T_N][K_N];
    int has[T_N][K_N];
    size_t line;
} tb_block;

/* The tag of a statistics line (s past its blanks), or -1. */
static int tb_tag(const char *s)
{
    for (int t = 0; t < T_N; t++)
        if (strncmp(s, TAGS[t], strlen(TAGS[t])) == 0 && s[strlen(TAGS[t])] == ' ')
            return t;
    return -1;
}

/* One "[TAG] KEY    : value" line into *b.  SD_EINVAL when malformed or repeated. */
static sd_status tb_line(const sd_counters_ctx *cx, size_t ln, const char *s, int t, tb_block *b)
{
    const char *k = sd_text_skip_blank(s + strlen(TAGS[t]));
    const char *colon = strchr(k, ':');
    size_t kn = colon ? (size_t)(colon - k) : 0;
    const char *v = colon ? colon + 1 : "";
    size_t vn = strlen(v);
    sd_text_trim(&k, &kn);
    sd_text_trim(&v, &vn);
    for (int i = 0; i < K_N; i++) {
        if (!sd_text_span_is(k, kn, KEYS[i]))
            continue;
        if (b->has[t][i] || !sd_text_decimal(v, vn, &b->v[t][i], &b->h[t][i]) || !(b->v[t][i] >= 0.0) ||
            !isfinite(b->v[t][i]))
            break;
        b->has[t][i] = 1;
        return SD_OK;
    }
    return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: trtllm-bench DECODING STATISTICS: cannot read '%s'", cx->path,
                          ln, s);
}

/* 1 when gamma g fits AL = 1 + g DAR for every statistic within the printed rounding. */
static int tb_fits(const tb_block *b, size_t g)
{
    for (int i = 0; i < K_N; i++) {
        double al = b->v[T_AL][i], dar = b->v[T_DAR][i];
        double hal = sd_derive_widen(b->h[T_AL][i]), hdar = sd_derive_widen(b->h[T_DAR][i]);
        double lo = 1.0 + (double)g * (dar - hdar), hi = 1.0 + (double)g * (dar + hdar);
        if (al + hal < lo || al - hal > hi)
            return 0;
    }
    return 1;
}

static sd_status trtllm_bench_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    tb_block b;
    size_t blocks = 0;
    memset(&b, 0, sizeof b);
    for (size_t i = 0; i < t->n; i++) {
        const char *s = sd_text_skip_blank(t->line[i]);
        int tag = tb_tag(s);
        if (strstr(s, MARKER) != NULL && *s == '=') {
            if (blocks++ > 0)
                return sd_status_fail(cx->err, SD_EINVAL,
                                      "%s:%zu: a second DECODING STATISTICS block (the first on line %zu): one "
                                      "trtllm-bench report per file",
                                      cx->path, i + 1, b.line);
            b.line = i + 1;
        } else if (tag >= 0) {
            if (blocks == 0)
                return sd_status_fail(cx->err, SD_EINVAL,
                                      "%s:%zu: a trtllm-bench statistics line before '= DECODING STATISTICS'",
                                      cx->path, i + 1);
            sd_status st = tb_line(cx, i + 1, s, tag, &b);
            if (st != SD_OK)
                return st;
        }
    }
    if (blocks == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no trtllm-bench '= DECODING STATISTICS' block", cx->path);
    for (int tg = 0; tg < T_N; tg++)
        for (int k = 0; k < K_N; k++)
            if (!b.has[tg][k])
                return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the DECODING STATISTICS block has no '%s %s' line",
                                      cx->path, b.line, TAGS[tg], KEYS[k]);
    size_t g = cx->opt->gamma;
    size_t fits = 0, first = 0;
    for (size_t k = 1; k <= MAXG && g == 0; k++)
        if (tb_fits(&b, k)) {
            fits++;
            first = first ? first : k;
        }
    if (g == 0 && fits != 1)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %s: give the draft length (max_draft_len) with --gamma", cx->path, b.line,
                              fits ? "several draft lengths fit AL = 1 + gamma x DAR within the printed rounding"
                                   : "no draft length fits AL = 1 + gamma x DAR within the printed rounding");
    if (g && !tb_fits(&b, g))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: gamma %zu does not fit the block: average AL %.6g, DAR %.6g, but AL = 1 + gamma "
                              "x DAR",
                              cx->path, b.line, g, b.v[T_AL][K_AVG], b.v[T_DAR][K_AVG]);
    int given = g != 0;
    g = g ? g : first;
    double dt = b.v[T_DT][K_AVG], adt = b.v[T_ADT][K_AVG];
    if (!(dt > 0.0) || adt > dt + sd_derive_widen(b.h[T_DT][K_AVG]) + sd_derive_widen(b.h[T_ADT][K_AVG]))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: average draft tokens %.6g and accepted draft tokens %.6g: expected 0 <= "
                              "accepted <= draft tokens, draft tokens > 0",
                              cx->path, b.line, dt, adt);
    c->gamma = g;
    c->gauge = 1;
    c->mean_accepted = fmin((double)g * adt / dt, (double)g);
    sd_counts_note(c,
                   "trtllm-bench's DECODING STATISTICS: a gauge, %.4g accepted tokens per iteration = gamma x average "
                   "ADT / average DT, pooled over the requests (the block prints no request or iteration count).",
                   c->mean_accepted);
    sd_counts_note(c, "gamma = %zu %s.", g,
                   given ? "from --gamma (it fits AL = 1 + gamma x DAR)"
                         : "read from the block: the one draft length with AL = 1 + gamma x DAR for all seven "
                           "statistics");
    sd_counts_note(c, "Its draft tokens are max_draft_len x (iterations + 1), assumed by trtllm-bench, not measured.");
    return SD_OK;
}

static int trtllm_bench_detect(const char *line, int first)
{
    const char *s = sd_text_skip_blank(line);
    (void)first;
    return (*s == '=' && strstr(s, "= " MARKER) != NULL) || tb_tag(s) >= 0;
}

/* The row of trtllm-bench: trtllm-bench's "DECODING STATISTICS" block.  detect: its "= DECODING
 * STATISTICS" line or a "[DT] ", "[ADT] ", "[DAR] ", "[AL] " line.  read: a gauge, gamma x
 * average ADT / average DT; gamma from the block (AL = 1 + gamma DAR) or opt->gamma. */
const sd_counters_reader sd_counters_reader_trtllm_bench = {
    .name = "trtllm-bench",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = trtllm_bench_detect,
    .read = trtllm_bench_read,
};
