/* cmd_tree_impl.h -- the private half of cmd_tree.h: what its parts share.
 * cmd_tree.c reads the request, builds the table and runs the mode;
 * cmd_tree_grid.c makes the rows of --optimal and --sglang-grid; both write
 * rows through cmd_tree_cost.c, which costs a tree (--cost, or the presets
 * with their band). */
#ifndef SPECDEC_CMD_TREE_IMPL_H
#define SPECDEC_CMD_TREE_IMPL_H

#include "cmd_cost_impl.h"
#include "specdec/cmd_tree.h"

/* What a tree costs: nothing, --cost LIST (eq. 10 at gamma = depth), or the presets at
 * each --batch (sd_cmd_tree_speedup). */
typedef struct {
    sd_list cost, batch;
    int presets;
    double context;
    sd_presets p;
    sd_roofline_request rq;
    sd_cmd_costs cc;
    sd_roofline_request *draws; /* the calibration's draws (SD_CALIBRATE_BAND_DRAWS; NULL: no fit, no band) */
} tree_cost;

/* --cost, or the presets with --batch and --context (goes with the presets), into c (zeroed
 * first; free it with tree_cost_free, also on failure). */
sd_status tree_cost_read(const sd_command_args *a, tree_cost *c, sd_error *err);
void tree_cost_free(tree_cost *c);
/* The settings a row is costed at: the costs or the batches (one empty setting without). */
size_t tree_cost_settings(const tree_cost *c);
/* The gain of tree tr at setting i: eq. (10)'s improvement at gamma = the depth, or the speed-up
 * at batch i (0 without a cost). */
double tree_gain(const tree_cost *c, size_t i, const sd_tree *tr, const sd_tree_accept *acc);
/* One row of tree tr at cost setting i (lead: the row's lead cells, nlead of them). */
sd_status tree_row(sd_table *t, const sd_tree *tr, const sd_tree_accept *acc, const tree_cost *c, size_t i,
                   const double *lead, size_t nlead, sd_error *err);

/* The grids' domains: --budget, --depth; --steps, --topk, --num-draft-tokens. */
extern const sd_domain TREE_BUDGET, TREE_DEPTH, TREE_STEPS, TREE_TOPK, TREE_NDT;

/* --optimal: a row per (budget, depth) and cost; with the presets, the best (budget, depth)
 * at each batch. */
sd_status tree_rows_optimal(const sd_command_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                            sd_error *err);
/* --sglang-grid: every (steps, topk, num_draft_tokens) of the lists that SGLang accepts,
 * ranked by its gain at each cost setting; what SGLang refuses or adjusts, in the notes. */
sd_status tree_rows_sglang(const sd_command_args *a, const sd_tree_accept *acc, const tree_cost *c, sd_table *t,
                           sd_error *err);

#endif
