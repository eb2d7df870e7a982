/* ngram.c -- the byte-level Kneser-Ney pair on a corpus (see ngram.h).
 *
 * Counting: for each k = 1..N, the L k-grams of the cyclic corpus as
 * base-256 keys (oldest byte highest), sorted (gsl_sort_ulong) and made
 * unique with their counts; the continuation count of a k-gram is the
 * number of distinct (k+1)-grams that end with it.  The k-grams with
 * history h are then one contiguous run of keys, h * 256 + w.  Contexts:
 * the unique keys of lengths 0..N-1, shortest first, each built from its
 * suffix's distribution (one level down) and its own run of counts.  Cost:
 * O(N L log L) to count, O(contexts V (log L + log V)) to build the bank.
 * Lookups: at most N binary searches over the context keys of one length.
 */
#include "specdec/ngram.h"
#include "model_impl.h"
#include "common/file.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_sort_ulong.h>

#include "specdec/rng.h"

typedef unsigned long key_t_; /* 64 bits: up to 8 bytes of history and the next byte */

/* The unique k-grams of one length, sorted, with their counts. */
typedef struct {
    key_t_ *key;
    size_t n;
    uint32_t *raw, *cont; /* occurrences; distinct predecessors */
    double d_raw, d_cont; /* Kneser-Ney discounts of the two count kinds */
} level;

typedef struct {
    size_t order, draft_order, len;
    unsigned char byte[256]; /* token -> byte */
    uint32_t *text;          /* the corpus as tokens (for priming) */
    level lv[SD_NGRAM_ORDER_MAX + 1]; /* lv[k]: k-grams, k = 1..order; lv[0] unused */
    size_t first[SD_NGRAM_ORDER_MAX]; /* contexts of history length l start at first[l] */
} sd_ngram;

static void ngram_free(void *impl)
{
    sd_ngram *g = impl;
    if (g == NULL)
        return;
    for (size_t k = 0; k <= SD_NGRAM_ORDER_MAX; k++)
        free(g->lv[k].key), free(g->lv[k].raw), free(g->lv[k].cont);
    free(g->text);
    free(g);
}

/* The first index j in keys[0..n-1] with keys[j] >= x. */
static size_t lower_bound(const key_t_ *keys, size_t n, key_t_ x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The index of x in keys, or n when absent. */
static size_t find(const key_t_ *keys, size_t n, key_t_ x)
{
    size_t j = lower_bound(keys, n, x);
    return j < n && keys[j] == x ? j : n;
}

static key_t_ mask(size_t k) { return k >= 8 ? ~(key_t_)0 : ((key_t_)1 << (8 * k)) - 1; }

/* D = n1 / (n1 + 2 n2) of counts c[0..n-1]; 0.5 when that is not in (0, 1). */
static double discount(const uint32_t *c, size_t n)
{
    double n1 = 0, n2 = 0;
    for (size_t j = 0; j < n; j++) {
        n1 += c[j] == 1;
        n2 += c[j] == 2;
    }
    double d = n1 + 2 * n2 > 0 ? n1 / (n1 + 2 * n2) : 0.5;
    return d > 0.0 && d < 1.0 ? d : 0.5;
}

/* Level k: the cyclic corpus's k-grams, unique, with raw counts. */
static sd_status count_level(sd_ngram *g, size_t k, key_t_ *scratch, sd_error *err)
{
    size_t L = g->len;
    for (size_t i = 0; i < L; i++) {
        key_t_ x = 0;
        for (size_t j = 0; j < k; j++)
            x = x << 8 | g->text[(i + j) % L];
        scratch[i] = x;
    }
    gsl_sort_ulong(scratch, 1, L);
    level *lv = &g->lv[k];
    size_t n = 0;
    for (size_t i = 0; i < L; i++)
        n += i == 0 || scratch[i] != scratch[i - 1];
    lv->key = malloc(n * sizeof *lv->key);
    lv->raw = calloc(n, sizeof *lv->raw);
    lv->cont = calloc(n, sizeof *lv->cont);
    if (lv->key == NULL || lv->raw == NULL || lv->cont == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory counting %zu-grams", k);
    lv->n = 0;
    for (size_t i = 0; i < L; i++) {
        if (i == 0 || scratch[i] != scratch[i - 1])
            lv->key[lv->n++] = scratch[i];
        lv->raw[lv->n - 1]++;
    }
    return SD_OK;
}

/* Continuation counts of level k from level k + 1, and both discounts. */
static void continuation(sd_ngram *g, size_t k)
{
    level *lv = &g->lv[k], *up = &g->lv[k + 1];
    for (size_t j = 0; j < up->n; j++)
        lv->cont[find(lv->key, lv->n, up->key[j] & mask(k))]++; /* every suffix occurs */
    lv->d_raw = discount(lv->raw, lv->n);
    lv->d_cont = discount(lv->cont, lv->n);
}

/* The distribution after history h (length l) at level l + 1, into out[V]:
 * raw counts (the model's highest order) or continuation counts, over
 * lower[V] (the distribution one level down). */
static void kneser_ney(const sd_ngram *g, size_t l, key_t_ h, int raw, const double *lower, size_t v, double *out)
{
    const level *lv = &g->lv[l + 1];
    const uint32_t *c = raw ? lv->raw : lv->cont;
    double d = raw ? lv->d_raw : lv->d_cont, total = 0.0, types = 0.0;
    size_t lo = lower_bound(lv->key, lv->n, h << 8), hi = lower_bound(lv->key, lv->n, (h << 8) | 0xff);
    hi += hi < lv->n && lv->key[hi] == ((h << 8) | 0xff);
    for (size_t j = lo; j < hi; j++) {
        total += c[j];
        types += c[j] > 0;
    }
    for (size_t w = 0; w < v; w++)
        out[w] = d * types / total * lower[w];
    for (size_t j = lo; j < hi; j++)
        out[lv->key[j] & 0xff] += fmax((double)c[j] - d, 0.0) / total;
}

/* The token-space p and q of every context, shortest histories first. */
static sd_status build_bank(sd_model *m, sd_ngram *g, const sd_sampling *target, const sd_sampling *draft,
                            sd_error *err)
{
    size_t v = m->vocab, N = g->order, M = g->draft_order, nctx = m->ncontexts;
    double *P = malloc(nctx * v * sizeof *P), *Q = malloc(nctx * v * sizeof *Q), *uniform = malloc(v * sizeof *uniform);
    double *w = malloc(v * sizeof *w);
    size_t *idx = malloc(v * sizeof *idx);
    sd_status st = SD_OK;
    if (P == NULL || Q == NULL || uniform == NULL || w == NULL || idx == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory for %zu contexts of %zu tokens", nctx, v);
    for (size_t t = 0; st == SD_OK && t < v; t++)
        uniform[t] = 1.0 / (double)v;
    for (size_t l = 0; st == SD_OK && l < N; l++) {
        size_t count = l == 0 ? 1 : g->lv[l].n;
        for (size_t j = 0; j < count; j++) {
            size_t ci = g->first[l] + j;
            key_t_ h = l == 0 ? 0 : g->lv[l].key[j];
            const double *lower = uniform; /* both models' distribution one level down */
            if (l > 0) /* the suffix without the oldest byte */
                lower = P + (g->first[l - 1] + (l == 1 ? 0 : find(g->lv[l - 1].key, g->lv[l - 1].n, h & mask(l - 1)))) * v;
            kneser_ney(g, l, h, l == N - 1, lower, v, P + ci * v);
            if (l + 1 < M) /* both models at a lower level: the same continuation counts */
                memcpy(Q + ci * v, P + ci * v, v * sizeof *Q);
            else if (l + 1 == M)
                kneser_ney(g, l, h, 1, lower, v, Q + ci * v);
            else { /* the draft sees the last M - 1 bytes: that context's q */
                size_t s = M - 1 == 0 ? 0 : find(g->lv[M - 1].key, g->lv[M - 1].n, h & mask(M - 1));
                memcpy(Q + ci * v, Q + (g->first[M - 1] + s) * v, v * sizeof *Q);
            }
        }
    }
    for (size_t ci = 0; st == SD_OK && ci < nctx; ci++) {
        char pn[40], qn[40];
        snprintf(pn, sizeof pn, "p context %zu", ci);
        snprintf(qn, sizeof qn, "q context %zu", ci);
        if (target != NULL) /* in place, after every level has read its lower one */
            st = sd_sampling_apply(target, SD_INPUT_PROBS, P + ci * v, v, P + ci * v, pn, err);
        if (st == SD_OK && draft != NULL)
            st = sd_sampling_apply(draft, SD_INPUT_PROBS, Q + ci * v, v, Q + ci * v, qn, err);
        if (st == SD_OK)
            st = sd_model_context_init(&m->ctx[ci], P + ci * v, Q + ci * v, v, idx, w, err);
    }
    free(P), free(Q), free(uniform), free(w), free(idx);
    return st;
}

/* The corpus as tokens into g: the distinct bytes in byte order are the
 * vocabulary (g->byte maps back); returns V. */
static size_t tokenize(sd_ngram *g, const unsigned char *text, size_t len)
{
    int tok[256];
    size_t v = 0;
    for (int b = 0; b < 256; b++)
        tok[b] = -1;
    for (size_t i = 0; i < len; i++)
        tok[text[i]] = 0;
    for (int b = 0; b < 256; b++)
        if (tok[b] == 0) {
            g->byte[v] = (unsigned char)b;
            tok[b] = (int)v++;
        }
    for (size_t i = 0; i < len; i++)
        g->text[i] = (uint32_t)tok[text[i]];
    return v;
}

/* Every level's counts and discounts; the contexts' first indices; returns
 * the number of contexts in *nctx. */
static sd_status count_levels(sd_ngram *g, key_t_ *scratch, size_t *nctx, sd_error *err)
{
    sd_status st = SD_OK;
    for (size_t k = 1; st == SD_OK && k <= g->order; k++)
        st = count_level(g, k, scratch, err);
    if (st != SD_OK)
        return st;
    for (size_t k = 1; k < g->order; k++)
        continuation(g, k);
    level *top = &g->lv[g->order];
    top->d_raw = discount(top->raw, top->n);
    *nctx = 0;
    for (size_t l = 0; l < g->order; l++) {
        g->first[l] = *nctx;
        *nctx += l == 0 ? 1 : g->lv[l].n;
    }
    return SD_OK;
}

static const sd_context *ngram_lookup(const sd_model *m, const sd_prefix *s);
static void ngram_prime(const sd_model *m, sd_prefix *s, gsl_rng *r);

/* The family's ops (model_impl.h): the longest-suffix lookup, priming from the corpus, its tables. */
static const sd_model_ops NGRAM_OPS = { .lookup = ngram_lookup, .prime = ngram_prime, .free = ngram_free };

sd_ngram_config sd_ngram_defaults(void)
{
    return (sd_ngram_config){ .order = 5, .draft_order = 2, .target = NULL, .draft = NULL };
}

sd_status sd_ngram_model(const unsigned char *text, size_t len, const char *name, const sd_ngram_config *cfg,
                         sd_model **out, sd_error *err)
{
    double t0 = sd_util_seconds();
    size_t order = cfg->order;
    if (order < 1 || order > SD_NGRAM_ORDER_MAX)
        return sd_status_fail(err, SD_EINVAL, "order: %zu is outside [1, %d]", order, SD_NGRAM_ORDER_MAX);
    if (cfg->draft_order < 1 || cfg->draft_order > order)
        return sd_status_fail(err, SD_EINVAL, "draft_order: %zu is outside [1, %zu] (the target's order)",
                              cfg->draft_order, order);
    if (len < 2 || len > SD_NGRAM_CORPUS_MAX)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu bytes; a corpus needs 2 to %zu", name, len, SD_NGRAM_CORPUS_MAX);
    sd_ngram *g = calloc(1, sizeof *g);
    key_t_ *scratch = malloc(len * sizeof *scratch);
    if (g == NULL || scratch == NULL || (g->text = malloc(len * sizeof *g->text)) == NULL) {
        free(scratch);
        ngram_free(g);
        return sd_status_fail(err, SD_ENOMEM, "%s: out of memory for a %zu-byte corpus", name, len);
    }
    g->order = order;
    g->draft_order = cfg->draft_order;
    g->len = len;
    size_t v = tokenize(g, text, len), nctx = 0;
    sd_status st = count_levels(g, scratch, &nctx, err);
    free(scratch);
    sd_model *m = NULL;
    if (st == SD_OK && (st = sd_model_alloc(v, nctx, order - 1, SD_FAMILY_NGRAM, 0, &m, err)) == SD_OK) {
        m->ops = &NGRAM_OPS;
        m->impl = g;
        st = build_bank(m, g, cfg->target, cfg->draft, err);
    }
    if (st != SD_OK) {
        if (m == NULL)
            ngram_free(g);
        sd_model_free(m);
        return st;
    }
    size_t tables = len * sizeof *g->text;
    for (size_t k = 1; k <= order; k++)
        tables += g->lv[k].n * (sizeof(key_t_) + 2 * sizeof(uint32_t));
    m->bytes = sd_model_bank_bytes(nctx, v) + sizeof *g + tables;
    m->build_seconds = sd_util_seconds() - t0;
    *out = m;
    return SD_OK;
}

sd_status sd_ngram_load(const char *path, const sd_ngram_config *cfg, sd_model **out, sd_error *err)
{
    char *buf;
    size_t len;
    sd_status st = sd_file_read(path, SD_NGRAM_CORPUS_MAX, &buf, &len, err);
    if (st != SD_OK)
        return st;
    st = sd_ngram_model((const unsigned char *)buf, len, path, cfg, out, err);
    free(buf);
    return st;
}

unsigned char sd_ngram_byte(const sd_model *m, uint32_t t) { return ((const sd_ngram *)m->impl)->byte[t]; }

static const sd_context *ngram_lookup(const sd_model *m, const sd_prefix *s)
{
    const sd_ngram *g = m->impl;
    size_t k = m->history, have = s->len < k ? s->len : k;
    key_t_ h = 0;
    for (size_t j = have; j-- > 0;) /* oldest first */
        h = h << 8 | s->hist[(s->len - 1 - j) % SD_HISTORY_MAX]; /* j tokens before the newest */
    for (size_t l = have; l > 0; l--, h &= mask(l)) {
        const level *lv = &g->lv[l];
        size_t j = find(lv->key, lv->n, h);
        if (j < lv->n)
            return &m->ctx[g->first[l] + j];
    }
    return &m->ctx[0];
}

static void ngram_prime(const sd_model *m, sd_prefix *s, gsl_rng *r)
{
    const sd_ngram *g = m->impl;
    size_t pos = (size_t)(gsl_rng_uniform(r) * (double)g->len);
    for (size_t j = 0; j < m->history; j++)
        sd_model_advance(m, s, g->text[(pos + j) % g->len]);
}

void sd_ngram_logits(const sd_model *m, size_t rows, double *p, double *q)
{
    const sd_ngram *g = m->impl;
    size_t v = m->vocab;
    for (size_t i = 0; i < rows; i++) {
        size_t pos = (size_t)((double)i * (double)g->len / (double)rows);
        sd_prefix s;
        sd_model_start(m, &s);
        for (size_t j = m->history; j > 0; j--)
            sd_model_advance(m, &s, g->text[(pos + g->len - j) % g->len]);
        const sd_context *c = sd_model_lookup(m, &s);
        for (size_t r = 0; r < v; r++) {
            p[i * v + c->token[r]] = log(c->p[r]);
            q[i * v + c->token[r]] = log(c->q[r]);
        }
    }
}
