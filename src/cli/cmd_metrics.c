/* cmd_metrics.c -- serving-engine metrics both ways, and the Markov closed form. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const sd_domain LENGTH = { "--mean-acceptance-length", 1.0, 1e9 + 1, 0 };
static const sd_domain RATE = { "--acceptance-rate", 0.0, 1.0, 0 };
static const sd_domain EASY = { "--alpha-easy", 0.0, 1.0, 0 };
static const sd_domain HARD = { "--alpha-hard", 0.0, 1.0, 0 };
static const sd_domain STAY = { "--stay", 0.0, 0.999999, 0 };
static const sd_domain ONE_COST = { "--cost", 0.0, INFINITY, 0 };

/* The unconditional per-position rates P(drafts 1..i accepted) = alpha^i
 * (sd_theory_survival at i + 1), i = 1..gamma, as "a,b,c" (at most 64, then "..."). */
static void position_rates(double alpha, double gamma, char *buf, size_t size)
{
    buf[0] = '\0';
    for (double i = 1; i <= gamma && i <= 64; i++) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "%s%.6g", i > 1 ? "," : "", sd_theory_survival(alpha, gamma, i + 1));
    }
    if (gamma > 64)
        snprintf(buf + strlen(buf), size - strlen(buf), ",...");
}

static sd_status run_metrics(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "acceptance_rate", "mean_acceptance_length",
                                        "system_efficiency", "position_rates" };
    int given = cli_given(a, "--alpha") + cli_given(a, "--mean-acceptance-length") + cli_given(a, "--acceptance-rate");
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "metrics: give exactly one of --alpha, --mean-acceptance-length, --acceptance-rate");
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t rows = 0;
    const sd_domain *dom = cli_given(a, "--alpha") ? &CLI_ALPHA : cli_given(a, "--acceptance-rate") ? &RATE : &LENGTH;
    sd_status st;
    if ((st = cli_list(a, dom, NULL, &l[0], err)) != SD_OK || (st = cli_list(a, &CLI_GAMMA, NULL, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &rows, err)) != SD_OK || (st = cli_table(6, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[2], alpha = 0.0;
        cli_grid_point(l, 2, i, x);
        double g = x[1];
        if (dom == &CLI_ALPHA)
            alpha = x[0];
        else if (dom == &RATE)
            st = sd_theory_alpha_from_rate(x[0], g, &alpha, err);
        else
            st = sd_theory_alpha_from_length(x[0], g, &alpha, err);
        if (st != SD_OK)
            break;
        sd_metrics mt = sd_theory_metrics(alpha, g);
        char rates[1024];
        position_rates(alpha, g, rates, sizeof rates);
        const sd_cell row[] = { sd_real(alpha), sd_int((long long)g), sd_real(mt.acceptance_rate),
                                sd_real(mt.mean_acceptance_length), sd_real(mt.system_efficiency), sd_text(rates) };
        st = sd_table_add(t, row, err);
    }
done:
    return cli_finish(st, l, 2, t, out);
}

static sd_status run_markov(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha_easy", "alpha_hard", "stay", "gamma", "mean_alpha", "expected_tokens",
                                        "expected_tokens_iid", "iid_bias", "improvement", "improvement_iid" };
    sd_markov m;
    double cost;
    sd_list g = { 0 };
    sd_table *t = NULL;
    sd_status st;
    if ((st = cli_number(a, &EASY, NULL, &m.a_easy, err)) != SD_OK ||
        (st = cli_number(a, &HARD, NULL, &m.a_hard, err)) != SD_OK ||
        (st = cli_number(a, &STAY, NULL, &m.stay, err)) != SD_OK ||
        (st = cli_number(a, &ONE_COST, "0", &cost, err)) != SD_OK || (st = cli_list(a, &CLI_GAMMA, "1:10", &g, err)) != SD_OK ||
        (st = cli_table(10, cols, &t, err)) != SD_OK)
        goto done;
    double mean = sd_theory_markov_mean_alpha(&m);
    for (size_t i = 0; i < g.n && st == SD_OK; i++) {
        double e = sd_theory_markov_expected_tokens(&m, g.v[i]), iid = sd_theory_expected_tokens(mean, g.v[i]);
        const sd_cell row[] = { sd_real(m.a_easy), sd_real(m.a_hard), sd_real(m.stay), sd_int((long long)g.v[i]),
                                sd_real(mean), sd_real(e), sd_real(iid), sd_real((iid - e) / e),
                                sd_real(sd_theory_improvement_at(e, g.v[i], cost)),
                                sd_real(sd_theory_improvement_at(iid, g.v[i], cost)) };
        st = sd_table_add(t, row, err);
    }
done:
    return cli_finish(st, &g, 1, t, out);
}

static const cli_option metrics_options[] = {
    { "--alpha", "LIST", "acceptance rate alpha in [0, 1] (eq. 7)" },
    { "--mean-acceptance-length", "LIST", "vLLM V1's mean acceptance length E(N), bonus token included: solve for alpha" },
    { "--acceptance-rate", "LIST", "vLLM V1's draft acceptance rate, accepted / drafted = (E(N) - 1) / gamma: solve for alpha" },
    { "--gamma", "LIST", "draft lengths, whole numbers in [1, 1e9]" },
    { NULL, NULL, NULL },
};

static const cli_option markov_options[] = {
    { "--alpha-easy", "A", "acceptance in the easy state, in [0, 1]" },
    { "--alpha-hard", "A", "acceptance in the hard state, in [0, 1]" },
    { "--stay", "P", "probability of keeping the state per token, in [0, 0.999999]" },
    { "--gamma", "LIST", "draft lengths (default 1:10)" },
    { "--cost", "C", "draft/target cost ratio for the improvement columns (default 0)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_metrics = {
    "metrics", "metrics (--alpha LIST | --mean-acceptance-length LIST | --acceptance-rate LIST) --gamma LIST",
    "serving-engine metrics from alpha, or alpha from them (GSL root finder)",
    metrics_options, 0, 0, run_metrics, 0, NULL, NULL, 0,
};

const cli_command cmd_markov = {
    "markov", "markov --alpha-easy A --alpha-hard B --stay P [--gamma LIST] [--cost C]",
    "E(N) under two-state Markov acceptance (transfer matrix) against the i.i.d. eq. (4)",
    markov_options, 0, 0, run_markov, 0, NULL, NULL, 0,
};
