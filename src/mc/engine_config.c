/* engine_config.c -- the Monte Carlo engine's configuration (engine.h): the
 * names of its policies and children, its defaults, its domain, the memory a
 * run needs, and the digest of what determines a run's statistics. */
#include "specdec/engine.h"
#include "engine_impl.h"
#include "verify_impl.h"

#include <string.h>

#include "specdec/rng.h"
#include "common/util.h"
#include "model/model_impl.h"

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

size_t sd_engine_chain_max(const sd_engine_config *cfg)
{
    if (cfg->tree != NULL)
        return sd_tree_depth(cfg->tree) > 0 ? sd_tree_depth(cfg->tree) : 1;
    return cfg->policy == SD_POLICY_HEURISTIC && cfg->gamma_max > cfg->gamma ? cfg->gamma_max : cfg->gamma;
}

size_t sd_engine_max_gamma(const sd_engine_config *cfg)
{
    return cfg->policy == SD_POLICY_ORACLE ? SD_ORACLE_MAX : sd_engine_chain_max(cfg);
}

size_t sd_engine_bytes(const sd_engine_config *cfg, size_t nv, size_t nc)
{
    size_t nt = cfg->threads < 1 ? 1 : cfg->threads > 256 ? 256 : cfg->threads;
    size_t g = sd_engine_max_gamma(cfg);
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

sd_status sd_engine_check(const sd_engine_config *cfg, sd_error *err)
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


