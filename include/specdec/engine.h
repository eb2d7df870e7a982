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
 *
 * With a tree (tree.h; the fixed policy, the adjusted rule, one draft per position) every
 * iteration drafts that tree and the target verifies it from the root down: below the
 * last accepted node its children are tried in rank order; on an acceptance the walk
 * descends, and where no child is accepted, or at a leaf, one token is emitted from the
 * residual or the bonus distribution.  The children (sd_children):
 *   top-k    q's k-th most likely token is the child of rank k, accepted with the
 *            residual's probability r(x) / r(all); a rejection zeroes r at x (doc/trees.md);
 *   sampled  the children are i.i.d. draws from q in rank order (ranks 0 .. m-1 under each
 *            node), SpecInfer's recursive rejection r <- norm(max(r - q, 0));
 *   top-k-unnormalised  top-k that accepts with r(x), not r(x) / r(all): a broken rule,
 *            kept as validate's negative control (its output is not p).
 * draft_calls grows by the tree's depth (a batched draft pass a level), target_positions by
 * 1 + its nodes; reached[d] and accepted_at[d] count the walks that tested depth d + 1 and
 * descended from it.  Only the nodes the walk visits are drafted.  O(V (1 + k)) a visited
 * node, k its largest child rank.
 */
#ifndef SPECDEC_ENGINE_H
#define SPECDEC_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/engine_stats.h"
#include "specdec/model.h"
#include "specdec/status.h"
#include "specdec/tree.h"
#include "specdec/verify.h"

#define SD_CHUNK_ITERATIONS 2048u
#define SD_BURN_IN_TOKENS 256u /* generated and not counted at the start of each chunk's sequence */
#define SD_ORACLE_MAX 4096u
#define SD_POSITIONS_MAX 16u /* per-position histograms: positions 1..16 */
#define SD_DRAFTS_MAX 64u    /* drafts per position (recursive rejection): 1..64 */

typedef enum { SD_POLICY_FIXED, SD_POLICY_ORACLE, SD_POLICY_THRESHOLD, SD_POLICY_HEURISTIC } sd_policy;

/* A tree's children (see above). */
typedef enum { SD_CHILDREN_TOP_K, SD_CHILDREN_SAMPLED, SD_CHILDREN_TOP_K_UNNORMALISED } sd_children;

/* "top-k", "sampled", "top-k-unnormalised" (static; c must be an enum value, not checked). */
SD_API const char *sd_engine_children_name(sd_children c);
/* The names a user may choose, "top-k" and "sampled", ending with NULL (static). */
SD_API const char *const *sd_engine_children_names(void);

/* "fixed", "oracle", "threshold", "heuristic": the policy's name (static;
 * p must be an enum value, not checked). */
SD_API const char *sd_engine_policy_name(sd_policy p);
/* The names indexed by sd_policy, ending with NULL (static). */
SD_API const char *const *sd_engine_policy_names(void);

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
    size_t drafts;       /* k <= SD_DRAFTS_MAX drafts per position, recursive rejection (SpecInfer); 0 or 1: one */
    double threshold;    /* threshold policy: least top draft probability to keep drafting */
    size_t gamma_max;    /* heuristic policy: the largest draft length */
    int skip_outputs;    /* 1: no per-(context, rank) output counts (out_counts NULL): only the output
                          * tests (sd_gof_output, gof.h) need them, and they cost contexts x vocab
                          * counters per thread and a write per token */
    uint32_t shard, nshards; /* run shard `shard` of `nshards` (engine_stats.h: shards); nshards 0 or 1:
                              * the whole run */
    const sd_engine_io *io;  /* record or replay hooks; NULL: none */
    const sd_tree *tree;     /* NULL: chains; else every iteration drafts this tree (1 node at least) */
    sd_children children;    /* the tree's children */
} sd_engine_config;

/* A 64-bit digest of what determines a run's statistics: the model (its
 * vocabulary, contexts and every context's p and q), the verifier, policy,
 * gamma, tokens, seed, seq_tokens, positions, drafts, threshold, gamma_max
 * and skip_outputs -- not threads, progress, shards or hooks.  Two
 * processes given the same options compute the same digest.  Never fails. */
SD_API uint64_t sd_engine_fingerprint(const sd_engine_config *cfg);

/* The defaults: fixed policy, gamma 5, 10^6 tokens, seed SD_RNG_DEFAULT_SEED (rng.h), one
 * thread, one draft per position, threshold 0.5, gamma_max 32; model and
 * verifier NULL (the caller sets them: adjusted is sd_verify_find("adjusted")).
 * Name what you change with designated initializers or assignments.
 * Never fails. */
SD_API sd_engine_config sd_engine_defaults(void);

/* (T1) of tree.h for cfg's tree and children at cfg's model: the per-rank acceptance of
 * each context (sd_dist_rank_acceptance, dist.h), averaged over the contexts -- with
 * weights[c] where weights is not NULL (a run's ctx_tokens, engine_stats.h: the contexts
 * the walks visited), else equally -- into *a (one row, the tree's largest rank + 1
 * ranks), and *tokens = (T1) under it.  Exact for a model of one context (a pair of
 * distributions); for a bank, the mean of per-context products is taken as the product
 * of means, the assumption of (T1).  SD_EINVAL without a tree or a model, or with weights
 * that sum to 0; SD_ENOMEM. */
SD_API sd_status sd_engine_tree_theory(const sd_engine_config *cfg, const uint64_t *weights, sd_tree_accept *a,
                                       double *tokens, sd_error *err);

/* Runs cfg (see above) into *out, which the caller releases with
 * sd_engine_stats_free.  At least one chunk runs, so more than `tokens`
 * tokens may be emitted.  SD_EINVAL names the field of cfg that is out of
 * its domain (model, verifier, gamma, tokens, positions, gamma_max,
 * threshold, drafts, tree, children); SD_ENOMEM when the statistics or a worker cannot be
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

#endif
