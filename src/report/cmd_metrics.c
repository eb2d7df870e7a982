/* cmd_metrics.c -- `specdec metrics`: serving-engine metrics from alpha
 * (eq. 4), or alpha from them (GSL's Brent solver, theory.h); --export,
 * one acceptance as vLLM's synthetic acceptance config. */
#include "specdec/cmd_metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_shared.h"
#include "specdec/theory.h"

static const sd_domain LENGTH = { "--mean-acceptance-length", 1.0, 1e9 + 1, 0 };
static const sd_domain RATE = { "--acceptance-rate", 0.0, 1.0, 0 };

enum { EXPORT_MAX = 256 }; /* the positions --export writes */

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

/* The domain of the one acceptance given: --alpha, --acceptance-rate or --mean-acceptance-length. */
static const sd_domain *given_domain(const sd_command_args *a)
{
    return sd_command_args_given(a, "--alpha") ? &SD_CMD_ALPHA : sd_command_args_given(a, "--acceptance-rate") ? &RATE
                                                                                                            : &LENGTH;
}

/* alpha from x at gamma g, read as dom says. */
static sd_status alpha_of(const sd_domain *dom, double x, double g, double *alpha, sd_error *err)
{
    if (dom == &SD_CMD_ALPHA) {
        *alpha = x;
        return SD_OK;
    }
    return dom == &RATE ? sd_theory_alpha_from_rate(x, g, alpha, err) : sd_theory_alpha_from_length(x, g, alpha, err);
}

/* The config keys for the rates of conditional acceptance acc[0 .. n-1] (rates = running products). */
static sd_status export_synthetic(const double *acc, size_t n, char **text, sd_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (mem == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    fprintf(mem, "{\"rejection_sample_method\": \"synthetic\", \"num_speculative_tokens\": %zu, "
            "\"synthetic_acceptance_rates\": [", n);
    double r = 1.0;
    for (size_t i = 0; i < n; i++)
        fprintf(mem, "%s%.6g", i ? ", " : "", r *= acc[i]);
    fprintf(mem, "]}\n");
    if (fclose(mem) != 0) {
        free(buf);
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    }
    *text = buf;
    return SD_OK;
}

/* --export: one acceptance (alpha, a length or a rate at one gamma, or --acceptance) as the engine's config. */
static sd_status run_export(const sd_command_args *a, char **text, sd_error *err)
{
    int which;
    sd_list l[2] = { { 0 } };
    double acc[EXPORT_MAX];
    size_t n = 0;
    sd_status st = sd_command_args_choice(a, "--export", NULL, &which, err);
    if (st == SD_OK && sd_command_args_given(a, "--acceptance")) {
        if (sd_command_args_given(a, "--gamma"))
            st = sd_status_fail(err, SD_EINVAL, "--gamma: with --acceptance the draft length is its length");
        else if ((st = sd_command_args_list(a, &SD_CMD_ACCEPTANCE, &l[0], err)) == SD_OK && l[0].n > EXPORT_MAX)
            st = sd_status_fail(err, SD_EINVAL, "--acceptance: %zu positions; at most %d", l[0].n, EXPORT_MAX);
        for (size_t i = 0; st == SD_OK && i < l[0].n; i++)
            acc[n++] = l[0].v[i];
    } else if (st == SD_OK) {
        const sd_domain *dom = given_domain(a);
        double alpha = 0.0;
        if ((st = sd_command_args_list(a, dom, &l[0], err)) == SD_OK &&
            (st = sd_command_args_list(a, &SD_CMD_GAMMA, &l[1], err)) == SD_OK && (l[0].n != 1 || l[1].n != 1))
            st = sd_status_fail(err, SD_EINVAL, "--export: one acceptance and one --gamma (not lists)");
        else if (st == SD_OK && l[1].v[0] > EXPORT_MAX)
            st = sd_status_fail(err, SD_EINVAL, "--gamma: %.17g; --export takes at most %d", l[1].v[0], EXPORT_MAX);
        if (st == SD_OK)
            st = alpha_of(dom, l[0].v[0], l[1].v[0], &alpha, err);
        for (size_t i = 0; st == SD_OK && i < (size_t)l[1].v[0]; i++)
            acc[n++] = alpha;
    }
    if (st == SD_OK)
        st = export_synthetic(acc, n, text, err);
    sd_parse_list_free(&l[0]);
    sd_parse_list_free(&l[1]);
    return st;
}

/* The table: a row per (value, gamma). */
static sd_status metrics_rows(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "acceptance_rate", "mean_acceptance_length",
                                        "system_efficiency", "position_rates" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t rows = 0;
    const sd_domain *dom = given_domain(a);
    sd_status st;
    if ((st = sd_command_args_list(a, dom, &l[0], err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_GAMMA, &l[1], err)) != SD_OK ||
        (st = sd_command_grid_size(l, 2, &rows, err)) != SD_OK || (st = sd_command_table(6, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < rows && st == SD_OK; i++) {
        double x[2], alpha = 0.0;
        sd_command_grid_point(l, 2, i, x);
        if ((st = alpha_of(dom, x[0], x[1], &alpha, err)) != SD_OK)
            break;
        sd_metrics mt = sd_theory_metrics(alpha, x[1]);
        char rates[1024];
        position_rates(alpha, x[1], rates, sizeof rates);
        const sd_cell row[] = { sd_real(alpha), sd_int((long long)x[1]), sd_real(mt.acceptance_rate),
                                sd_real(mt.mean_acceptance_length), sd_real(mt.system_efficiency), sd_text(rates) };
        st = sd_table_add(t, row, err);
    }
done:
    return sd_command_finish(st, l, 2, t, out);
}

/* The table (text NULL) or the exported config (*text). */
static sd_status run_metrics(const sd_command_args *a, sd_table **out, char **text, sd_error *err)
{
    int exporting = sd_command_args_given(a, "--export");
    int given = sd_command_args_given(a, "--alpha") + sd_command_args_given(a, "--mean-acceptance-length") +
                sd_command_args_given(a, "--acceptance-rate") + sd_command_args_given(a, "--acceptance");
    *out = NULL;
    if (given != 1)
        return sd_status_fail(err, SD_EINVAL, "metrics: give exactly one of --alpha, --mean-acceptance-length, "
                              "--acceptance-rate%s", exporting ? ", --acceptance" : "");
    if (exporting != (text != NULL))
        return sd_status_fail(err, SD_EINVAL, text != NULL ? "--export: the text result is an engine's config; give "
                              "--export NAME" : "--export: the engine's config is text, not a table "
                              "(sd_cmd_metrics_text)");
    if (exporting)
        return run_export(a, text, err);
    if (sd_command_args_given(a, "--acceptance"))
        return sd_status_fail(err, SD_EINVAL, "--acceptance: it is for --export (the per-position rates of a vector)");
    return metrics_rows(a, out, err);
}

sd_cmd_metrics_request sd_cmd_metrics_defaults(void) { return (sd_cmd_metrics_request){ .export_engine = -1 }; }

sd_status sd_cmd_metrics_table(const sd_cmd_metrics_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_metrics, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_metrics, rq, err);
    return sd_command_end(&sd_cmd_metrics, st == SD_OK ? run_metrics(&a, out, NULL, err) : st, err);
}

sd_status sd_cmd_metrics_text(const sd_cmd_metrics_request *rq, char **text, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_metrics, .req = rq };
    sd_table *t = NULL;
    *text = NULL;
    sd_status st = sd_command_check(&sd_cmd_metrics, rq, err);
    return sd_command_end(&sd_cmd_metrics, st == SD_OK ? run_metrics(&a, &t, text, err) : st, err);
}

#define R sd_cmd_metrics_request
static const sd_command_field FIELDS[] = {
    { .name = "--alpha", SD_FIELD(R, alpha, LIST), .metavar = "LIST", .help = "acceptance rate alpha in {range} "
      "(eq. 7)", .domain = &SD_CMD_ALPHA },
    { .name = "--mean-acceptance-length", SD_FIELD(R, mean_length, LIST), .metavar = "LIST", .help = "vLLM V1's "
      "mean acceptance length E(N), bonus token included: solve for alpha", .domain = &LENGTH },
    { .name = "--acceptance-rate", SD_FIELD(R, rate, LIST), .metavar = "LIST", .help = "vLLM V1's draft acceptance "
      "rate, accepted / drafted = (E(N) - 1) / gamma: solve for alpha", .domain = &RATE },
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths, whole numbers in "
      "{range}", .domain = &SD_CMD_GAMMA },
    { .name = "--export", SD_FIELD(R, export_engine, CHOICE), .metavar = "NAME", .help = "{names}: vLLM's "
      "synthetic_acceptance_rates config for one acceptance and one gamma (or --acceptance), to benchmark the "
      "engine at the acceptance predicted", .names = export_names },
    { .name = "--acceptance", SD_FIELD(R, acceptance, LIST), .metavar = "A1,...,AG", .help = "with --export: the "
      "conditional acceptance per position instead (gamma = G)", .domain = &SD_CMD_ACCEPTANCE },
    { .name = NULL },
};
#undef R

static sd_status metrics_text_(const void *r, char **text, sd_error *err) { return sd_cmd_metrics_text(r, text, err); }

SD_COMMAND_CALLS(metrics)
const sd_command sd_cmd_metrics = {
    SD_COMMAND_ROW(metrics),
    .usage = "metrics (--alpha LIST | --mean-acceptance-length LIST | --acceptance-rate LIST) --gamma LIST",
    .summary = "serving-engine metrics from alpha, or alpha from them (GSL root finder)",
    .groups = { FIELDS },
    .text_option = "--export",
    .text = metrics_text_,
    SD_COMMANDS_LIBRARY,
};
