/* prometheus.c -- the prometheus reader and writer: a /metrics scrape of vLLM's or llama.cpp's
 * speculative-decoding counters (see counters_impl.h).
 *
 * Source: https://prometheus.io/docs/instrumenting/exposition_formats/ ("Text format details"):
 * lines end with '\n' (a CR before it is dropped here); blank lines are ignored; tokens are
 * separated by blanks and tabs, leading and trailing ones ignored.  '#' starts a comment; the
 * comments "# HELP name docstring" (docstring escapes \\ and \n) and "# TYPE name counter|gauge|
 * histogram|summary|untyped" are checked.  A sample is
 *   metric_name [ "{" label_name "=" `"` label_value `"` { "," ... } [ "," ] "}" ] value [ timestamp ]
 * or "{" `"`metric_name`"` [ "," labels ] "}" value [ timestamp ] for names outside the legacy
 * character set (label names may be quoted too); label values escape backslash, double quote and
 * line feed as \\, \" and \n (no other escape); value is a float as Go's ParseFloat reads it
 * (NaN, +Inf, -Inf valid; hexadecimal floats are not accepted here), timestamp an int64.
 * prometheus_client (prometheus/client_python, prometheus_client/exposition.py, generate_latest)
 * exposes a counter x as samples x_total under "# TYPE x_total counter" (plus x_created), so the
 * names are read with or without "_total".  vLLM's counters: vllm/v1/spec_decode/metrics.py,
 * SpecDecodingProm (the engine's labels, e.g. model_name and engine, plus position="0".."k-1"
 * on ..._per_pos); llama.cpp's: the same under llamacpp: (the table ENGINES, a row per
 * engine).  Series that differ in other labels are summed unless opt->select picks one. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_impl.h"

#define SERIES_MAX 4096 /* spec-decode series in one scrape */

/* The four counters of a scrape, by role, with vLLM's documentation (the writer's HELP). */
enum { C_DRAFTS, C_DRAFT_TOKENS, C_ACCEPTED, C_PER_POS, C_N };
static const char *const HELP[C_N] = {
    "Number of spec decoding drafts.",
    "Number of draft tokens.",
    "Number of accepted tokens.",
    "Accepted tokens per draft position.",
};

/* The engines whose counters a scrape may hold, a row each: the counters' names by role.
 * vLLM V1: vllm/v1/spec_decode/metrics.py (SpecDecodingProm).  llama.cpp's server: the same
 * names and meaning under its own prefix (ggml-org/llama.cpp PR #26389, "matching the vLLM
 * counter schema": n_draft_tokens, n_draft_accepted, n_draft_verif_steps and
 * n_accepted_per_pos[i], the verification steps that accepted more than i tokens, in
 * tools/server/server-context.cpp).  gamma is the number of per-position series for both;
 * that llama.cpp's vector spans --draft-max and not only the longest accepted prefix was not
 * verified in its source (the notes say so).  One engine per scrape. */
static const struct {
    const char *engine;      /* as the notes and messages name it */
    const char *name[C_N];   /* by role, without prometheus_client's "_total" */
    int unsure_gamma;        /* 1: that the positions span the draft length is not verified */
} ENGINES[] = {
    { .engine = "vLLM",
      .name = { "vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens",
                "vllm:spec_decode_num_accepted_tokens", "vllm:spec_decode_num_accepted_tokens_per_pos" } },
    { .engine = "llama.cpp",
      .name = { "llamacpp:spec_decode_num_drafts", "llamacpp:spec_decode_num_draft_tokens",
                "llamacpp:spec_decode_num_accepted_tokens", "llamacpp:spec_decode_num_accepted_tokens_per_pos" },
      .unsure_gamma = 1 },
};
#define E_N ((int)(sizeof ENGINES / sizeof *ENGINES))

typedef struct {
    int counter, pos; /* pos: the position label of ..._per_pos, else -1 */
    char *key;        /* the other labels, sorted by name and escaped: a="x",b="y" */
    double value;
    size_t line;
} pseries;

typedef struct {
    pseries *s;
    size_t n, cap;
    int v0;     /* vLLM V0's vllm:spec_decode_num_emitted_tokens was seen */
    int engine; /* the row of ENGINES the series are of (when n > 0 or has_engine) */
    int has_engine;
    size_t engine_line; /* its first series */
} pscrape;

typedef struct {
    const char *name, *val;
    size_t nn, vn;
} plabel;

typedef struct {
    const char *name, *val; /* opt->select split; name NULL when not given */
    size_t nn, vn;
} psel;

typedef struct {
    const sd_counters_ctx *cx;
    const char *path;
    size_t line;
    char *scratch; /* the current line's decoded names and values */
    const psel *sel;
    pscrape *out;
} pctx;

#define PLABELS 64

/* The role of the metric name[0..n-1] (with or without "_total") and its engine (*e), or -1. */
static int counter_of(const char *name, size_t n, int *e)
{
    for (int k = 0; k < E_N; k++)
        for (int i = 0; i < C_N; i++) {
            size_t m = strlen(ENGINES[k].name[i]);
            if (memcmp(name, ENGINES[k].name[i], n < m ? n : m) == 0 &&
                (n == m || (n == m + 6 && memcmp(name + m, "_total", 6) == 0))) {
                *e = k;
                return i;
            }
        }
    return -1;
}

/* The name of role c in the scrape sc's engine. */
static const char *cname(const pscrape *sc, int c)
{
    return ENGINES[sc->engine].name[c];
}

/* SD_EINVAL: "path:line: malformed exposition line: what". */
static sd_status p_bad(const pctx *pc, const char *what)
{
    return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: malformed exposition line: %s", pc->path, pc->line, what);
}

/* 1 when ch may be in a label name (a metric name when metric: ':' too), first: as its first character. */
static int ident_char(char ch, int first, int metric)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (metric && ch == ':') ||
           (!first && ch >= '0' && ch <= '9');
}

/* A quoted string at s, decoded into *scratch (advanced); just past it, or NULL. */
static const char *p_quoted(const char *s, char **scratch, const char **val, size_t *n)
{
    char *o = *scratch;
    if (*s != '"')
        return NULL;
    *val = o;
    for (s++; *s != '"'; s++) {
        if (*s == '\0')
            return NULL;
        if (*s == '\\') {
            s++;
            if (*s != '\\' && *s != '"' && *s != 'n')
                return NULL;
            *o++ = *s == 'n' ? '\n' : *s;
        } else {
            *o++ = *s;
        }
    }
    *n = (size_t)(o - *val);
    *scratch = o;
    return s + 1;
}

/* A metric or label name, plain or quoted; just past it, or NULL. */
static const char *p_name(const char *s, int metric, char **scratch, const char **name, size_t *n)
{
    if (*s == '"')
        return p_quoted(s, scratch, name, n);
    if (!ident_char(*s, 1, metric))
        return NULL;
    *name = s;
    while (ident_char(*s, 0, metric))
        s++;
    *n = (size_t)(s - *name);
    return s;
}

/* The label set after '{': the labels into lb (the first PLABELS; *nlb counts all), a leading
 * quoted metric name into *mname when mname is not NULL.  Just past '}', or NULL. */
static const char *p_labels(const char *s, char **scratch, plabel *lb, size_t *nlb, const char **mname, size_t *mn)
{
    size_t n = 0;
    for (int first = 1;; first = 0) {
        const char *ln, *v, *t;
        size_t lnn, vn;
        if (*(s = sd_text_skip_blank(s)) == '}')
            break;
        if ((t = p_name(s, 0, scratch, &ln, &lnn)) == NULL)
            return NULL;
        if (*(t = sd_text_skip_blank(t)) != '=') { /* "{"name", ...}" */
            if (!first || *s != '"' || mname == NULL)
                return NULL;
            *mname = ln;
            *mn = lnn;
            s = t;
        } else {
            if ((t = p_quoted(sd_text_skip_blank(t + 1), scratch, &v, &vn)) == NULL)
                return NULL;
            if (n < PLABELS)
                lb[n] = (plabel){ ln, v, lnn, vn };
            n++;
            s = sd_text_skip_blank(t);
        }
        if (*s == '}')
            break;
        if (*s++ != ',')
            return NULL;
    }
    *nlb = n;
    return s + 1;
}

/* Appends s[0..n-1] escaped as a label value (\\, \", \n) at *o. */
static void p_escape(char **o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || s[i] == '"' || s[i] == '\n')
            *(*o)++ = '\\';
        *(*o)++ = s[i] == '\n' ? 'n' : s[i];
    }
}

/* 1 when a's name sorts before b's (bytewise, a prefix first). */
static int plabel_before(const plabel *a, const plabel *b)
{
    int c = memcmp(a->name, b->name, a->nn < b->nn ? a->nn : b->nn);
    return c < 0 || (c == 0 && a->nn < b->nn);
}

/* The labels but skip (or none), sorted by name: a="x",b="y"; NULL when out of memory. */
static char *p_key(const plabel *lb, size_t n, size_t skip)
{
    size_t idx[PLABELS];
    size_t size = 1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        size_t j = m++;
        for (; j > 0 && plabel_before(&lb[i], &lb[idx[j - 1]]); j--)
            idx[j] = idx[j - 1];
        idx[j] = i;
        size += 2 * (lb[i].nn + lb[i].vn) + 4;
    }
    char *key = malloc(size);
    char *o = key;
    if (key == NULL)
        return NULL;
    for (size_t j = 0; j < m; j++) {
        const plabel *l = &lb[idx[j]];
        if (j > 0)
            *o++ = ',';
        p_escape(&o, l->name, l->nn);
        *o++ = '=';
        *o++ = '"';
        p_escape(&o, l->val, l->vn);
        *o++ = '"';
    }
    *o = '\0';
    return key;
}

/* The position label of ..._per_pos (*at: its index), and whether the series is selected. */
static sd_status p_labels_check(const pctx *pc, int c, const plabel *lb, size_t n, int *pos, size_t *at, int *selected)
{
    *pos = -1;
    *at = SIZE_MAX;
    *selected = pc->sel->name == NULL;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (lb[j].nn == lb[i].nn && memcmp(lb[j].name, lb[i].name, lb[i].nn) == 0)
                return p_bad(pc, "a label name repeats");
        if (pc->sel->name && lb[i].nn == pc->sel->nn && memcmp(lb[i].name, pc->sel->name, lb[i].nn) == 0 &&
            lb[i].vn == pc->sel->vn && memcmp(lb[i].val, pc->sel->val, lb[i].vn) == 0)
            *selected = 1;
        if (c != C_PER_POS || !sd_text_span_is(lb[i].name, lb[i].nn, "position"))
            continue;
        uint64_t p;
        if (!sd_text_count(lb[i].val, lb[i].vn, &p) || (lb[i].vn > 1 && lb[i].val[0] == '0'))
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: the position label is not a whole number",
                                  pc->path, pc->line, cname(pc->out, c));
        if (p >= MAXG)
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: position %llu: gamma beyond %d", pc->path,
                                  pc->line, cname(pc->out, c), (unsigned long long)p, MAXG);
        *pos = (int)p;
        *at = i;
    }
    if (c == C_PER_POS && *pos < 0)
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s without a position label", pc->path, pc->line,
                              cname(pc->out, c));
    return SD_OK;
}

/* Records a sample of one of vLLM's counters. */
static sd_status p_keep(pctx *pc, int c, const plabel *lb, size_t n, double x, const char *v, size_t vn)
{
    int pos, selected;
    size_t at;
    if (n > PLABELS)
        return p_bad(pc, "more than 64 labels on a speculative-decoding counter");
    if (!(x >= 0.0 && x <= SD_TEXT_COUNT_MAX && floor(x) >= x))
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: %.*s is not a whole count in [0, 2^53]", pc->path,
                              pc->line, cname(pc->out, c), (int)vn, v);
    sd_status st = p_labels_check(pc, c, lb, n, &pos, &at, &selected);
    if (st != SD_OK || !selected)
        return st;
    pscrape *sc = pc->out;
    if (sc->n == SERIES_MAX)
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: more than %d speculative-decoding series", pc->path,
                              pc->line, SERIES_MAX);
    char *key = p_key(lb, n, at);
    if (key == NULL)
        return sd_status_fail(pc->cx->err, SD_ENOMEM, "%s: out of memory", pc->path);
    for (size_t i = 0; i < sc->n; i++)
        if (sc->s[i].counter == c && sc->s[i].pos == pos && strcmp(sc->s[i].key, key) == 0) {
            free(key);
            return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %s: the same series again (first on line %zu)",
                                  pc->path, pc->line, cname(sc, c), sc->s[i].line);
        }
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 32;
        pseries *ns = realloc(sc->s, cap * sizeof *ns);
        if (ns == NULL) {
            free(key);
            return sd_status_fail(pc->cx->err, SD_ENOMEM, "%s: out of memory", pc->path);
        }
        sc->s = ns;
        sc->cap = cap;
    }
    sc->s[sc->n++] = (pseries){ c, pos, key, x, pc->line };
    return SD_OK;
}

/* A sample line (s: past its leading blanks): checked, and kept when it is one
 * of vLLM's counters.  SD_EINVAL when malformed (p_bad) or p_keep refuses it. */
static sd_status p_sample(pctx *pc, const char *s)
{
    char *scratch = pc->scratch;
    const char *name = NULL;
    const char *v, *ts;
    size_t nn = 0;
    size_t nlb = 0;
    size_t vn, tn;
    plabel lb[PLABELS];
    double x;
    if (*s != '{' && (*s == '"' || (s = p_name(s, 1, &scratch, &name, &nn)) == NULL))
        return p_bad(pc, "expected a metric name");
    s = sd_text_skip_blank(s);
    if (*s == '{' && (s = p_labels(s + 1, &scratch, lb, &nlb, name ? NULL : &name, &nn)) == NULL)
        return p_bad(pc, "expected name=\"value\" labels between { and }");
    if (name == NULL)
        return p_bad(pc, "expected a metric name");
    s = sd_text_skip_blank(s);
    v = s;
    while (*s && !sd_text_blank(*s))
        s++;
    vn = (size_t)(s - v);
    if (!sd_text_go_float(v, vn, &x))
        return p_bad(pc, vn ? "the value is not a number" : "expected a value");
    s = sd_text_skip_blank(s);
    ts = s;
    s += *s == '-' || *s == '+';
    while (*s >= '0' && *s <= '9')
        s++;
    tn = (size_t)(s - ts);
    if (*sd_text_skip_blank(s) != '\0' || (tn > 0 && !(ts[tn - 1] >= '0' && ts[tn - 1] <= '9')) || tn > 20)
        return p_bad(pc, "expected an optional integer timestamp after the value, then the end of the line");
    if (nn >= 35 && memcmp(name, "vllm:spec_decode_num_emitted_tokens", 35) == 0)
        pc->out->v0 = 1;
    int e;
    int c = counter_of(name, nn, &e);
    if (c < 0)
        return SD_OK;
    pscrape *sc = pc->out;
    if (sc->has_engine && sc->engine != e)
        return sd_status_fail(pc->cx->err, SD_EINVAL,
                              "%s:%zu: %.*s is %s's, but line %zu has %s's counters: one engine per scrape", pc->path,
                              pc->line, (int)nn, name, ENGINES[e].engine, sc->engine_line, ENGINES[sc->engine].engine);
    if (!sc->has_engine) {
        sc->has_engine = 1;
        sc->engine = e;
        sc->engine_line = pc->line;
    }
    return p_keep(pc, c, lb, nlb, x, v, vn);
}

/* A comment line (s at its '#'): "# HELP" and "# TYPE" are checked, a TYPE of
 * one of vLLM's counters must be counter or untyped; others are ignored.
 * SD_EINVAL when one is malformed. */
static sd_status p_comment(const pctx *pc, const char *s)
{
    char *scratch = pc->scratch;
    s = sd_text_skip_blank(s + 1);
    const char *w = s;
    const char *name, *ty;
    size_t wn, nn, tn;
    while (*s && !sd_text_blank(*s))
        s++;
    wn = (size_t)(s - w);
    int help = sd_text_span_is(w, wn, "HELP");
    int type = sd_text_span_is(w, wn, "TYPE");
    if (!help && !type)
        return SD_OK;
    if ((s = p_name(sd_text_skip_blank(s), 1, &scratch, &name, &nn)) == NULL || (*s && !sd_text_blank(*s)))
        return p_bad(pc, help ? "# HELP needs a metric name" : "# TYPE needs a metric name");
    if (help) {
        for (; *s; s++)
            if (*s == '\\' && (s[1] != '\\' && s[1] != 'n'))
                return p_bad(pc, "a HELP text escapes only \\\\ and \\n");
            else if (*s == '\\')
                s++;
        return SD_OK;
    }
    s = sd_text_skip_blank(s);
    ty = s;
    while (*s && !sd_text_blank(*s))
        s++;
    tn = (size_t)(s - ty);
    if (*sd_text_skip_blank(s) != '\0' || !(sd_text_span_is(ty, tn, "counter") || sd_text_span_is(ty, tn, "gauge") ||
                                            sd_text_span_is(ty, tn, "histogram") ||
                                            sd_text_span_is(ty, tn, "summary") || sd_text_span_is(ty, tn, "untyped")))
        return p_bad(pc, "# TYPE NAME counter|gauge|histogram|summary|untyped");
    int e;
    int c = counter_of(name, nn, &e);
    if (c >= 0 && !sd_text_span_is(ty, tn, "counter") && !sd_text_span_is(ty, tn, "untyped"))
        return sd_status_fail(pc->cx->err, SD_EINVAL, "%s:%zu: %.*s is declared a %.*s; %s's is a counter", pc->path,
                              pc->line, (int)nn, name, (int)tn, ty, ENGINES[e].engine);
    return SD_OK;
}

/* Frees the series of sc and zeroes it. */
static void pscrape_free(pscrape *sc)
{
    for (size_t i = 0; i < sc->n; i++)
        free(sc->s[i].key);
    free(sc->s);
    memset(sc, 0, sizeof *sc);
}

/* Every line of t (the file at path) checked as exposition text, vLLM's
 * counters (those sel selects) into *out.  SD_EINVAL at the first line that
 * does not parse; SD_ENOMEM. */
static sd_status p_scan(const sd_counters_ctx *cx, const char *path, const sd_text *t, const psel *sel, pscrape *out)
{
    pctx pc = { cx, path, 0, malloc(t->longest + 1), sel, out };
    sd_status st = pc.scratch ? SD_OK : sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *s = sd_text_skip_blank(t->line[i]);
        pc.line = i + 1;
        if (*s == '#')
            st = p_comment(&pc, s);
        else if (*s != '\0')
            st = p_sample(&pc, s);
    }
    free(pc.scratch);
    return st;
}

/* The counts of one label set. */
typedef struct {
    const char *key;
    size_t line;  /* its first series */
    double v[3];  /* drafts, draft tokens, accepted tokens */
    int have[3];
    uint64_t mask; /* positions seen */
    double pos[MAXG];
    size_t pline[MAXG];
} pgroup;

/* The index in g[0 .. *ng - 1] of the label set of s, added (*ng grows) when new. */
static size_t p_group_of(pgroup *g, size_t *ng, const pseries *s)
{
    size_t i = 0;
    while (i < *ng && strcmp(g[i].key, s->key) != 0)
        i++;
    if (i == *ng) {
        memset(&g[i], 0, sizeof g[i]);
        g[i].key = s->key;
        g[i].line = s->line;
        (*ng)++;
    }
    return i;
}

/* Each label set: all four counters, positions 0..k-1 (the same k for all), falling counts. */
static sd_status p_group_check(const sd_counters_ctx *cx, const pscrape *sc, const pgroup *g, const pgroup *g0)
{
    for (int c = 0; c < 3; c++)
        if (!g->have[c])
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the series {%.120s} has no %s", cx->path, g->line,
                                  g->key, cname(sc, c));
    if (g->mask == 0 || (g->mask & (g->mask + 1)) != 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: the %s series {%.120s} are not positions 0..k-1", cx->path,
                              g->line, cname(sc, C_PER_POS), g->key);
    if (g->mask != g0->mask)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the series {%.120s} and {%.120s} have different numbers of positions", cx->path,
                              g->line, g->key, g0->key);
    for (size_t i = 1; i < MAXG && (g->mask >> i & 1); i++)
        if (g->pos[i] > g->pos[i - 1])
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %s{%.120s} rises from %.0f at position %zu to %.0f at %zu: impossible, a "
                                  "draft accepted through position %zu was accepted through %zu",
                                  cx->path, g->pline[i], cname(sc, C_PER_POS), g->key, g->pos[i - 1], i - 1,
                                  g->pos[i], i, i, i - 1);
    return SD_OK;
}

/* The counts of the label sets g[0 .. ng - 1] summed into c (gamma: g[0]'s positions). */
static void p_sum(const pgroup *g, size_t ng, sd_counts *c)
{
    size_t k = 0;
    while (k < MAXG && (g[0].mask >> k & 1))
        k++;
    c->gamma = k;
    c->has_positions = 1;
    for (size_t j = 0; j < ng; j++) {
        c->drafts += g[j].v[C_DRAFTS];
        c->draft_tokens += g[j].v[C_DRAFT_TOKENS];
        c->accepted_tokens += g[j].v[C_ACCEPTED];
        for (size_t i = 0; i < k; i++)
            c->accepted_at[i] += g[j].pos[i];
    }
    for (size_t i = 0; i < k; i++)
        c->reached[i] = c->drafts;
}

/* SD_EINVAL naming the counters of which sc has no series (with the selection, and
 * a hint when the scrape is vLLM V0's), or every engine's when it has none; SD_OK when it
 * has all four. */
static sd_status p_missing(const sd_counters_ctx *cx, const pscrape *sc, const psel *sel)
{
    char list[600] = "";
    if (sc->n == 0) {
        for (int e = 0; e < E_N; e++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s's %s, %s, %s and %s", e ? "; or " : "",
                     ENGINES[e].engine, ENGINES[e].name[C_DRAFTS], ENGINES[e].name[C_DRAFT_TOKENS],
                     ENGINES[e].name[C_ACCEPTED], ENGINES[e].name[C_PER_POS]);
        return sd_status_fail(cx->err, SD_EINVAL, "%s: no speculative-decoding counters%s%.*s%s%.*s: expected %s%s",
                              cx->path, sel->name ? " with " : "", sel->name ? (int)sel->nn : 0,
                              sel->name ? sel->name : "", sel->name ? "=" : "", sel->name ? (int)sel->vn : 0,
                              sel->name ? sel->val : "", list,
                              sc->v0 ? " (vllm:spec_decode_num_emitted_tokens: a vLLM V0 scrape, which counts no "
                                       "drafts)"
                                     : "");
    }
    for (int c = 0; c < C_N; c++) {
        size_t i = 0;
        while (i < sc->n && sc->s[i].counter != c)
            i++;
        if (i == sc->n)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", cname(sc, c));
    }
    if (*list == '\0')
        return SD_OK;
    return sd_status_fail(cx->err, SD_EINVAL, "%s: missing counters%s%.*s%s%.*s: %s%s", cx->path,
                          sel->name ? " with " : "", sel->name ? (int)sel->nn : 0, sel->name ? sel->name : "",
                          sel->name ? "=" : "", sel->name ? (int)sel->vn : 0, sel->name ? sel->val : "", list,
                          sc->v0 ? " (vllm:spec_decode_num_emitted_tokens: a vLLM V0 scrape, which counts no drafts)"
                                 : "");
}

/* The series of sc grouped by label set, checked (p_group_check) and summed into c, with
 * a note on the selection or the sum.  SD_EINVAL; SD_ENOMEM. */
static sd_status p_build(const sd_counters_ctx *cx, const pscrape *sc, const psel *sel, sd_counts *c)
{
    sd_status st = p_missing(cx, sc, sel);
    pgroup *g = st == SD_OK ? calloc(sc->n, sizeof *g) : NULL;
    size_t ng = 0;
    if (st == SD_OK && g == NULL)
        return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
    for (size_t i = 0; st == SD_OK && i < sc->n; i++) {
        const pseries *s = &sc->s[i];
        pgroup *gi = &g[p_group_of(g, &ng, s)];
        if (s->counter == C_PER_POS) {
            gi->mask |= (uint64_t)1 << s->pos;
            gi->pos[s->pos] = s->value;
            gi->pline[s->pos] = s->line;
        } else {
            gi->have[s->counter] = 1;
            gi->v[s->counter] = s->value;
        }
    }
    for (size_t j = 0; st == SD_OK && j < ng; j++)
        st = p_group_check(cx, sc, &g[j], &g[0]);
    if (st == SD_OK) {
        p_sum(g, ng, c);
        if (sel->name)
            sd_counts_note(c, "Selected the series with %.*s=\"%.*s\" (%zu label set%s).", (int)sel->nn, sel->name,
                           (int)sel->vn, sel->val, ng, ng == 1 ? "" : "s");
        else if (ng > 1)
            sd_counts_note(c,
                           "Summed %zu series of each counter, one per label set ({%.100s}, {%.100s}%s); select one "
                           "with label=value.",
                           ng, g[0].key, g[1].key, ng > 2 ? ", ..." : "");
    }
    free(g);
    return st;
}

/* now minus then, series by series; a series of then must be in now, no smaller. */
static sd_status p_delta(const sd_counters_ctx *cx, pscrape *now, const pscrape *then, size_t *fresh)
{
    *fresh = now->n;
    if (then->n > 0 && now->n > 0 && then->engine != now->engine)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: %s has %s's counters, this scrape %s's", cx->path,
                              cx->opt->since, ENGINES[then->engine].engine, ENGINES[now->engine].engine);
    for (size_t i = 0; i < then->n; i++) {
        const pseries *e = &then->s[i];
        size_t j = 0;
        while (j < now->n && !(now->s[j].counter == e->counter && now->s[j].pos == e->pos &&
                               strcmp(now->s[j].key, e->key) == 0))
            j++;
        if (j == now->n)
            return sd_status_fail(cx->err, SD_EINVAL, "%s: %s{%.120s} (%s:%zu) is not in this scrape: restart?",
                                  cx->path, cname(then, e->counter), e->key, cx->opt->since, e->line);
        if (now->s[j].value < e->value)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: counter %s{%.120s} decreased between scrapes (%.0f at %s:%zu, %.0f here): "
                                  "restart?",
                                  cx->path, now->s[j].line, cname(now, e->counter), e->key, e->value, cx->opt->since,
                                  e->line, now->s[j].value);
        now->s[j].value -= e->value;
        (*fresh)--;
    }
    return SD_OK;
}

/* opt->select split into *sel (name NULL when not given; a quoted value
 * unquoted).  SD_EINVAL when it is not label=value or names the position. */
static sd_status p_select(const sd_counters_ctx *cx, psel *sel)
{
    const char *s = cx->opt->select;
    const char *eq = s ? strchr(s, '=') : NULL;
    memset(sel, 0, sizeof *sel);
    if (s == NULL)
        return SD_OK;
    if (eq == NULL || eq == s)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: select '%s': expected label=value", cx->path, s);
    sel->name = s;
    sel->nn = (size_t)(eq - s);
    sel->val = eq + 1;
    sel->vn = strlen(eq + 1);
    if (sel->vn >= 2 && sel->val[0] == '"' && sel->val[sel->vn - 1] == '"') {
        sel->val++;
        sel->vn -= 2;
    }
    if (sd_text_span_is(sel->name, sel->nn, "position"))
        return sd_status_fail(cx->err, SD_EINVAL, "%s: select '%s': the position label is not a series to select",
                              cx->path, s);
    return SD_OK;
}

sd_status sd_prometheus_read(const sd_counters_ctx *cx, const sd_text *t, sd_counts *c)
{
    pscrape now = { 0 };
    pscrape then = { 0 };
    psel sel;
    size_t fresh = 0;
    sd_status st = p_select(cx, &sel);
    if (st == SD_OK)
        st = p_scan(cx, cx->path, t, &sel, &now);
    if (st == SD_OK && cx->opt->since) {
        sd_text ts;
        if ((st = sd_text_read(cx->opt->since, &ts, cx->err)) == SD_OK) {
            st = p_scan(cx, cx->opt->since, &ts, &sel, &then);
            sd_text_free(&ts);
        }
        if (st == SD_OK)
            st = p_delta(cx, &now, &then, &fresh);
    }
    if (st == SD_OK) {
        sd_counts_note(c, "Read %s's counters (%s...) from a Prometheus scrape.", ENGINES[now.engine].engine,
                       ENGINES[now.engine].name[C_DRAFTS]);
        st = p_build(cx, &now, &sel, c);
    }
    if (st == SD_OK) {
        const char *eng = ENGINES[now.engine].engine;
        sd_counts_note(c,
                       "gamma = its %zu per-position counters; reached[i] = drafts, as %s counts each position "
                       "over all drafts.",
                       c->gamma, eng);
        if (ENGINES[now.engine].unsure_gamma)
            sd_counts_note(c,
                           "That %s's per-position counters span --draft-max (and not only the longest accepted "
                           "prefix) is taken from its PR #26389, not checked in its source.",
                           eng);
        if (cx->opt->since)
            sd_counts_note(c, "The counts are the increase since the earlier scrape %s%s.", cx->opt->since,
                           fresh ? " (series absent from it counted whole)" : "");
        if (c->draft_tokens < c->drafts * (double)c->gamma)
            sd_counts_note(c, "Draft tokens are fewer than drafts x %zu: some drafts were shorter.", c->gamma);
    }
    pscrape_free(&now);
    pscrape_free(&then);
    return st;
}

int sd_prometheus_detect(const char *line, int first)
{
    const char *b = sd_text_skip_blank(line);
    if (*b == '{')
        b += b[1] == '"' ? 2 : 1;
    for (int e = 0; e < E_N; e++) {
        const char *colon = strchr(ENGINES[e].name[C_DRAFTS], ':'); /* the prefix and "spec_decode_" */
        size_t m = (size_t)(colon - ENGINES[e].name[C_DRAFTS]) + 1 + strlen("spec_decode_");
        if (strncmp(b, ENGINES[e].name[C_DRAFTS], m) == 0)
            return 1;
    }
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
    const double v[3] = { c->drafts, c->draft_tokens, c->accepted_tokens };
    const char *const *name = ENGINES[0].name; /* vLLM's */
    for (int k = 0; k < C_N; k++) {
        fprintf(out, "# HELP %s_total %s\n# TYPE %s_total counter\n", name[k], HELP[k], name[k]);
        for (size_t i = 0; i < (k == C_PER_POS ? c->gamma : 1); i++)
            if (k == C_PER_POS)
                fprintf(out, "%s_total{position=\"%zu\"} %.0f\n", name[k], i, c->accepted_at[i]);
            else
                fprintf(out, "%s_total %.0f\n", name[k], v[k]);
    }
    if (ferror(out))
        return sd_status_fail(err, SD_EIO, "output: write error: %s", strerror(errno));
    return SD_OK;
}
