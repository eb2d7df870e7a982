/* llama_cpp.c -- the llama.cpp reader: llama-server logs (see counters_impl.h).
 *
 * Source: ggml-org/llama.cpp, tools/server/server-context.cpp (server_slot::print_timings, and
 * the verification in update_slots / post_decode) and common/speculative.cpp
 * (common_speculative_print_stats); docs/speculative.md ("Statistics").  Per request (a slot's
 * counts are cleared in server_slot::reset), when it drafted anything:
 *   "draft acceptance rate = %0.5f (%5d accepted / %5d generated)"                 (older)
 *   "draft acceptance = %0.5f (%5d accepted / %5d generated), mean acceptance length = %5.2f,
 *    acceptance rate per position = (%s)"
 *   "draft acceptance = %0.5f (%5d accepted / %5d generated), mean len = %5.2f"
 *   "     acc per pos = (%s)"                       (the next line, at trace verbosity, -v)
 * generated = the tokens of all drafts (n_draft_tokens += draft.size(): drafts can be shorter
 * than --draft-max), accepted = the accepted prefixes, mean length = 1 + accepted /
 * verification steps, rates = "%.3f" of n_accepted_per_pos[i] / steps where n_accepted_per_pos
 * (sized --draft-max) counts the steps that accepted more than i tokens.  These lines are
 * summed.  Per speculative implementation, cumulative since the server started:
 *   "statistics NAME: #calls(b,g,a) = %zu %zu %zu, #gen drafts = %zu, #acc drafts = %zu,
 *    #gen tokens = %zu, #acc tokens = %zu[, #mean acc len = %.2f, #acc rate/pos = (%.3f, ...)]
 *    [, dur(b,g,a) = ...]"                      (older: "#calls = %zu", no mean or rates)
 * where the accept calls a are the verification steps, #acc drafts the steps that accepted at
 * least one token and the rates' vector grows to the longest accepted prefix seen.  They are
 * used (the last line of each implementation and run) only when the per-request lines cannot
 * give the number of drafts.  Neither records each draft's length, only the drafted tokens in
 * all: how many drafts reached each position is assumed (fill_reached, stated in the notes). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters_impl.h"
#include "derive.h"

/* What a line with k per-position rates states of gamma (sd_counts_gamma_agrees). */
#define RATES "the line has %zu per-position rates"

typedef struct {
    size_t line;
    uint64_t A, G;
    int has_L, has_r;
    double L, hL;
    size_t k;
    double r[MAXG], hr;
} ll_req;

typedef struct {
    size_t line;
    char name[48];
    int has_calls3, has_mean, has_r;
    uint64_t calls_a, gen_drafts, acc_drafts, gen_tokens, acc_tokens;
    double mean, hmean;
    size_t k;
    double r[MAXG], hr;
} ll_stat;

typedef struct {
    ll_req *req;
    size_t nreq, capreq;
    ll_stat *stat; /* [0, nfin): the finals (last line of a run); then the latest per implementation */
    size_t nfin, nlast, capstat;
    size_t stat_lines;
} ll_log;

enum { LL_NONE, LL_REQ, LL_POS, LL_STAT };

/* Which llama.cpp line this is; *after: just past its marker. */
static int ll_kind(const char *line, const char **after)
{
    const char *m = strstr(line, "draft acceptance");
    if (m != NULL) {
        const char *s = m + strlen("draft acceptance");
        s += strncmp(s, " rate", 5) == 0 ? 5 : 0;
        if (*sd_text_skip_blank(s) == '=') {
            *after = s;
            return LL_REQ;
        }
    }
    if ((m = strstr(line, "acc per pos")) != NULL && *sd_text_skip_blank(m + strlen("acc per pos")) == '=') {
        *after = sd_text_skip_blank(m + strlen("acc per pos")) + 1;
        return LL_POS;
    }
    if ((m = strstr(line, "statistics ")) != NULL && strstr(m, "#gen drafts") != NULL) {
        *after = m + strlen("statistics ");
        return LL_STAT;
    }
    return LL_NONE;
}

/* Skips blanks and the literal word; NULL if it is not there. */
static const char *lit(const char *s, const char *word)
{
    if (s == NULL)
        return NULL;
    s = sd_text_skip_blank(s);
    return strncmp(s, word, strlen(word)) == 0 ? s + strlen(word) : NULL;
}

/* Skips blanks and takes a token up to a blank or one of "(),/"; NULL if empty. */
static const char *token(const char *s, const char **tok, size_t *n)
{
    if (s == NULL)
        return NULL;
    s = sd_text_skip_blank(s);
    *tok = s;
    while (*s && !sd_text_blank(*s) && !strchr("(),/", *s))
        s++;
    *n = (size_t)(s - *tok);
    return *n ? s : NULL;
}

/* "(r, ...)" as the value of an item. */
static int paren_rates(const char *v, size_t vn, double *r, size_t *k, double *h)
{
    return vn >= 2 && v[0] == '(' && v[vn - 1] == ')' && sd_text_rates(v + 1, vn - 2, r, MAXG, k, h) && *k <= MAXG;
}

/* The fields after "(A accepted / G generated)" of a request line into *o:
 * the mean length and the per-position rates (other fields are ignored).
 * SD_EINVAL when one cannot be read or repeats, or an item is not key = value. */
static sd_status ll_req_rest(const sd_counters_ctx *cx, const char *s, ll_req *o)
{
    const char *it;
    size_t n;
    while (sd_text_next_item(&s, &it, &n)) {
        const char *eq = memchr(it, '=', n);
        const char *key = it;
        const char *v = eq ? eq + 1 : it;
        size_t kn = eq ? (size_t)(eq - it) : n;
        size_t vn = eq ? n - kn - 1 : 0;
        int ok = n == 0;
        sd_text_trim(&key, &kn);
        sd_text_trim(&v, &vn);
        if (eq != NULL && (sd_text_span_is(key, kn, "mean acceptance length") || sd_text_span_is(key, kn, "mean len")))
            ok = !o->has_L++ && sd_text_decimal(v, vn, &o->L, &o->hL);
        else if (eq != NULL && sd_text_span_is(key, kn, "acceptance rate per position"))
            ok = !o->has_r++ && paren_rates(v, vn, o->r, &o->k, &o->hr);
        else if (eq != NULL)
            ok = 1; /* a field of a later version */
        if (!ok)
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'draft acceptance' line: cannot read '%.*s'",
                                  cx->path, o->line, (int)n, it);
    }
    return SD_OK;
}

/* A per-request line (s: just past "draft acceptance [rate]") into *o.
 * SD_EINVAL when it is not "= RATE (A accepted / G generated)[, fields]",
 * a field cannot be read, G is 0, A exceeds G, the rate is not A / G, the
 * mean length is below 1 or the rates rise. */
static sd_status ll_req_parse(const sd_counters_ctx *cx, size_t ln, const char *s, ll_req *o)
{
    const char *tok;
    const char *tA = NULL;
    const char *tG = NULL;
    size_t tn = 0;
    size_t nA = 0;
    size_t nG = 0;
    double R = 0.0;
    double hR = 0.0;
    memset(o, 0, sizeof *o);
    o->line = ln;
    s = token(lit(s, "="), &tok, &tn);
    int ok = s != NULL && sd_text_decimal(tok, tn, &R, &hR);
    s = token(lit(s, "("), &tA, &nA);
    s = token(lit(lit(s, "accepted"), "/"), &tG, &nG);
    s = lit(lit(s, "generated"), ")");
    if (!ok || s == NULL || !sd_text_count(tA, nA, &o->A) || !sd_text_count(tG, nG, &o->G))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: llama.cpp 'draft acceptance' line: expected '= RATE (A accepted / G generated)'",
                              cx->path, ln);
    sd_status st = ll_req_rest(cx, s, o);
    if (st != SD_OK)
        return st;
    if (o->G == 0 || o->A > o->G || !(fabs((double)o->A / (double)o->G - R) <= sd_derive_widen(hR) + 1e-6))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu accepted of %llu generated tokens at a rate of %.6g: expected 0 < "
                              "generated, accepted <= generated and rate = accepted / generated",
                              cx->path, ln, (unsigned long long)o->A, (unsigned long long)o->G, R);
    if (o->has_L && !(o->L >= 1.0 && isfinite(o->L)))
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: mean acceptance length %.6g is not a finite number >= 1",
                              cx->path, ln, o->L);
    return sd_derive_rates_fall(cx, ln, o->r, o->k);
}

/* The value of a statistics field: counts (three for "#calls(b,g,a)"). */
static int ll_stat_field(const char *key, size_t kn, const char *v, size_t vn, ll_stat *o)
{
    uint64_t *dst = NULL;
    if (sd_text_span_is(key, kn, "#calls(b,g,a)")) {
        const char *t;
        const char *s = v;
        size_t tn;
        uint64_t x[3];
        for (int i = 0; i < 3; i++)
            if ((s = token(s, &t, &tn)) == NULL || (size_t)(t - v) + tn > vn || !sd_text_count(t, tn, &x[i]))
                return 0;
        o->calls_a = x[2];
        while (s < v + vn && sd_text_blank(*s))
            s++;
        return s == v + vn && !o->has_calls3++;
    }
    if (sd_text_span_is(key, kn, "#mean acc len"))
        return !o->has_mean++ && sd_text_decimal(v, vn, &o->mean, &o->hmean);
    if (sd_text_span_is(key, kn, "#acc rate/pos"))
        return !o->has_r++ && paren_rates(v, vn, o->r, &o->k, &o->hr);
    dst = sd_text_span_is(key, kn, "#gen drafts")   ? &o->gen_drafts
          : sd_text_span_is(key, kn, "#acc drafts") ? &o->acc_drafts
          : sd_text_span_is(key, kn, "#gen tokens") ? &o->gen_tokens
          : sd_text_span_is(key, kn, "#acc tokens") ? &o->acc_tokens
                                                    : NULL;
    return dst == NULL || sd_text_count(v, vn, dst);
}

/* A statistics line (s: just past "statistics ") into *o.  SD_EINVAL when it
 * has no "NAME:", a field cannot be read, one of #gen drafts, #acc drafts,
 * #gen tokens and #acc tokens is missing, or the rates rise. */
static sd_status ll_stat_parse(const sd_counters_ctx *cx, size_t ln, const char *s, ll_stat *o)
{
    const char *colon = strchr(s, ':');
    const char *name = s;
    const char *it;
    size_t nn = colon ? (size_t)(colon - s) : 0;
    size_t n;
    unsigned seen = 0;
    memset(o, 0, sizeof *o);
    o->line = ln;
    sd_text_trim(&name, &nn);
    if (colon == NULL || nn == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'statistics' line without 'NAME:'", cx->path, ln);
    snprintf(o->name, sizeof o->name, "%.*s", (int)nn, name);
    for (s = colon + 1; sd_text_next_item(&s, &it, &n);) {
        const char *eq = memchr(it, '=', n);
        const char *key = it;
        const char *v = eq ? eq + 1 : it;
        size_t kn = eq ? (size_t)(eq - it) : n;
        size_t vn = eq ? n - kn - 1 : 0;
        if (eq == NULL)
            continue; /* the further values of dur(b,g,a) */
        sd_text_trim(&key, &kn);
        sd_text_trim(&v, &vn);
        seen |= (unsigned)sd_text_span_is(key, kn, "#gen drafts") |
                (unsigned)sd_text_span_is(key, kn, "#acc drafts") << 1 |
                (unsigned)sd_text_span_is(key, kn, "#gen tokens") << 2 |
                (unsigned)sd_text_span_is(key, kn, "#acc tokens") << 3;
        if (!ll_stat_field(key, kn, v, vn, o))
            return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'statistics' line: cannot read '%.*s'",
                                  cx->path, ln, (int)n, it);
    }
    if (seen != 15)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: llama.cpp 'statistics' line without #gen drafts, #acc drafts, #gen tokens and "
                              "#acc tokens",
                              cx->path, ln);
    return sd_derive_rates_fall(cx, ln, o->r, o->k);
}

static int ll_stat_less(const ll_stat *b, const ll_stat *a) /* b's counts below a's: a restart */
{
    return b->calls_a < a->calls_a || b->gen_drafts < a->gen_drafts || b->acc_drafts < a->acc_drafts ||
           b->gen_tokens < a->gen_tokens || b->acc_tokens < a->acc_tokens;
}

/* Keeps the latest statistics line per implementation; a decrease closes a run. */
static sd_status ll_stat_add(const sd_counters_ctx *cx, ll_log *lg, const ll_stat *o)
{
    size_t i = lg->nfin;
    while (i < lg->nfin + lg->nlast && strcmp(lg->stat[i].name, o->name) != 0)
        i++;
    if (i < lg->nfin + lg->nlast && !ll_stat_less(o, &lg->stat[i])) {
        lg->stat[i] = *o;
        return SD_OK;
    }
    if (lg->nfin + lg->nlast + 1 > lg->capstat) {
        size_t cap = lg->capstat ? 2 * lg->capstat : 16;
        ll_stat *ns = realloc(lg->stat, cap * sizeof *ns);
        if (ns == NULL)
            return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
        lg->stat = ns;
        lg->capstat = cap;
    }
    if (i < lg->nfin + lg->nlast) { /* a restart: the old line becomes a final, the new one the latest */
        ll_stat old = lg->stat[i];
        memmove(&lg->stat[lg->nfin + 1], &lg->stat[lg->nfin], lg->nlast * sizeof *lg->stat);
        lg->stat[lg->nfin++] = old;
        i++;
        lg->stat[i] = *o;
        return SD_OK;
    }
    lg->stat[lg->nfin + lg->nlast++] = *o;
    return SD_OK;
}

/* Appends a request line to lg->req; SD_ENOMEM. */
static sd_status ll_push_req(const sd_counters_ctx *cx, ll_log *lg, const ll_req *o)
{
    if (lg->nreq == lg->capreq) {
        size_t cap = lg->capreq ? 2 * lg->capreq : 64;
        ll_req *nr = realloc(lg->req, cap * sizeof *nr);
        if (nr == NULL)
            return sd_status_fail(cx->err, SD_ENOMEM, "%s: out of memory", cx->path);
        lg->req = nr;
        lg->capreq = cap;
    }
    lg->req[lg->nreq++] = *o;
    return SD_OK;
}

/* The llama.cpp lines of t into lg: the request lines (with their "acc per
 * pos" lines), and per implementation the last statistics line of each run.
 * SD_EINVAL at the first line that does not parse; SD_ENOMEM. */
static sd_status ll_scan(const sd_counters_ctx *cx, const sd_text_lines *t, ll_log *lg)
{
    sd_status st = SD_OK;
    for (size_t i = 0; i < t->n && st == SD_OK; i++) {
        const char *after;
        int kind = ll_kind(t->line[i], &after);
        if (kind == LL_REQ) {
            ll_req o;
            if ((st = ll_req_parse(cx, i + 1, after, &o)) == SD_OK)
                st = ll_push_req(cx, lg, &o);
        } else if (kind == LL_POS) {
            ll_req *o = lg->nreq ? &lg->req[lg->nreq - 1] : NULL;
            const char *v = after;
            size_t vn = strlen(v);
            sd_text_trim(&v, &vn);
            if (o == NULL || o->has_r) {
                st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: 'acc per pos' without its 'draft acceptance' line",
                                    cx->path, i + 1);
            } else if (!paren_rates(v, vn, o->r, &o->k, &o->hr)) {
                st = sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: llama.cpp 'acc per pos' line: cannot read '%s'",
                                    cx->path, i + 1, v);
            } else {
                o->has_r = 1;
                st = sd_derive_rates_fall(cx, i + 1, o->r, o->k);
            }
        } else if (kind == LL_STAT) {
            ll_stat o;
            lg->stat_lines++;
            if ((st = ll_stat_parse(cx, i + 1, after, &o)) == SD_OK)
                st = ll_stat_add(cx, lg, &o);
        }
    }
    lg->nfin += lg->nlast; /* the latest lines end their runs */
    lg->nlast = 0;
    return st;
}

/* Adds one group of drafts (a request, or an implementation's run) to s and reached. */
static sd_status ll_group(const sd_counters_ctx *cx, size_t ln, const sd_derive_in *in, size_t kfixed, sd_derive_sum *s,
                          double *reached, size_t *gamma, int *shorter)
{
    sd_derive_out o;
    int rc = sd_derive_solve(in, &o);
    sd_derive_in free_len = *in; /* the drafts without the draft length: do the counts outgrow gamma? */
    free_len.kmax = 0;
    if (rc == SD_DERIVE_INCONSISTENT && in->kmax > 0 && sd_derive_solve(&free_len, &o) == SD_DERIVE_OK &&
        (double)in->D > (double)o.n * (double)in->kmax)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu generated tokens in %llu drafts is %.4g per draft, more than gamma = %zu "
                              "allows: the draft length or the counts are wrong",
                              cx->path, ln, (unsigned long long)in->D, (unsigned long long)o.n,
                              (double)in->D / (double)o.n, in->kmax);
    if (rc != SD_DERIVE_OK)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: no whole number of drafts reproduces the %llu accepted and %llu generated "
                              "tokens, the mean length and the rates as printed",
                              cx->path, ln, (unsigned long long)in->A, (unsigned long long)in->D);
    size_t g = kfixed;
    if (g == 0)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: the line does not state the draft length (%s): give it with %s "
                              "(llama-server's --draft-max)",
                              cx->path, ln,
                              in->n_fixed ? "a 'statistics' line's rates reach only the longest accepted prefix"
                                          : "no per-position rates",
                              sd_counters_gamma_name(cx));
    if (in->k > g)
        return sd_status_fail(cx->err, SD_EINVAL, "%s:%zu: %zu per-position rates, but gamma is %zu", cx->path, ln,
                              in->k, g);
    if ((double)in->D > (double)o.n * (double)g)
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu generated tokens in %llu drafts is %.4g per draft, more than gamma = %zu "
                              "allows: the draft length or the counts are wrong",
                              cx->path, ln, (unsigned long long)in->D, (unsigned long long)o.n,
                              (double)in->D / (double)o.n, g);
    if (!sd_derive_fill_reached(o.n, in->D, o.c, in->k, g, reached))
        return sd_status_fail(cx->err, SD_EINVAL,
                              "%s:%zu: %llu generated tokens cannot make %llu drafts of at most %zu tokens with the "
                              "accepted counts printed",
                              cx->path, ln, (unsigned long long)in->D, (unsigned long long)o.n, g);
    *gamma = g > *gamma ? g : *gamma;
    *shorter |= (double)in->D < (double)o.n * (double)g;
    sd_derive_add(s, in, &o);
    return SD_OK;
}

/* Sums the request lines (each a group of drafts) into s and reached; SD_EINVAL
 * when a line contradicts the given gamma or cannot be derived. */
static sd_status ll_use_requests(const sd_counters_ctx *cx, const ll_log *lg, sd_derive_sum *s, double *reached,
                                 size_t *gamma, int *shorter)
{
    for (size_t i = 0; i < lg->nreq; i++) {
        const ll_req *q = &lg->req[i];
        sd_status st = q->k > 0 ? sd_counts_gamma_agrees(cx, q->line, q->k, RATES, q->k) : SD_OK;
        if (st != SD_OK)
            return st;
        sd_derive_in in = { .A = q->A, .D = q->G, .has_x = q->has_L, .x = q->L - 1.0, .hx = q->hL, .k = q->k,
                            .r = q->r, .hr = q->hr, .kmax = q->k ? q->k : cx->opt->gamma, .c0 = -1 };
        st = ll_group(cx, q->line, &in, in.kmax, s, reached, gamma, shorter);
        if (st != SD_OK)
            return st;
    }
    return SD_OK;
}

/* Sums the last statistics line of every implementation's run (drafts = the
 * accept calls, else #gen drafts) into s and reached; SD_EINVAL when a line's
 * counts contradict each other or the given gamma, cannot be derived, or no
 * line counts a verified draft. */
static sd_status ll_use_stats(const sd_counters_ctx *cx, const ll_log *lg, sd_derive_sum *s, double *reached,
                              size_t *gamma, int *shorter)
{
    for (size_t i = 0; i < lg->nfin; i++) {
        const ll_stat *f = &lg->stat[i];
        uint64_t n = f->has_calls3 ? f->calls_a : f->gen_drafts;
        if (n == 0)
            continue; /* the implementation never had a draft verified */
        if (f->acc_drafts > n || f->acc_tokens > f->gen_tokens || f->gen_tokens < n)
            return sd_status_fail(cx->err, SD_EINVAL,
                                  "%s:%zu: %llu drafts, %llu accepted drafts, %llu generated and %llu accepted tokens: "
                                  "expected accepted drafts <= drafts <= generated tokens, accepted <= generated "
                                  "tokens",
                                  cx->path, f->line, (unsigned long long)n, (unsigned long long)f->acc_drafts,
                                  (unsigned long long)f->gen_tokens, (unsigned long long)f->acc_tokens);
        /* a statistics line's rates reach only the longest accepted prefix: fewer than gamma agree */
        sd_status st = f->k > cx->opt->gamma ? sd_counts_gamma_agrees(cx, f->line, f->k, RATES, f->k) : SD_OK;
        if (st != SD_OK)
            return st;
        sd_derive_in in = { .A = f->acc_tokens, .D = f->gen_tokens, .has_x = f->has_mean, .x = f->mean - 1.0,
                            .hx = f->hmean, .k = f->k, .r = f->r, .hr = f->hr, .n_fixed = n,
                            .c0 = f->k ? (int64_t)f->acc_drafts : -1 };
        st = ll_group(cx, f->line, &in, cx->opt->gamma, s, reached, gamma, shorter);
        if (st != SD_OK)
            return st;
    }
    if (s->lines == 0)
        return sd_status_fail(cx->err, SD_EINVAL, "%s: the llama.cpp 'statistics' lines count no verified draft",
                              cx->path);
    return SD_OK;
}

/* The notes on what was summed (requests or statistics), derived and assumed. */
static void ll_notes(sd_counts *c, const ll_log *lg, const sd_derive_sum *s, int from_stats)
{
    if (!from_stats) {
        sd_counts_note(c, "Summed %zu llama.cpp per-request 'draft acceptance' lines.", s->lines);
        sd_counts_note(c, "Drafts per request derived from accepted / (mean acceptance length - 1) and the "
                            "per-position rates, which are printed rounded; per-position counts = rate x drafts, whole "
                            "numbers within the printed rounding, adjusted to sum to the accepted tokens.");
        sd_derive_notes(c, s, "request");
        if (lg->stat_lines > 0)
            sd_counts_note(c, "The %zu 'statistics' lines were not used: they count the same drafts cumulatively.",
                           lg->stat_lines);
    } else {
        sd_counts_note(c,
                       "Used the last llama.cpp 'statistics' line of each of %zu implementation runs (cumulative "
                       "since llama-server started; a run restarts where a count decreases) and summed them.",
                       s->lines);
        sd_counts_note(c, "Drafts = the accept calls of '#calls(b,g,a)' (older lines without it: '#gen drafts', "
                            "assuming every generated draft was verified); per-position counts = '#acc rate/pos' x "
                            "drafts within the printed rounding, position 1 = '#acc drafts'.");
        if (lg->nreq > 0)
            sd_counts_note(c, "The 'draft acceptance' lines were not used: one gives no mean acceptance length.");
    }
    if (s->no_positions > 0)
        sd_counts_note(c, "%zu of them print no per-position rates, so the counts have no positions.",
                       s->no_positions);
    if (c->reached_assumed)
        sd_counts_note(c,
                       "llama.cpp drafts can stop before the longest draft (%zu here), and the log gives only the "
                       "tokens of all drafts together, not each draft's length: reached[i] (drafts that reached "
                       "position i+1) assumes the drafts as equal in length as the counts allow -- every draft at "
                       "least one token, at least accepted_at[i] drafts at position i+1, the remaining drafted "
                       "tokens at the earliest positions. A draft that stopped early is censored there, not "
                       "rejected.",
                       c->gamma);
}

static sd_status llama_cpp_read(const sd_counters_ctx *cx, const sd_text_lines *t, sd_counts *c)
{
    ll_log lg = { 0 };
    sd_derive_sum s = { 0 };
    double reached[MAXG] = { 0 };
    size_t gamma = 0;
    size_t bad = SIZE_MAX;
    int shorter = 0;
    int from_stats = 0;
    sd_status st = ll_scan(cx, t, &lg);
    for (size_t i = 0; st == SD_OK && i < lg.nreq && bad == SIZE_MAX; i++)
        if (!lg.req[i].has_L && lg.req[i].k == 0)
            bad = i;
    if (st == SD_OK && lg.nreq > 0 && bad == SIZE_MAX) {
        st = ll_use_requests(cx, &lg, &s, reached, &gamma, &shorter);
    } else if (st == SD_OK && lg.nfin > 0) {
        from_stats = 1;
        st = ll_use_stats(cx, &lg, &s, reached, &gamma, &shorter);
    } else if (st == SD_OK && lg.nreq > 0) {
        st = sd_status_fail(cx->err, SD_EINVAL,
                            "%s:%zu: this llama.cpp line gives no mean acceptance length, so its number of drafts is "
                            "unknown (llama-server -v adds 'statistics' lines that count them)",
                            cx->path, lg.req[bad].line);
    } else if (st == SD_OK) {
        st = sd_status_fail(cx->err, SD_EINVAL, "%s: no llama.cpp 'draft acceptance' or 'statistics' line", cx->path);
    }
    if (st == SD_OK) {
        c->gamma = gamma;
        c->drafts = s.drafts;
        c->draft_tokens = s.D;
        c->accepted_tokens = s.A;
        c->has_positions = s.no_positions == 0;
        for (size_t i = 0; i < gamma; i++) {
            c->accepted_at[i] = c->has_positions ? s.c[i] : 0.0;
            c->reached[i] = reached[i];
        }
        c->reached_assumed = shorter;
        ll_notes(c, &lg, &s, from_stats);
    }
    free(lg.req);
    free(lg.stat);
    return st;
}

static int llama_cpp_detect(const char *line, int first)
{
    const char *after;
    (void)first;
    return ll_kind(line, &after) != LL_NONE;
}

/* The row of llama.cpp: llama-server's logs.  detect: the line is a "draft acceptance [rate]
 * =", an "acc per pos =" or a "statistics NAME: .. #gen drafts" line.  read: the per-request
 * lines summed when each gives a mean length or rates, else the last statistics line of each
 * implementation's run; reached[] assumed as the notes say. */
const sd_counters_reader sd_counters_reader_llama_cpp = {
    .name = "llama.cpp",
    .by = SD_COUNTERS_BY_LOG_LINE,
    .detect = llama_cpp_detect,
    .read = llama_cpp_read,
};
