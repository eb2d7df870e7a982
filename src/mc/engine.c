/* engine.c -- the Monte Carlo engine (see engine.h).
 *
 * Cost per emitted token: O(k) hashing for the context lookup and O(log V)
 * CDF searches that mostly stay in cache; nothing is O(V) after the bank
 * is built.  Threads take chunks from a shared counter and keep their own
 * integer counts, merged at the end (integer sums commute); the per-chunk
 * beta sums are added in chunk order.
 */
#include "specdec/engine.h"
#include "internal.h"
#include "common/util.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "specdec/rng.h"
#include "specdec/theory.h"

void sd_engine_stats_free(sd_engine_stats *s)
{
    free(s->n_hist);
    free(s->reached);
    free(s->accepted_at);
    free(s->ctx_tokens);
    free(s->out_counts);
    free(s->pos_counts);
    free(s->moves);
    free(s->chunk_beta);
    memset(s, 0, sizeof *s);
}

/* n zeroed counters on cache lines of their own: the threads' counters are
 * written on every token and must not share a line (false sharing). */
static uint64_t *counters(size_t n)
{
    size_t bytes = (n * sizeof(uint64_t) + 63) / 64 * 64;
    uint64_t *c = aligned_alloc(64, bytes ? bytes : 64);
    if (c != NULL)
        memset(c, 0, bytes ? bytes : 64);
    return c;
}

/* The counters of a run; the heuristic's moves only when moves is 1, the
 * output counts only when outputs is 1. */
static sd_status stats_alloc(sd_engine_stats *s, size_t max_gamma, size_t vocab, size_t contexts,
                             size_t positions, int moves, int outputs, sd_error *err)
{
    memset(s, 0, sizeof *s);
    s->max_gamma = max_gamma;
    s->max_n = max_gamma + 1;
    s->vocab = vocab;
    s->contexts = contexts;
    s->positions = positions;
    s->n_hist = counters(s->max_n + 1);
    s->reached = counters(max_gamma);
    s->accepted_at = counters(max_gamma);
    s->ctx_tokens = counters(contexts);
    s->out_counts = outputs ? counters(contexts * vocab) : NULL;
    s->pos_counts = counters(positions * vocab);
    s->moves = moves ? counters(2 * (max_gamma + 1) * SD_MOVE_BINS) : NULL;
    if (!s->n_hist || !s->reached || !s->accepted_at || !s->ctx_tokens || (outputs && !s->out_counts) ||
        !s->pos_counts || (moves && !s->moves)) {
        sd_engine_stats_free(s);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for the engine's counts (%zu contexts x %zu tokens)",
                              contexts, vocab);
    }
    return SD_OK;
}

static void stats_merge(sd_engine_stats *into, const sd_engine_stats *from)
{
    into->iterations += from->iterations;
    into->tokens += from->tokens;
    into->sequences += from->sequences;
    into->draft_calls += from->draft_calls;
    into->target_calls += from->target_calls;
    into->target_positions += from->target_positions;
    into->verified += from->verified;
    into->accepted += from->accepted;
    for (size_t i = 0; i <= into->max_n; i++)
        into->n_hist[i] += from->n_hist[i];
    for (size_t i = 0; i < into->max_gamma; i++) {
        into->reached[i] += from->reached[i];
        into->accepted_at[i] += from->accepted_at[i];
    }
    for (size_t i = 0; i < into->contexts; i++)
        into->ctx_tokens[i] += from->ctx_tokens[i];
    for (size_t i = 0; into->out_counts != NULL && i < into->contexts * into->vocab; i++)
        into->out_counts[i] += from->out_counts[i];
    for (size_t i = 0; i < into->positions * into->vocab; i++)
        into->pos_counts[i] += from->pos_counts[i];
    for (size_t i = 0; into->moves != NULL && i < 2 * (into->max_gamma + 1) * SD_MOVE_BINS; i++)
        into->moves[i] += from->moves[i];
}

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

sd_status sd_step_init(sd_step *w, size_t gamma, size_t vocab, sd_error *err)
{
    w->gamma = gamma;
    w->ctx = malloc((gamma + 1) * sizeof *w->ctx);
    w->draft = malloc((gamma + 1) * sizeof *w->draft);
    w->states = malloc((gamma + 1) * sizeof *w->states);
    w->work = malloc(SD_BLOCK_WORK(gamma, vocab) * sizeof *w->work);
    w->threshold = 0.0;
    w->drafted = 0;
    w->n = 0;
    w->last = 0;
    if (w->ctx == NULL || w->draft == NULL || w->states == NULL || w->work == NULL) {
        sd_step_free(w);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for a %zu-draft step", gamma);
    }
    return SD_OK;
}

void sd_step_free(sd_step *w)
{
    free(w->ctx);
    free(w->draft);
    free(w->states);
    free(w->work);
    w->work = NULL;
    w->ctx = NULL;
    w->draft = NULL;
    w->states = NULL;
}

/* sd_step_run under a token-wise rule with no threshold: each draft is
 * tested as it is made, and drafting stops at the first rejection -- the
 * drafts after it change no output (Algorithm 1 discards them).  One running
 * prefix state; states[n] receives it. */
static size_t step_tokenwise(const sd_model *m, const sd_verifier *v, sd_step *w, gsl_rng *r)
{
    size_t g = w->gamma;
    sd_prefix s = w->states[0];
    const sd_context *c = w->ctx[0];
    w->drafted = g;
    for (size_t i = 0; i < g; i++) {
        uint32_t x = w->draft[i] = sd_rule_draft(v, c, r);
        if (!v->accept(c, x, r)) {
            w->n = i;
            w->last = v->resample(c, r);
            w->states[i] = s;
            return i + 1;
        }
        sd_model_advance_inline(m, &s, c->token[x]);
        c = w->ctx[i + 1] = sd_model_lookup_inline(m, &s);
    }
    w->n = g; /* every draft accepted: the bonus token from p_{gamma+1} */
    w->last = v->bonus(c, r);
    w->states[g] = s;
    return g + 1;
}

size_t sd_step_run(const sd_model *m, const sd_verifier *v, sd_step *w, const sd_prefix *prefix, gsl_rng *r)
{
    size_t g = w->gamma;
    w->states[0] = *prefix;
    w->ctx[0] = sd_model_lookup_inline(m, &w->states[0]);
    /* a threshold must see every draft's context to know how many drafts were made,
     * and a block rule reads all of them: the whole chain is drafted first */
    if (v->block == NULL && !(w->threshold > 0.0))
        return step_tokenwise(m, v, w, r);
    for (size_t i = 0; i < g; i++) { /* drafting: gamma calls of M_q */
        if (w->threshold > 0.0 && w->ctx[i]->q[w->ctx[i]->argmax_q] < w->threshold) {
            g = i; /* the draft is unsure here: stop drafting */
            break;
        }
        w->draft[i] = sd_rule_draft(v, w->ctx[i], r);
        w->states[i + 1] = w->states[i];
        sd_model_advance_inline(m, &w->states[i + 1], w->ctx[i]->token[w->draft[i]]);
        w->ctx[i + 1] = sd_model_lookup_inline(m, &w->states[i + 1]);
    }
    /* one call of M_p at gamma + 1 positions: ctx[0..gamma] hold p_1..p_{gamma+1} */
    w->drafted = g;
    sd_block b = { g, w->ctx, w->draft, w->work };
    w->n = sd_verify_block(v, &b, r, &w->last);
    return w->n + 1;
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
        uint32_t x = sd_rule_draft(cfg->verifier, c, r);
        s->draft_calls++;
        s->verified++;
        s->reached[n]++;
        if (!cfg->verifier->accept(c, x, r)) {
            emit(rec, seq, c, cfg->verifier->resample(c, r));
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

/* The longest chain a policy drafts. */
static size_t chain_max(const sd_engine_config *cfg)
{
    return cfg->policy == SD_POLICY_HEURISTIC && cfg->gamma_max > cfg->gamma ? cfg->gamma_max : cfg->gamma;
}

/* Counts the heuristic's move from draft length g, after an iteration that
 * accepted every draft (full) or not, to next (engine.h: moves). */
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
                     cfg->positions };
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

const char *sd_engine_policy_name(sd_policy p) { return POLICY_NAMES[p]; }
const char *const *sd_engine_policy_names(void) { return POLICY_NAMES; }

sd_engine_config sd_engine_defaults(void)
{
    return (sd_engine_config){ .policy = SD_POLICY_FIXED, .gamma = 5, .tokens = 1000000, .seed = 20261129,
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
    if (cfg->drafts > 64)
        return sd_status_fail(err, SD_EINVAL, "drafts: %zu is outside [1, 64]", cfg->drafts);
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
        if ((st = stats_alloc(&ws[t].stats, max_gamma, nv, nc, cfg->positions, moves, !cfg->skip_outputs, err)) ==
            SD_OK) /* the burn-in is counted nowhere: no output counts */
            st = stats_alloc(&ws[t].burn, max_gamma, nv, nc, 0, moves, 0, err);
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
    return stats_alloc(&w0->stats, p->max_gamma, p->vocab, p->contexts, p->positions, p->moves != NULL,
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
    for (size_t i = 0; ok && i <= s.max_n; i++)
        n += s.n_hist[i] * (uint64_t)i, it += s.n_hist[i];
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

/* alpha_hat: the chunks' beta sums in chunk order over the tokens. */
void sd_engine_finish_alpha(sd_engine_stats *s)
{
    double beta = 0.0;
    for (size_t k = 0; k < s->nchunks; k++)
        beta += s->chunk_beta[k];
    /* a mean of beta in [0, 1], rounding aside; 0 without tokens (an empty shard) */
    s->alpha_hat = s->tokens ? fmin(1.0, fmax(0.0, beta / (double)s->tokens)) : 0.0;
}

/* The workers' counts merged in thread order into *out, with the chunk sums. */
static void collect(worker *ws, unsigned nt, shared_run *sh, sd_engine_stats *out)
{
    *out = ws[0].stats;
    ws[0].stats = (sd_engine_stats){ 0 };
    for (unsigned t = 1; t < nt; t++)
        stats_merge(out, &ws[t].stats);
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
    if ((st = workers_alloc(cfg, &sh, nt, &ws, err)) == SD_OK &&
        (st = plan_chunks(cfg, &sh, &ws[0], &pilot, err)) == SD_OK)
        st = run_workers(cfg, &sh, ws, nt, t0, err);
    sd_engine_stats got = { 0 };
    if (st == SD_OK) {
        collect(ws, nt, &sh, &got);
        double pilot_beta = got.chunk_beta[0];
        if (sh.shard != 0) /* another shard counts chunk 0 */
            got.chunk_beta[0] = 0.0;
        sd_engine_finish_alpha(&got);
        if (cfg->io != NULL && cfg->io->record != NULL)
            st = cfg->io->record(cfg->io->arg, sd_engine_fingerprint(cfg), &got, err);
        if (sh.shard != 0) { /* the caller's copy counts the pilot too: finite means on every shard */
            stats_merge(&got, &pilot);
            got.chunk_beta[0] = pilot_beta;
            sd_engine_finish_alpha(&got);
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
    return st;
}

sd_status sd_engine_stats_merge(sd_engine_stats *into, const sd_engine_stats *from, sd_error *err)
{
    if (into->max_gamma != from->max_gamma || into->vocab != from->vocab || into->contexts != from->contexts ||
        into->positions != from->positions || (into->moves == NULL) != (from->moves == NULL) ||
        (into->out_counts == NULL) != (from->out_counts == NULL) || into->nchunks != from->nchunks)
        return sd_status_fail(err, SD_EINVAL, "the statistics differ in shape (gamma, vocabulary, contexts, positions, "
                              "counters or chunks): not parts of one run");
    stats_merge(into, from);
    for (size_t k = 0; k < into->nchunks; k++)
        into->chunk_beta[k] += from->chunk_beta[k];
    sd_engine_finish_alpha(into);
    return SD_OK;
}

/* FNV-1a over bytes, continuing from h. */
static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
    const unsigned char *b = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211u;
    return h;
}

uint64_t sd_engine_fingerprint(const sd_engine_config *cfg)
{
    uint64_t h = 14695981039346656037u;
    const sd_model *m = cfg->model;
    size_t nv = m ? sd_model_vocab(m) : 0, nc = m ? sd_model_contexts(m) : 0;
    const double num[] = { (double)nv, (double)nc, (double)cfg->policy, (double)cfg->gamma, (double)cfg->tokens,
                           (double)cfg->seed, (double)cfg->seq_tokens, (double)cfg->positions,
                           (double)(cfg->drafts > 1 ? cfg->drafts : 1), cfg->threshold, (double)cfg->gamma_max,
                           (double)(cfg->skip_outputs != 0) };
    h = fnv(h, num, sizeof num);
    h = fnv(h, &cfg->seed, sizeof cfg->seed); /* all 64 bits, not just the double's 53 */
    if (cfg->verifier != NULL)
        h = fnv(h, cfg->verifier->name, strlen(cfg->verifier->name));
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

double sd_engine_mean_n(const sd_engine_stats *s)
{
    return (double)s->tokens / (double)s->iterations;
}

double sd_engine_mean_n_se(const sd_engine_stats *s)
{
    double mean = sd_engine_mean_n(s), ss = 0.0;
    for (size_t n = 1; n <= s->max_n; n++)
        ss += (double)s->n_hist[n] * ((double)n - mean) * ((double)n - mean);
    double it = (double)s->iterations;
    return it > 1 ? sqrt(ss / (it - 1) / it) : INFINITY;
}

/* ---- goodness of fit ------------------------------------------------------- */

enum { MIN_EXPECTED = 5 };

void sd_chisq_add(const uint64_t *obs, const double *prob, size_t n, double *stat, double *dof)
{
    double total = 0.0;
    for (size_t i = 0; i < n; i++)
        total += (double)obs[i];
    if (total <= 0.0)
        return;
    double o_rest = 0.0, e_rest = 0.0, o_last = 0.0, e_last = 0.0;
    int cells = 0, have_last = 0;
    for (size_t i = 0; i < n; i++) {
        double e = prob[i] * total, o = (double)obs[i];
        if (e >= MIN_EXPECTED) {
            if (have_last) /* the previous big cell is final: add it */
                *stat += (o_last - e_last) * (o_last - e_last) / e_last;
            o_last = o, e_last = e, have_last = 1;
            cells++;
        } else if (e > 0.0) {
            o_rest += o, e_rest += e;
        } else if (o > 0.0) {
            *stat = INFINITY; /* an impossible token was emitted */
        }
    }
    if (e_rest >= MIN_EXPECTED || (!have_last && e_rest > 0.0)) {
        *stat += (o_rest - e_rest) * (o_rest - e_rest) / e_rest;
        cells++;
    } else if (have_last) { /* a thin remainder joins the smallest big cell seen last */
        o_last += o_rest, e_last += e_rest;
    }
    if (have_last)
        *stat += (o_last - e_last) * (o_last - e_last) / e_last;
    *dof += cells > 0 ? cells - 1 : 0;
}

sd_status sd_engine_output_gof(const sd_model *m, const sd_verifier *v, const sd_engine_stats *s,
                               sd_gof *out, sd_error *err)
{
    size_t nv = s->vocab;
    double *prob = malloc(nv * sizeof *prob), *emp = calloc(nv, sizeof *emp), *exp_ = calloc(nv, sizeof *exp_);
    if (prob == NULL || emp == NULL || exp_ == NULL) {
        free(prob), free(emp), free(exp_);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for the output test");
    }
    double stat = 0.0, dof = 0.0;
    for (size_t c = 0; c < s->contexts; c++) {
        if (s->ctx_tokens[c] == 0)
            continue;
        const sd_context *ctx = sd_model_context(m, c);
        v->lossless(ctx, nv, prob);
        const uint64_t *obs = s->out_counts + c * nv;
        sd_chisq_add(obs, prob, nv, &stat, &dof);
        for (size_t r = 0; r < nv; r++) {
            emp[ctx->token[r]] += (double)obs[r];
            exp_[ctx->token[r]] += prob[r] * (double)s->ctx_tokens[c];
        }
    }
    double tv = 0.0;
    for (size_t t = 0; t < nv; t++)
        tv += fabs(emp[t] - exp_[t]);
    out->tv = 0.5 * tv / (double)s->tokens;
    out->statistic = stat;
    out->dof = dof;
    out->pvalue = isinf(stat) ? 0.0 : dof > 0 ? gsl_cdf_chisq_Q(stat, dof) : 1.0;
    free(prob), free(emp), free(exp_);
    return SD_OK;
}

/* ---- policies side by side ------------------------------------------------------ */

static sd_status policy_row(sd_table *t, const char *name, double param, const sd_engine_stats *s, double cost,
                            sd_error *err)
{
    double calls = (double)s->target_calls + cost * (double)s->draft_calls;
    const sd_cell row[] = { sd_text(name), sd_real(param), sd_real(sd_engine_mean_n(s)), sd_real(sd_engine_mean_n_se(s)),
                            sd_real((double)s->draft_calls / (double)s->iterations), sd_real((double)s->tokens / calls) };
    return sd_table_add(t, row, err);
}

/* The quartiles of the draft's top probability max_x q(x) over m's bank. */
static sd_status top_quartiles(const sd_model *m, double *q3, sd_error *err)
{
    size_t nc = sd_model_contexts(m);
    double *top = malloc(nc * sizeof *top);
    if (top == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t c = 0; c < nc; c++)
        top[c] = sd_model_context(m, c)->q[sd_model_context(m, c)->argmax_q];
    gsl_sort(top, 1, nc);
    for (int i = 0; i < 3; i++)
        q3[i] = gsl_stats_quantile_from_sorted_data(top, 1, nc, 0.25 * (i + 1));
    free(top);
    return SD_OK;
}

sd_status sd_engine_policies(const sd_engine_config *base, double cost, const double *thresholds, size_t nth,
                             sd_table **out, sd_error *err)
{
    const sd_model *m = base->model;
    const sd_verifier *v = base->verifier;
    size_t gamma_max = base->gamma_max;
    *out = NULL;
    static const char *const cols[] = { "policy", "parameter", "tokens_per_iteration", "tokens_per_iteration_se",
                                        "drafts_per_iteration", "improvement" };
    double alpha = sd_verify_mean_acceptance(v, m);
    sd_optimum o;
    sd_status st = sd_theory_optimal(alpha, cost, &o, err);
    if (st != SD_OK)
        return st;
    sd_table *t = sd_table_alloc(6, cols);
    if (t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_engine_config ec = *base;
    ec.skip_outputs = 1; /* no output test here: no contexts x vocab counters */
    ec.policy = SD_POLICY_FIXED, ec.drafts = 1, ec.seq_tokens = 0, ec.positions = 0;
    sd_engine_stats s, best = { 0 };
    double best_f = -1.0;
    size_t best_g = 1;
    size_t g_star = o.gamma_opt < 1 ? 1 : o.gamma_opt <= (double)gamma_max ? (size_t)o.gamma_opt : gamma_max;
    for (size_t g = 1; g <= gamma_max && st == SD_OK; g++) { /* the measured sweep; gamma* is one of its runs */
        ec.gamma = g;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        double f = (double)s.tokens / ((double)s.target_calls + cost * (double)s.draft_calls);
        if (g == g_star)
            st = policy_row(t, o.gamma_opt < 1                   ? "fixed (eq. 10 says: do not speculate; gamma 1)"
                               : o.gamma_opt > (double)gamma_max ? "fixed at the closed-form gamma*, capped at gamma_max"
                                                                 : "fixed at the closed-form gamma*",
                            (double)g, &s, cost, err);
        if (f > best_f) {
            sd_engine_stats_free(&best);
            best = s, best_f = f, best_g = g;
        } else {
            sd_engine_stats_free(&s);
        }
    }
    if (st == SD_OK)
        st = policy_row(t, "fixed, best of the measured sweep", (double)best_g, &best, cost, err);
    sd_engine_stats_free(&best);
    ec.gamma = 2;
    ec.policy = SD_POLICY_HEURISTIC;
    if (st == SD_OK && (st = sd_engine_run(&ec, &s, err)) == SD_OK) {
        st = policy_row(t, "heuristic +2/-1 (start 2, parameter: the cap)", (double)gamma_max, &s, cost, err);
        sd_engine_stats_free(&s);
    }
    ec.gamma = gamma_max;
    ec.policy = SD_POLICY_THRESHOLD;
    double auto_th[3];
    if (nth == 0) { /* the quartiles of the draft's top probability over the bank */
        if (st == SD_OK && (st = top_quartiles(m, auto_th, err)) != SD_OK) {
            sd_table_free(t);
            return st;
        }
        thresholds = auto_th;
        nth = 3;
    }
    for (size_t i = 0; i < nth && st == SD_OK; i++) {
        ec.threshold = thresholds[i];
        if ((st = sd_engine_run(&ec, &s, err)) == SD_OK) {
            st = policy_row(t, "threshold on the draft's top probability", thresholds[i], &s, cost, err);
            sd_engine_stats_free(&s);
        }
    }
    ec.policy = SD_POLICY_ORACLE;
    if (st == SD_OK && (st = sd_engine_run(&ec, &s, err)) == SD_OK) {
        st = policy_row(t, "oracle: draft until the first rejection (parameter: its cap)", SD_ORACLE_MAX, &s, cost, err);
        sd_engine_stats_free(&s);
    }
    if (st == SD_OK) {
        double ceil_ = sd_theory_ceiling(alpha);
        const sd_cell row[] = { sd_text("ceiling 1/(1 - alpha), theory (c = 0)"), sd_real(alpha), sd_real(ceil_),
                                sd_real(0.0), sd_real(INFINITY), sd_real(ceil_) };
        st = sd_table_add(t, row, err);
    }
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    *out = t;
    return SD_OK;
}

/* ---- one position, many draws (the sample command) ------------------------------- */

/* What determines a sample's counts (engine.h: sd_engine_fingerprint). */
static uint64_t sample_fingerprint(const sd_sample_config *cfg)
{
    sd_engine_config ec = { .model = cfg->model, .verifier = cfg->verifier, .tokens = cfg->draws, .seed = cfg->seed,
                            .drafts = cfg->drafts, .gamma = 1 };
    return sd_engine_fingerprint(&ec) ^ 0x73616d706c65u; /* "sample": never a run's digest by accident */
}

sd_status sd_engine_sample(const sd_sample_config *cfg, uint64_t *counts, double *expect, sd_error *err)
{
    const sd_verifier *v = cfg->verifier;
    if (v == NULL || v == sd_verify_find("greedy") || v->block != NULL)
        return sd_status_fail(err, SD_EINVAL, "verifier: one position takes a token-wise random rule (adjusted, target or "
                              "deterministic-draft)");
    if (cfg->drafts < 1 || cfg->drafts > 64)
        return sd_status_fail(err, SD_EINVAL, "drafts: %zu is outside [1, 64]", cfg->drafts);
    if (cfg->drafts > 1 && v != sd_verify_find("adjusted"))
        return sd_status_fail(err, SD_EINVAL, "drafts: several drafts need the adjusted rule");
    if (cfg->draws < 1)
        return sd_status_fail(err, SD_EINVAL, "draws: need at least 1 draw");
    if (cfg->nshards > 1 && !(cfg->shard >= 1 && cfg->shard <= cfg->nshards))
        return sd_status_fail(err, SD_EINVAL, "shard: %u is outside [1, %u]", cfg->shard, cfg->nshards);
    const sd_context *c = sd_model_context(cfg->model, 0);
    size_t n = sd_model_vocab(cfg->model);
    sd_engine_stats rec = { 0 };
    uint64_t fingerprint = sample_fingerprint(cfg);
    sd_status st = SD_OK;
    double *work = malloc((2 * n + 1) * sizeof *work);
    gsl_rng *r = gsl_rng_alloc(sd_rng_type());
    size_t nblocks = (size_t)((cfg->draws - 1) / SD_SAMPLE_BLOCK + 1);
    if (work == NULL || r == NULL || stats_alloc(&rec, 0, n, 1, 0, 0, 1, NULL) != SD_OK ||
        (rec.chunk_beta = calloc(nblocks, sizeof *rec.chunk_beta)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory for a vocabulary of %zu", n);
    else if (cfg->io != NULL && cfg->io->replay != NULL) {
        sd_engine_stats_free(&rec);
        if ((st = cfg->io->replay(cfg->io->arg, fingerprint, &rec, err)) == SD_OK &&
            (rec.vocab != n || rec.contexts != 1 || rec.out_counts == NULL))
            st = sd_status_fail(err, SD_EINVAL, "replay: the statistics do not fit a vocabulary of %zu", n);
    } else {
        rec.nchunks = nblocks;
        uint64_t *by_rank = rec.out_counts;
        size_t shard = cfg->nshards > 1 ? cfg->shard - 1 : 0, step = cfg->nshards > 1 ? cfg->nshards : 1;
        for (size_t b = shard; b < nblocks; b += step) { /* block b: its own stream, (seed, b) */
            sd_rng_reseed(r, cfg->seed, b);
            uint64_t end = b + 1 == nblocks ? cfg->draws : (uint64_t)(b + 1) * SD_SAMPLE_BLOCK;
            for (uint64_t d = (uint64_t)b * SD_SAMPLE_BLOCK; d < end; d++) {
                rec.tokens++;
                if (cfg->drafts > 1) { /* k drafts, recursive rejection */
                    int accepted;
                    by_rank[sd_verify_multi(c, cfg->drafts, r, work, &accepted)]++;
                    continue;
                }
                uint32_t x = sd_rule_draft(v, c, r);
                by_rank[v->accept(c, x, r) ? x : v->resample(c, r)]++;
            }
        }
        rec.iterations = rec.tokens;
        if (cfg->io != NULL && cfg->io->record != NULL)
            st = cfg->io->record(cfg->io->arg, fingerprint, &rec, err);
    }
    if (st != SD_OK) {
        sd_engine_stats_free(&rec), free(work), gsl_rng_free(r);
        return st;
    }
    uint64_t *by_rank = rec.out_counts;
    v->output(c, n, work);
    for (size_t rank = 0; rank < n; rank++) { /* rank space back to token ids: O(V) */
        counts[c->token[rank]] = by_rank[rank];
        expect[c->token[rank]] = work[rank];
    }
    sd_engine_stats_free(&rec), free(work), gsl_rng_free(r);
    return SD_OK;
}
