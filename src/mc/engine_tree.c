/* engine_tree.c -- the closed form (T1) of tree.h for the engine's tree at
 * its model (engine.h: sd_engine_tree_theory): each context's per-rank
 * acceptance, averaged.  Nothing is sampled. */
#include "specdec/engine.h"

#include <stdlib.h>
#include <string.h>

#include "specdec/dist.h"
#include "model/model_impl.h"

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
