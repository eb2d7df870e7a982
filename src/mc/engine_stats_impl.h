/* engine_stats_impl.h -- the private half of engine_stats: allocating,
 * adding and finishing a run's statistics, for the engine, sample and the
 * reader of partial results. */
#ifndef SPECDEC_ENGINE_STATS_IMPL_H
#define SPECDEC_ENGINE_STATS_IMPL_H

#include <stddef.h>

#include "specdec/engine_stats.h"

/* *s zeroed, then counters for max_gamma drafts, vocab tokens, contexts
 * contexts and positions histogrammed positions; the heuristic's moves only
 * when moves is 1, the per-context output counts only when outputs is 1.
 * Each array on cache lines of its own (the threads' counters are written
 * at every token).  SD_ENOMEM; *s then holds nothing. */
sd_status sd_engine_stats_alloc(sd_engine_stats *s, size_t max_gamma, size_t vocab, size_t contexts,
                                size_t positions, int moves, int outputs, sd_error *err);

/* Adds every count of from into into, which has the same shape (not
 * checked); the chunk sums are not touched. */
void sd_engine_stats_add(sd_engine_stats *into, const sd_engine_stats *from);

/* alpha_hat of s: its chunks' beta sums added in chunk order, over its
 * tokens (0 without tokens) -- the engine's rule, which merging keeps. */
void sd_engine_stats_finish_alpha(sd_engine_stats *s);

#endif
