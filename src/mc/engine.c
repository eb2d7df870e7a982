/* engine.c -- the Monte Carlo engine (see engine.h): chunks, workers, the
 * run.  The iterations are engine_iterate.c's, the configuration
 * engine_config.c's.
 *
 * Nothing is O(V) per token after the bank is built (engine_iterate.c
 * states the cost of each shape).  Threads take chunks from a shared
 * counter and keep their own integer counts, merged at the end (integer
 * sums commute); the per-chunk beta sums are added in chunk order.
 */
#include "specdec/engine.h"
#include "engine_impl.h"
#include "engine_stats_impl.h"
#include "verify_impl.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "specdec/dist.h"
#include "specdec/rng.h"
#include "specdec/step.h"
#include "common/util.h"
#include "model/model_impl.h"

/* ---- the workers ---------------------------------------------------------- */

typedef struct {
    const sd_engine_config *cfg;
    size_t nchunks;
    atomic_size_t next_chunk;
    atomic_size_t chunks_done;
    atomic_int failed;   /* a worker failed: the others stop, progress stops waiting */
    double *chunk_beta; /* [nchunks] */
    size_t shard, nshards; /* this process runs the chunks k = shard + j nshards (shard 0-based) */
    double *acc_k;       /* per-context acceptance (beta, or with k > 1 drafts their acceptance) */
    size_t *kids;        /* a tree's children: node v's (-1 the root) are kids[v + 1] .. kids[v + 2] - 1 */
} shared_run;

typedef struct {
    _Alignas(64) shared_run *sh; /* each worker on lines of its own */
    sd_engine_stats stats;
    sd_engine_stats burn; /* where burn-in iterations count, never read */
    sd_status st;
    sd_error err;
} worker;

/* Chunk k into w's statistics and its beta sum into chunk_beta[k]: a fresh sequence from
 * stream (seed, k), burnt in, then SD_CHUNK_ITERATIONS iterations. */
static void run_chunk(worker *w, size_t k, gsl_rng *r, sd_step *step)
{
    const sd_engine_config *cfg = w->sh->cfg;
    sd_rng_reseed(r, cfg->seed, k);
    sd_engine_recorder rec = { .m = cfg->model, .v = cfg->verifier, .acc_k = w->sh->acc_k,
                               .base = sd_model_context(cfg->model, 0), .s = &w->stats, .positions = cfg->positions,
                               .kids = w->sh->kids };
    sd_engine_sequence seq = { .gamma_now = cfg->gamma };
    sd_model_start(cfg->model, &seq.prefix);
    sd_model_prime(cfg->model, &seq.prefix, r); /* a real prefix where the model has text (n-gram) */
    if (cfg->seq_tokens == 0) {
        /* Burn-in: the same iterations, counted nowhere, so that a chunk's
         * statistics start from a prefix state (e.g. a Markov regime) that has
         * forgotten the empty prompt. */
        sd_engine_recorder burn = rec;
        burn.s = &w->burn;
        burn.positions = 0;
        for (uint64_t t0 = w->burn.tokens; w->burn.tokens - t0 < SD_BURN_IN_TOKENS;)
            if (sd_engine_iterate(cfg, &burn, &seq, r, step) == 0) /* Algorithm 1 emits at least one token */
                goto no_token;
        seq.len = 0;
    }
    w->stats.sequences++;
    /* a fixed number of iterations, not of tokens: a token budget would stop on
     * a boundary-crossing (size-biased) iteration and bias tokens/iteration */
    for (unsigned it = 0; it < SD_CHUNK_ITERATIONS; it++) {
        if (cfg->seq_tokens > 0 && seq.len >= cfg->seq_tokens) {
            sd_model_start(cfg->model, &seq.prefix);
            sd_model_prime(cfg->model, &seq.prefix, r);
            seq.len = 0;
            seq.gamma_now = cfg->gamma;
            w->stats.sequences++;
        }
        size_t n = sd_engine_iterate(cfg, &rec, &seq, r, step);
        if (n == 0)
            goto no_token;
        w->stats.iterations++;
        w->stats.n_hist[n]++;
    }
    w->sh->chunk_beta[k] = rec.beta_sum;
    return;
no_token:
    w->st = sd_status_fail(&w->err, SD_EFAIL, "engine: an iteration emitted no valid tokens (chunk %zu): the verification "
                           "rule accepted more drafts than were made", k);
    atomic_store(&w->sh->failed, 1);
}

/* Chunk 0, run alone on the calling thread: its token count sets how many
 * chunks the run needs for about cfg->tokens tokens. */
static void run_pilot(worker *w)
{
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    sd_step step;
    if (r == NULL)
        w->st = sd_status_fail(&w->err, SD_ENOMEM, "out of memory in the engine");
    else if ((w->st = sd_step_init(&step, sd_engine_chain_max(w->sh->cfg), sd_model_vocab(w->sh->cfg->model), &w->err)) == SD_OK) {
        run_chunk(w, 0, r, &step);
        sd_step_free(&step);
    }
    gsl_rng_free(r);
}

static void *work(void *arg)
{
    worker *w = arg;
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    sd_step step;
    if (r == NULL)
        w->st = sd_status_fail(&w->err, SD_ENOMEM, "out of memory in an engine thread");
    else
        w->st = sd_step_init(&step, sd_engine_chain_max(w->sh->cfg), sd_model_vocab(w->sh->cfg->model), &w->err);
    int have_step = w->st == SD_OK;
    if (w->st != SD_OK)
        atomic_store(&w->sh->failed, 1);
    while (w->st == SD_OK && !atomic_load(&w->sh->failed)) { /* claim a chunk only when able to run it */
        size_t j = atomic_fetch_add(&w->sh->next_chunk, 1);
        if (j > (SIZE_MAX - w->sh->shard) / w->sh->nshards)
            break;
        size_t k = w->sh->shard + j * w->sh->nshards; /* chunk 0 is the pilot's */
        if (k >= w->sh->nchunks)
            break;
        run_chunk(w, k, r, &step);
        atomic_fetch_add(&w->sh->chunks_done, 1);
    }
    if (have_step) /* also when a chunk failed after it */
        sd_step_free(&step);
    gsl_rng_free(r);
    return NULL;
}

static void workers_free(worker *ws, unsigned nt)
{
    for (unsigned t = 0; ws != NULL && t < nt; t++) {
        sd_engine_stats_free(&ws[t].stats);
        sd_engine_stats_free(&ws[t].burn);
    }
    free(ws);
}

/* Each context's acceptance (for alpha_hat) into *acc_k: the rule's, or
 * with k > 1 drafts the recursive rejection's -- looked up, not computed,
 * for every emitted token. */
static sd_status multi_acceptances(const sd_engine_config *cfg, double **acc_k, sd_error *err)
{
    *acc_k = NULL;
    const sd_model *m = cfg->model;
    size_t nv = sd_model_vocab(m), nc = sd_model_contexts(m);
    double *tmp = cfg->drafts > 1 ? malloc(nv * sizeof *tmp) : NULL, *acc = malloc(nc * sizeof *acc);
    if (acc == NULL || (cfg->drafts > 1 && tmp == NULL)) {
        free(acc), free(tmp);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    for (size_t c = 0; c < nc; c++) {
        const sd_context *ctx = sd_model_context(m, c);
        acc[c] = cfg->drafts > 1 ? sd_dist_multi_acceptance(ctx->p, ctx->q, nv, cfg->drafts, tmp)
                                 : cfg->verifier->acceptance(ctx);
    }
    free(tmp);
    *acc_k = acc;
    return SD_OK;
}

/* The children lists of t into *kids (n + 2 entries): in breadth-first order a node's
 * children are contiguous, ranks rising, so node v's (-1 the root) are kids[v + 1] ..
 * kids[v + 2] - 1. */
static sd_status tree_kids(const sd_tree *t, size_t **kids, sd_error *err)
{
    size_t *k = calloc(t->n + 2, sizeof *k);
    if (k == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < t->n; i++) /* count each node's children at its slot + 1 */
        k[(size_t)(t->parent[i] + 1) + 1]++;
    for (size_t v = 1; v <= t->n + 1; v++)
        k[v] += k[v - 1];
    *kids = k;
    return SD_OK;
}

/* nt workers with their statistics, or SD_ENOMEM (then *out holds nothing). */
static sd_status workers_alloc(const sd_engine_config *cfg, shared_run *sh, unsigned nt, worker **out, sd_error *err)
{
    size_t max_gamma = sd_engine_max_gamma(cfg);
    size_t nv = sd_model_vocab(cfg->model), nc = sd_model_contexts(cfg->model);
    worker *ws = aligned_alloc(64, ((nt * sizeof *ws + 63) / 64) * 64);
    if (ws == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %u engine threads", nt);
    memset(ws, 0, nt * sizeof *ws);
    sd_status st = SD_OK;
    for (unsigned t = 0; st == SD_OK && t < nt; t++) {
        ws[t].sh = sh;
        int moves = cfg->policy == SD_POLICY_HEURISTIC;
        if ((st = sd_engine_stats_alloc(&ws[t].stats, max_gamma, nv, nc, cfg->positions, moves, !cfg->skip_outputs, err)) ==
            SD_OK) /* the burn-in is counted nowhere: no output counts */
            st = sd_engine_stats_alloc(&ws[t].burn, max_gamma, nv, nc, 0, moves, 0, err);
    }
    if (st != SD_OK) {
        workers_free(ws, nt);
        return st;
    }
    *out = ws;
    return SD_OK;
}

/* The first error a worker met, copied into err. */
static sd_status worker_status(const worker *ws, unsigned n, sd_error *err)
{
    for (unsigned t = 0; t < n; t++)
        if (ws[t].st != SD_OK) {
            if (err != NULL)
                *err = ws[t].err;
            return ws[t].st;
        }
    return SD_OK;
}

/* Runs the pilot chunk on worker 0, then sizes the run: as many chunks as
 * about cfg->tokens tokens need, each with its beta sum slot.  A shard that
 * does not own chunk 0 moves the pilot's counts to *pilot (so that what it
 * records leaves them out) and starts worker 0 afresh. */
static sd_status plan_chunks(const sd_engine_config *cfg, shared_run *sh, worker *w0, sd_engine_stats *pilot,
                             sd_error *err)
{
    double pilot_beta = 0.0;
    sh->nchunks = 1;
    sh->chunk_beta = &pilot_beta;
    atomic_init(&sh->next_chunk, 0);
    atomic_init(&sh->chunks_done, 0);
    atomic_init(&sh->failed, 0);
    run_pilot(w0);
    sh->chunk_beta = NULL;
    sd_status st = worker_status(w0, 1, err);
    if (st != SD_OK)
        return st;
    double want = ceil((double)cfg->tokens / (double)w0->stats.tokens);
    sh->nchunks = want < 1.0 ? 1 : want > 1e9 ? 1000000000u : (size_t)want;
    if ((sh->chunk_beta = calloc(sh->nchunks, sizeof *sh->chunk_beta)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu chunks", sh->nchunks);
    sh->chunk_beta[0] = pilot_beta;
    if (sh->shard == 0) { /* chunk 0 is ours and done: claims start at the next one */
        atomic_init(&sh->next_chunk, 1);
        atomic_init(&sh->chunks_done, 1);
        return SD_OK;
    }
    *pilot = w0->stats;
    const sd_engine_stats *p = pilot;
    return sd_engine_stats_alloc(&w0->stats, p->max_gamma, p->vocab, p->contexts, p->positions, p->moves != NULL,
                       p->out_counts != NULL, err);
}

/* Chunks this shard runs: k = shard, shard + nshards, ... below nchunks. */
static size_t owned_chunks(const shared_run *sh)
{
    return sh->nchunks > sh->shard ? (sh->nchunks - sh->shard - 1) / sh->nshards + 1 : 0;
}

/* Starts the workers, reports progress, joins them. */
static sd_status run_workers(const sd_engine_config *cfg, shared_run *sh, worker *ws, unsigned nt, double t0,
                             sd_error *err)
{
    pthread_t tid[256];
    unsigned started = 0;
    for (; started < nt && started < 256; started++)
        if (pthread_create(&tid[started], NULL, work, &ws[started]) != 0)
            break;
    if (started == 0)
        return sd_status_fail(err, SD_EFAIL, "threads: cannot start an engine thread");
    /* Threads that could not start leave their chunks to the others. */
    size_t owned = owned_chunks(sh);
    while (cfg->progress != NULL && atomic_load(&sh->chunks_done) < owned && !atomic_load(&sh->failed)) {
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL);
        cfg->progress(cfg->progress_arg, (double)atomic_load(&sh->chunks_done) / (double)owned, sd_util_seconds() - t0);
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    return worker_status(ws, started, err);
}

/* Statistics from the replay hook, held to the shape this configuration's
 * run would have and to their own sums (a partial result is a file: it may
 * have been edited). */
static sd_status replay(const sd_engine_config *cfg, sd_engine_stats *out, sd_error *err)
{
    sd_engine_stats s = { 0 };
    sd_status st = cfg->io->replay(cfg->io->arg, sd_engine_fingerprint(cfg), &s, err);
    if (st != SD_OK)
        return st;
    size_t max_gamma = sd_engine_max_gamma(cfg);
    uint64_t n = 0, t = 0, it = 0;
    int ok = s.max_gamma == max_gamma && s.max_n == max_gamma + 1 && s.vocab == sd_model_vocab(cfg->model) &&
             s.contexts == sd_model_contexts(cfg->model) && s.positions == cfg->positions &&
             (s.moves != NULL) == (cfg->policy == SD_POLICY_HEURISTIC) &&
             (s.out_counts != NULL) == !cfg->skip_outputs && s.nchunks >= 1 && s.chunk_beta != NULL;
    for (size_t i = 0; ok && i <= s.max_n; i++) {
        n += s.n_hist[i] * (uint64_t)i;
        it += s.n_hist[i];
    }
    for (size_t i = 0; ok && i < s.contexts; i++)
        t += s.ctx_tokens[i];
    if (!ok || n != s.tokens || t != s.tokens || it != s.iterations || s.iterations == 0) {
        sd_engine_stats_free(&s);
        return sd_status_fail(err, SD_EINVAL, "replay: the statistics do not fit this run (their shape, or their counts "
                              "do not add up): not what the engine records");
    }
    *out = s;
    return SD_OK;
}

/* The workers' counts merged in thread order into *out, with the chunk sums. */
static void collect(worker *ws, unsigned nt, shared_run *sh, sd_engine_stats *out)
{
    *out = ws[0].stats;
    ws[0].stats = (sd_engine_stats){ 0 };
    for (unsigned t = 1; t < nt; t++)
        sd_engine_stats_add(out, &ws[t].stats);
    out->nchunks = sh->nchunks;
    out->chunk_beta = sh->chunk_beta;
    sh->chunk_beta = NULL;
}

sd_status sd_engine_run(const sd_engine_config *cfg, sd_engine_stats *out, sd_error *err)
{
    double t0 = sd_util_seconds();
    unsigned nt = cfg->threads < 1 ? 1 : cfg->threads > 256 ? 256 : cfg->threads;
    int sharded = cfg->nshards > 1;
    shared_run sh = { .cfg = cfg, .shard = sharded ? cfg->shard - 1 : 0, .nshards = sharded ? cfg->nshards : 1 };
    worker *ws = NULL;
    sd_engine_stats pilot = { 0 };
    sd_status st = sd_engine_check(cfg, err);
    if (st == SD_OK && cfg->io != NULL && cfg->io->replay != NULL)
        return replay(cfg, out, err);
    if (st != SD_OK || (st = multi_acceptances(cfg, &sh.acc_k, err)) != SD_OK)
        return st;
    if (cfg->tree != NULL && (st = tree_kids(cfg->tree, &sh.kids, err)) != SD_OK) {
        free(sh.acc_k);
        return st;
    }
    if ((st = workers_alloc(cfg, &sh, nt, &ws, err)) == SD_OK &&
        (st = plan_chunks(cfg, &sh, &ws[0], &pilot, err)) == SD_OK)
        st = run_workers(cfg, &sh, ws, nt, t0, err);
    sd_engine_stats got = { 0 };
    if (st == SD_OK) {
        collect(ws, nt, &sh, &got);
        double pilot_beta = got.chunk_beta[0];
        if (sh.shard != 0) /* another shard counts chunk 0 */
            got.chunk_beta[0] = 0.0;
        sd_engine_stats_finish_alpha(&got);
        if (cfg->io != NULL && cfg->io->record != NULL)
            st = cfg->io->record(cfg->io->arg, sd_engine_fingerprint(cfg), &got, err);
        if (sh.shard != 0) { /* the caller's copy counts the pilot too: finite means on every shard */
            sd_engine_stats_add(&got, &pilot);
            got.chunk_beta[0] = pilot_beta;
            sd_engine_stats_finish_alpha(&got);
        }
        got.seconds = sd_util_seconds() - t0;
    }
    if (st == SD_OK)
        *out = got;
    else
        sd_engine_stats_free(&got);
    sd_engine_stats_free(&pilot);
    workers_free(ws, nt);
    free(sh.chunk_beta);
    free(sh.acc_k);
    free(sh.kids);
    return st;
}
