/* figure.h -- the data behind each figure, as tables.
 *
 * specdec computes every number of a figure; drawing it is the program's
 * business (the specdec program writes the tables as NAME.dat for gnuplot).
 * A figure's data is one or more tables, its blocks, in a fixed order
 * (gnuplot's `index 0`, `index 1`).  The figures take the same inputs as
 * the table commands: alpha, cost, gamma and mu lists, and tokens and seed
 * for the Monte Carlo ones.  Each figure uses some of the lists (those
 * whose default in sd_figure_kind is not NULL) and ignores the others; an
 * empty list it uses means its default.
 *
 * The blocks, by figure (columns in order):
 *
 *   improvement-vs-gamma, improvement-vs-gamma-alpha, expected-tokens,
 *   flop-factor     block 0: gamma, then one column per curve (every
 *                   combination of the alpha, cost and mu lists the figure
 *                   uses, alpha slowest), named by its parameters: the
 *                   varying ones, or the fixed ones when none varies
 *                   ("c = 0.02", "α = 0.8, μ = 0.05"); the improvement
 *                   curves add " (optimum unbounded)" or " (do not
 *                   speculate)" when that is so.
 *                   improvement figures, block 1: series (the curve's
 *                   column, 1 = the first curve), gamma_opt,
 *                   improvement_opt, label ("γ* = 11") for each curve whose
 *                   optimum lies within the gamma list; it may be empty.
 *   optimal-gamma-map, best-improvement-map
 *                   alpha, cost, value: gamma_opt (at most
 *                   SD_FIGURE_GAMMA_CAP), or the best improvement (at most
 *                   SD_FIGURE_IMPROVEMENT_CAP); 0 where no draft length
 *                   helps (alpha <= cost).  cost slowest.
 *   n-distribution  n, pmf_theory (eqs. 2-3 at the measured alpha_hat),
 *                   observed, ci_low, ci_high (95%) for n = 1 .. gamma + 1.
 *   monte-carlo     block 0 per alpha: alpha, iid_alpha_hat, iid_mean,
 *                   iid_ci, markov_alpha_hat, markov_mean, markov_ci,
 *                   markov_theory (ci: the 95% half-width); block 1:
 *                   alpha, expected_tokens (eq. 4) on 201 points of [0, 0.995].
 *   adaptive-policies  policy, iid_alpha_0.8, markov_0.95_0.3: the
 *                   measured improvement of each draft-length policy.
 *   roofline-batch  batch (1 .. 1024, doubling), then per accelerator that
 *                   holds the pair at batch 1: NAME (best improvement) and
 *                   "NAME gamma" (its gamma); the text NaN where the pair
 *                   does not fit.
 *   roofline-map    log2_batch (0 .. 10), log2_context (8 .. 17; slowest),
 *                   improvement_opt, gamma_opt, fits (0 or 1), on one h200.
 *   verify-cost     batch (1 .. 1024, doubling), then for contexts 1K, 8K
 *                   and 32K: "operator, S = 1K", "pass, S = 1K", ... the
 *                   verification cost ratio t(B, gamma + 1, S) / t(B, 1, S)
 *                   of llama-3.1-8b on one h100-sxm (target: the model,
 *                   draft: the hardware name).
 *   alpha-temperature  temperature (0 to 2 by 0.05, both models), then per
 *                   rule -- adjusted (sum min(p, q)) and deterministic-draft
 *                   (p(argmax q)) -- the mean over the matrix rows and its
 *                   95% t interval: adjusted, adjusted_ci_low,
 *                   adjusted_ci_high, deterministic_draft,
 *                   deterministic_draft_ci_low, deterministic_draft_ci_high
 *                   (sampling.h, sd_sampling_rows).
 *   fit             block 0: `fit --report positions` of the counters file
 *                   `input`; block 1: `fit --report predictions` at the one
 *                   cost c for gamma = 1 .. twice the measured gamma, with
 *                   400 bootstrap replicates from `seed`.
 *   tree-budget     (tree.h, at data/sequoia-acceptance.tsv) block 0: budget (1 .. 64 draft
 *                   nodes), chain, "optimal tree": (T1) of the chain of that many nodes and
 *                   of the optimal tree; block 1: budget, tokens, label for named trees
 *                   (k-ary trees, SGLang's defaults sglang:3,1,4 and sglang:5,4,8).
 *   tree-speedup    budget (1 .. 64), then "B = 1", "B = 16", "B = 64": the largest
 *                   speed-up over plain decoding of the optimal trees of that budget at
 *                   every depth limit 1 .. budget, on llama-3.1-8b + llama-3.2-1b, one
 *                   h100-sxm, context 1024 (sd_cost_tree_time).
 *   tree-drawn      the optimal tree of 15 nodes: block 0, its nodes (the root first):
 *                   depth, place (its level centred on 0), reach (the product along its
 *                   path), label; block 1, its edges: depth_from, place_from, depth_to,
 *                   place_to, label ("k=RANK: p"); alpha_hat holds its (T1).
 *   serving         (serving.h) rate, then TPOT and goodput for no speculation, gamma 1, 2,
 *                   4 and the goodput policy: the simulation of llama-3.1-70b + llama-3.2-1b
 *                   on 4 h100-sxm (the shipped calibration), alpha 0.8, 512 + 256 tokens,
 *                   Poisson arrivals at 12 rates up to 1.2 x the twin's saturation rate
 *                   without speculation (held in context), SLOs 1 s and 30 ms.
 */
#ifndef SPECDEC_FIGURE_H
#define SPECDEC_FIGURE_H

#include <stddef.h>
#include <stdint.h>

#include "specdec/parse.h"
#include "specdec/status.h"
#include "specdec/table.h"

/* The largest draft length a figure takes (gamma lists are whole numbers
 * in [1, SD_FIGURE_GAMMA_MAX]). */
#define SD_FIGURE_GAMMA_MAX 4096
/* The most curves one curves figure draws. */
#define SD_FIGURE_CURVES_MAX 24
/* The maps' values are clipped here (the top of their colour scales). */
#define SD_FIGURE_GAMMA_CAP 256.0
#define SD_FIGURE_IMPROVEMENT_CAP 16.0
/* The most blocks a figure has. */
#define SD_FIGURE_BLOCKS_MAX 2

/* The figures, in the order of the table (sd_figure_at(id) is figure id). */
typedef enum {
    SD_FIGURE_IMPROVEMENT_VS_GAMMA,
    SD_FIGURE_IMPROVEMENT_VS_GAMMA_ALPHA,
    SD_FIGURE_EXPECTED_TOKENS,
    SD_FIGURE_OPTIMAL_GAMMA_MAP,
    SD_FIGURE_BEST_IMPROVEMENT_MAP,
    SD_FIGURE_FLOP_FACTOR,
    SD_FIGURE_N_DISTRIBUTION,
    SD_FIGURE_MONTE_CARLO,
    SD_FIGURE_ADAPTIVE_POLICIES,
    SD_FIGURE_ROOFLINE_BATCH,
    SD_FIGURE_ROOFLINE_MAP,
    SD_FIGURE_VERIFY_COST,
    SD_FIGURE_FIT,
    SD_FIGURE_ALPHA_TEMPERATURE,
    SD_FIGURE_TREE_BUDGET,
    SD_FIGURE_TREE_SPEEDUP,
    SD_FIGURE_TREE_DRAWN,
    SD_FIGURE_SERVING,
    SD_FIGURE_COUNT
} sd_figure_id;

typedef struct {
    sd_figure_id id;
    const char *name;    /* "improvement-vs-gamma" */
    const char *summary; /* one line */
    /* defaults, as list texts (parse.h), for the inputs the figure uses; NULL = not used */
    const char *alpha, *cost, *gamma, *mu;
    int monte_carlo;     /* 1: runs the engine, so uses tokens, seed and threads */
    int needs_input;     /* 1: reads the counters file `input` (fit); `plot all` leaves it out */
} sd_figure_kind;

typedef struct {
    sd_list alpha, cost, gamma, mu; /* alpha in [0, 1]; cost, mu >= 0; gamma as above */
    uint64_t tokens;      /* Monte Carlo figures: about this many emitted tokens per engine run, >= 1 */
    uint64_t seed;        /* Monte Carlo figures */
    unsigned threads;     /* Monte Carlo figures: >= 1; the results do not depend on it */
    const char *data_dir; /* roofline figures: where models.tsv and hardware.tsv are
                           * (sd_presets_load, cost.h); NULL: the usual search (data.h) */
    const char *input;    /* fit: an engine's counters file (counters.h), auto-detected */
    /* alpha-temperature: a matrix pair (npy.h) of logits, or of
     * probabilities when npy_probs is 1; both NULL: the n-gram pair on
     * SD_NGRAM_DEFAULT_CORPUS (orders 5 and 2) as logits at 1024 corpus
     * positions (sd_ngram_logits). */
    const char *p_npy, *q_npy;
    int npy_probs;
} sd_figure_input;

/* A figure's data: its blocks and what else a drawing needs that depends
 * on the computation. */
typedef struct {
    sd_table *block[SD_FIGURE_BLOCKS_MAX]; /* block[0 .. nblocks-1]; the rest NULL */
    size_t nblocks;
    double iterations;       /* n-distribution: the engine's iterations behind the histogram; else 0 */
    double alpha_hat;        /* n-distribution: the measured acceptance of pmf_theory; tree-drawn: the
                              * tree's (T1); else 0 */
    const char *target, *draft; /* roofline figures: the preset pair (static strings); else NULL */
    double context;          /* roofline-batch: the context length in tokens; else 0 */
    double fit_gamma;        /* fit: the measured draft length; else 0 */
    double fit_pvalue;       /* fit: the i.i.d. test's p-value; else 0 */
    const char *fit_model;   /* fit: the model used beyond the measured gamma (static); else NULL */
} sd_figure_data;

/* The i-th figure of the table, i = 0, 1, ...; NULL past the last.  Its id
 * is i.  The descriptions are static. */
SD_API const sd_figure_kind *sd_figure_at(size_t i);

/* The figure called name (static), or NULL (also for name NULL). */
SD_API const sd_figure_kind *sd_figure_find(const char *name);

/* "improvement-vs-gamma, ..." in table order, for messages: a per-thread
 * buffer that the next call in the same thread overwrites. */
SD_API const char *sd_figure_names(void);

/* Computes figure k's data from in into *out, which the caller releases
 * with sd_figure_data_free (the blocks belong to *out; target and draft
 * are static).  k must come from sd_figure_at or sd_figure_find.  Lists k
 * does not use, and tokens, seed and threads for a figure that is not
 * Monte Carlo, are ignored; in is not modified.
 *
 * SD_EINVAL when k is NULL or not a figure, or in or out is NULL; when an
 * input is outside its domain above, or a figure that needs one value gets
 * several ("alpha: give one value for figure n-distribution"), or a curves
 * figure would draw more than SD_FIGURE_CURVES_MAX curves; when the presets
 * lack the roofline pair (or h200), or no accelerator holds the pair.
 * Messages start with the parameter's name and a colon where one parameter
 * is at fault.  SD_EINVAL/SD_ENOMEM from loading the presets (cost.h);
 * SD_ENOMEM; SD_EFAIL when a GSL routine fails; whatever the synthetic
 * model and the engine return for a Monte Carlo figure.  On failure *out
 * (when not NULL) holds nothing: no blocks, nblocks 0. */
SD_API sd_status sd_figure_compute(const sd_figure_kind *k, const sd_figure_input *in, sd_figure_data *out,
                                   sd_error *err);

/* Frees the blocks of d (from sd_figure_compute, or zeroed) and leaves it
 * empty; d may be NULL. */
SD_API void sd_figure_data_free(sd_figure_data *d);

#endif
