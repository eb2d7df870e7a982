/* cmd_simulate_impl.h -- the private half of cmd_simulate.h: what its parts
 * share.  cmd_simulate.c reads the options and runs the synthetic and file
 * models, cmd_simulate_text.c the n-gram pair and .npy pairs; both make
 * their rows with cmd_simulate_row.c, so the calls go one way. */
#ifndef SPECDEC_CMD_SIMULATE_IMPL_H
#define SPECDEC_CMD_SIMULATE_IMPL_H

#include "cmd_model_impl.h"
#include "cmd_sampling_impl.h"
#include "specdec/cmd_simulate.h"
#include "specdec/gof.h"
#include "specdec/tree.h"

/* ---- cmd_simulate_row.c ---- */

/* The columns of every simulate table: one row per engine run. */
enum { SIMULATE_NCOLS = 25 };
extern const char *const SIMULATE_COLS[SIMULATE_NCOLS];

/* One engine run of ec into *s; then ec's progress hears that the run ended (fraction 1). */
sd_status simulate_engine(const sd_engine_config *ec, sd_engine_stats *s, sd_error *err);
/* The SIMULATE_COLS cells of run s of ec (theory: the prediction shown);
 * rates is the caller's buffer for the per-position acceptance text. */
void simulate_cells(const sd_cmd_model *ms, const sd_engine_config *ec, const sd_engine_stats *s, const sd_gof *gof,
                    double theory, char *rates, size_t nrates, sd_cell *row);
/* The note of a tree run: the tree, its children and the per-rank acceptance (T1) used. */
sd_status simulate_tree_note(const sd_engine_config *ec, const sd_tree_accept *acc, sd_table *t, sd_error *err);

/* ---- cmd_simulate_text.c ---- */

/* The n-gram pair's orders, --order and --draft-order (the draft's up to the target's). */
extern const sd_domain SIMULATE_ORDER, SIMULATE_DRAFT_ORDER;

/* The n-gram pair (ms->ngram) or a .npy pair: one table of simulate's
 * columns, the model's settings and the Markov predictions, one row per
 * sampling setting and gamma (one per setting for a tree). */
sd_status simulate_text(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config ec, const sd_list *gammas,
                        sd_table **t, sd_error *err);

#endif
