/* prometheus.c -- the prometheus reader and writer: a /metrics scrape of vLLM's, llama.cpp's,
 * TensorRT-LLM's or SGLang's speculative-decoding metrics (see counters_impl.h).
 *
 * The exposition format is read by exposition.c; here are the engines: the table METRICS
 * names every metric read, by engine and by role, and the table ENGINES gives each engine
 * the function that turns its series into counts.  One engine per scrape.  Series that
 * differ in labels other than the position are summed unless opt->select picks one;
 * opt->since subtracts an earlier scrape's counters (a gauge keeps this scrape's value).
 *
 * vLLM V1: vllm/v1/spec_decode/metrics.py (SpecDecodingProm): num_drafts, num_draft_tokens,
 * num_accepted_tokens and num_accepted_tokens_per_pos{position="0".."k-1"}, prefix counts,
 * every position counted over all drafts.  vLLM V0's vllm:spec_decode_num_emitted_tokens is
 * read only to say that a V0 scrape counts no drafts.
 *
 * llama.cpp's server: the same names and meaning under its own prefix (ggml-org/llama.cpp PR
 * #26389, "matching the vLLM counter schema": n_draft_tokens, n_draft_accepted,
 * n_draft_verif_steps and n_accepted_per_pos[i], the verification steps that accepted more
 * than i tokens, in tools/server/server-context.cpp).  That its vector spans --draft-max and
 * not only the longest accepted prefix was not verified in its source (the notes say so).
 *
 * TensorRT-LLM (trtllm-serve's /prometheus/metrics; NVIDIA/TensorRT-LLM
 * tensorrt_llm/metrics/collector.py @ 050f80def8df236e326949c8bd9dee10fd896a83, prefix
 * "trtllm_"; labels model_name, engine_type):
 *   trtllm_spec_decode_drafted_tokens_total{token_position} and ..._accepted_tokens_total
 *     {token_position}: per request, added when it finishes (return_perf_metrics; PR #12636):
 *     the drafts that drafted a token at position i, and those that accepted it;
 *   trtllm_spec_decode_num_draft_tokens_total, ..._num_accepted_tokens_total: per iteration
 *     (enable_iter_perf_stats; PR #12545): draft tokens proposed, draft tokens accepted
 *     (cpp/include/tensorrt_llm/executor/types.h, SpecDecodingStats);
 *   the gauges ..._acceptance_length and ..._draft_overhead hold the last iteration's value
 *     and are not read.
 *   With the per-position counters: drafts = drafted{0} (no drafts counter exists; each
 *   verification with a draft drafts position 0), reached[i] = drafted{i}, accepted_at[i] =
 *   accepted{i}, taken as prefix counts (a draft token after a rejection is never accepted);
 *   the code filling the per-position lists was not found, so the prefix reading is held to
 *   the counts (accepted{i} non-increasing, at most drafted{i}) and said in the notes.
 *   Without them: the iteration counters, drafts = draft tokens / gamma (--gamma required).
 *
 * SGLang (python/sglang/srt/observability/metrics_collector.py @
 * 016d8605e45876180312e29d6988e1de06562472; before, python/sglang/srt/metrics/collector.py):
 *   sglang:spec_verify_calls_total (PR #25689): the verify passes of each request
 *     (req.spec_verify_ct, one per request per pass), added with sglang:generation_tokens_total
 *     (its completion tokens, the first one made by prefill, no verify) and
 *     sglang:num_requests_total when a request finishes (tokenizer_manager.py @
 *     001067fffe33427bee0ed2f007fb7551a1d76b44, collect_metrics); so accepted drafts =
 *     generation tokens - requests - verifies, each family summed over its label sets
 *     (is_streaming too);
 *   the gauges sglang:spec_accept_length (each --decode-log-interval window's accepted drafts
 *     + bonus per request-verify, the 'Decode batch' line's accept len; reset every window,
 *     mostrecent) and sglang:spec_accept_rate (version A before PR #23530: len /
 *     num_draft_tokens; B from it: (len - 1) / (num_draft_tokens - 1)), and sglang:
 *     spec_num_steps, spec_num_draft_tokens (PR #25940: the active configuration;
 *     python/sglang/srt/managers/scheduler_components/metrics_reporter.py @
 *     c9cbe8f25f9672ae72363052acff97b5464fe202).
 *   With the verify counter the counts are used (prefix, no positions); else the accept
 *   length gauge (the plain mean over label sets) is a gauge.  gamma: --gamma, else
 *   spec_num_steps, else the one gamma in [1, 64] for which the gauges' len and rate meet
 *   version A's or B's formula (to 1e-9), else refused naming --gamma. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_impl.h"
#include "exposition.h"

/* What a metric means to its engine's builder. */
enum {
    R_DRAFTS,         /* counter: drafts (verification steps with a draft) */
    R_DRAFT_TOKENS,   /* counter: draft tokens */
    R_ACCEPTED,       /* counter: accepted draft tokens */
    R_ACCEPTED_POS,   /* counter per position: drafts accepted through it */
    R_DRAFTED_POS,    /* counter per position: drafts that drafted it */
    R_EMITTED,        /* counter: vLLM V0's emitted tokens (only named in a message) */
    R_VERIFIES,       /* counter: request-verifies (SGLang) */
    R_GENERATED,      /* counter: generated tokens of finished requests (SGLang) */
    R_REQUESTS,       /* counter: finished requests (SGLang) */
    R_LENGTH,         /* gauge: the mean accept length, bonus included (SGLang) */
    R_RATE,           /* gauge: the acceptance rate (SGLang) */
    R_STEPS,          /* gauge: the active draft length (SGLang) */
    R_NUM_DRAFT,      /* gauge: the active draft tokens per verify, bonus slot included (SGLang) */
    R_N
};

enum { E_VLLM, E_LLAMACPP, E_TRTLLM, E_SGLANG, E_N };
static const char *const ENGINE[E_N] = { "vLLM", "llama.cpp", "TensorRT-LLM", "SGLang" };

/* Every metric read: { name without "_total", gauge, engine, role, index label }. */
static const sd_expo_metric METRICS[] = {
    { "vllm:spec_decode_num_drafts", 0, E_VLLM, R_DRAFTS, NULL },
    { "vllm:spec_decode_num_draft_tokens", 0, E_VLLM, R_DRAFT_TOKENS, NULL },
    { "vllm:spec_decode_num_accepted_tokens", 0, E_VLLM, R_ACCEPTED, NULL },
    { "vllm:spec_decode_num_accepted_tokens_per_pos", 0, E_VLLM, R_ACCEPTED_POS, "position" },
    { "vllm:spec_decode_num_emitted_tokens", 0, E_VLLM, R_EMITTED, NULL },
    { "llamacpp:spec_decode_num_drafts", 0, E_LLAMACPP, R_DRAFTS, NULL },
    { "llamacpp:spec_decode_num_draft_tokens", 0, E_LLAMACPP, R_DRAFT_TOKENS, NULL },
    { "llamacpp:spec_decode_num_accepted_tokens", 0, E_LLAMACPP, R_ACCEPTED, NULL },
    { "llamacpp:spec_decode_num_accepted_tokens_per_pos", 0, E_LLAMACPP, R_ACCEPTED_POS, "position" },
    { "trtllm_spec_decode_drafted_tokens", 0, E_TRTLLM, R_DRAFTED_POS, "token_position" },
    { "trtllm_spec_decode_accepted_tokens", 0, E_TRTLLM, R_ACCEPTED_POS, "token_position" },
    { "trtllm_spec_decode_num_draft_tokens", 0, E_TRTLLM, R_DRAFT_TOKENS, NULL },
    { "trtllm_spec_decode_num_accepted_tokens", 0, E_TRTLLM, R_ACCEPTED, NULL },
    { "trtllm_spec_decode_acceptance_length", 1, E_TRTLLM, R_LENGTH, NULL }, /* not used: one iteration */
    { "sglang:spec_verify_calls", 0, E_SGLANG, R_VERIFIES, NULL },
    { "sglang:generation_tokens", 0, E_SGLANG, R_GENERATED, NULL },
    { "sglang:num_requests", 0, E_SGLANG, R_REQUESTS, NULL },
    { "sglang:spec_accept_length", 1, E_SGLANG, R_LENGTH, NULL },
    { "sglang:spec_accept_rate", 1, E_SGLANG, R_RATE, NULL },
    { "sglang:spec_num_steps", 1, E_SGLANG, R_STEPS, NULL },
    { "sglang:spec_num_draft_tokens", 1, E_SGLANG, R_NUM_DRAFT, NULL },
};
#define M_N (sizeof METRICS / sizeof *METRICS)

static const sd_expo_table TABLE = { METRICS, M_N, ENGINE, MAXG, "gamma beyond 64" };

/* The name of engine e's metric of role r ("" when it has none). */
static const char *mname(int e, int r)
{
    for (size_t i = 0; i < M_N; i++)
        if (METRICS[i].group == e && METRICS[i].tag == r)
            return METRICS[i].name;
    return "";
}

/* The counts of one label set. */
typedef struct {
    const char *key;
    size_t line;      /* its first series */
    double v[R_N];    /* the scalar roles */
    int have[R_N];
    uint64_t mask[2]; /* positions seen: [0] accepted, [1] drafted */
    double pos[2][MAXG];
    size_t pline[2][MAXG];
} pgroup;

/* The series of sc grouped by label set into g[0 .. *ng - 1] (room for sc->n). */
static void p_group(const sd_expo_scrape *sc, pgroup *g, size_t *ng)
{
    *ng = 0;
    for (size_t i = 0; i < sc->n; i++) {
        const sd_expo_series *s = &sc->s[i];
        size_t j = 0;
        while (j < *ng && strcmp(g[j].key, s->key) != 0)
            j++;
        if (j == *ng) {
            memset(&g[j], 0, sizeof g[j]);
            g[j].key = s->key;
            g[j].line = s->line;
            (*ng)++;
        }
        int r = METRICS[s->metric].tag;
        if (r == R_ACCEPTED_POS || r == R_DRAFTED_POS) {
            int k = r == R_DRAFTED_POS;
            g[j].mask[k] |= (uint64_t)1 << s->index;
            g[j].pos[k][s->index] = s->value;
            g[j].pline[k][s->index] = s->line;
        } else {
            g[j].have[r] = 1;
            g[j].v[r] += s->value;
        }
    }
}

/* The number of positions 0..k-1 of mask, or 0 when they are not that. */
static size_t p_positions(uint64_t mask)
{
    if (mask == 0 || (mask & (mask + 1)) != 0)
        return 0;
    size_t k = 0;
    while (k < MAXG && (mask >> k & 1))
        k++;
    return k;
}

/* Each label set's per-position series of role r (kind k: 0 accepted, 1 drafted): positions
 * 0..k-1, the same k as g0's, falling with the position. */
static sd_status p_check_positions(const sd_counters_ctx *cx, int e, const pgroup *g, const pgroup *g0, int k)
{
    const char *name = mname(e, k ? R_DRAFTED_POS : R_ACCEPTED_POS);
    if (p_positions(g->mask[k]) == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the %s series {%.120s} are not positions 0..k-1", cx->path,
                              g->line, name, g->key);
    if (g->mask[k] != g0->mask[k])
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the series {%.120s} and {%.120s} have different numbers of positions", cx->path,
                              g->line, g->key, g0->key);
    for (size_t i = 1; i < MAXG && (g->mask[k] >> i & 1); i++)
        if (g->pos[k][i] > g->pos[k][i - 1])
            return sd_status_fail(cx->err, SD_EINVAL,
                                  k ? "%s:%zu: %s{%.120s} rises from %.0f at position %zu to %.0f at %zu: impossible, "
                                      "a draft with a token at position %zu has one at %zu"
                                    : "%s:%zu: %s{%.120s} rises from %.0f at position %zu to %.0f at %zu: impossible, "
                                      "a draft accepted through position %zu was accepted through %zu",
                                  cx->path, g->pline[k][i], name, g->key, g->pos[k][i - 1], i - 1, g->pos[k][i], i, i,
                                  i - 1);
    return SD_OK;
}

/* SD_EINVAL "path: missing counters[ with label=value]: a, b" for the roles r[0 .. n-1] of
 * engine e that no label set has. */
static sd_status p_missing(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng, const int *r, size_t n,
                           const sd_expo_select *sel, const char *hint)
{
    char list[600] = "";
    for (size_t j = 0; j < n; j++) {
        int any = 0;
        for (size_t i = 0; i < ng; i++)
            any |= r[j] == R_ACCEPTED_POS ? g[i].mask[0] != 0 : r[j] == R_DRAFTED_POS ? g[i].mask[1] != 0 : g[i].have[r[j]];
        if (!any)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", mname(e, r[j]));
    }
    if (*list == '\0')
        return SD_OK;
    return sd_status_fail(cx->err, SD_EINVAL, "%s: missing counters%s%.*s%s%.*s: %s%s", cx->path,
                          sel->name ? " with " : "", sel->name ? (int)sel->nn : 0, sel->name ? sel->name : "",
                          sel->name ? "=" : "", sel->name ? (int)sel->vn : 0, sel->name ? sel->val : "", list, hint);
}

/* The note on what was selected or summed. */
static void p_note_sets(sd_counts *c, const pgroup *g, size_t ng, const sd_expo_select *sel)
{
    if (sel->name)
        sd_counts_note(c, "Selected the series with %.*s=\"%.*s\" (%zu label set%s).", (int)sel->nn, sel->name,
                       (int)sel->vn, sel->val, ng, ng == 1 ? "" : "s");
    else if (ng > 1)
        sd_counts_note(c,
                       "Summed %zu series of each counter, one per label set ({%.100s}, {%.100s}%s); select one with "
                       "label=value.",
                       ng, g[0].key, g[1].key, ng > 2 ? ", ..." : "");
}

/* ---- the builders, an engine each ------------------------------------------------------------ */

typedef sd_status (*p_builder)(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng,
                               const sd_expo_select *sel, sd_counts *c);

/* vLLM V1 and llama.cpp: the four counters in every label set, summed. */
static sd_status b_vllm(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng, const sd_expo_select *sel,
                        sd_counts *c)
{
    static const int need[] = { R_DRAFTS, R_DRAFT_TOKENS, R_ACCEPTED, R_ACCEPTED_POS };
    int v0 = 0;
    for (size_t j = 0; j < ng; j++)
        v0 |= g[j].have[R_EMITTED];
    sd_status st = p_missing(cx, e, g, ng, need, 4, sel,
                             v0 ? " (vllm:spec_decode_num_emitted_tokens: a vLLM V0 scrape, which counts no drafts)"
                                : "");
    for (size_t j = 0; st == SD_OK && j < ng; j++) {
        for (int r = 0; r < 3 && st == SD_OK; r++)
            if (!g[j].have[need[r]])
                st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the series {%.120s} has no %s", cx->path, g[j].line,
                                    g[j].key, mname(e, need[r]));
        if (st == SD_OK)
            st = p_check_positions(cx, e, &g[j], &g[0], 0);
    }
    if (st != SD_OK)
        return st;
    size_t k = p_positions(g[0].mask[0]);
    c->gamma = k;
    c->has_positions = 1;
    for (size_t j = 0; j < ng; j++) {
        sd_counts_block set = { .drafts = g[j].v[R_DRAFTS], .draft_tokens = g[j].v[R_DRAFT_TOKENS],
                                .accepted_tokens = g[j].v[R_ACCEPTED], .positions = k };
        memcpy(set.accepted_at, g[j].pos[0], k * sizeof *set.accepted_at);
        sd_counts_add(c, &set);
    }
    for (size_t i = 0; i < k; i++)
        c->reached[i] = c->drafts;
    p_note_sets(c, g, ng, sel);
    sd_counts_note(c,
                   "gamma = its %zu per-position counters; reached[i] = drafts, as %s counts each position over all "
                   "drafts.",
                   k, ENGINE[e]);
    if (e == E_LLAMACPP)
        sd_counts_note(c,
                       "That llama.cpp's per-position counters span --draft-max (and not only the longest accepted "
                       "prefix) is taken from its PR #26389, not checked in its source.");
    if (c->draft_tokens < c->drafts * (double)k)
        sd_counts_note(c, "Draft tokens are fewer than drafts x %zu: some drafts were shorter.", k);
    return SD_OK;
}

/* TensorRT-LLM's iteration counters, summed over the label sets: drafts = draft tokens /
 * opt->gamma (required), every draft gamma long, no positions. */
static sd_status b_trtllm_iterations(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng,
                                     const sd_expo_select *sel, sd_counts *c)
{
    static const int need[] = { R_DRAFT_TOKENS, R_ACCEPTED };
    sd_status st = p_missing(cx, e, g, ng, need, 2, sel,
                             " (or the per-position trtllm_spec_decode_drafted_tokens and "
                             "trtllm_spec_decode_accepted_tokens of return_perf_metrics)");
    if (st != SD_OK)
        return st;
    size_t gm = cx->opt->gamma;
    for (size_t j = 0; j < ng; j++) {
        c->draft_tokens += g[j].v[R_DRAFT_TOKENS];
        c->accepted_tokens += g[j].v[R_ACCEPTED];
    }
    if (gm == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: TensorRT-LLM's iteration counters count no drafts: give the draft length "
                              "(max_draft_len) with %s (drafts = draft tokens / gamma), or scrape the "
                              "per-position counters (return_perf_metrics)",
                              cx->path, g[0].line, sd_counters_gamma_name(cx));
    if (fmod(c->draft_tokens, (double)gm) > 0.0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: %.0f draft tokens are no multiple of gamma = %zu: drafts = draft tokens / gamma "
                              "needs every draft %zu long",
                              cx->path, c->draft_tokens, gm, gm);
    c->gamma = gm;
    c->drafts = c->draft_tokens / (double)gm;
    for (size_t i = 0; i < gm; i++)
        c->reached[i] = c->drafts;
    p_note_sets(c, g, ng, sel);
    sd_counts_note(c,
                   "TensorRT-LLM's iteration counters (enable_iter_perf_stats) count no drafts: drafts = draft "
                   "tokens / %zu (%s), every draft %zu long.",
                   gm, sd_counters_gamma_name(cx), gm);
    sd_counts_note(c, "Prefix counts (accepted up to the first rejection) without per-position counts.");
    return SD_OK;
}

/* TensorRT-LLM: the per-position counters when the scrape has them, else the iteration
 * counters with opt->gamma. */
static sd_status b_trtllm(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng, const sd_expo_select *sel,
                          sd_counts *c)
{
    int pos = 0;
    for (size_t j = 0; j < ng; j++)
        pos |= g[j].mask[0] != 0 || g[j].mask[1] != 0;
    if (!pos)
        return b_trtllm_iterations(cx, e, g, ng, sel, c);
    static const int need[] = { R_DRAFTED_POS, R_ACCEPTED_POS };
    sd_status st = p_missing(cx, e, g, ng, need, 2, sel, "");
    for (size_t j = 0; st == SD_OK && j < ng; j++) {
        if ((st = p_check_positions(cx, e, &g[j], &g[0], 1)) != SD_OK ||
            (st = p_check_positions(cx, e, &g[j], &g[0], 0)) != SD_OK)
            break;
        if (g[j].mask[0] != g[j].mask[1])
            st = sd_status_fail(cx->err, SD_EINVAL,
                                "%s:%zu: the series {%.120s} have %zu drafted and %zu accepted positions", cx->path,
                                g[j].line, g[j].key, p_positions(g[j].mask[1]), p_positions(g[j].mask[0]));
        for (size_t i = 0; st == SD_OK && i < MAXG && (g[j].mask[0] >> i & 1); i++)
            if (g[j].pos[0][i] > g[j].pos[1][i])
                st = sd_status_fail(cx->err, SD_EINVAL,
                                    "%s:%zu: %s{%.120s} at position %zu is %.0f, more than the %.0f drafted there",
                                    cx->path, g[j].pline[0][i], mname(e, R_ACCEPTED_POS), g[j].key, i, g[j].pos[0][i],
                                    g[j].pos[1][i]);
    }
    if (st != SD_OK)
        return st;
    size_t k = p_positions(g[0].mask[0]);
    double it_d = 0.0, it_a = 0.0;
    int it = 0;
    c->gamma = k;
    c->has_positions = 1;
    for (size_t j = 0; j < ng; j++) {
        for (size_t i = 0; i < k; i++) {
            c->accepted_at[i] += g[j].pos[0][i];
            c->reached[i] += g[j].pos[1][i];
            c->draft_tokens += g[j].pos[1][i];
            c->accepted_tokens += g[j].pos[0][i];
        }
        it |= g[j].have[R_DRAFT_TOKENS] && g[j].have[R_ACCEPTED];
        it_d += g[j].v[R_DRAFT_TOKENS];
        it_a += g[j].v[R_ACCEPTED];
    }
    c->drafts = c->reached[0];
    p_note_sets(c, g, ng, sel);
    sd_counts_note(c,
                   "TensorRT-LLM's per-position counters (return_perf_metrics, added as each request finishes): "
                   "drafts = drafted tokens at position 0, reached[i] = drafted at position i, gamma = their %zu "
                   "positions; accepted at position i taken as drafts accepted through i (prefix counts).",
                   k);
    if (it)
        sd_counts_note(c,
                       "The iteration counters (%.0f draft tokens, %.0f accepted) are not used: they are counted per "
                       "iteration, the positions per finished request.",
                       it_d, it_a);
    return SD_OK;
}

/* The gauge of role r over the label sets: their plain mean (*n: how many), or NaN. */
static double p_gauge(const pgroup *g, size_t ng, int r, size_t *n)
{
    double s = 0.0;
    *n = 0;
    for (size_t j = 0; j < ng; j++)
        if (g[j].have[r]) {
            s += g[j].v[r];
            (*n)++;
        }
    return *n ? s / (double)*n : NAN;
}

/* 1 when x is within 1e-9 of a whole number in [1, MAXG] (into *k). */
static int p_whole_gamma(double x, size_t *k)
{
    double r = nearbyint(x);
    if (!(r >= 1.0 && r <= MAXG && fabs(x - r) <= 1e-9 * r))
        return 0;
    *k = (size_t)r;
    return 1;
}

/* What an SGLang scrape holds: each gauge's plain mean over its label sets (n: how many have
 * it) and the counters summed. */
typedef struct {
    double L, R, S, D; /* accept length, accept rate, num_steps, num_draft_tokens */
    size_t nl, nr, ns, nd;
    int counters;      /* 1 when a label set has sglang:spec_verify_calls */
    double V, G, Q;    /* verify calls, generation tokens, requests */
} p_sglang;

/* The draft length of an SGLang scrape (*gm, and *from: where it came from): opt->gamma,
 * else spec_num_steps, else the one gamma that the gauges' len and rate fit in version A or
 * B.  SD_EINVAL when spec_num_steps is no draft length or nothing gives one. */
static sd_status p_sglang_gamma(const sd_counters_ctx *cx, const p_sglang *sc, size_t *gm, const char **from)
{
    size_t ga = 0, gb = 0;
    *gm = cx->opt->gamma;
    *from = sd_counters_gamma_name(cx);
    if (*gm == 0 && sc->ns > 0) {
        if (!p_whole_gamma(sc->S, gm))
            return sd_status_fail(cx->err, SD_EINVAL, "%s: sglang:spec_num_steps %.6g is not a draft length in [1, %d]",
                                  cx->path, sc->S, MAXG);
        *from = "sglang:spec_num_steps";
    }
    if (*gm == 0 && sc->nl > 0 && sc->nr > 0 && sc->L > 1.0 && sc->R > 0.0) {
        int a = p_whole_gamma(sc->L / sc->R - 1.0, &ga), b = p_whole_gamma((sc->L - 1.0) / sc->R, &gb);
        if (a + b == 1 || (a && b && ga == gb)) {
            *gm = a ? ga : gb;
            *from = a ? "the gauges' len and rate: version A's rate = len / (gamma + 1), SGLang before PR #23530"
                      : "the gauges' len and rate: version B's rate = (len - 1) / gamma, SGLang from PR #23530";
        }
    }
    if (*gm == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: give the draft length (SGLang's --speculative-num-steps) with %s: the scrape has no "
                              "sglang:spec_num_steps, and %s",
                              cx->path, sd_counters_gamma_name(cx),
                              sc->nl == 0 || sc->nr == 0 ? "no accept length and rate gauges to tell it"
                                                         : "its accept length and rate fit no one draft length");
    return SD_OK;
}

/* The counts of SGLang's counters with gamma gm: drafts = verify calls, accepted =
 * generation tokens - requests - verify calls, no positions. */
static sd_status p_sglang_counts(const sd_counters_ctx *cx, const p_sglang *sc, size_t gm, const char *from,
                                 sd_counts *c)
{
    double A = sc->G - sc->Q - sc->V;
    if (!(sc->V >= 1.0))
        return sd_status_fail(cx->err, SD_EINVAL, "%s: sglang:spec_verify_calls is 0: no request has verified",
                              cx->path);
    if (A < 0.0 || A > sc->V * (double)gm)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: generation tokens %.0f - requests %.0f - verify calls %.0f = %.0f accepted draft "
                              "tokens, outside [0, %.0f] for gamma = %zu",
                              cx->path, sc->G, sc->Q, sc->V, A, sc->V * (double)gm, gm);
    c->drafts = sc->V;
    c->draft_tokens = sc->V * (double)gm;
    c->accepted_tokens = A;
    for (size_t i = 0; i < gm; i++)
        c->reached[i] = sc->V;
    sd_counts_note(c,
                   "SGLang's counters, added as each request finishes: drafts = sglang:spec_verify_calls (%.0f), "
                   "accepted = generation tokens - requests (each request's first token comes from prefill) - "
                   "verify calls (one bonus token each) = %.0f; draft tokens = drafts x %zu (gamma from %s).",
                   sc->V, A, gm, from);
    sd_counts_note(c,
                   "Tokens a verify accepted past a stop token or max_tokens are not in the generation tokens, so "
                   "the accepted count is low by up to gamma a request.");
    if (sc->nl > 0)
        sd_counts_note(c, "The gauge sglang:spec_accept_length (the last logging window) is %.4g.", sc->L);
    return SD_OK;
}

/* The gauge of an SGLang scrape without the verify counter: accept length - 1 accepted
 * tokens per verify, with gamma gm. */
static sd_status p_sglang_gauge(const sd_counters_ctx *cx, const p_sglang *sc, size_t gm, const char *from,
                                sd_counts *c)
{
    if (!(sc->L > 0.0))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: sglang:spec_accept_length is %.6g: no decode window has been logged (the gauge "
                              "starts at 0)",
                              cx->path, sc->L);
    if (!(sc->L >= 1.0) || sc->L - 1.0 > (double)gm)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: sglang:spec_accept_length %.6g is outside [1, gamma + 1 = %zu]",
                              cx->path, sc->L, gm + 1);
    c->gauge = 1;
    c->mean_accepted = sc->L - 1.0;
    sd_counts_note(c,
                   "SGLang's gauge sglang:spec_accept_length = %.6g (the last --decode-log-interval window's accepted "
                   "drafts + bonus per request-verify%s; no counts, so no interval): %.4g accepted tokens per verify; "
                   "gamma = %zu from %s.",
                   sc->L, sc->nl > 1 ? ", the plain mean over its label sets" : "", c->mean_accepted, gm, from);
    return SD_OK;
}

/* SGLang: the verify counter with the generated tokens and requests when the scrape has it,
 * else the accept length gauge. */
static sd_status b_sglang(const sd_counters_ctx *cx, int e, const pgroup *g, size_t ng, const sd_expo_select *sel,
                          sd_counts *c)
{
    p_sglang sc = { 0 };
    sc.L = p_gauge(g, ng, R_LENGTH, &sc.nl);
    sc.R = p_gauge(g, ng, R_RATE, &sc.nr);
    sc.S = p_gauge(g, ng, R_STEPS, &sc.ns);
    sc.D = p_gauge(g, ng, R_NUM_DRAFT, &sc.nd);
    for (size_t j = 0; j < ng; j++) {
        sc.counters |= g[j].have[R_VERIFIES];
        sc.V += g[j].v[R_VERIFIES];
        sc.G += g[j].v[R_GENERATED];
        sc.Q += g[j].v[R_REQUESTS];
    }
    if (sc.counters) {
        static const int need[] = { R_VERIFIES, R_GENERATED, R_REQUESTS };
        sd_status st = p_missing(cx, e, g, ng, need, 3, sel, "");
        if (st != SD_OK)
            return st;
    } else if (sc.nl == 0) {
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s: SGLang's metrics without speculative decoding%s%.*s%s%.*s: expected the counter "
                              "sglang:spec_verify_calls (with sglang:generation_tokens and sglang:num_requests) or the "
                              "gauge sglang:spec_accept_length",
                              cx->path, sel->name ? " with " : "", sel->name ? (int)sel->nn : 0,
                              sel->name ? sel->name : "", sel->name ? "=" : "", sel->name ? (int)sel->vn : 0,
                              sel->name ? sel->val : "");
    }
    size_t gm;
    const char *from;
    sd_status st = p_sglang_gamma(cx, &sc, &gm, &from);
    if (st != SD_OK)
        return st;
    c->gamma = gm;
    if (sel->name)
        p_note_sets(c, g, ng, sel);
    else if (ng > 1)
        sd_counts_note(c,
                       "Each counter summed over its label sets and each gauge averaged over its (%zu label sets in "
                       "all: the tokenizer's counters and the scheduler's gauges carry different labels); select one "
                       "with label=value.",
                       ng);
    if (sc.nd > 0 && !(fabs(sc.D - (double)(gm + 1)) <= 1e-9 * sc.D))
        sd_counts_note(c,
                       "sglang:spec_num_draft_tokens %.6g is not gamma + 1: the drafts are trees (topk > 1), read as "
                       "chains of depth %zu.",
                       sc.D, gm);
    return sc.counters ? p_sglang_counts(cx, &sc, gm, from, c) : p_sglang_gauge(cx, &sc, gm, from, c);
}

/* The engines, in ENGINE's order. */
static const struct {
    const char *prefix; /* a sample of the engine's speculative metrics starts with it */
    p_builder build;
} ENGINES[E_N] = {
    [E_VLLM] = { "vllm:spec_decode_", b_vllm },
    [E_LLAMACPP] = { "llamacpp:spec_decode_", b_vllm },
    [E_TRTLLM] = { "trtllm_spec_decode_", b_trtllm },
    [E_SGLANG] = { "sglang:spec_", b_sglang },
};

/* SD_EINVAL for a scrape with no metric of any engine. */
static sd_status p_none(const sd_counters_ctx *cx, const sd_expo_select *sel)
{
    return sd_status_fail(
        cx->err, SD_EINVAL,
        "%s: no speculative-decoding counters%s%.*s%s%.*s: expected vLLM's vllm:spec_decode_num_drafts, "
        "vllm:spec_decode_num_draft_tokens, vllm:spec_decode_num_accepted_tokens and "
        "vllm:spec_decode_num_accepted_tokens_per_pos; or llama.cpp's llamacpp:spec_decode_num_drafts, ... (the same "
        "names); or TensorRT-LLM's trtllm_spec_decode_drafted_tokens and trtllm_spec_decode_accepted_tokens; or "
        "SGLang's sglang:spec_verify_calls or sglang:spec_accept_length",
        cx->path, sel->name ? " with " : "", sel->name ? (int)sel->nn : 0, sel->name ? sel->name : "",
        sel->name ? "=" : "", sel->name ? (int)sel->vn : 0, sel->name ? sel->val : "");
}

static sd_status prometheus_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    sd_expo_scrape now = { .group = -1 };
    sd_expo_scrape then = { .group = -1 };
    sd_expo_select sel;
    size_t fresh = 0;
    sd_status st = sd_expo_select_parse(cx->path, cx->opt->select, &TABLE, &sel, cx->err);
    if (st == SD_OK)
        st = sd_expo_scan(cx->path, t, &TABLE, &sel, &now, cx->err);
    if (st == SD_OK && cx->opt->since) {
        sd_text_lines ts;
        if ((st = sd_text_read(cx->opt->since, &ts, cx->err)) == SD_OK) {
            st = sd_expo_scan(cx->opt->since, &ts, &TABLE, &sel, &then, cx->err);
            sd_text_free(&ts);
        }
        if (st == SD_OK)
            st = sd_expo_delta(cx->path, cx->opt->since, &TABLE, &now, &then, &fresh, cx->err);
    }
    pgroup *g = NULL;
    size_t ng = 0;
    if (st == SD_OK && now.n == 0)
        st = p_none(cx, &sel);
    if (st == SD_OK && (g = malloc(now.n * sizeof *g)) == NULL)
        st = sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
    if (st == SD_OK) {
        int e = now.group;
        p_group(&now, g, &ng);
        sd_counts_note(c, "Read %s's metrics (%s...) from a Prometheus scrape.", ENGINE[e], ENGINES[e].prefix);
        st = ENGINES[e].build(cx, e, g, ng, &sel, c);
    }
    if (st == SD_OK && cx->opt->since)
        sd_counts_note(c, "The counts are the increase since the earlier scrape %s%s.", cx->opt->since,
                       fresh ? " (series absent from it counted whole)" : "");
    free(g);
    sd_expo_free(&now);
    sd_expo_free(&then);
    return st;
}

static int prometheus_detect(const char *line, int first)
{
    const char *b = sd_text_skip_blank(line);
    if (*b == '{')
        b += b[1] == '"' ? 2 : 1;
    for (int e = 0; e < E_N; e++)
        if (strncmp(b, ENGINES[e].prefix, strlen(ENGINES[e].prefix)) == 0)
            return 1;
    return first && *b && (strncmp(b, "# HELP ", 7) == 0 || strncmp(b, "# TYPE ", 7) == 0);
}

/* ---- the writer: vLLM's counters, as prometheus_client exposes them ----------------------- */

sd_status sd_counters_write_prometheus(const sd_counts *c, FILE *out, sd_error *err)
{
    if (c->kind != SD_COUNTS_PREFIX || !c->has_positions)
        return sd_status_fail(err, SD_EINVAL,
                              "counts: vLLM's counters hold prefix counts with positions; these are %s%s",
                              c->kind != SD_COUNTS_PREFIX ? "of kind any" : "without positions",
                              c->kind != SD_COUNTS_PREFIX && !c->has_positions ? " and without positions" : "");
    sd_status st = sd_counts_invariants("counts", c, 0, err);
    if (st != SD_OK)
        return st;
    int reached_differs = 0;
    char from[sizeof c->format];
    for (size_t i = 0; i < c->gamma; i++)
        reached_differs |= c->reached[i] < c->drafts || c->reached[i] > c->drafts;
    size_t fl = 0; /* the caller's format name, on one printable line */
    for (; fl + 1 < sizeof from && c->format[fl] != '\0'; fl++)
        from[fl] = (unsigned char)c->format[fl] < 0x20 || c->format[fl] == 0x7f ? '?' : c->format[fl];
    from[fl] = '\0';
    fprintf(out, "# Speculative-decoding counts (specdec, from %s input) as vLLM V1's counters "
                 "(vllm/v1/spec_decode/metrics.py).\n", from[0] ? from : "unnamed");
    if (reached_differs)
        fprintf(out, "# Not represented: some drafts were shorter than gamma = %zu (reached[i] < drafts).\n", c->gamma);
    /* vLLM's four counters, with its documentation as the HELP */
    static const struct {
        int role;
        const char *help;
    } W[] = {
        { R_DRAFTS, "Number of spec decoding drafts." },
        { R_DRAFT_TOKENS, "Number of draft tokens." },
        { R_ACCEPTED, "Number of accepted tokens." },
        { R_ACCEPTED_POS, "Accepted tokens per draft position." },
    };
    const double v[3] = { c->drafts, c->draft_tokens, c->accepted_tokens };
    for (int k = 0; k < 4; k++) {
        const char *name = mname(E_VLLM, W[k].role);
        fprintf(out, "# HELP %s_total %s\n# TYPE %s_total counter\n", name, W[k].help, name);
        for (size_t i = 0; i < (k == 3 ? c->gamma : 1); i++)
            if (k == 3)
                fprintf(out, "%s_total{position=\"%zu\"} %.0f\n", name, i, c->accepted_at[i]);
            else
                fprintf(out, "%s_total %.0f\n", name, v[k]);
    }
    if (ferror(out))
        return sd_status_fail(err, SD_EIO, "output: write error: %s", strerror(errno));
    return SD_OK;
}

/* The row of prometheus: a saved /metrics scrape, the fallback.  detect: the line, past its
 * blanks, starts with vllm:spec_decode_, llamacpp:spec_decode_, trtllm_spec_decode_ or
 * sglang:spec_ (a sample's name, plain or as {"...), or it is the file's first line that is not
 * blank and starts with "# HELP " or "# TYPE ".  read: every line checked as exposition text
 * (exposition.h); one engine's metrics over the label sets (or the one opt->select picks), less
 * the counters of the scrape opt->since, turned into counts by that engine's rule. */
const sd_counters_reader sd_counters_reader_prometheus = {
    .name = "prometheus",
    .by = SD_COUNTERS_FALLBACK,
    .scrape = 1,
    .detect = prometheus_detect,
    .read = prometheus_read,
};
