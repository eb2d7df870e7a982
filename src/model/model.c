/* model.c -- the generic model: contexts, prefixes, the hashed bank, and
 * models from given distributions (see model.h).
 *
 * A context costs O(V log V) to build (one sort into rank space) and three
 * samplers of O(V); a lookup costs O(history) hash steps in the hashed bank,
 * or what the family's ops take.
 */
#include "specdec/model.h"
#include "model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "specdec/dist.h"
#include "random/dist_impl.h"

static const char *const FAMILY_NAMES[] = {
    [SD_FAMILY_ZIPF] = "zipf", [SD_FAMILY_DIRICHLET] = "dirichlet", [SD_FAMILY_LOGITS] = "logits",
    [SD_FAMILY_FILE] = "file", [SD_FAMILY_NGRAM] = "ngram",
};

const char *sd_model_family_name(sd_family f) { return FAMILY_NAMES[f]; }

/* ---- contexts ---------------------------------------------------------------- */

static void context_free(sd_context *c)
{
    free((void *)(uintptr_t)c->p);
    free((void *)(uintptr_t)c->q);
    free((void *)(uintptr_t)c->token);
    sd_cdf_free(&c->p_cdf);
    sd_cdf_free(&c->q_cdf);
    sd_cdf_free(&c->residual_cdf);
}

void sd_model_rank_space(const double *w, size_t v, size_t *idx, double *p, uint32_t *token)
{
    gsl_sort_index(idx, w, 1, v); /* ascending */
    for (size_t r = 0; r < v; r++) {
        size_t t = idx[v - 1 - r];
        p[r] = w[t];
        token[r] = (uint32_t)t;
    }
}

sd_status sd_model_context_finish(sd_context *c, double *p, double *q, uint32_t *token, size_t v, double *scratch,
                                  sd_error *err)
{
    c->p = p;
    c->q = q;
    c->token = token;
    c->beta = sd_dist_overlap(p, q, v);
    c->argmax_q = 0;
    for (size_t i = 1; i < v; i++)
        if (q[i] > q[c->argmax_q])
            c->argmax_q = (uint32_t)i;
    double mass = sd_dist_residual(p, q, v, scratch);
    sd_status st;
    if ((st = sd_cdf_init(&c->p_cdf, p, v, err)) != SD_OK || (st = sd_cdf_init(&c->q_cdf, q, v, err)) != SD_OK ||
        (st = sd_cdf_init(&c->residual_cdf, mass > 0.0 ? scratch : p, v, err)) != SD_OK)
        return st;
    return SD_OK;
}

sd_status sd_model_context_init(sd_context *c, const double *p, const double *q, size_t n, size_t *idx, double *w,
                                sd_error *err)
{
    double *pr = malloc(n * sizeof *pr);
    double *qr = malloc(n * sizeof *qr);
    uint32_t *token = malloc(n * sizeof *token);
    if (pr == NULL || qr == NULL || token == NULL) {
        free(pr);
        free(qr);
        free(token);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a %zu-token context", n);
    }
    sd_model_rank_space(p, n, idx, pr, token);
    for (size_t r = 0; r < n; r++)
        qr[r] = q[token[r]];
    c->target_alpha = NAN;
    return sd_model_context_finish(c, pr, qr, token, n, w, err);
}

/* ---- the model ------------------------------------------------------------------- */

sd_status sd_model_alloc(size_t vocab, size_t ncontexts, size_t history, sd_family family, uint64_t seed,
                         sd_model **out, sd_error *err)
{
    sd_model *m = calloc(1, sizeof *m);
    if (m == NULL || (m->ctx = calloc(ncontexts, sizeof *m->ctx)) == NULL) {
        free(m);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu contexts", ncontexts);
    }
    m->vocab = vocab;
    m->ncontexts = ncontexts;
    m->history = history;
    m->family = family;
    m->ctx_salt = sd_util_mix64(seed ^ 0x636f6e74657874u);   /* "context" */
    m->regime_salt = sd_util_mix64(seed ^ 0x726567696d65u);  /* "regime" */
    *out = m;
    return SD_OK;
}

size_t sd_model_bank_bytes(size_t nctx, size_t n)
{
    return sizeof(sd_model) + nctx * (sizeof(sd_context) + n * (5 * sizeof(double) + sizeof(uint32_t)) +
                                      3 * sizeof(double));
}

sd_status sd_model_rows(const sd_model_rows_request *rq, sd_model **out, sd_error *err)
{
    size_t rows = rq->rows, n = rq->vocab;
    if (rows < 1)
        return sd_status_fail(err, SD_EINVAL, "rows: need at least one row");
    if (rq->history > SD_HISTORY_MAX)
        return sd_status_fail(err, SD_EINVAL, "history: %zu is outside [0, %d]", rq->history, SD_HISTORY_MAX);
    sd_status st = SD_OK;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        char pn[32], qn[32];
        snprintf(pn, sizeof pn, rows > 1 ? "p row %zu" : "p", i);
        snprintf(qn, sizeof qn, rows > 1 ? "q row %zu" : "q", i);
        if ((st = sd_dist_check(rq->p + i * n, n, pn, err)) == SD_OK)
            st = sd_dist_check(rq->q + i * n, n, qn, err);
    }
    if (st != SD_OK)
        return st;
    sd_model *m = NULL;
    double *w = malloc(n * sizeof *w);
    size_t *idx = malloc(n * sizeof *idx);
    if (w == NULL || idx == NULL || sd_model_alloc(n, rows, rq->history, SD_FAMILY_FILE, rq->seed, &m, NULL) != SD_OK) {
        free(w);
        free(idx);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a %zu x %zu-token model", rows, n);
    }
    for (size_t i = 0; i < rows && st == SD_OK; i++)
        st = sd_model_context_init(&m->ctx[i], rq->p + i * n, rq->q + i * n, n, idx, w, err);
    free(w);
    free(idx);
    m->bytes = sd_model_bank_bytes(rows, n);
    if (st != SD_OK) {
        sd_model_free(m);
        return st;
    }
    *out = m;
    return SD_OK;
}

sd_status sd_model_pair(const double *p, const double *q, size_t n, sd_model **out, sd_error *err)
{
    const sd_model_rows_request rq = { .p = p, .q = q, .rows = 1, .vocab = n, .history = 0, .seed = 0 };
    return sd_model_rows(&rq, out, err);
}

void sd_model_free(sd_model *m)
{
    if (m == NULL)
        return;
    if (m->ctx != NULL)
        for (size_t i = 0; i < m->ncontexts; i++)
            context_free(&m->ctx[i]);
    free(m->ctx);
    if (m->ops != NULL)
        m->ops->free(m->impl);
    free(m);
}

size_t sd_model_vocab(const sd_model *m) { return m->vocab; }
size_t sd_model_contexts(const sd_model *m) { return m->ncontexts; }
sd_family sd_model_family(const sd_model *m) { return m->family; }
size_t sd_model_history(const sd_model *m) { return m->history; }
size_t sd_model_bytes(const sd_model *m) { return m->bytes; }
double sd_model_build_seconds(const sd_model *m) { return m->build_seconds; }
const sd_context *sd_model_context(const sd_model *m, size_t i) { return &m->ctx[i]; }

/* ---- prefixes -------------------------------------------------------------------- */

void sd_model_start(const sd_model *m, sd_prefix *s)
{
    (void)m;
    memset(s, 0, sizeof *s);
}

void sd_model_prime(const sd_model *m, sd_prefix *s, gsl_rng *r)
{
    if (m->ops != NULL && m->ops->prime != NULL)
        m->ops->prime(m, s, r);
}

void sd_model_advance(const sd_model *m, sd_prefix *s, uint32_t token) { sd_model_advance_inline(m, s, token); }

const sd_context *sd_model_lookup(const sd_model *m, const sd_prefix *s) { return sd_model_lookup_inline(m, s); }
