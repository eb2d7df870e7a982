/* cmd_simulate_row.c -- what every part of `specdec simulate` shares: one
 * engine run and its row of the table (the columns, the cells, a tree's
 * note). */
#include "cmd_simulate_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const SIMULATE_COLS[SIMULATE_NCOLS] = {
    "family", "vocab", "contexts", "regime", "policy", "gamma", "verify", "drafts", "alpha_nominal", "alpha_hat",
    "acceptance_rate", "iterations", "tokens", "tokens_per_iteration", "tokens_per_iteration_se",
    "expected_tokens_theory", "output_tv", "output_pvalue", "draft_calls", "target_calls",
    "target_positions", "per_position_acceptance", "seed", "threads", "rng",
};

/* The acceptance the run was asked for: the model's measured mean for files,
 * noisy drafts and rules whose acceptance is not beta (greedy,
 * deterministic-draft, exact-match: calibration sets beta), else the
 * calibrated alpha (markov: its mean).  The rules' functions are compared
 * as the library's table holds them. */
static double nominal_alpha(const sd_cmd_model *ms, const sd_verifier *v, const sd_model *m)
{
    int beta_rule = sd_verify_dist_acceptance(v) == sd_verify_dist_acceptance(sd_verify_find("adjusted"));
    if (ms->from_files || ms->ngram || ms->npy || !ms->synth.calibrated || !beta_rule)
        return sd_verify_mean_acceptance(v, m);
    if (ms->synth.regime == SD_REGIME_MARKOV) {
        const sd_markov mk = { ms->synth.alpha_easy, ms->synth.alpha_hard, ms->synth.stay };
        return sd_theory_markov_mean_alpha(&mk);
    }
    return ms->synth.alpha;
}

void simulate_cells(const sd_cmd_model *ms, const sd_engine_config *ec, const sd_engine_stats *s, const sd_gof *gof,
                    double theory, char *rates, size_t nrates, sd_cell *row)
{
    /* conditional acceptance of draft i given drafts 1..i-1 accepted, i = 1..16 */
    rates[0] = '\0';
    for (size_t d = 0; d < s->max_gamma && d < 16 && s->reached[d] > 0; d++)
        snprintf(rates + strlen(rates), nrates - strlen(rates), "%s%.4f", d ? "," : "",
                 (double)s->accepted_at[d] / (double)s->reached[d]);
    const sd_model *m = ec->model;
    const char *policy = sd_engine_policy_name(ec->policy);
    const char *regime = ms->ngram ? "text" : ms->npy ? "rows" : ms->from_files ? "constant"
                                                                                : sd_synth_regime_name(ms->synth.regime);
    const sd_cell cells[SIMULATE_NCOLS] = {
        sd_text(sd_model_family_name(sd_model_family(m))), sd_int((long long)sd_model_vocab(m)),
        sd_int((long long)sd_model_contexts(m)), sd_text(regime), sd_text(policy),
        ec->policy == SD_POLICY_FIXED ? sd_int((long long)ec->gamma) : sd_text(policy),
        sd_text(sd_verify_name(ec->verifier)), sd_int((long long)ec->drafts),
        sd_real(nominal_alpha(ms, ec->verifier, m)), sd_real(s->alpha_hat),
        sd_real(s->verified ? (double)s->accepted / (double)s->verified : 0.0), sd_int((long long)s->iterations),
        sd_int((long long)s->tokens), sd_real(sd_engine_stats_mean_n(s)), sd_real(sd_engine_stats_mean_n_se(s)),
        sd_real(theory), sd_real(gof->tv), sd_real(gof->pvalue), sd_int((long long)s->draft_calls),
        sd_int((long long)s->target_calls), sd_int((long long)s->target_positions), sd_text(rates),
        sd_int((long long)ec->seed), sd_int((long long)ec->threads), sd_text(sd_rng_type()->name),
    };
    memcpy(row, cells, sizeof cells);
}

sd_status simulate_tree_note(const sd_engine_config *ec, const sd_tree_accept *acc, sd_table *t, sd_error *err)
{
    size_t len = sd_tree_format(ec->tree, NULL, 0);
    char *text = malloc(len + 1), ranks[SD_TREE_MAX_RANK * 12 + 1] = "";
    if (text == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_tree_format(ec->tree, text, len + 1);
    for (size_t k = 0; k < acc->ranks; k++)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%s%.5g", k ? ", " : "", acc->p[0][k]);
    sd_status st = sd_table_note(t, err,
                                 "tree %s (%zu nodes, depth %zu), %s children: gamma is its depth, target_positions "
                                 "count its nodes + 1, and expected_tokens_theory is (T1) at the per-rank "
                                 "acceptance p = (%s), the mean over the contexts the walks visited (doc/trees.md).",
                                 text, ec->tree->n, sd_tree_depth(ec->tree), sd_engine_children_name(ec->children),
                                 ranks);
    free(text);
    return st;
}

sd_status simulate_engine(const sd_engine_config *ec, sd_engine_stats *s, sd_error *err)
{
    sd_status st = sd_engine_run(ec, s, err);
    if (st == SD_OK && ec->progress != NULL)
        ec->progress(ec->progress_arg, 1.0, s->seconds);
    return st;
}
