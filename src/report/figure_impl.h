/* figure_impl.h -- the private half of figure: the functions the table of
 * figure.c dispatches to, by the data they need (figure_theory.c: closed
 * forms; figure_engine.c: engine runs on synthetic banks;
 * figure_roofline.c: the cost model on the presets; figure_measured.c:
 * acceptance measured on real models), and a figure's inputs, resolved
 * and checked (figure_inputs.c). */
#ifndef SPECDEC_FIGURE_IMPL_H
#define SPECDEC_FIGURE_IMPL_H

#include "specdec/figure.h"
#include "specdec/parse.h"
#include "specdec/status.h"

/* ---- inputs (figure_inputs.c) ------------------------------------------------ */

/* The four lists of an input, in the order of their domains. */
enum { SD_FIGURE_LIST_ALPHA, SD_FIGURE_LIST_COST, SD_FIGURE_LIST_GAMMA, SD_FIGURE_LIST_MU, SD_FIGURE_LISTS };

/* The inputs k computes from, into *use: in with the lists k uses each
 * checked against its domain or, when empty, k's default parsed into
 * owned[] (which the caller frees with sd_parse_list_free whatever the
 * outcome; it starts zeroed), and the lists k does not use emptied; for a
 * Monte Carlo figure, tokens and threads at least 1.  SD_EINVAL naming the
 * parameter; SD_ENOMEM. */
sd_status sd_figure_resolve_inputs(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_input *use,
                                   sd_list owned[SD_FIGURE_LISTS], sd_error *err);

/* SD_OK when the list l of the figure called name has exactly one value,
 * else SD_EINVAL "PARAM: give one value for figure NAME". */
sd_status sd_figure_one_value(const sd_list *l, const char *param, const char *name, sd_error *err);

/* ---- the figures ------------------------------------------------------------- */

/* What the curves figures draw (their rows' variant). */
typedef enum { SD_FIGURE_CURVE_IMPROVEMENT, SD_FIGURE_CURVE_TOKENS, SD_FIGURE_CURVE_FLOPS } sd_figure_curve_kind;

/* What the heatmaps over (alpha, c) show (their rows' variant). */
typedef enum { SD_FIGURE_MAP_GAMMA, SD_FIGURE_MAP_IMPROVEMENT } sd_figure_map_kind;

/* Each computes the blocks (figure.h) of the figure called name into out,
 * which arrives empty, from in as sd_figure_resolve_inputs left it;
 * variant is the table row's (the curves and maps only).  On failure out
 * may hold blocks, which sd_figure_compute frees.  The errors are those
 * of sd_figure_compute (figure.h) that come after the inputs' domains.
 * Closed forms alone (figure_theory.c): */
sd_status sd_figure_curves(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                           sd_error *err);
sd_status sd_figure_map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out, sd_error *err);
/* Engine runs on synthetic banks (figure_engine.c): */
sd_status sd_figure_n_distribution(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                   sd_error *err);
sd_status sd_figure_monte_carlo(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err);
sd_status sd_figure_policies(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                             sd_error *err);
/* The cost model on the shipped presets (figure_roofline.c): */
sd_status sd_figure_roofline_batch(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                   sd_error *err);
sd_status sd_figure_roofline_map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                 sd_error *err);
sd_status sd_figure_verify_cost(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err);
/* Acceptance measured on real models (figure_measured.c): */
sd_status sd_figure_fit(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                        sd_error *err);
sd_status sd_figure_alpha_temperature(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                      sd_error *err);
/* Token trees at Sequoia's per-rank acceptance (figure_trees.c): */
sd_status sd_figure_tree_budget(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                sd_error *err);
sd_status sd_figure_tree_speedup(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                 sd_error *err);
sd_status sd_figure_serving(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                            sd_error *err);
sd_status sd_figure_tree_drawn(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                               sd_error *err);

#endif
