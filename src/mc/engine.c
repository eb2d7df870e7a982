/* engine.c -- the Monte Carlo engine (see engine.h).
 *
 * Cost per emitted token: O(k) hashing for the context lookup and O(log V)
 * CDF searches that mostly stay in cache; nothing is O(V) after the bank
 * is built.  Threads take chunks from a shared counter and keep their own
 * integer counts, merged at the end (integer sums commute); the per-chunk
 * beta sums are added in chunk order.
 */
#include "specdec/engine.h"
#include "verify_impl.h"
#include "engine_stats_impl.h"

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

/* ---- one worker ---------------------------------------------------------- */

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

/* The state of the sequence being generated. */
typedef struct {
    sd_prefix prefix;
    uint64_t len;     /* tokens emitted in this sequence */
    size_t gamma_now; /* heuristic policy: the draft length of the next iteration */
} sequence;

typedef struct {
    const sd_model *m;
    const sd_verifier *v;
    const double *acc_k;    /* per-context acceptance: what each emitted token adds to the beta sum */
    const sd_context *base; /* context 0, to index contexts */
    sd_engine_stats *s;
    double beta_sum;
    size_t positions;
    const size_t *kids;     /* shared_run's */
} recorder;

/* Records one emitted token (rank x at context c); the caller advances the prefix. */
static void count(recorder *rec, sequence *seq, const sd_context *c, uint32_t x)
{
    size_t ci = (size_t)(c - rec->base);
    uint32_t token = c->token[x];
    rec->s->tokens++;
    rec->s->ctx_tokens[ci]++;
    if (rec->s->out_counts != NULL)
        rec->s->out_counts[ci * rec->s->vocab + x]++;
    rec->beta_sum += rec->acc_k[ci];
    if (seq->len < rec->positions)
        rec->s->pos_counts[seq->len * rec->s->vocab + token]++;
    seq->len++;
}

/* Records one emitted token and advances the prefix. */
static void emit(recorder *rec, sequence *seq, const sd_context *c, uint32_t x)
{
    count(rec, seq, c, x);
    sd_model_advance_inline(rec->m, &seq->prefix, c->token[x]);
}

/* One iteration of a chain of w->gamma drafts (fewer under w->threshold),
 * recorded; returns N. */
static size_t iterate_chain(const sd_engine_config *cfg, recorder *rec, sequence *seq, gsl_rng *r, sd_step *w)
{
    size_t n = sd_step_run(cfg->model, cfg->verifier, w, &seq->prefix, r) - 1, g = w->drafted;
    if (n > g) /* a rule that accepts more drafts than were made is broken: no token counts */
        return 0;
    sd_engine_stats *s = rec->s;
    s->draft_calls += g;
    s->target_calls++;
    s->target_positions += g + 1;
    s->verified += n < g ? n + 1 : g;
    s->accepted += n;
    for (size_t i = 0; i < g && i <= n; i++) {
        s->reached[i]++;
        s->accepted_at[i] += i < n;
    }
    for (size_t i = 0; i < n; i++)
        count(rec, seq, w->ctx[i], w->draft[i]);
    seq->prefix = w->states[n]; /* the prefix after the n accepted drafts, made while drafting */
    emit(rec, seq, w->ctx[n], w->last);
    return n + 1;
}

/* One iteration with k drafts per position (recursive rejection), gamma
 * positions; work holds 2 V + 1 doubles.  Returns N. */
static size_t iterate_multi(const sd_engine_config *cfg, recorder *rec, sequence *seq, gsl_rng *r, double *work)
{
    const sd_model *m = cfg->model;
    sd_engine_stats *s = rec->s;
    size_t g = cfg->gamma, k = cfg->drafts;
    double nodes = 0.0, level = 1.0;
    for (size_t d = 0; d < g; d++)
        nodes += (level *= (double)k);
    s->draft_calls += g;
    s->target_calls++;
    s->target_positions += 1 + (uint64_t)nodes;
    for (size_t d = 0; d < g; d++) {
        const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
        s->reached[d]++;
        s->verified++;
        int accepted;
        uint32_t x = sd_verify_multi(c, k, r, work, &accepted);
        emit(rec, seq, c, x);
        if (!accepted)
            return d + 1;
        s->accepted++;
        s->accepted_at[d]++;
    }
    const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
    emit(rec, seq, c, (uint32_t)sd_cdf_draw(&c->p_cdf, r));
    return g + 1;
}

/* One oracle iteration: draft and verify one position at a time until the
 * first rejection (verification in one target call, as the oracle knows
 * beta); returns N. */
static size_t iterate_oracle(const sd_engine_config *cfg, recorder *rec, sequence *seq, gsl_rng *r)
{
    const sd_model *m = cfg->model;
    sd_engine_stats *s = rec->s;
    size_t n = 0;
    for (;;) {
        const sd_context *c = sd_model_lookup_inline(m, &seq->prefix);
        if (n == SD_ORACLE_MAX) {
            emit(rec, seq, c, cfg->verifier->bonus(c, r));
            break;
        }
        uint32_t x = sd_verify_draft_inline(cfg->verifier, c, r);
        s->draft_calls++;
        s->verified++;
        s->reached[n]++;
        if (!cfg->verifier->accept(c, x, r)) {
            emit(rec, seq, c, cfg->verifier->resample(c, x, r));
            break;
        }
        s->accepted++;
        s->accepted_at[n]++;
        emit(rec, seq, c, x);
        n++;
    }
    s->target_calls++;
    s->target_positions += n + 1;
    return n + 1;
}

/* The children of a tree node at context c, nodes a .. b - 1 of t (ranks rising), verified
 * under rule ch with the residual in work[0 .. V) and the sampler's sums after it: the rank
 * (in c) of the token emitted, with *child the accepted node or -1 (then the token is the
 * residual's). */
static uint32_t verify_children(const sd_context *c, const sd_tree *t, size_t a, size_t b, sd_children ch, gsl_rng *r,
                                double *work, int *child)
{
    size_t nv = c->p_cdf.n;
    double *res = work, *cum = work + nv, mass = 1.0;
    uint32_t top[SD_TREE_MAX_RANK];
    size_t ntop = 0;
    memcpy(res, c->p, nv * sizeof *res);
    if (ch != SD_CHILDREN_SAMPLED) { /* q's t->rank[b - 1] + 1 most likely tokens, ties to the lower rank */
        size_t want = (size_t)t->rank[b - 1] + 1 < nv ? (size_t)t->rank[b - 1] + 1 : nv;
        for (uint32_t x = 0; x < nv; x++) {
            if (ntop == want && !(c->q[x] > c->q[top[ntop - 1]]))
                continue;
            size_t i = ntop < want ? ntop++ : ntop - 1;
            for (; i > 0 && c->q[x] > c->q[top[i - 1]]; i--)
                top[i] = top[i - 1];
            top[i] = x;
        }
    }
    for (size_t j = a; j < b; j++) {
        uint32_t x;
        if (ch == SD_CHILDREN_SAMPLED) {
            x = (uint32_t)sd_cdf_draw(&c->q_cdf, r);
            if (sd_rng_u53_scaled_below(r, c->q[x] * mass, res[x])) { /* u q(x) < r(x) / mass */
                *child = (int)j;
                return x;
            }
            double rest = 0.0; /* r <- max(r / mass - q, 0), unnormalised */
            for (size_t y = 0; y < nv; y++)
                rest += (res[y] = res[y] / mass > c->q[y] ? res[y] / mass - c->q[y] : 0.0);
            if (!(rest > 0.0)) { /* p = q up to rounding: keep p */
                memcpy(res, c->p, nv * sizeof *res);
                rest = 1.0;
            }
            mass = rest;
            continue;
        }
        if (t->rank[j] >= ntop) /* q has fewer tokens than the rank: no such child */
            continue;
        x = top[t->rank[j]];
        if (!(res[x] > 0.0)) /* p(x) = 0, or x already rejected: never accepted, nothing to remove */
            continue;
        /* accept with r(x) / r(all); the broken control forgets the division */
        if (sd_rng_u53_scaled_below(r, ch == SD_CHILDREN_TOP_K ? mass : 1.0, res[x])) {
            *child = (int)j;
            return x;
        }
        mass -= res[x];
        res[x] = 0.0;
    }
    *child = -1;
    size_t x = sd_cdf_sample_weights(res, nv, cum, r);
    return x < nv ? (uint32_t)x : (uint32_t)sd_cdf_draw(&c->p_cdf, r);
}

/* One iteration drafting cfg->tree, verified from the root down, recorded; returns N. */
static size_t iterate_tree(const sd_engine_config *cfg, recorder *rec, sequence *seq, gsl_rng *r, double *work)
{
    const sd_tree *t = cfg->tree;
    sd_engine_stats *s = rec->s;
    s->draft_calls += sd_tree_depth(t);
    s->target_calls++;
    s->target_positions += 1 + t->n;
    int v = -1;
    for (size_t d = 0;; d++) {
        const sd_context *c = sd_model_lookup_inline(cfg->model, &seq->prefix);
        size_t a = rec->kids[v + 1], b = rec->kids[v + 2];
        if (a == b) { /* a leaf: the bonus token */
            emit(rec, seq, c, (uint32_t)sd_cdf_draw(&c->p_cdf, r));
            return d + 1;
        }
        int child;
        s->reached[d]++;
        s->verified++;
        emit(rec, seq, c, verify_children(c, t, a, b, cfg->children, r, work, &child));
        if (child < 0)
            return d + 1;
        s->accepted++;
        s->accepted_at[d]++;
        v = child;
    }
}

/* The longest chain a policy drafts (a tree's depth). */
static size_t chain_max(const sd_engine_config *cfg)
{
    if (cfg->tree != NULL)
        return sd_tree_depth(cfg->tree) > 0 ? sd_tree_depth(cfg->tree) : 1;
    return cfg->policy == SD_POLICY_HEURISTIC && cfg->gamma_max > cfg->gamma ? cfg->gamma_max : cfg->gamma;
}

/* Counts the heuristic's move from draft length g, after an iteration that
 * accepted every draft (full) or not, to next (engine_stats.h: moves). */
static void count_move(sd_engine_stats *s, size_t g, int full, size_t next)
{
    size_t row = (size_t)full * (s->max_gamma + 1) + (g <= s->max_gamma ? g : s->max_gamma);
    size_t bin = next + SD_MOVE_SPAN >= g && next <= g + SD_MOVE_SPAN ? next + SD_MOVE_SPAN - g : SD_MOVE_BINS - 1;
    s->moves[row * SD_MOVE_BINS + bin]++;
}

/* One iteration under the configured policy. */
static size_t iterate(const sd_engine_config *cfg, recorder *rec, sequence *seq, gsl_rng *r, sd_step *step)
{
    if (cfg->policy == SD_POLICY_ORACLE)
        return iterate_oracle(cfg, rec, seq, r);
    if (cfg->tree != NULL)
        return iterate_tree(cfg, rec, seq, r, step->work);
    if (cfg->drafts > 1)
        return iterate_multi(cfg, rec, seq, r, step->work);
    step->threshold = cfg->policy == SD_POLICY_THRESHOLD ? cfg->threshold : 0.0;
    step->gamma = cfg->policy == SD_POLICY_HEURISTIC ? seq->gamma_now : cfg->gamma;
    size_t n = iterate_chain(cfg, rec, seq, r, step);
    if (cfg->policy == SD_POLICY_HEURISTIC) { /* +2 after a fully accepted iteration, else -1 */
        seq->gamma_now = n == step->gamma + 1 ? (seq->gamma_now + 2 < cfg->gamma_max ? seq->gamma_now + 2 : cfg->gamma_max)
                                               : (seq->gamma_now > 1 ? seq->gamma_now - 1 : 1);
        count_move(rec->s, step->gamma, n == step->gamma + 1, seq->gamma_now);
    }
    return n;
}

static void run_chunk(worker *w, size_t k, gsl_rng *r, sd_step *step)
{
    const sd_engine_config *cfg = w->sh->cfg;
    sd_rng_reseed(r, cfg->seed, k);
    recorder rec = { cfg->model, cfg->verifier, w->sh->acc_k, sd_model_context(cfg->model, 0), &w->stats, 0.0,
                     cfg->positions, w->sh->kids };
    sequence seq = { { { 0 }, 0, 0 }, 0, cfg->gamma };
    sd_model_start(cfg->model, &seq.prefix);
    sd_model_prime(cfg->model, &seq.prefix, r); /* a real prefix where the model has text (n-gram) */
    if (cfg->seq_tokens == 0) {
        /* Burn-in: the same iterations, counted nowhere, so that a chunk's
         * statistics start from a prefix state (e.g. a Markov regime) that has
         * forgotten the empty prompt. */
        recorder burn = rec;
        burn.s = &w->burn;
        burn.positions = 0;
        for (uint64_t t0 = w->burn.tokens; w->burn.tokens - t0 < SD_BURN_IN_TOKENS;)
            if (iterate(cfg, &burn, &seq, r, step) == 0) /* Algorithm 1 emits at least one token */
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
        size_t n = iterate(cfg, &rec, &seq, r, step);
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
    else if ((w->st = sd_step_init(&step, chain_max(w->sh->cfg), sd_model_vocab(w->sh->cfg->model), &w->err)) == SD_OK) {
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
        w->st = sd_step_init(&step, chain_max(w->sh->cfg), sd_model_vocab(w->sh->cfg->model), &w->err);
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

static const char *const POLICY_NAMES[] = { "fixed", "oracle", "threshold", "heuristic", NULL };
static const char *const CHILDREN_NAMES[] = { "top-k", "sampled", NULL, "top-k-unnormalised" };

const char *sd_engine_children_name(sd_children c) { return CHILDREN_NAMES[c == SD_CHILDREN_TOP_K_UNNORMALISED ? 3 : c]; }
const char *const *sd_engine_children_names(void) { return CHILDREN_NAMES; }

const char *sd_engine_policy_name(sd_policy p) { return POLICY_NAMES[p]; }
const char *const *sd_engine_policy_names(void) { return POLICY_NAMES; }

sd_engine_config sd_engine_defaults(void)
{
    return (sd_engine_config){ .policy = SD_POLICY_FIXED, .gamma = 5, .tokens = 1000000, .seed = SD_RNG_DEFAULT_SEED,
                               .threads = 1, .drafts = 1, .threshold = 0.5, .gamma_max = 32 };
}


size_t sd_engine_bytes(const sd_engine_config *cfg, size_t nv, size_t nc)
{
    size_t nt = cfg->threads < 1 ? 1 : cfg->threads > 256 ? 256 : cfg->threads;
    size_t g = cfg->policy == SD_POLICY_ORACLE ? SD_ORACLE_MAX : chain_max(cfg);
    /* per thread: the output counters (contexts x vocab, unless skipped; the burn-in's
     * set has none), positions x vocab, the N histograms and the heuristic's moves, plus
     * the step's block workspace; a shard that does not own chunk 0 keeps the pilot's too */
    size_t counts = sd_util_add_sat(cfg->skip_outputs ? 0 : sd_util_mul_sat(nc, nv),
                                    sd_util_mul_sat(cfg->positions, nv));
    size_t step = sd_util_add_sat(sd_util_mul_sat(SD_BLOCK_WORK(g, 1) + 2 * nv, sizeof(double)),
                                  sd_util_mul_sat(g + 1, 64));
    size_t moves = cfg->policy == SD_POLICY_HEURISTIC ? sd_util_mul_sat(4 * SD_MOVE_BINS, sd_util_add_sat(g, 1)) : 0;
    size_t words = sd_util_add_sat(sd_util_add_sat(counts, 6 * (g + 2)), moves);
    size_t per_thread = sd_util_add_sat(sd_util_mul_sat(words, sizeof(uint64_t)), step);
    size_t multi = sd_util_mul_sat(cfg->drafts > 1 ? nc + nv : nc, sizeof(double));
    return sd_util_add_sat(sd_util_mul_sat(cfg->nshards > 1 ? nt + 1 : nt, per_thread), multi);
}

static void workers_free(worker *ws, unsigned nt)
{
    for (unsigned t = 0; ws != NULL && t < nt; t++) {
        sd_engine_stats_free(&ws[t].stats);
        sd_engine_stats_free(&ws[t].burn);
    }
    free(ws);
}

/* The configuration's domain (engine.h); the messages name cfg's fields. */
static sd_status check_config(const sd_engine_config *cfg, sd_error *err)
{
    const sd_verifier *v = cfg->verifier;
    if (cfg->model == NULL || v == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: the engine needs a model and a verifier", cfg->model ? "verifier" : "model");
    if (cfg->policy == SD_POLICY_FIXED && cfg->gamma < 1)
        return sd_status_fail(err, SD_EINVAL, "gamma: the engine needs gamma >= 1");
    if (cfg->tokens < 1)
        return sd_status_fail(err, SD_EINVAL, "tokens: need at least 1 token");
    if (cfg->positions > SD_POSITIONS_MAX)
        return sd_status_fail(err, SD_EINVAL, "positions: at most %u positions can be histogrammed", SD_POSITIONS_MAX);
    if (cfg->policy == SD_POLICY_HEURISTIC && !(cfg->gamma_max >= cfg->gamma && cfg->gamma_max <= SD_ORACLE_MAX))
        return sd_status_fail(err, SD_EINVAL, "gamma_max: %zu is outside [gamma, %u]", cfg->gamma_max, SD_ORACLE_MAX);
    if (cfg->policy == SD_POLICY_THRESHOLD && !(cfg->threshold >= 0.0 && cfg->threshold <= 1.0))
        return sd_status_fail(err, SD_EINVAL, "threshold: %g is outside [0, 1]", cfg->threshold);
    if (cfg->drafts > 1 && (cfg->policy != SD_POLICY_FIXED || v != sd_verify_find("adjusted")))
        return sd_status_fail(err, SD_EINVAL, "drafts: several drafts per position work with the adjusted rule and the fixed policy");
    if (cfg->drafts > SD_DRAFTS_MAX)
        return sd_status_fail(err, SD_EINVAL, "drafts: %zu is outside [1, %u]", cfg->drafts, SD_DRAFTS_MAX);
    if (cfg->tree != NULL) {
        const sd_tree *t = cfg->tree;
        sd_status st = sd_tree_check(t, "tree", err);
        if (st != SD_OK)
            return st;
        if (cfg->policy != SD_POLICY_FIXED || v != sd_verify_find("adjusted") || cfg->drafts > 1)
            return sd_status_fail(err, SD_EINVAL,
                                  "tree: a tree is drafted under the fixed policy and the adjusted rule, one draft a "
                                  "node");
        if (t->n < 1 || t->n > SD_TREE_MAX_NODES)
            return sd_status_fail(err, SD_EINVAL, "tree: %zu nodes is outside [1, %d]", t->n, SD_TREE_MAX_NODES);
        if ((unsigned)cfg->children > SD_CHILDREN_TOP_K_UNNORMALISED)
            return sd_status_fail(err, SD_EINVAL, "children: %d is not a kind of children", (int)cfg->children);
        for (size_t i = 0; i < t->n; i++) {
            int p = t->parent[i];
            if (!(p >= -1 && p < (int)i) || t->depth[i] != (p < 0 ? 1 : t->depth[p] + 1) ||
                (i > 0 && (t->depth[i] < t->depth[i - 1] ||
                           (t->depth[i] == t->depth[i - 1] &&
                            !(p > t->parent[i - 1] || (p == t->parent[i - 1] && t->rank[i] > t->rank[i - 1]))))))
                return sd_status_fail(err, SD_EINVAL, "tree: node %zu breaks the breadth-first order of tree.h", i);
            if (cfg->children == SD_CHILDREN_SAMPLED &&
                t->rank[i] != (i > 0 && t->parent[i - 1] == p ? t->rank[i - 1] + 1 : 0))
                return sd_status_fail(err, SD_EINVAL,
                                      "tree: sampled children are drawn in turn, so the ranks under each node must be "
                                      "0, 1, ... (node %zu has rank %u)",
                                      i, (unsigned)t->rank[i]);
        }
    }
    if (cfg->nshards > 1 && !(cfg->shard >= 1 && cfg->shard <= cfg->nshards))
        return sd_status_fail(err, SD_EINVAL, "shard: %u is outside [1, %u]", cfg->shard, cfg->nshards);
    return SD_OK;
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

sd_status sd_engine_tree_theory(const sd_engine_config *cfg, const uint64_t *weights, sd_tree_accept *a,
                                double *tokens, sd_error *err)
{
    if (cfg->tree == NULL || cfg->model == NULL)
        return sd_status_fail(err, SD_EINVAL, "%s: the tree's theory needs a tree and a model",
                              cfg->tree == NULL ? "tree" : "model");
    sd_status st = sd_tree_check(cfg->tree, "tree", err);
    if (st != SD_OK)
        return st;
    const sd_model *m = cfg->model;
    size_t nv = sd_model_vocab(m), nc = sd_model_contexts(m), K = 1;
    for (size_t i = 0; i < cfg->tree->n; i++)
        if ((size_t)cfg->tree->rank[i] + 1 > K)
            K = (size_t)cfg->tree->rank[i] + 1;
    double *work = malloc(nv * sizeof *work), one[SD_TREE_MAX_RANK];
    if (work == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    double total = 0.0;
    for (size_t c = 0; c < nc; c++)
        total += weights ? (double)weights[c] : 1.0;
    if (!(total > 0.0)) {
        free(work);
        return sd_status_fail(err, SD_EINVAL, "weights: the contexts' weights sum to 0");
    }
    memset(a, 0, sizeof *a);
    a->depths = 1;
    a->ranks = K;
    for (size_t c = 0; c < nc; c++) {
        double w = (weights ? (double)weights[c] : 1.0) / total;
        if (!(w > 0.0))
            continue;
        const sd_context *ctx = sd_model_context(m, c);
        sd_dist_rank_acceptance(ctx->p, ctx->q, nv, K, cfg->children == SD_CHILDREN_SAMPLED, one, work);
        for (size_t k = 0; k < K; k++)
            a->p[0][k] += w * one[k];
    }
    free(work);
    double s = 0.0; /* the mean of rows that each sum to at most 1 may round past it */
    for (size_t k = 0; k < K; k++)
        s += a->p[0][k];
    for (size_t k = 0; k < K && s > 1.0; k++)
        a->p[0][k] /= s;
    *tokens = sd_tree_expected_tokens(cfg->tree, a);
    return SD_OK;
}

/* nt workers with their statistics, or SD_ENOMEM (then *out holds nothing). */
static sd_status workers_alloc(const sd_engine_config *cfg, shared_run *sh, unsigned nt, worker **out, sd_error *err)
{
    size_t max_gamma = cfg->policy == SD_POLICY_ORACLE ? SD_ORACLE_MAX : chain_max(cfg);
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
    size_t max_gamma = cfg->policy == SD_POLICY_ORACLE ? SD_ORACLE_MAX : chain_max(cfg);
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
    sd_status st = check_config(cfg, err);
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

uint64_t sd_engine_fingerprint(const sd_engine_config *cfg)
{
    uint64_t h = SD_UTIL_FNV_START;
    const sd_model *m = cfg->model;
    size_t nv = m ? sd_model_vocab(m) : 0, nc = m ? sd_model_contexts(m) : 0;
    const double num[] = { (double)nv, (double)nc, (double)cfg->policy, (double)cfg->gamma, (double)cfg->tokens,
                           (double)cfg->seed, (double)cfg->seq_tokens, (double)cfg->positions,
                           (double)(cfg->drafts > 1 ? cfg->drafts : 1), cfg->threshold, (double)cfg->gamma_max,
                           (double)(cfg->skip_outputs != 0) };
    h = sd_util_fnv(h, num, sizeof num);
    h = sd_util_fnv(h, &cfg->seed, sizeof cfg->seed); /* all 64 bits, not just the double's 53 */
    if (cfg->verifier != NULL)
        h = sd_util_fnv(h, cfg->verifier->name, strlen(cfg->verifier->name));
    if (cfg->tree != NULL) { /* the tree and its children; none hashes as before trees existed */
        const int kind = (int)cfg->children;
        h = sd_util_fnv(h, "tree", 4);
        h = sd_util_fnv(h, &kind, sizeof kind);
        h = sd_util_fnv(h, &cfg->tree->n, sizeof cfg->tree->n);
        h = sd_util_fnv(h, cfg->tree->parent, cfg->tree->n * sizeof *cfg->tree->parent);
        h = sd_util_fnv(h, cfg->tree->rank, cfg->tree->n);
    }
    for (size_t c = 0; m != NULL && c < nc; c++) { /* every context: a changed data file changes the digest */
        const sd_context *ctx = sd_model_context(m, c);
        for (size_t i = 0; i < nv; i++) {
            uint64_t a, b;
            memcpy(&a, &ctx->p[i], sizeof a);
            memcpy(&b, &ctx->q[i], sizeof b);
            h = sd_util_mix64(h ^ a) ^ b;
        }
    }
    return sd_util_mix64(h);
}

