/* cmd_simulate.h -- `specdec simulate` as a library call: the rejection
 * sampler (engine.h) on a synthetic or file model, one row per (alpha,
 * gamma) run against eq. (4); on the n-gram pair and .npy pairs, one row per
 * sampling setting and gamma, against eq. (4) and a Markov fit of the
 * model's acceptance along a path; a token tree drafted every iteration
 * against (T1) (tree.h).
 */
#ifndef SPECDEC_CMD_SIMULATE_H
#define SPECDEC_CMD_SIMULATE_H

#include <stdint.h>

#include "specdec/cmd_model.h"
#include "specdec/command.h"
#include "specdec/engine_stats.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    sd_command_list gamma;          /* --gamma LIST: draft lengths (default the engine's) */
    int policy;                     /* --policy: fixed, oracle, threshold or heuristic (engine.h) */
    double threshold;               /* --threshold H: the threshold policy's least top draft probability */
    double gamma_max;               /* --gamma-max G: the heuristic policy's largest draft length */
    double drafts;                  /* --drafts K: drafts per position, recursive rejection (adjusted only) */
    const char *tree;               /* --tree SPEC: draft this tree every iteration (tree.h; not sglang:) */
    int children;                   /* --children: the tree's children, top-k (default) or sampled */
    double tokens;                  /* --tokens T: about T tokens per row */
    double threads;                 /* --threads K: results do not depend on it */
    const char *export_prometheus;  /* --export-prometheus FILE: the run's counters in vLLM's format (counters.h) */
    const char *corpus;             /* --corpus FILE: --family ngram's text */
    double order, draft_order;      /* --order N, --draft-order M: the n-gram pair's orders */
    const char *export_npy;         /* --export-npy PREFIX: the n-gram pair's logits, PREFIX-p.npy and PREFIX-q.npy */
    const char *p_npy, *q_npy;      /* --p-npy FILE, --q-npy FILE: target and draft rows from .npy matrices */
    int input;                      /* --input: logits or probs (sampling.h); required with them */
    sd_command_list top_k, top_p, min_p; /* --top-k, --top-p, --min-p LIST: .npy pairs' and ngram's sampling, with
                                          * model.temperature (cmd_sampling.h says what each keeps) */
    sd_command_list draft_temperature, draft_top_k, draft_top_p, draft_min_p; /* --draft-*: the draft's (default
                                                                               * the target's) */
    sd_cmd_model_options model;     /* the model options (cmd_model.h) */
    /* Not fields: what a caller may set besides (defaults() sets none). */
    void (*progress)(void *arg, double fraction, double seconds); /* called as the engine calls it during each
                                                                    * run (engine.h), and once more with fraction
                                                                    * 1 and the run's seconds when it ends */
    void *progress_arg;
    uint32_t shard, nshards;        /* run only this shard of every engine run (engine.h); 0, 0: all */
    const sd_engine_io *io;         /* every engine run's record or replay hooks (engine_stats.h), or NULL */
} sd_cmd_simulate_request;

/* Nothing given. */
SD_API sd_cmd_simulate_request sd_cmd_simulate_defaults(void);
/* The table: family, vocab, contexts, regime, policy, gamma, verify, drafts,
 * alpha_nominal, alpha_hat, acceptance_rate, iterations, tokens,
 * tokens_per_iteration (and its standard error), expected_tokens_theory,
 * output_tv, output_pvalue, the calls, per_position_acceptance, seed,
 * threads, rng; on the n-gram and .npy models the settings and the Markov
 * prediction after them; notes for a tree and for runs that verified no
 * draft.  Writes --export-prometheus and --export-npy when given.
 * SD_EINVAL naming the field, SD_ENOMEM, SD_EFAIL, SD_EIO (a file not
 * written); *out NULL on failure. */
SD_API sd_status sd_cmd_simulate_table(const sd_cmd_simulate_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_simulate;

#endif
