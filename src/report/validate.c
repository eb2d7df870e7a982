/* validate.c -- the checks of `specdec validate` (see validate.h): the
 * table, the selection, the run.
 *
 * Checks are rows of CHECKS: {info, run}.  A run builds its models, drives
 * the engine, and adds rows through the helpers of validate_rows.c, which
 * apply the shared rules (6-sigma z tests, chi-square at p < 1e-7) and
 * verdicts; the runs are in validate_sampled.c (the statistical checks)
 * and validate_exact.c (those built on exact results), validate_impl.h
 * declaring both.
 */
#include "specdec/validate.h"
#include "validate_impl.h"

#include <stddef.h>

/* The checks in the order they run; each covers the rows numbered first..last. */
typedef struct {
    sd_validate_check info;
    sd_status (*run)(sd_validate_ctx *v, sd_error *err);
} check;

static const check CHECKS[] = {
    { .info = { .first = 1, .last = 1, .name = "output", .summary = "output = p at positions 1-4, adjusted rule" },
      .run = sd_validate_check_output },
    { .info = { .first = 2, .last = 2, .name = "case-1",
                .summary = "control: resampling from p (the seed's Case 1) is caught" },
      .run = sd_validate_check_case1 },
    { .info = { .first = 3, .last = 3, .name = "acceptance",
                .summary = "acceptance = beta (eq. 1) on the four-token example" },
      .run = sd_validate_check_acceptance },
    { .info = { .first = 4, .last = 7, .name = "iteration",
                .summary = "N (eqs. 2-3), E(N) (eq. 4), improvement (eq. 10), FLOPs (eq. 11)" },
      .run = sd_validate_check_iteration },
    { .info = { .first = 8, .last = 8, .name = "sweep",
                .summary = "a measured sweep over gamma finds the closed-form optimum" },
      .run = sd_validate_check_sweep },
    { .info = { .first = 9, .last = 9, .name = "oracle",
                .summary = "drafting until the first rejection reaches 1 / (1 - alpha)" },
      .run = sd_validate_check_oracle },
    { .info = { .first = 10, .last = 10, .name = "alpha-hat",
                .summary = "alpha_hat over 10K tokens (eq. 7) = the acceptance rate" },
      .run = sd_validate_check_alpha_hat },
    { .info = { .first = 11, .last = 11, .name = "markov",
                .summary = "correlated acceptance: transfer-matrix E(N), i.i.d. error" },
      .run = sd_validate_check_markov },
    { .info = { .first = 12, .last = 12, .name = "block",
                .summary = "block verification: tokens per iteration, output = p" },
      .run = sd_validate_check_block },
    { .info = { .first = 13, .last = 13, .name = "drafts",
                .summary = "several drafts per position: E(N), output = p" },
      .run = sd_validate_check_drafts },
    { .info = { .first = 14, .last = 14, .name = "adaptive", .summary = "adaptive draft lengths are lossless" },
      .run = sd_validate_check_adaptive },
    { .info = { .first = 15, .last = 15, .name = "metrics", .summary = "engine metrics both ways" },
      .run = sd_validate_check_metrics },
    { .info = { .first = 16, .last = 16, .name = "residual",
                .summary = "block verification's residual weight: output = p on a 3-token pair" },
      .run = sd_validate_check_block_residual },
    { .info = { .first = 17, .last = 17, .name = "nominal",
                .summary = "every calibrated context's beta = the nominal alpha, exactly" },
      .run = sd_validate_check_nominal_alpha },
    { .info = { .first = 18, .last = 18, .name = "greedy",
                .summary = "greedy emits p's argmax; tokens per iteration from its acceptance" },
      .run = sd_validate_check_greedy },
    { .info = { .first = 19, .last = 19, .name = "gamma-star",
                .summary = "gamma* = a brute-force argmax of eq. (10) on a grid of hard cases" },
      .run = sd_validate_check_gamma_star },
    { .info = { .first = 20, .last = 20, .name = "heuristic",
                .summary = "the +2/-1 heuristic's draft-length moves follow its rule" },
      .run = sd_validate_check_heuristic },
    { .info = { .first = 21, .last = 21, .name = "deterministic-draft",
                .summary = "deterministic-draft: output = p, acceptance = p(argmax q)" },
      .run = sd_validate_check_deterministic_draft },
    { .info = { .first = 22, .last = 22, .name = "exact-match",
                .summary = "exact-match: output = p, acceptance = sum p q, E(N) at it" },
      .run = sd_validate_check_exact_match },
    { .info = { .first = 23, .last = 23, .name = "tree",
                .summary = "token trees: output = p for top-k and sampled children, tokens per pass = (T1)" },
      .run = sd_validate_check_tree },
    { .info = { .first = 24, .last = 24, .name = "serving",
                .summary = "serving under load: the simulation against its twin, Little's law, lambda -> 0" },
      .run = sd_validate_check_serving },
    { .info = { .first = 25, .last = 25, .name = "loop",
                .summary = "no engine profile: the roofline as before profiles, bit for bit" },
      .run = sd_validate_check_loop },
    { .info = { .name = NULL }, .run = NULL },
};

const sd_validate_check *sd_validate_check_at(size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (CHECKS[k].info.name == NULL)
            return NULL;
    return CHECKS[i].info.name != NULL ? &CHECKS[i].info : NULL;
}

/* 1 when the check covers a number in cfg->only (or no selection was made). */
static int selected(const sd_validate_config *cfg, const sd_validate_check *c)
{
    if (cfg->nonly == 0)
        return 1;
    for (size_t i = 0; i < cfg->nonly; i++)
        if (cfg->only[i] >= c->first && cfg->only[i] <= c->last)
            return 1;
    return 0;
}

sd_validate_config sd_validate_defaults(void)
{
    /* the engine's seed (the synthetic models' too); two threads are validate's own */
    return (sd_validate_config){ .quick = 0, .seed = sd_engine_defaults().seed, .threads = 2, .only = NULL,
                                 .nonly = 0 };
}

sd_status sd_validate_run(const sd_validate_config *cfg, sd_table **out, int *passed, sd_error *err)
{
    static const char *const cols[] = { "check", "theory", "measured", "tolerance", "p_value", "samples", "verdict",
                                        "seed", "rng" };
    unsigned last = 0;
    for (const check *c = CHECKS; c->run != NULL; c++)
        last = c->info.last;
    for (size_t i = 0; i < cfg->nonly; i++)
        if (cfg->only[i] < 1 || cfg->only[i] > last)
            return sd_status_fail(err, SD_EINVAL, "only: no check numbered %u; the checks are numbered 1 to %u",
                                  cfg->only[i], last);
    sd_validate_ctx v = { .cfg = cfg, .t = sd_table_alloc(sizeof cols / sizeof cols[0], cols), .passed = 1,
                          .scale = cfg->quick ? 1.0 : 10.0 };
    if (v.t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = SD_OK;
    for (const check *c = CHECKS; c->run != NULL && st == SD_OK; c++)
        if (selected(cfg, &c->info))
            st = c->run(&v, err);
    if (st != SD_OK) {
        sd_table_free(v.t);
        return st;
    }
    *out = v.t;
    *passed = v.passed;
    return SD_OK;
}
