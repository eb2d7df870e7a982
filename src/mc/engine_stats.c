/* engine_stats.c -- a run's statistics: allocation, merge, means (see
 * engine_stats.h). */
#include "specdec/engine_stats.h"
#include "engine_stats_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

sd_status sd_engine_stats_alloc(sd_engine_stats *s, size_t max_gamma, size_t vocab, size_t contexts,
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

void sd_engine_stats_add(sd_engine_stats *into, const sd_engine_stats *from)
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


void sd_engine_stats_finish_alpha(sd_engine_stats *s)
{
    double beta = 0.0;
    for (size_t k = 0; k < s->nchunks; k++)
        beta += s->chunk_beta[k];
    /* a mean of beta in [0, 1], rounding aside; 0 without tokens (an empty shard) */
    s->alpha_hat = s->tokens ? fmin(1.0, fmax(0.0, beta / (double)s->tokens)) : 0.0;
}


sd_status sd_engine_stats_merge(sd_engine_stats *into, const sd_engine_stats *from, sd_error *err)
{
    if (into->max_gamma != from->max_gamma || into->vocab != from->vocab || into->contexts != from->contexts ||
        into->positions != from->positions || (into->moves == NULL) != (from->moves == NULL) ||
        (into->out_counts == NULL) != (from->out_counts == NULL) || into->nchunks != from->nchunks)
        return sd_status_fail(err, SD_EINVAL, "the statistics differ in shape (gamma, vocabulary, contexts, positions, "
                              "counters or chunks): not parts of one run");
    sd_engine_stats_add(into, from);
    for (size_t k = 0; k < into->nchunks; k++)
        into->chunk_beta[k] += from->chunk_beta[k];
    sd_engine_stats_finish_alpha(into);
    return SD_OK;
}


double sd_engine_stats_mean_n(const sd_engine_stats *s)
{
    return (double)s->tokens / (double)s->iterations;
}

double sd_engine_stats_mean_n_se(const sd_engine_stats *s)
{
    double mean = sd_engine_stats_mean_n(s), ss = 0.0;
    for (size_t n = 1; n <= s->max_n; n++)
        ss += (double)s->n_hist[n] * ((double)n - mean) * ((double)n - mean);
    double it = (double)s->iterations;
    return it > 1 ? sqrt(ss / (it - 1) / it) : INFINITY;
}
