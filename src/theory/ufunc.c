/* ufunc.c -- the closed forms of theory.h over arrays (see ufunc.h). */
#include "specdec/ufunc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "specdec/theory.h"

/* The domains of the program's options, named as the parameters are. */
#define ALPHA { "alpha", 0.0, 1.0, 0 }
#define GAMMA { "gamma", 1.0, 1e9, 1 }
#define COST { "cost", 0.0, INFINITY, 0 }
#define MU { "mu", 0.0, INFINITY, 0 }
#define N { "n", 1.0, 1e9 + 1, 1 }
#define LENGTH { "mean_length", 1.0, 1e9 + 1, 0 }
#define RATE { "rate", 0.0, 1.0, 0 }

/* A row of one output from a function of theory.h that cannot fail (its inputs in domain). */
#define SCALAR(fn, expr)                                                 \
    static sd_status fn(const double *x, double *y, sd_error *err)       \
    {                                                                    \
        (void)err;                                                       \
        y[0] = (expr);                                                   \
        return SD_OK;                                                    \
    }

SCALAR(expected_tokens, sd_theory_expected_tokens(x[0], x[1]))
SCALAR(pmf, sd_theory_pmf(x[0], x[1], x[2]))
SCALAR(survival, sd_theory_survival(x[0], x[1], x[2]))
SCALAR(cost_factor, sd_theory_cost_factor(x[0], x[1]))
SCALAR(improvement, sd_theory_improvement(x[0], x[1], x[2]))
SCALAR(flop_factor, sd_theory_flop_factor(x[0], x[1], x[2]))
SCALAR(ceiling, sd_theory_ceiling(x[0]))
SCALAR(acceptance_rate, sd_theory_metrics(x[0], x[1]).acceptance_rate)
SCALAR(system_efficiency, sd_theory_metrics(x[0], x[1]).system_efficiency)

static sd_status optimal(const double *x, double *y, sd_error *err)
{
    sd_optimum o = { 0 };
    sd_status st = sd_theory_optimal(x[0], x[1], &o, err);
    y[0] = o.gamma_opt, y[1] = o.improvement_opt, y[2] = o.expected_tokens_opt, y[3] = o.gamma_continuous;
    y[4] = o.ceiling;
    return st;
}

static sd_status metrics(const double *x, double *y, sd_error *err)
{
    (void)err;
    sd_metrics m = sd_theory_metrics(x[0], x[1]);
    y[0] = m.acceptance_rate, y[1] = m.mean_acceptance_length, y[2] = m.system_efficiency;
    return SD_OK;
}

static sd_status alpha_from_length(const double *x, double *y, sd_error *err)
{
    return sd_theory_alpha_from_length(x[0], x[1], &y[0], err);
}

static sd_status alpha_from_rate(const double *x, double *y, sd_error *err)
{
    return sd_theory_alpha_from_rate(x[0], x[1], &y[0], err);
}

static const sd_ufunc TABLE[] = {
    { .name = "expected_tokens", .doc = "E(N) = (1 - alpha^(gamma + 1)) / (1 - alpha), the tokens an iteration "
      "emits, eq. (4); gamma + 1 at alpha = 1", .nin = 2, .nout = 1, .in = { "alpha", "gamma" },
      .out = { "expected_tokens" }, .dom = { ALPHA, GAMMA }, .eval = expected_tokens },
    { .name = "pmf", .doc = "P(N = n): alpha^(n - 1) (1 - alpha) for n <= gamma, alpha^gamma at n = gamma + 1, "
      "eqs. (2) and (3)", .nin = 3, .nout = 1, .in = { "alpha", "gamma", "n" }, .out = { "pmf" },
      .dom = { ALPHA, GAMMA, N }, .eval = pmf },
    { .name = "survival", .doc = "P(N >= n) = alpha^(n - 1) for n <= gamma + 1, 0 beyond (the derivation of "
      "eq. 4)", .nin = 3, .nout = 1, .in = { "alpha", "gamma", "n" }, .out = { "survival" },
      .dom = { ALPHA, GAMMA, N }, .eval = survival },
    { .name = "cost_factor", .doc = "1 + gamma c, an iteration's time in target steps, eq. (9) over T", .nin = 2,
      .nout = 1, .in = { "gamma", "cost" }, .out = { "cost_factor" }, .dom = { GAMMA, COST },
      .eval = cost_factor },
    { .name = "improvement", .doc = "the wall-time improvement E(N) / (1 + gamma c), eq. (10)", .nin = 3,
      .nout = 1, .in = { "alpha", "gamma", "cost" }, .out = { "improvement" }, .dom = { ALPHA, GAMMA, COST },
      .eval = improvement },
    { .name = "flop_factor", .doc = "arithmetic per emitted token over standard decoding, (gamma mu + gamma + 1) "
      "/ E(N), eq. (11)", .nin = 3, .nout = 1, .in = { "alpha", "gamma", "mu" }, .out = { "flop_factor" },
      .dom = { ALPHA, GAMMA, MU }, .eval = flop_factor },
    { .name = "ceiling", .doc = "the oracle ceiling 1 / (1 - alpha), eq. (4) as gamma -> inf", .nin = 1,
      .nout = 1, .in = { "alpha" }, .out = { "ceiling" }, .dom = { ALPHA }, .eval = ceiling },
    { .name = "optimal", .doc = "the whole gamma maximising eq. (10) (0: do not speculate, inf: unbounded), "
      "its improvement and E(N), the real stationary point (Lambert W) and the ceiling",
      .nin = 2, .nout = 5, .in = { "alpha", "cost" },
      .out = { "gamma_opt", "improvement_opt", "expected_tokens_opt", "gamma_continuous", "ceiling" },
      .dom = { ALPHA, COST }, .eval = optimal },
    { .name = "optimal_gamma", .doc = "the whole gamma maximising eq. (10): 0 when alpha <= c (do not "
      "speculate), inf when unbounded", .nin = 2, .nout = 1, .in = { "alpha", "cost" }, .out = { "gamma_opt" },
      .dom = { ALPHA, COST }, .eval = optimal },
    { .name = "metrics", .doc = "what engines report, from eq. (4): acceptance rate (E(N) - 1) / gamma (vLLM V1), "
      "mean acceptance length E(N), system efficiency E(N) / (gamma + 1) (vLLM V0)", .nin = 2, .nout = 3,
      .in = { "alpha", "gamma" }, .out = { "acceptance_rate", "mean_acceptance_length", "system_efficiency" },
      .dom = { ALPHA, GAMMA }, .eval = metrics },
    { .name = "acceptance_rate", .doc = "accepted over drafted tokens, (E(N) - 1) / gamma (eq. 4; vLLM V1's "
      "draft acceptance rate)", .nin = 2, .nout = 1, .in = { "alpha", "gamma" }, .out = { "acceptance_rate" },
      .dom = { ALPHA, GAMMA }, .eval = acceptance_rate },
    { .name = "mean_acceptance_length", .doc = "E(N), the bonus token included, eq. (4) (vLLM V1's mean "
      "acceptance length)", .nin = 2, .nout = 1, .in = { "alpha", "gamma" }, .out = { "mean_acceptance_length" },
      .dom = { ALPHA, GAMMA }, .eval = expected_tokens },
    { .name = "system_efficiency", .doc = "E(N) / (gamma + 1), eq. (4) (vLLM V0's system efficiency)", .nin = 2,
      .nout = 1, .in = { "alpha", "gamma" }, .out = { "system_efficiency" }, .dom = { ALPHA, GAMMA },
      .eval = system_efficiency },
    { .name = "alpha_from_length", .doc = "the alpha whose E(N) (eq. 4) at gamma is mean_length, by GSL's Brent "
      "solver", .nin = 2, .nout = 1, .in = { "mean_length", "gamma" }, .out = { "alpha" },
      .dom = { LENGTH, GAMMA }, .eval = alpha_from_length },
    { .name = "alpha_from_rate", .doc = "the alpha whose acceptance rate (E(N) - 1) / gamma is rate (eq. 4)",
      .nin = 2, .nout = 1, .in = { "rate", "gamma" }, .out = { "alpha" }, .dom = { RATE, GAMMA },
      .eval = alpha_from_rate },
};
enum { NROWS = sizeof TABLE / sizeof TABLE[0] };

const sd_ufunc *sd_ufunc_at(size_t i) { return i < NROWS ? &TABLE[i] : NULL; }

const sd_ufunc *sd_ufunc_find(const char *name)
{
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(TABLE[i].name, name) == 0)
            return &TABLE[i];
    return NULL;
}

/* The message of a failure at point i of n, the point appended. */
static sd_status at_point(sd_status st, size_t i, size_t n, sd_error *err)
{
    if (err != NULL) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        sd_status_fail(err, st, "%s (point %zu of %zu)", msg, i, n);
    }
    return st;
}

sd_status sd_ufunc_eval(const sd_ufunc *f, size_t n, const double *const *in, const size_t *stride,
                        double *const *out, sd_error *err)
{
    for (size_t k = 0; k < f->nin; k++) {
        if (f->dom[k].name == NULL)
            continue;
        size_t m = stride[k] ? n : (n > 0);
        for (size_t i = 0; i < m; i++) {
            sd_status st = sd_parse_check(in[k][i * stride[k]], &f->dom[k], err);
            if (st != SD_OK)
                return at_point(st, i, n, err);
        }
    }
    for (size_t i = 0; i < n; i++) {
        double x[SD_UFUNC_MAX_IN], y[SD_UFUNC_MAX_OUT];
        for (size_t k = 0; k < f->nin; k++)
            x[k] = in[k][i * stride[k]];
        sd_status st = f->eval(x, y, err);
        if (st != SD_OK)
            return at_point(st, i, n, err);
        for (size_t j = 0; j < f->nout; j++)
            out[j][i] = y[j];
    }
    return SD_OK;
}
