/* engine.h -- Monte Carlo: the real speculative decoding loop on a model.
 *
 * The engine runs the seed's Algorithm 1 for about `tokens` emitted
 * tokens: gamma drafts from q autoregressively, the target's p at all
 * gamma + 1 positions from one (counted) target call, then the chosen
 * verification rule.  Work is cut into chunks of SD_CHUNK_ITERATIONS
 * iterations (a fixed count, so that tokens per iteration is unbiased);
 * chunk 0 runs first and its token count sets the number of chunks.  Chunk
 * k is a fresh sequence (or several, with seq_tokens) drawn from the random
 * stream (seed, k); a chunk-long sequence first runs SD_BURN_IN_TOKENS
 * tokens that no statistic counts, so that its state (the Markov regime)
 * is stationary when counting starts.  A sequence of an n-gram model
 * (ngram.h) starts from a real prefix: order - 1 corpus bytes at a
 * uniform position, one draw of the chunk's stream; other models start
 * from the empty prefix and draw nothing for it.  One seed gives bit-identical
 * statistics on any number of threads: counts are integers, and the one
 * real-valued sum is kept per chunk and added in chunk order.
 *
 * Policies (the draft length of each iteration):
 *   fixed      gamma drafts
 *   oracle     drafts until the first rejection (at most SD_ORACLE_MAX, then
 *              a bonus token): the ceiling 1/(1 - alpha) of the seed
 *   threshold  drafts while the draft's top probability max_x q(x) at the
 *              next position is at least `threshold`, at most gamma (0
 *              drafts is a plain decoding step)
 *   heuristic  starts at gamma; +2 after an iteration that accepted every
 *              draft, -1 (not below 1) otherwise, at most gamma_max
 *
 * With k > 1 drafts per position (the adjusted rule only) each position
 * gets k i.i.d. drafts from q, verified by recursive rejection (dist.h,
 * sd_dist_multi_acceptance); the accepted one continues the chain.  That
 * is a token tree with k^d drafts at depth d, drafted in one batched call
 * per depth and verified in one target call: draft_calls grows by gamma and
 * target_positions by 1 + k + ... + k^gamma per iteration.  Only the
 * accepted path is drawn (the others are never looked at).  Residuals
 * after the first are made on the fly: O(V) per rejected draft.
 */
#ifndef SPECDEC_ENGINE_H
#define SPECDEC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/status.h"
#include "specdec/synth.h"
#include "specdec/table.h"
#include "specdec/verify.h"

#define SD_CHUNK_ITERATIONS 2048u
#define SD_BURN_IN_TOKENS 256u /* generated and not counted at the start of each chunk's sequence */
#define SD_ORACLE_MAX 4096u
#define SD_POSITIONS_MAX 16u /* per-position histograms: positions 1..16 */
#define SD_MOVE_SPAN 3u      /* heuristic moves g -> g' are binned by g' - g in [-3, 3] ... */
#define SD_MOVE_BINS 8u      /* ... plus one bin for every larger move */

typedef enum { SD_POLICY_FIXED, SD_POLICY_ORACLE, SD_POLICY_THRESHOLD, SD_POLICY_HEURISTIC } sd_policy;

/* "fixed", "oracle", "threshold", "heuristic": the policy's name (static;
 * p must be an enum value, not checked). */
SD_API const char *sd_engine_policy_name(sd_policy p);
/* The names indexed by sd_policy, ending with NULL (static). */
SD_API const char *const *sd_engine_policy_names(void);

/* ---- one iteration: the seed's Algorithm 1, SpeculativeDecodingStep ------------ */

/* Workspace and result of one step with gamma drafts. */
typedef struct {
    size_t gamma;           /* drafts to make (the arrays hold at least gamma + 1) */
    double threshold;       /* > 0: stop drafting where the draft's top probability is below it */
    size_t drafted;         /* drafts made by the last run (gamma, or fewer under a threshold) */
    const sd_context **ctx; /* [gamma + 1]: the contexts at positions 1..gamma+1 */
    uint32_t *draft;        /* [gamma]: drafted ranks */
    sd_prefix *states;      /* [gamma + 1]: prefix states after 0..gamma drafts */
    double *work;           /* SD_BLOCK_WORK(gamma, vocab) doubles of scratch for block rules */
    size_t n;               /* drafts accepted */
    uint32_t last;          /* rank (in ctx[n]) of the resampled or bonus token */
} sd_step;

/* Sets up *w for up to gamma drafts over vocab tokens (at least the
 * model's vocabulary); the caller releases its arrays with sd_step_free.
 * SD_ENOMEM, the only failure; the arrays are then NULL. */
SD_API sd_status sd_step_init(sd_step *w, size_t gamma, size_t vocab, sd_error *err);
/* Frees w's arrays and sets them to NULL. */
SD_API void sd_step_free(sd_step *w);

/* One iteration from prefix: gamma drafts from M_q autoregressively (fewer
 * under a threshold: `drafted`), the target's p at all drafted + 1
 * positions, then rule v.  The emitted tokens are ctx[i]->token[draft[i]]
 * for i < n, then ctx[n]->token[last]; returns N = n + 1.  Under a
 * token-wise rule (not block) with no threshold, each draft is tested as it
 * is made and the drafts after the first rejection are not made: they
 * change no output, and `drafted` still counts gamma, as the system being
 * modelled drafts them; draft[i] and ctx[i] are then set for i <= n only,
 * and states[] at 0 and n only.  w comes from
 * sd_step_init with gamma and vocab at least those used here (w->gamma may
 * be lowered between runs); the contexts belong to m.  Never fails. */
SD_API size_t sd_step_run(const sd_model *m, const sd_verifier *v, sd_step *w, const sd_prefix *prefix, gsl_rng *r);

/* Shards and partial results (issue 14).  A run is split across processes
 * by its chunks: shard i of n (1 <= i <= n) runs the chunks k with
 * k mod n = i - 1.  Chunk 0 sizes the run, so every shard runs it, but only
 * shard 1 counts it in what it records; the statistics a sharded run
 * returns to its caller include chunk 0 anyway, so that a shard with no
 * chunk of its own still returns finite means (they are for nothing but
 * the caller's own bookkeeping: the shard's result is what `record`
 * received).  The hooks: */
typedef struct sd_engine_stats sd_engine_stats;
typedef struct {
    /* After a run: its statistics over the shard's own chunks, with
     * fingerprint (sd_engine_fingerprint) naming the run's configuration.
     * A failure fails the run. */
    sd_status (*record)(void *arg, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err);
    /* Instead of a run: when not NULL, sd_engine_run and sd_engine_sample
     * run nothing and take their statistics from here (merged shards); *out
     * then belongs to the caller as if the engine had filled it. */
    sd_status (*replay)(void *arg, uint64_t fingerprint, sd_engine_stats *out, sd_error *err);
    void *arg;
} sd_engine_io;

typedef struct {
    const sd_model *model;
    const sd_verifier *verifier;
    sd_policy policy;
    size_t gamma;        /* fixed policy: drafts per iteration, >= 1 */
    uint64_t tokens;     /* emit about this many (whole chunks), >= 1 */
    uint64_t seed;
    unsigned threads;    /* 1 .. 256 (0 counts as 1, more as 256) */
    size_t seq_tokens;   /* restart from the empty prefix after this many tokens; 0: once per chunk */
    size_t positions;    /* histogram the tokens at sequence positions 1..positions (<= SD_POSITIONS_MAX) */
    /* Called about every 0.1 s from the calling thread with the fraction
     * done, in [0, 1], and the seconds since the start; may be NULL. */
    void (*progress)(void *arg, double fraction, double seconds);
    void *progress_arg;
    size_t drafts;       /* k <= 64 drafts per position, recursive rejection (SpecInfer); 0 or 1: one */
    double threshold;    /* threshold policy: least top draft probability to keep drafting */
    size_t gamma_max;    /* heuristic policy: the largest draft length */
    int skip_outputs;    /* 1: no per-(context, rank) output counts (out_counts NULL): only the output
                          * tests (sd_engine_output_gof) need them, and they cost contexts x vocab
                          * counters per thread and a write per token */
    uint32_t shard, nshards; /* run shard `shard` of `nshards` (see above); nshards 0 or 1: the whole run */
    const sd_engine_io *io;  /* record or replay hooks; NULL: none */
} sd_engine_config;

struct sd_engine_stats {
    uint64_t iterations, tokens, sequences;
    uint64_t draft_calls, target_calls, target_positions;
    uint64_t verified, accepted; /* drafts that reached verification, and those accepted */
    size_t max_n;                /* the largest N: gamma + 1 */
    uint64_t *n_hist;            /* [max_n + 1]: iterations that emitted n tokens */
    size_t max_gamma;
    uint64_t *reached;           /* [max_gamma]: iterations whose draft i+1 was verified */
    uint64_t *accepted_at;       /* [max_gamma]: ... and accepted */
    double alpha_hat;            /* mean acceptance (beta, eq. 1) over the prefixes of emitted tokens, eq. (7) */
    size_t vocab, contexts, positions;
    uint64_t *ctx_tokens;        /* [contexts]: tokens emitted at each context */
    uint64_t *out_counts;        /* [contexts * vocab]: emitted ranks per context */
    uint64_t *pos_counts;        /* [positions * vocab]: tokens at sequence positions 1.. */
    double seconds;              /* wall time of the run, in seconds */
    /* The heuristic policy's draft-length moves; NULL for every other policy
     * (which allocates nothing for them).  For each iteration that drafted g
     * (0..max_gamma) and accepted all g drafts (full = 1) or not (full = 0),
     * after which the next iteration's draft length is g',
     *     moves[(full * (max_gamma + 1) + g) * SD_MOVE_BINS + b]
     * counts it, with b = g' - g + SD_MOVE_SPAN when |g' - g| <= SD_MOVE_SPAN
     * and b = SD_MOVE_BINS - 1 otherwise: 2 (max_gamma + 1) SD_MOVE_BINS
     * counters (binned rather than a (max_gamma + 1)^2 matrix, since
     * gamma_max may be 4096).  The +2/-1 rule allows exactly
     * g' = min(g + 2, gamma_max) after full acceptance and g' = max(g - 1, 1)
     * otherwise.  The last iteration of a chunk counts its move too; a
     * sequence restarted by seq_tokens starts again at gamma, which is not a
     * move.  Merged over threads like the other counts; freed by
     * sd_engine_stats_free. */
    uint64_t *moves;
    size_t nchunks;              /* the run's chunks (all shards together) */
    double *chunk_beta;          /* [nchunks]: each chunk's sum of beta over its emitted tokens (0 for
                                  * chunks another shard ran); alpha_hat = their sum in chunk order / tokens */
};

/* A 64-bit digest of what determines a run's statistics: the model (its
 * vocabulary, contexts and every context's p and q), the verifier, policy,
 * gamma, tokens, seed, seq_tokens, positions, drafts, threshold, gamma_max
 * and skip_outputs -- not threads, progress, shards or hooks.  Two
 * processes given the same options compute the same digest.  Never fails. */
SD_API uint64_t sd_engine_fingerprint(const sd_engine_config *cfg);

/* Adds the counts of `from` into `into` (same shape: max_gamma, vocab,
 * contexts, positions, moves and out_counts present or not, nchunks) and
 * its chunk_beta entries; then sets into->alpha_hat from the chunk sums in
 * chunk order, as sd_engine_run does -- so merging the shards of a run
 * gives the unsharded run's statistics bit for bit.  SD_EINVAL when the
 * shapes differ (into is then unchanged). */
SD_API sd_status sd_engine_stats_merge(sd_engine_stats *into, const sd_engine_stats *from, sd_error *err);

/* The defaults: fixed policy, gamma 5, 10^6 tokens, seed 20261129, one
 * thread, one draft per position, threshold 0.5, gamma_max 32; model and
 * verifier NULL (the caller sets them: adjusted is sd_verify_find("adjusted")).
 * Name what you change with designated initializers or assignments.
 * Never fails. */
SD_API sd_engine_config sd_engine_defaults(void);

/* Runs cfg (see above) into *out, which the caller releases with
 * sd_engine_stats_free.  At least one chunk runs, so more than `tokens`
 * tokens may be emitted.  SD_EINVAL names the field of cfg that is out of
 * its domain (model, verifier, gamma, tokens, positions, gamma_max,
 * threshold, drafts); SD_ENOMEM when the statistics or a worker cannot be
 * allocated; SD_EFAIL when no engine thread can be started or an
 * iteration emits no token (a broken rule).  On failure *out is untouched
 * (it holds nothing to free). */
SD_API sd_status sd_engine_run(const sd_engine_config *cfg, sd_engine_stats *out, sd_error *err);

/* The bytes sd_engine_run(cfg) allocates beyond the model when the model
 * has vocab tokens and contexts contexts (each thread's counters of
 * contexts x vocabulary, its workspace), before running and before the
 * model exists: for a caller's memory limit.  cfg->model is not read.
 * Saturates at SIZE_MAX; never fails. */
SD_API size_t sd_engine_bytes(const sd_engine_config *cfg, size_t vocab, size_t contexts);

/* ---- one position, many draws -------------------------------------------------- */

/* Speculative sampling at one position of a context-free model (the seed's
 * four-token example): `draws` times, x ~ q is accepted with probability
 * min(1, p(x)/q(x)) or replaced by the rule's resample -- or, with drafts
 * k > 1, recursive rejection over k drafts (adjusted only).  The draws come
 * in blocks of SD_SAMPLE_BLOCK, block b from random stream (seed, b) (so up
 * to SD_SAMPLE_BLOCK draws use stream (seed, 0) alone, as before blocks
 * existed); shard i of n draws the blocks b with b mod n = i - 1, and
 * records its counts (by rank, as out_counts of one context) through
 * io->record; io->replay supplies them instead. */
#define SD_SAMPLE_BLOCK 1048576u
typedef struct {
    const sd_model *model;       /* context 0 is used; built by sd_model_pair */
    const sd_verifier *verifier; /* token-wise and random: adjusted, target or deterministic-draft */
    size_t drafts;               /* k in [1, 64] */
    uint64_t draws;              /* >= 1 */
    uint64_t seed;
    uint32_t shard, nshards;     /* as in sd_engine_config */
    const sd_engine_io *io;      /* as in sd_engine_config */
} sd_sample_config;

/* Fills counts[0..V-1] with how often each token id was emitted and
 * expect[0..V-1] with the probability the rule gives it (verify.h), both
 * indexed by token id (not rank), V = sd_model_vocab(model); both are the
 * caller's.  O(V) set-up, O(log V) per draw.  model must be set (not
 * checked).  SD_EINVAL names the field out of domain (verifier, drafts,
 * draws); SD_ENOMEM.  On failure counts and expect are untouched. */
SD_API sd_status sd_engine_sample(const sd_sample_config *cfg, uint64_t *counts, double *expect, sd_error *err);
/* Frees the arrays of s (zeroed, or filled by sd_engine_run) and leaves it
 * zeroed. */
SD_API void sd_engine_stats_free(sd_engine_stats *s);

/* The policies side by side on base's model and verifier, each run emitting
 * about base->tokens tokens with base's seed and threads, draft lengths up
 * to base->gamma_max (issue: adaptive draft length):
 * a table with one row per policy -- fixed at the closed-form gamma* (eq.
 * 10 at the model's mean acceptance), the best fixed gamma of a measured
 * sweep 1..gamma_max, the +2/-1 heuristic, the threshold policy at each of
 * thresholds[0..nth-1] (nth = 0: the quartiles of the draft's top
 * probability over the bank), the oracle -- and the theoretical ceiling 1/(1 -
 * alpha).  Columns: policy, parameter, tokens_per_iteration,
 * tokens_per_iteration_se, drafts_per_iteration, improvement (measured:
 * tokens / (target calls + c draft calls)).  Cost: gamma_max + nth + 2
 * engine runs (nth = 3 when 0).  base->model and base->verifier must be set
 * (not checked); cost c = T_Mq / T_Mp in [0, inf); gamma_max in
 * [2, SD_ORACLE_MAX]; thresholds in [0, 1] (NULL allowed when nth = 0).
 * *out is a new table the caller frees with sd_table_free.  SD_EINVAL
 * (cost, or a field the engine rejects), SD_ENOMEM, SD_EFAIL (a GSL
 * routine, an engine thread, or a NaN cell); on failure *out is NULL. */
SD_API sd_status sd_engine_policies(const sd_engine_config *base, double cost, const double *thresholds, size_t nth,
                                   sd_table **out, sd_error *err);

/* Mean tokens per iteration and its standard error (from the N histogram)
 * of s from sd_engine_run.  Never fail: the mean is NaN without
 * iterations, the standard error +inf with fewer than 2. */
SD_API double sd_engine_mean_n(const sd_engine_stats *s);
SD_API double sd_engine_mean_n_se(const sd_engine_stats *s);

/* Goodness of fit of the emitted tokens to what a lossless rule must emit
 * (verify.h), given the contexts they were emitted at.  Pearson's statistic
 * over (context, rank) cells, cells expecting fewer than 5 pooled per
 * context; under losslessness it is chi-square with dof degrees.  tv is the
 * total variation between the pooled emitted and expected token frequencies.
 * pvalue is 0 for an infinite statistic (a token p forbids was emitted) and
 * 1 when dof = 0. */
typedef struct {
    double statistic, dof, pvalue, tv;
} sd_gof;

/* The fit of s, from sd_engine_run on model m (vocab and contexts must
 * match; not checked), against what rule v must emit, into *out.  tv is NaN
 * when s emitted no tokens.  SD_ENOMEM, the only failure; *out is then
 * untouched. */
SD_API sd_status sd_engine_output_gof(const sd_model *m, const sd_verifier *v, const sd_engine_stats *s,
                               sd_gof *out, sd_error *err);

#endif
