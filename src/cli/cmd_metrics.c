/* cmd_metrics.c -- `specdec metrics`: serving-engine metrics from alpha
 * (eq. 4), or alpha from them (GSL's Brent solver, theory.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const sd_domain LENGTH = { "--mean-acceptance-length", 1.0, 1e9 + 1, 0 };
static const sd_domain RATE = { "--acceptance-rate", 0.0, 1.0, 0 };

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
    if ((st = cli_list(a, dom, &l[0], err)) != SD_OK || (st = cli_list(a, &CLI_GAMMA, &l[1], err)) != SD_OK ||
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

static const cli_option METRICS_OPTIONS[] = {
    { .name = "--alpha", .metavar = "LIST", .help = "acceptance rate alpha in {range} (eq. 7)", .domain = &CLI_ALPHA },
    { .name = "--mean-acceptance-length", .metavar = "LIST", .help = "vLLM V1's mean acceptance length E(N), bonus "
      "token included: solve for alpha", .domain = &LENGTH },
    { .name = "--acceptance-rate", .metavar = "LIST", .help = "vLLM V1's draft acceptance rate, accepted / drafted = "
      "(E(N) - 1) / gamma: solve for alpha", .domain = &RATE },
    { .name = "--gamma", .metavar = "LIST", .help = "draft lengths, whole numbers in {range}", .domain = &CLI_GAMMA },
    { .name = NULL },
};

const cli_command cmd_metrics = {
    .name = "metrics",
    .synopsis = "metrics (--alpha LIST | --mean-acceptance-length LIST | --acceptance-rate LIST) --gamma LIST",
    .summary = "serving-engine metrics from alpha, or alpha from them (GSL root finder)",
    .groups = { METRICS_OPTIONS },
    .run = run_metrics,
};
