/* cmd_metrics.c -- `specdec metrics`: serving-engine metrics from alpha
 * (eq. 4), or alpha from them (GSL's Brent solver, theory.h). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
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

/* The names of --export: vLLM's synthetic acceptance (vllm/config/speculative.py:
 * rejection_sample_method "synthetic" with synthetic_acceptance_rates, the
 * unconditional rates P(drafts 1..i accepted), one per speculative token,
 * each in [0, 1], non-increasing). */
static const char *const EXPORTS[] = { "vllm-synthetic", NULL };
static const char *const *export_names(void) { return EXPORTS; }

/* --export vllm-synthetic: the config keys for the rates of conditional
 * acceptance acc[0 .. n-1] (rates = running products), into *a->text. */
static sd_status export_synthetic(const cli_args *a, const double *acc, size_t n, sd_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    fprintf(mem, "{\"rejection_sample_method\": \"synthetic\", \"num_speculative_tokens\": %zu, "
            "\"synthetic_acceptance_rates\": [", n);
    double r = 1.0;
    for (size_t i = 0; i < n; i++)
        fprintf(mem, "%s%.6g", i ? ", " : "", r *= acc[i]);
    fprintf(mem, "]}\n");
    if (fclose(mem) != 0) {
        free(text);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    *a->text = text;
    return SD_OK;
}

/* metrics --export: one acceptance (alpha, a length or a rate at one gamma, or
 * --acceptance) as the engine's config. */
static sd_status run_export(const cli_args *a, sd_error *err)
{
    int which;
    sd_list l[2] = { { 0 } };
    double acc[256];
    size_t n = 0;
    sd_status st = cli_choice(a, "--export", export_names(), &which, err);
    if (st == SD_OK && cli_given(a, "--acceptance")) {
        if (cli_given(a, "--gamma"))
            st = sd_status_fail(err, SD_EINVAL, "--gamma: with --acceptance the draft length is its length");
        else if ((st = cli_list(a, &CLI_ACCEPTANCE, &l[0], err)) == SD_OK && l[0].n > 256)
            st = sd_status_fail(err, SD_EINVAL, "--acceptance: %zu positions; at most 256", l[0].n);
        for (size_t i = 0; st == SD_OK && i < l[0].n; i++)
            acc[n++] = l[0].v[i];
    } else if (st == SD_OK) {
        const sd_domain *dom = cli_given(a, "--alpha")             ? &CLI_ALPHA
                               : cli_given(a, "--acceptance-rate") ? &RATE
                                                                   : &LENGTH;
        double alpha = 0.0;
        if ((st = cli_list(a, dom, &l[0], err)) == SD_OK && (st = cli_list(a, &CLI_GAMMA, &l[1], err)) == SD_OK &&
            (l[0].n != 1 || l[1].n != 1))
            st = sd_status_fail(err, SD_EINVAL, "--export: one acceptance and one --gamma (not lists)");
        else if (st == SD_OK && l[1].v[0] > 256)
            st = sd_status_fail(err, SD_EINVAL, "--gamma: %.17g; --export takes at most 256", l[1].v[0]);
        if (st == SD_OK)
            st = dom == &CLI_ALPHA ? (alpha = l[0].v[0], SD_OK)
                 : dom == &RATE    ? sd_theory_alpha_from_rate(l[0].v[0], l[1].v[0], &alpha, err)
                                   : sd_theory_alpha_from_length(l[0].v[0], l[1].v[0], &alpha, err);
        for (size_t i = 0; st == SD_OK && i < (size_t)l[1].v[0]; i++)
            acc[n++] = alpha;
    }
    if (st == SD_OK)
        st = export_synthetic(a, acc, n, err);
    sd_parse_list_free(&l[0]);
    sd_parse_list_free(&l[1]);
    return st;
}

static sd_status run_metrics(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "acceptance_rate", "mean_acceptance_length",
                                        "system_efficiency", "position_rates" };
    int given = cli_given(a, "--alpha") + cli_given(a, "--mean-acceptance-length") + cli_given(a, "--acceptance-rate") +
                cli_given(a, "--acceptance");
    *out = NULL;
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "metrics: give exactly one of --alpha, --mean-acceptance-length, "
                              "--acceptance-rate%s", cli_given(a, "--export") ? ", --acceptance" : "");
    if (cli_given(a, "--export"))
        return run_export(a, err);
    if (cli_given(a, "--acceptance"))
        return sd_status_fail(err, SD_EINVAL, "--acceptance: it is for --export (the per-position rates of a vector)");
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
    { .name = "--export", .metavar = "NAME", .help = "{names}: vLLM's synthetic_acceptance_rates config for one "
      "acceptance and one gamma (or --acceptance), to benchmark the engine at the acceptance predicted",
      .names = export_names },
    { .name = "--acceptance", .metavar = "A1,...,AG", .help = "with --export: the conditional acceptance per position "
      "instead (gamma = G)", .domain = &CLI_ACCEPTANCE },
    { .name = NULL },
};

const cli_command cmd_metrics = {
    .name = "metrics",
    .synopsis = "metrics (--alpha LIST | --mean-acceptance-length LIST | --acceptance-rate LIST) --gamma LIST",
    .summary = "serving-engine metrics from alpha, or alpha from them (GSL root finder)",
    .groups = { METRICS_OPTIONS },
    .run = run_metrics,
};
