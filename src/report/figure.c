/* figure.c -- the data behind each figure (see figure.h): the table of
 * figures and the public calls.
 *
 * Each figure is a row of FIGURES: its public description (defaults and
 * all) and the function that computes its blocks, with the row's variant
 * where one function computes several figures (the curves, the maps).  The
 * functions are declared in figure_impl.h and live by the data they need:
 * figure_theory.c, figure_engine.c, figure_roofline.c, figure_measured.c;
 * figure_inputs.c resolves and checks a figure's inputs first.  Nothing
 * here writes a file or knows how the figures are drawn.
 */
#include "specdec/figure.h"
#include "figure_impl.h"

#include <stdio.h>
#include <string.h>

#include "specdec/table.h"

typedef struct {
    sd_figure_kind kind;
    int variant; /* passed to compute: one function computes several figures */
    sd_status (*compute)(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                         sd_error *err);
} figure_row;

static const figure_row FIGURES[SD_FIGURE_COUNT] = {
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA] = {
        .kind = { .id = SD_FIGURE_IMPROVEMENT_VS_GAMMA, .name = "improvement-vs-gamma",
                  .summary = "f(γ) against γ for several c at one α, optima marked (the seed's figure)",
                  .alpha = "0.8", .cost = "0,0.01,0.02,0.05,0.1", .gamma = "1:40" },
        .variant = SD_FIGURE_CURVE_IMPROVEMENT, .compute = sd_figure_curves },
    [SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA] = {
        .kind = { .id = SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA, .name = "improvement-vs-gamma-alpha",
                  .summary = "f(γ) against γ for several α at one c, optima marked",
                  .alpha = "0.6,0.7,0.8,0.9", .cost = "0.02", .gamma = "1:40" },
        .variant = SD_FIGURE_CURVE_IMPROVEMENT, .compute = sd_figure_curves },
    [SD_FIGURE_EXPECTED_TOKENS] = {
        .kind = { .id = SD_FIGURE_EXPECTED_TOKENS, .name = "expected-tokens",
                  .summary = "E(N) against γ with the ceilings 1/(1 − α)",
                  .alpha = "0.5,0.6,0.7,0.8,0.9", .gamma = "1:40" },
        .variant = SD_FIGURE_CURVE_TOKENS, .compute = sd_figure_curves },
    [SD_FIGURE_OPTIMAL_GAMMA_MAP] = {
        .kind = { .id = SD_FIGURE_OPTIMAL_GAMMA_MAP, .name = "optimal-gamma-map",
                  .summary = "heatmap of the optimal γ over α and c, the α ≤ c region shown",
                  .alpha = "0.005:0.995:0.005", .cost = "0:0.5:0.0025" },
        .variant = SD_FIGURE_MAP_GAMMA, .compute = sd_figure_map },
    [SD_FIGURE_BEST_IMPROVEMENT_MAP] = {
        .kind = { .id = SD_FIGURE_BEST_IMPROVEMENT_MAP, .name = "best-improvement-map",
                  .summary = "heatmap of the best improvement over α and c",
                  .alpha = "0.005:0.995:0.005", .cost = "0:0.5:0.0025" },
        .variant = SD_FIGURE_MAP_IMPROVEMENT, .compute = sd_figure_map },
    [SD_FIGURE_FLOP_FACTOR] = {
        .kind = { .id = SD_FIGURE_FLOP_FACTOR, .name = "flop-factor",
                  .summary = "the FLOP factor against γ for several α and μ",
                  .alpha = "0.6,0.8,0.9", .gamma = "1:25", .mu = "0,0.05" },
        .variant = SD_FIGURE_CURVE_FLOPS, .compute = sd_figure_curves },
    [SD_FIGURE_N_DISTRIBUTION] = {
        .kind = { .id = SD_FIGURE_N_DISTRIBUTION, .name = "n-distribution",
                  .summary = "the PMF of N: theory as bars, the engine as points with 95% intervals",
                  .alpha = "0.8", .gamma = "5", .monte_carlo = 1 },
        .compute = sd_figure_n_distribution },
    [SD_FIGURE_MONTE_CARLO] = {
        .kind = { .id = SD_FIGURE_MONTE_CARLO, .name = "monte-carlo",
                  .summary = "engine E(N) against eq. (4) across α, i.i.d. and Markov acceptance",
                  .alpha = "0.3:0.95:0.05", .gamma = "5", .monte_carlo = 1 },
        .compute = sd_figure_monte_carlo },
    [SD_FIGURE_ADAPTIVE_POLICIES] = {
        .kind = { .id = SD_FIGURE_ADAPTIVE_POLICIES, .name = "adaptive-policies",
                  .summary = "fixed, heuristic, threshold and oracle draft lengths, measured, i.i.d. and Markov",
                  .cost = "0.02", .monte_carlo = 1 },
        .compute = sd_figure_policies },
    [SD_FIGURE_ROOFLINE_BATCH] = {
        .kind = { .id = SD_FIGURE_ROOFLINE_BATCH, .name = "roofline-batch",
                  .summary = "optimal gamma and best improvement against batch size on several accelerators",
                  .alpha = "0.8" },
        .compute = sd_figure_roofline_batch },
    [SD_FIGURE_ROOFLINE_MAP] = {
        .kind = { .id = SD_FIGURE_ROOFLINE_MAP, .name = "roofline-map",
                  .summary = "best improvement and optimal gamma over batch x context on one H200",
                  .alpha = "0.8" },
        .compute = sd_figure_roofline_map },
    [SD_FIGURE_VERIFY_COST] = {
        .kind = { .id = SD_FIGURE_VERIFY_COST, .name = "verify-cost",
                  .summary = "verification of γ + 1 tokens over one decode step against batch, per context, "
                             "operator and pass granularity (Llama-3.1-8B, one H100)",
                  .gamma = "4" },
        .compute = sd_figure_verify_cost },
    [SD_FIGURE_FIT] = {
        .kind = { .id = SD_FIGURE_FIT, .name = "fit",
                  .summary = "an engine's counters (--input FILE): acceptance per position and the fits, "
                             "improvement against gamma with its 95% band",
                  .cost = "0.02", .needs_input = 1 },
        .compute = sd_figure_fit },
    [SD_FIGURE_ALPHA_TEMPERATURE] = {
        .kind = { .id = SD_FIGURE_ALPHA_TEMPERATURE, .name = "alpha-temperature",
                  .summary = "α against temperature, adjusted and deterministic-draft rules, from a matrix pair "
                             "(default: the GPL-3 n-gram pair's logits)" },
        .compute = sd_figure_alpha_temperature },
    [SD_FIGURE_TREE_BUDGET] = {
        .kind = { .id = SD_FIGURE_TREE_BUDGET, .name = "tree-budget",
                  .summary = "token trees: expected tokens per pass against the node budget, chain, k-ary, "
                             "SGLang's defaults and the optimal tree (Sequoia's acceptance)" },
        .compute = sd_figure_tree_budget },
    [SD_FIGURE_TREE_SPEEDUP] = {
        .kind = { .id = SD_FIGURE_TREE_SPEEDUP, .name = "tree-speedup",
                  .summary = "the best tree's speed-up against the node budget at batch 1, 16 and 64 "
                             "(Llama-3.1-8B + 3.2-1B, one H100)" },
        .compute = sd_figure_tree_speedup },
    [SD_FIGURE_TREE_DRAWN] = {
        .kind = { .id = SD_FIGURE_TREE_DRAWN, .name = "tree-drawn",
                  .summary = "the optimal tree of 15 nodes drawn, edges labelled by rank and acceptance" },
        .compute = sd_figure_tree_drawn },
    [SD_FIGURE_SERVING] = {
        .kind = { .id = SD_FIGURE_SERVING, .name = "serving",
                  .summary = "serving under load: TPOT and goodput against the request rate, with and without "
                             "speculation (Llama-3.1-70B + 3.2-1B, 4 H100s)" },
        .compute = sd_figure_serving },
};

const sd_figure_kind *sd_figure_at(size_t i)
{
    return i < SD_FIGURE_COUNT ? &FIGURES[i].kind : NULL;
}

const sd_figure_kind *sd_figure_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < SD_FIGURE_COUNT; i++)
        if (strcmp(FIGURES[i].kind.name, name) == 0)
            return &FIGURES[i].kind;
    return NULL;
}

const char *sd_figure_names(void)
{
    static _Thread_local char buf[512];
    buf[0] = '\0';
    for (size_t i = 0; i < SD_FIGURE_COUNT; i++)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", i ? ", " : "", FIGURES[i].kind.name);
    return buf;
}

sd_status sd_figure_compute(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_data *out, sd_error *err)
{
    if (out != NULL)
        *out = (sd_figure_data){ .nblocks = 0 };
    if (k == NULL || (unsigned)k->id >= SD_FIGURE_COUNT || k != &FIGURES[k->id].kind)
        return sd_status_fail(err, SD_EINVAL, "figure: not one of the table; expected one of %s", sd_figure_names());
    if (in == NULL || out == NULL)
        return sd_status_fail(err, SD_EINVAL, "figure %s: no input or no output", k->name);
    sd_figure_input use;
    sd_list owned[SD_FIGURE_LISTS] = { { .v = NULL, .n = 0 } };
    sd_status st = sd_figure_resolve_inputs(k, in, &use, owned, err);
    if (st == SD_OK)
        st = FIGURES[k->id].compute(&use, k->name, FIGURES[k->id].variant, out, err);
    if (st != SD_OK)
        sd_figure_data_free(out);
    for (int i = 0; i < SD_FIGURE_LISTS; i++)
        sd_parse_list_free(&owned[i]);
    return st;
}

void sd_figure_data_free(sd_figure_data *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < SD_FIGURE_BLOCKS_MAX; i++)
        sd_table_free(d->block[i]);
    *d = (sd_figure_data){ .nblocks = 0 };
}
