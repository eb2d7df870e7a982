/* cmd_tree.h -- `specdec tree` as a library call: the expected tokens per
 * target pass of a draft tree, (T1) of tree.h, for trees written as vLLM,
 * Medusa or SGLang configure them; the optimal tree for a node budget
 * (Sequoia's dynamic program); SGLang's (steps, topk, num_draft_tokens)
 * ranked by predicted speed-up.  Costs come from --cost (eq. 10 with gamma
 * = the depth) or from the roofline presets (cost.h, cmd_cost.h): a tree's
 * speed-up over plain decoding and its band under the calibration's
 * uncertainty, which C callers also get alone (sd_cmd_tree_speedup,
 * sd_cmd_tree_band).
 */
#ifndef SPECDEC_CMD_TREE_H
#define SPECDEC_CMD_TREE_H

#include <stddef.h>

#include "specdec/cmd_cost.h"
#include "specdec/command.h"
#include "specdec/cost.h"
#include "specdec/tree.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default.  Exactly one of
 * tree, optimal and sglang_grid; exactly one of alpha, acceptance_rank and acceptance_file. */
typedef struct {
    const char *tree;                 /* --tree SPEC[;SPEC...]: trees as sd_tree_parse reads them, ';' between */
    int optimal;                      /* --optimal: the tree with the most expected tokens for each budget and
                                       * depth (with the presets: the best of them at each batch) */
    sd_command_list budget;           /* --budget LIST: draft nodes of the optimal tree (required with optimal) */
    sd_command_list depth;            /* --depth LIST: the optimal tree's largest depth; default 64 */
    int sglang_grid;                  /* --sglang-grid: SGLang's settings ranked */
    sd_command_list steps, topk, num_draft_tokens; /* --steps, --topk, --num-draft-tokens: SGLang's settings;
                                                    * default 1:8, 1,2,4,8 and 4,8,16,32,64 */
    double alpha;                     /* --alpha A: a chain's acceptance, p = A at rank 0 */
    sd_command_list acceptance_rank;  /* --acceptance-rank P0,P1,...: p by rank, the same at every depth */
    const char *acceptance_file;      /* --acceptance-file FILE: p by depth and rank (sd_tree_accept_load) */
    sd_command_list cost_ratio;       /* --cost LIST: draft/target time ratio c: improvement, eq. (10) at gamma =
                                       * depth */
    const char *target, *draft, *hardware; /* --target, --draft, --hardware: the roofline presets instead */
    sd_command_list batch;            /* --batch LIST: with the presets; default 1 */
    double context;                   /* --context S: with the presets; default 1024 */
    sd_cmd_cost_options cost;         /* the cost options (cmd_cost.h), with the presets */
    const char *data_dir;             /* the data folder (data.h); NULL: the usual search */
} sd_cmd_tree_request;

/* Nothing given. */
SD_API sd_cmd_tree_request sd_cmd_tree_defaults(void);
/* The table: the lead columns (budget, max_depth for optimal; steps, topk,
 * num_draft_tokens for the grid), nodes, depth, width, expected_tokens,
 * then cost, improvement with --cost, or batch, iteration_ms, improvement
 * (the speed-up), improvement_lo, improvement_hi, fits with the presets,
 * and the tree; one row per tree and cost setting, with notes.  SD_EINVAL
 * naming the field, SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_tree_table(const sd_cmd_tree_request *rq, sd_table **out, sd_error *err);

/* The speed-up over plain decoding of tree t, which gives expected_tokens
 * tokens a target pass ((T1), sd_tree_expected_tokens), at batch and
 * context under rq's cost model: expected_tokens x one plain step
 * (sd_cost_step_time of one token) / the tree's iteration
 * (sd_cost_tree_time: a draft pass a level, one target pass over the nodes
 * + 1 tokens a sequence), whose seconds go to *iteration_s when not NULL.
 * Never fails. */
SD_API double sd_cmd_tree_speedup(const sd_roofline_request *rq, const sd_tree *t, double expected_tokens,
                                  double batch, double context, double *iteration_s);
/* Its band under a calibration's uncertainty, as sd_calibrate_band gives
 * roofline's: the speed-up at each of draws[0 .. ndraws - 1] (rq's terms
 * drawn from their fits by sd_calibrate_draws), their q and 1 - q quantiles
 * into *lo and *hi (the tree command: SD_CALIBRATE_BAND_DRAWS draws from
 * SD_CALIBRATE_BAND_SEED, q = SD_CALIBRATE_BAND_Q).  SD_EINVAL for no
 * draws or q outside (0, 0.5), SD_ENOMEM; *lo and *hi untouched on
 * failure. */
SD_API sd_status sd_cmd_tree_band(const sd_roofline_request *draws, size_t ndraws, double q, const sd_tree *t,
                                  double expected_tokens, double batch, double context, double *lo, double *hi,
                                  sd_error *err);

/* The row (command.h). */
SD_API extern const sd_command sd_cmd_tree;

#endif
