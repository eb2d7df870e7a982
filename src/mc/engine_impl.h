/* engine_impl.h -- the private half of engine: what its parts share.  The
 * configuration (engine_config.c: names, defaults, domain, memory, digest)
 * and the iteration shapes (engine_iterate.c: chains, several drafts a
 * position, the oracle, trees) sit below the chunks and workers of engine.c;
 * the tree's closed form (engine_tree.c) samples nothing.  The calls go one
 * way: engine.c -> engine_iterate.c, engine_config.c. */
#ifndef SPECDEC_ENGINE_IMPL_H
#define SPECDEC_ENGINE_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "specdec/engine.h"
#include "specdec/step.h"

/* ---- the configuration (engine_config.c) ------------------------------------------------ */

/* cfg's domain (engine.h); SD_EINVAL naming the field of cfg, else SD_OK. */
sd_status sd_engine_check(const sd_engine_config *cfg, sd_error *err);

/* The longest chain cfg's policy drafts (a tree's depth; at least 1). */
size_t sd_engine_chain_max(const sd_engine_config *cfg);

/* The drafts an iteration's statistics are shaped for: SD_ORACLE_MAX under the oracle, else
 * sd_engine_chain_max. */
size_t sd_engine_max_gamma(const sd_engine_config *cfg);

/* ---- one iteration (engine_iterate.c) --------------------------------------------------- */

/* The state of the sequence being generated. */
typedef struct {
    sd_prefix prefix;
    uint64_t len;     /* tokens emitted in this sequence */
    size_t gamma_now; /* heuristic policy: the draft length of the next iteration */
} sd_engine_sequence;

/* Where an iteration records what it emits: the chunk's statistics and its beta sum. */
typedef struct {
    const sd_model *m;
    const sd_verifier *v;
    const double *acc_k;    /* per-context acceptance: what each emitted token adds to the beta sum */
    const sd_context *base; /* context 0, to index contexts */
    sd_engine_stats *s;
    double beta_sum;
    size_t positions;
    const size_t *kids;     /* a tree's children (engine.c: tree_kids) */
} sd_engine_recorder;

/* One iteration of Algorithm 1 under cfg's policy and shape, recorded into rec: a chain of
 * drafts (fixed, threshold, heuristic -- whose next draft length it updates in seq), k drafts a
 * position, the oracle, or cfg's tree; step is the chain's workspace (its work also the
 * others').  Returns N, the tokens emitted (at least 1), or 0 when a broken rule accepted more
 * drafts than were made (nothing then counts). */
size_t sd_engine_iterate(const sd_engine_config *cfg, sd_engine_recorder *rec, sd_engine_sequence *seq, gsl_rng *r,
                         sd_step *step);

#endif
