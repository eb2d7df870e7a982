/* synth.c -- synthetic models and the context bank (see synth.h).
 *
 * Building a context costs O(V log V) (a sort into rank space); the bank is
 * built once, in parallel over contexts, each context from its own random
 * stream (seed, 2^40 + context), so the bank is the same on any thread
 * count.  Lookups cost O(k) hash steps.
 */
#include "specdec/synth.h"
#include "model_impl.h"
#include "random/cdf_impl.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>

#include "specdec/dist.h"
#include "specdec/rng.h"


static const uint64_t BANK_STREAM = (uint64_t)1 << 40;
static const size_t BANK_SLOTS = (size_t)1 << 21;

size_t sd_synth_default_contexts(size_t vocab)
{
    size_t k = BANK_SLOTS / (vocab ? vocab : 1);
    return k < 2 ? 2 : k > 64 ? 64 : k;
}

/* The one table of names each: the enums index them. */
static const char *const FAMILY_NAMES[] = { "zipf", "dirichlet", "logits", NULL }; /* = sd_model_family_name's */
static const char *const REGIME_NAMES[] = { "constant", "beta", "markov", NULL };

const char *sd_synth_regime_name(sd_regime r) { return REGIME_NAMES[r]; }
const char *const *sd_synth_family_names(void) { return FAMILY_NAMES; }
const char *const *sd_synth_regime_names(void) { return REGIME_NAMES; }

sd_synth_config sd_synth_defaults(void)
{
    return (sd_synth_config){ .family = SD_FAMILY_ZIPF, .vocab = 1000, .zipf_s = 1.5, .kappa = 0.5,
                              .temperature = 1.0, .calibrated = 1, .alpha = 0.8, .noise = 0.0,
                              .regime = SD_REGIME_CONSTANT, .concentration = 20.0, .alpha_easy = 0.95,
                              .alpha_hard = 0.3, .stay = 0.9, .contexts = 0, .history = 2,
                              .seed = SD_RNG_DEFAULT_SEED, .threads = 1 };
}

/* ---- one context ---------------------------------------------------------- */

typedef struct {
    double *a, *b;   /* V doubles each */
    size_t *idx;     /* V indices */
    uint32_t *perm;  /* V tokens */
} scratch;

/* A draw of the family in token space, into out[V]. */
static void family_draw(const sd_synth_config *cfg, gsl_rng *r, scratch *s, double *out)
{
    size_t v = cfg->vocab;
    switch (cfg->family) {
    case SD_FAMILY_ZIPF: {
        double h = 0.0;
        for (size_t i = 0; i < v; i++)
            s->perm[i] = (uint32_t)i;
        gsl_ran_shuffle(r, s->perm, v, sizeof *s->perm);
        for (size_t i = v; i-- > 0;) /* small terms first */
            h += pow((double)(i + 1), -cfg->zipf_s);
        for (size_t i = 0; i < v; i++)
            out[s->perm[i]] = pow((double)(i + 1), -cfg->zipf_s) / h;
        break;
    }
    case SD_FAMILY_DIRICHLET: {
        for (size_t i = 0; i < v; i++)
            s->a[i] = cfg->kappa;
        gsl_ran_dirichlet(r, v, s->a, out);
        break;
    }
    case SD_FAMILY_LOGITS:
    case SD_FAMILY_FILE:
    case SD_FAMILY_NGRAM: { /* not synthetic: check_config refuses them; never reached */
        double mx = -INFINITY, sum = 0.0;
        for (size_t i = 0; i < v; i++) {
            out[i] = gsl_ran_gaussian(r, 1.0) / cfg->temperature;
            mx = fmax(mx, out[i]);
        }
        for (size_t i = 0; i < v; i++)
            sum += (out[i] = exp(out[i] - mx));
        for (size_t i = 0; i < v; i++)
            out[i] /= sum;
        break;
    }
    }
}

/* Ranks are shuffled within windows of this many when the draft's reference
 * distribution is laid onto the target's ranks. */
enum { REFERENCE_WINDOW = 256 };

/* The calibrated draft's reference r in p's rank space, into out[V]: an
 * independent draw of the family, sorted, whose ranks agree with p's only
 * up to a shuffle within windows of REFERENCE_WINDOW ranks (a draft ranks
 * tokens roughly as the target does).  Its mass then sits where p's does,
 * which keeps the samplers in the cached head of their tables. */
static void reference_draw(const sd_synth_config *cfg, gsl_rng *r, scratch *s, double *out)
{
    size_t v = cfg->vocab;
    family_draw(cfg, r, s, s->b);
    gsl_sort_index(s->idx, s->b, 1, v);
    for (size_t start = 0; start < v; start += REFERENCE_WINDOW) {
        size_t len = v - start < REFERENCE_WINDOW ? v - start : REFERENCE_WINDOW;
        for (size_t i = 0; i < len; i++)
            s->perm[i] = (uint32_t)(start + i);
        gsl_ran_shuffle(r, s->perm, len, sizeof *s->perm);
        for (size_t i = 0; i < len; i++)
            out[start + i] = s->b[s->idx[v - 1 - s->perm[i]]];
    }
}

enum { BETA_TRIES = 64 };

/* Beta(a, b) truncated to the reachable [lo, 1]: by rejection while that
 * accepts (the usual case: lo is a vocabulary's smallest probability), else
 * by inverting the upper tail, X = Qinv(u Q(lo)).  NaN when the tail above
 * lo holds no mass a double can see (then no context can be calibrated). */
static double truncated_beta(double a, double b, double lo, gsl_rng *r)
{
    for (int i = 0; i < BETA_TRIES; i++) {
        double x = gsl_ran_beta(r, a, b);
        if (x >= lo)
            return x;
    }
    double tail = gsl_cdf_beta_Q(lo, a, b);
    if (!(tail > 0.0))
        return NAN;
    double x = gsl_cdf_beta_Qinv(gsl_rng_uniform_pos(r) * tail, a, b);
    return x >= lo && x <= 1.0 ? x : lo;
}

/* The acceptance asked of context c. */
static double context_alpha(const sd_synth_config *cfg, size_t c, size_t nctx, gsl_rng *r, double p_min)
{
    switch (cfg->regime) {
    case SD_REGIME_CONSTANT:
        return cfg->alpha;
    case SD_REGIME_MARKOV:
        return c < nctx / 2 ? cfg->alpha_easy : cfg->alpha_hard;
    case SD_REGIME_BETA:
        if (cfg->alpha <= 0.0 || cfg->alpha >= 1.0)
            return cfg->alpha;
        return truncated_beta(cfg->alpha * cfg->concentration, (1.0 - cfg->alpha) * cfg->concentration, p_min, r);
    }
    return cfg->alpha;
}

static sd_status build_context(const sd_synth_config *cfg, size_t ci, size_t nctx, gsl_rng *r,
                               scratch *s, sd_context *c, sd_error *err)
{
    size_t v = cfg->vocab;
    double *p = malloc(v * sizeof *p), *q = malloc(v * sizeof *q);
    uint32_t *token = malloc(v * sizeof *token);
    if (p == NULL || q == NULL || token == NULL) {
        free(p), free(q), free(token);
        return sd_status_fail(err, SD_ENOMEM, "out of memory building context %zu (vocab %zu)", ci, v);
    }
    family_draw(cfg, r, s, s->b);
    sd_model_rank_space(s->b, v, s->idx, p, token);

    if (cfg->calibrated) {
        double a = context_alpha(cfg, ci, nctx, r, 1.0 - (1.0 - p[v - 1])); /* reachable, as tested below */
        if (isnan(a)) {
            double p_min = p[v - 1];
            free(p), free(q), free(token);
            return sd_status_fail(err, SD_EINVAL, "concentration: Beta(%g, %g) has no mass above %.6g, the least "
                                  "acceptance this %s target reaches at vocab %zu", cfg->alpha * cfg->concentration,
                                  (1.0 - cfg->alpha) * cfg->concentration, p_min, sd_model_family_name(cfg->family), v);
        }
        reference_draw(cfg, r, s, s->a);
        double tv = sd_dist_tv(p, s->a, v);
        if (1.0 - tv > a) { /* too close to p: use the point mass on p's least likely token */
            memset(s->a, 0, v * sizeof *s->a);
            s->a[v - 1] = 1.0;
            tv = 1.0 - p[v - 1];
        }
        if (a < 1.0 - tv || (tv <= 0.0 && a < 1.0)) {
            free(p), free(q), free(token);
            return sd_status_fail(err, SD_EINVAL, "alpha: acceptance %g is below %.6g, the least this %s target "
                                  "reaches (its smallest probability) at vocab %zu", a, 1.0 - tv,
                                  sd_model_family_name(cfg->family), v);
        }
        double lambda = tv > 0.0 ? (1.0 - a) / tv : 0.0;
        for (size_t k = 0; k < v; k++)
            q[k] = (1.0 - lambda) * p[k] + lambda * s->a[k];
        c->target_alpha = a;
    } else {
        double mx = -INFINITY, sum = 0.0;
        for (size_t k = 0; k < v; k++) {
            q[k] = (p[k] > 0.0 ? log(p[k]) : -INFINITY) + cfg->noise * gsl_ran_gaussian(r, 1.0);
            mx = fmax(mx, q[k]);
        }
        for (size_t k = 0; k < v; k++)
            sum += (q[k] = exp(q[k] - mx));
        for (size_t k = 0; k < v; k++)
            q[k] /= sum;
        c->target_alpha = NAN;
    }
    return sd_model_context_finish(c, p, q, token, v, s->b, err);
}

/* ---- the bank, built in parallel over contexts ------------------------------ */

typedef struct {
    const sd_synth_config *cfg;
    sd_model *m;
    size_t first, step; /* contexts first, first + step, ... */
    sd_status st;
    sd_error err;
} build_job;

static void *build_worker(void *arg)
{
    build_job *j = arg;
    size_t v = j->cfg->vocab;
    scratch s = { malloc(v * sizeof(double)), malloc(v * sizeof(double)), malloc(v * sizeof(size_t)),
                  malloc(v * sizeof(uint32_t)) };
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    j->st = SD_OK;
    if (s.a == NULL || s.b == NULL || s.idx == NULL || s.perm == NULL || r == NULL)
        j->st = sd_status_fail(&j->err, SD_ENOMEM, "out of memory building the context bank");
    for (size_t c = j->first; j->st == SD_OK && c < j->m->ncontexts; c += j->step) {
        sd_rng_reseed(r, j->cfg->seed, BANK_STREAM + c);
        j->st = build_context(j->cfg, c, j->m->ncontexts, r, &s, &j->m->ctx[c], &j->err);
    }
    gsl_rng_free(r);
    free(s.a), free(s.b), free(s.idx), free(s.perm);
    return NULL;
}

static sd_status check_config(const sd_synth_config *cfg, size_t nctx, sd_error *err)
{
    if (cfg->vocab < 1 || cfg->vocab > SD_VOCAB_MAX)
        return sd_status_fail(err, SD_EINVAL, "vocab: %zu is outside [1, %u]", cfg->vocab, SD_VOCAB_MAX);
    if (cfg->family == SD_FAMILY_FILE || cfg->family == SD_FAMILY_NGRAM)
        return sd_status_fail(err, SD_EINVAL, "family: %s models come from %s, not sd_synth_model",
                              sd_model_family_name(cfg->family), cfg->family == SD_FAMILY_FILE ? "sd_model_rows" : "sd_ngram_model");
    if (cfg->history > SD_HISTORY_MAX)
        return sd_status_fail(err, SD_EINVAL, "history: %zu is outside [0, %d]", cfg->history, SD_HISTORY_MAX);
    if (cfg->regime == SD_REGIME_MARKOV && nctx < 2)
        return sd_status_fail(err, SD_EINVAL, "contexts: the markov regime needs at least 2 contexts");
    if (cfg->regime != SD_REGIME_CONSTANT && !cfg->calibrated)
        return sd_status_fail(err, SD_EINVAL, "regime: %s needs a calibrated draft (calibrated = 1), not a noisy one",
                              sd_synth_regime_name(cfg->regime));
    return SD_OK;
}

sd_status sd_synth_model(const sd_synth_config *cfg, sd_model **out, sd_error *err)
{
    double t0 = sd_util_seconds();
    size_t nctx = cfg->contexts ? cfg->contexts : sd_synth_default_contexts(cfg->vocab);
    sd_status st = check_config(cfg, nctx, err);
    if (st != SD_OK)
        return st;
    sd_model *m;
    if ((st = sd_model_alloc(cfg->vocab, nctx, cfg->history, cfg->family, cfg->seed, &m, err)) != SD_OK)
        return st;
    m->markov = cfg->regime == SD_REGIME_MARKOV;
    m->stay = cfg->stay;

    unsigned nt = cfg->threads < 1 ? 1 : cfg->threads;
    if (nt > nctx)
        nt = (unsigned)nctx;
    build_job *jobs = calloc(nt, sizeof *jobs);
    pthread_t *tid = calloc(nt, sizeof *tid);
    if (jobs == NULL || tid == NULL) {
        free(jobs), free(tid);
        sd_model_free(m);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    /* Thread t builds contexts t, t + nt, ...; the calling thread is thread 0.
     * A thread that cannot start leaves its share to a serial pass. */
    unsigned started = 1;
    for (unsigned t = 0; t < nt; t++)
        jobs[t] = (build_job){ cfg, m, t, nt, SD_OK, { "" } };
    while (started < nt && pthread_create(&tid[started], NULL, build_worker, &jobs[started]) == 0)
        started++;
    build_worker(&jobs[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (unsigned t = started; t < nt; t++)
        build_worker(&jobs[t]);
    for (unsigned t = 0; t < nt && st == SD_OK; t++)
        if (jobs[t].st != SD_OK) {
            st = jobs[t].st;
            if (err != NULL)
                *err = jobs[t].err;
        }
    free(jobs);
    free(tid);
    if (st != SD_OK) {
        sd_model_free(m);
        return st;
    }
    m->bytes = sd_model_bank_bytes(nctx, m->vocab) + nctx * 3 * (sd_cdf_cells(m->vocab, NULL) + 1) * sizeof(uint32_t);
    m->build_seconds = sd_util_seconds() - t0;
    *out = m;
    return SD_OK;
}

size_t sd_synth_bytes(const sd_synth_config *cfg)
{
    size_t nctx = cfg->contexts ? cfg->contexts : sd_synth_default_contexts(cfg->vocab);
    size_t nt = cfg->threads < 1 ? 1 : cfg->threads;
    nt = nt > nctx ? nctx : nt;
    /* each context: p, q and three CDF tables (n + 1 doubles each, and their guides), the rank map */
    size_t per_ctx = sizeof(sd_context) + sd_util_mul_sat(cfg->vocab + 1, 5 * sizeof(double) + sizeof(uint32_t)) +
                     3 * (sd_cdf_cells(cfg->vocab, NULL) + 1) * sizeof(uint32_t);
    /* each building thread: two family draws, a sort index and a shuffle */
    size_t per_thread = sd_util_mul_sat(cfg->vocab, 2 * sizeof(double) + sizeof(size_t) + sizeof(uint32_t));
    size_t bank = sd_util_mul_sat(nctx, per_ctx), build = sd_util_mul_sat(nt, per_thread);
    return bank > SIZE_MAX - build ? SIZE_MAX : bank + build;
}
