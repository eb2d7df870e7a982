/* sample.c -- one position, many draws (see sample.h).  O(V) set-up,
 * O(log V) per draw; k drafts cost O(V) per rejection. */
#include "specdec/sample.h"
#include "verify_impl.h"
#include "engine_stats_impl.h"

#include <stdlib.h>

#include "specdec/engine.h"
#include "specdec/rng.h"

/* What determines a sample's counts (as sd_engine_fingerprint, engine.h). */
static uint64_t sample_fingerprint(const sd_sample_config *cfg)
{
    sd_engine_config ec = { .model = cfg->model, .verifier = cfg->verifier, .tokens = cfg->draws, .seed = cfg->seed,
                            .drafts = cfg->drafts, .gamma = 1 };
    return sd_engine_fingerprint(&ec) ^ 0x73616d706c65u; /* "sample": never a run's digest by accident */
}

sd_status sd_sample_run(const sd_sample_config *cfg, uint64_t *counts, double *expect, sd_error *err)
{
    const sd_verifier *v = cfg->verifier;
    if (v == NULL || v == sd_verify_find("greedy") || v->block != NULL)
        return sd_status_fail(err, SD_EINVAL, "verifier: one position takes a token-wise random rule (adjusted, target, "
                              "deterministic-draft or exact-match)");
    if (cfg->drafts < 1 || cfg->drafts > SD_DRAFTS_MAX)
        return sd_status_fail(err, SD_EINVAL, "drafts: %zu is outside [1, %u]", cfg->drafts, SD_DRAFTS_MAX);
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
    if (work == NULL || r == NULL || sd_engine_stats_alloc(&rec, 0, n, 1, 0, 0, 1, NULL) != SD_OK ||
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
                uint32_t x = sd_verify_draft_inline(v, c, r);
                by_rank[v->accept(c, x, r) ? x : v->resample(c, x, r)]++;
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
