/* exposition.c -- Prometheus's text exposition format, read strictly (see exposition.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exposition.h"

#define SERIES_MAX 4096 /* kept series in one scrape */
#define PLABELS 64      /* labels on a kept sample */

typedef struct {
    const char *name, *val;
    size_t nn, vn;
} plabel;

typedef struct {
    const sd_expo_table *tab;
    const char *path;
    size_t line;
    char *scratch; /* the current line's decoded names and values */
    const sd_expo_select *sel;
    sd_expo_scrape *out;
    sd_error *err;
} pctx;

int sd_expo_metric_of(const sd_expo_table *tab, const char *name, size_t n)
{
    for (size_t i = 0; i < tab->n; i++) {
        size_t m = strlen(tab->metric[i].name);
        if (memcmp(name, tab->metric[i].name, n < m ? n : m) == 0 &&
            (n == m || (n == m + 6 && memcmp(name + m, "_total", 6) == 0)))
            return (int)i;
    }
    return -1;
}

/* SD_EINVAL: "path:line: malformed exposition line: what". */
static sd_status p_bad(const pctx *pc, const char *what)
{
    return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: malformed exposition line: %s", pc->path, pc->line, what);
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

/* The index label of metric m (*at: its place in lb; *index -1 without one), and whether the
 * sample is selected. */
static sd_status p_labels_check(const pctx *pc, size_t m, const plabel *lb, size_t n, int *index, size_t *at,
                                int *selected)
{
    const sd_expo_metric *me = &pc->tab->metric[m];
    *index = -1;
    *at = SIZE_MAX;
    *selected = pc->sel->name == NULL;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++)
            if (lb[j].nn == lb[i].nn && memcmp(lb[j].name, lb[i].name, lb[i].nn) == 0)
                return p_bad(pc, "a label name repeats");
        if (pc->sel->name && lb[i].nn == pc->sel->nn && memcmp(lb[i].name, pc->sel->name, lb[i].nn) == 0 &&
            lb[i].vn == pc->sel->vn && memcmp(lb[i].val, pc->sel->val, lb[i].vn) == 0)
            *selected = 1;
        if (me->index == NULL || !sd_text_span_is(lb[i].name, lb[i].nn, me->index))
            continue;
        uint64_t p;
        if (!sd_text_count(lb[i].val, lb[i].vn, &p) || (lb[i].vn > 1 && lb[i].val[0] == '0'))
            return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s: the %s label is not a whole number", pc->path,
                                  pc->line, me->name, me->index);
        if (p >= pc->tab->index_max)
            return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s: %s %llu: %s", pc->path, pc->line, me->name,
                                  me->index, (unsigned long long)p, pc->tab->index_beyond);
        *index = (int)p;
        *at = i;
    }
    if (me->index != NULL && *index < 0)
        return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s without a %s label", pc->path, pc->line, me->name,
                              me->index);
    return SD_OK;
}

/* Records a sample of the table's metric m. */
static sd_status p_keep(pctx *pc, size_t m, const plabel *lb, size_t n, double x, const char *v, size_t vn)
{
    const sd_expo_metric *me = &pc->tab->metric[m];
    int index, selected;
    size_t at;
    if (n > PLABELS)
        return p_bad(pc, "more than 64 labels on a speculative-decoding metric");
    if (!me->gauge && !(x >= 0.0 && x <= SD_TEXT_COUNT_MAX && floor(x) >= x))
        return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s: %.*s is not a whole count in [0, 2^53]", pc->path,
                              pc->line, me->name, (int)vn, v);
    if (me->gauge && !isfinite(x))
        return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s: %.*s is not a finite number", pc->path, pc->line,
                              me->name, (int)vn, v);
    sd_status st = p_labels_check(pc, m, lb, n, &index, &at, &selected);
    if (st != SD_OK || !selected)
        return st;
    sd_expo_scrape *sc = pc->out;
    if (sc->n == SERIES_MAX)
        return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: more than %d speculative-decoding series", pc->path,
                              pc->line, SERIES_MAX);
    char *key = p_key(lb, n, at);
    if (key == NULL)
        return sd_status_fail(pc->err, SD_ENOMEM, "%s: out of memory", pc->path);
    for (size_t i = 0; i < sc->n; i++)
        if (sc->s[i].metric == m && sc->s[i].index == index && strcmp(sc->s[i].key, key) == 0) {
            free(key);
            return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %s: the same series again (first on line %zu)",
                                  pc->path, pc->line, me->name, sc->s[i].line);
        }
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? 2 * sc->cap : 32;
        sd_expo_series *ns = realloc(sc->s, cap * sizeof *ns);
        if (ns == NULL) {
            free(key);
            return sd_status_fail(pc->err, SD_ENOMEM, "%s: out of memory", pc->path);
        }
        sc->s = ns;
        sc->cap = cap;
    }
    sc->s[sc->n++] = (sd_expo_series){ m, index, key, x, pc->line };
    return SD_OK;
}

/* A sample line (s: past its leading blanks): checked, and kept when its metric is one of
 * the table's.  SD_EINVAL when malformed (p_bad) or p_keep refuses it. */
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
    int m = sd_expo_metric_of(pc->tab, name, nn);
    if (m < 0)
        return SD_OK;
    sd_expo_scrape *sc = pc->out;
    int g = pc->tab->metric[m].group;
    if (sc->group >= 0 && sc->group != g)
        return sd_status_fail(pc->err, SD_EINVAL,
                              "%s:%zu: %.*s is %s's, but line %zu has %s's counters: one engine per scrape", pc->path,
                              pc->line, (int)nn, name, pc->tab->group[g], sc->group_line, pc->tab->group[sc->group]);
    if (sc->group < 0) {
        sc->group = g;
        sc->group_line = pc->line;
    }
    return p_keep(pc, (size_t)m, lb, nlb, x, v, vn);
}

/* A comment line (s at its '#'): "# HELP" and "# TYPE" are checked, a TYPE of one of the
 * table's metrics must be its own or untyped; others are ignored.  SD_EINVAL when one is
 * malformed. */
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
    int m = sd_expo_metric_of(pc->tab, name, nn);
    if (m < 0)
        return SD_OK;
    const sd_expo_metric *me = &pc->tab->metric[m];
    const char *own = me->gauge ? "gauge" : "counter";
    if (!sd_text_span_is(ty, tn, own) && !sd_text_span_is(ty, tn, "untyped"))
        return sd_status_fail(pc->err, SD_EINVAL, "%s:%zu: %.*s is declared a %.*s; %s's is a %s", pc->path,
                              pc->line, (int)nn, name, (int)tn, ty, pc->tab->group[me->group], own);
    return SD_OK;
}

void sd_expo_free(sd_expo_scrape *sc)
{
    for (size_t i = 0; i < sc->n; i++)
        free(sc->s[i].key);
    free(sc->s);
    memset(sc, 0, sizeof *sc);
    sc->group = -1;
}

sd_status sd_expo_scan(const char *path, const sd_text_lines *t, const sd_expo_table *tab, const sd_expo_select *sel,
                       sd_expo_scrape *out, sd_error *err)
{
    static const sd_expo_select none = { 0 };
    pctx pc = { tab, path, 0, malloc(t->longest + 1), sel ? sel : &none, out, err };
    out->group = -1;
    sd_status st = pc.scratch ? SD_OK : sd_status_fail(err, SD_ENOMEM, "%s: out of memory", path);
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

sd_status sd_expo_delta(const char *path, const char *since, const sd_expo_table *tab, sd_expo_scrape *now,
                        const sd_expo_scrape *then, size_t *fresh, sd_error *err)
{
    *fresh = now->n;
    if (then->group >= 0 && now->group >= 0 && then->group != now->group)
        return sd_status_fail(err, SD_EINVAL, "%s: %s has %s's counters, this scrape %s's", path, since,
                              tab->group[then->group], tab->group[now->group]);
    for (size_t i = 0; i < then->n; i++) {
        const sd_expo_series *e = &then->s[i];
        const char *name = tab->metric[e->metric].name;
        size_t j = 0;
        while (j < now->n &&
               !(now->s[j].metric == e->metric && now->s[j].index == e->index && strcmp(now->s[j].key, e->key) == 0))
            j++;
        if (tab->metric[e->metric].gauge) {
            *fresh -= j < now->n;
            continue;
        }
        if (j == now->n)
            return sd_status_fail(err, SD_EINVAL, "%s: %s{%.120s} (%s:%zu) is not in this scrape: restart?", path, name,
                                  e->key, since, e->line);
        if (now->s[j].value < e->value)
            return sd_status_fail(err, SD_EINVAL,
                                  "%s:%zu: counter %s{%.120s} decreased between scrapes (%.0f at %s:%zu, %.0f here): "
                                  "restart?",
                                  path, now->s[j].line, name, e->key, e->value, since, e->line, now->s[j].value);
        now->s[j].value -= e->value;
        (*fresh)--;
    }
    return SD_OK;
}

sd_status sd_expo_select_parse(const char *path, const char *s, const sd_expo_table *tab, sd_expo_select *sel,
                               sd_error *err)
{
    const char *eq = s ? strchr(s, '=') : NULL;
    memset(sel, 0, sizeof *sel);
    if (s == NULL)
        return SD_OK;
    if (eq == NULL || eq == s)
        return sd_status_fail(err, SD_EINVAL, "%s: select '%s': expected label=value", path, s);
    sel->name = s;
    sel->nn = (size_t)(eq - s);
    sel->val = eq + 1;
    sel->vn = strlen(eq + 1);
    if (sel->vn >= 2 && sel->val[0] == '"' && sel->val[sel->vn - 1] == '"') {
        sel->val++;
        sel->vn -= 2;
    }
    for (size_t i = 0; i < tab->n; i++)
        if (tab->metric[i].index && sd_text_span_is(sel->name, sel->nn, tab->metric[i].index))
            return sd_status_fail(err, SD_EINVAL, "%s: select '%s': the %s label is not a series to select", path, s,
                                  tab->metric[i].index);
    return SD_OK;
}
