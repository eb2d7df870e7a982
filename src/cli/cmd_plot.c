/* cmd_plot.c -- `specdec plot NAME|all`: the library's figure data
 * (figure.h), drawn by gnuplot (gnuplot.c). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const sd_domain PLOT_GAMMA = { "--gamma", 1, SD_FIGURE_GAMMA_MAX, 1 };

/* One input list: the user's, or the figure's default (figure.h); an error
 * when the figure does not take it (its default is NULL). */
static sd_status input_list(const cli_args *a, const sd_figure_kind *k, const sd_domain *dom, const char *dflt,
                            sd_list *out, sd_error *err)
{
    int given = cli_given(a, dom->name);
    if (dflt == NULL)
        return given ? sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", dom->name, k->name) : SD_OK;
    return given ? cli_list(a, dom, out, err) : sd_parse_list(dflt, dom, out, err);
}

static sd_status add_file(sd_table *t, const char *figure, const char *dir, const char *name, const char *ext,
                          sd_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    const sd_cell row[] = { sd_text(figure), sd_text(path) };
    return sd_table_add(t, row, err);
}

static sd_status one_figure(const cli_args *a, const sd_figure_kind *k, const char *dir, cli_image fmt, sd_table *t,
                            sd_error *err)
{
    sd_figure_input in = { .threads = 1, .data_dir = a->data_dir, .input = cli_value(a, "--input"),
                           .p_npy = cli_value(a, "--p-npy"), .q_npy = cli_value(a, "--q-npy") };
    if (!k->needs_input && cli_given(a, "--input"))
        return sd_status_fail(err, SD_EINVAL, "--input: the figure %s does not take it", k->name);
    static const char *const npy_options[] = { "--p-npy", "--q-npy", "--npy-input", NULL };
    for (int i = 0; k->id != SD_FIGURE_ALPHA_TEMPERATURE && npy_options[i] != NULL; i++)
        if (cli_given(a, npy_options[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", npy_options[i], k->name);
    if (cli_given(a, "--p-npy") != cli_given(a, "--q-npy"))
        return sd_status_fail(err, SD_EINVAL, "--p-npy and --q-npy go together");
    int kind = SD_INPUT_LOGITS;
    sd_status st = cli_choice(a, "--npy-input", NULL, &kind, err);
    if (st != SD_OK)
        return st;
    in.npy_probs = kind == SD_INPUT_PROBS;
    if (!k->monte_carlo && cli_given(a, CLI_TOKENS.name))
        return sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", CLI_TOKENS.name, k->name);
    double tokens, seed, threads;
    if ((st = input_list(a, k, &CLI_ALPHA, k->alpha, &in.alpha, err)) == SD_OK &&
        (st = input_list(a, k, &CLI_COST, k->cost, &in.cost, err)) == SD_OK &&
        (st = input_list(a, k, &PLOT_GAMMA, k->gamma, &in.gamma, err)) == SD_OK &&
        (st = input_list(a, k, &CLI_MU, k->mu, &in.mu, err)) == SD_OK &&
        (st = cli_number(a, &CLI_TOKENS, &tokens, err)) == SD_OK && (st = cli_number(a, &CLI_SEED, &seed, err)) == SD_OK &&
        (st = cli_number(a, &CLI_THREADS, &threads, err)) == SD_OK) {
        in.tokens = (uint64_t)tokens;
        in.seed = (uint64_t)seed;
        in.threads = (unsigned)threads;
        st = cli_gnuplot_write(k, &in, dir, fmt, err);
    }
    if (st == SD_OK && (st = add_file(t, k->name, dir, k->name, "dat", err)) == SD_OK &&
        (st = add_file(t, k->name, dir, k->name, "gp", err)) == SD_OK &&
        (st = cli_gnuplot_run(dir, k->name, err)) == SD_OK)
        st = add_file(t, k->name, dir, k->name, cli_image_names()[fmt], err);
    sd_parse_list_free(&in.alpha);
    sd_parse_list_free(&in.cost);
    sd_parse_list_free(&in.gamma);
    sd_parse_list_free(&in.mu);
    return st;
}

static sd_status run_plot(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "figure", "file" };
    char buf[64];
    const char *name = a->pos[0], *dir = cli_text(a, "--out", buf, sizeof buf);
    int fmt;
    sd_table *t = NULL;
    sd_status st;
    if ((st = cli_choice(a, "--format", NULL, &fmt, err)) != SD_OK || (st = cli_table(2, cols, &t, err)) != SD_OK)
        return cli_finish(st, NULL, 0, t, out);
    if (strcmp(name, "all") == 0) {
        static const char *const inputs[] = { "--alpha", "--cost", "--gamma", "--mu", "--input", "--p-npy", "--q-npy",
                                              "--npy-input", NULL };
        for (int i = 0; inputs[i] != NULL; i++)
            if (cli_given(a, inputs[i]))
                return cli_finish(sd_status_fail(err, SD_EINVAL, "%s: 'plot all' draws every figure with its defaults; "
                                                 "name one figure to change its inputs", inputs[i]), NULL, 0, t, out);
        const sd_figure_kind *k;
        for (size_t i = 0; (k = sd_figure_at(i)) != NULL && st == SD_OK; i++)
            if (!k->needs_input) /* figures of a user's file are drawn by name */
                st = one_figure(a, k, dir, (cli_image)fmt, t, err);
    } else {
        const sd_figure_kind *k = sd_figure_find(name);
        st = k ? one_figure(a, k, dir, (cli_image)fmt, t, err)
               : sd_status_fail(err, SD_EINVAL, "plot: unknown figure '%s'; expected all or one of %s", name,
                                sd_figure_names());
    }
    return cli_finish(st, NULL, 0, t, out);
}

static void list_figures(void)
{
    printf("\nfigures (NAME; 'all' draws each with its defaults, except fit, which needs --input):\n");
    const sd_figure_kind *k;
    for (size_t i = 0; (k = sd_figure_at(i)) != NULL; i++)
        printf("  %-27s %s\n", k->name, k->summary);
}

static const cli_option PLOT_OPTIONS[] = {
    { .name = "--out", .metavar = "DIR", .help = "folder for NAME.dat, NAME.gp and the figure (default {default})",
      .dflt = "plots" },
    { .name = "--format", .metavar = "FMT", .help = "png or svg (default {default})", .dflt = "png",
      .names = cli_image_names },
    { .name = "--alpha", .metavar = "LIST", .help = "acceptance rates (default: the figure's)", .domain = &CLI_ALPHA },
    { .name = "--cost", .metavar = "LIST", .help = "cost ratios c (default: the figure's)", .domain = &CLI_COST },
    { .name = "--gamma", .metavar = "LIST", .help = "draft lengths, in {range} (default: the figure's)",
      .domain = &PLOT_GAMMA },
    { .name = "--mu", .metavar = "LIST", .help = "FLOP ratios (flop-factor; default: the figure's)", .domain = &CLI_MU },
    { .name = "--tokens", .metavar = "T", .help = "Monte Carlo figures: tokens per run (default {default})",
      .domain = &CLI_TOKENS, .dflt = "400000" },
    { .name = "--input", .metavar = "FILE", .help = "fit: an engine's counters file, as for 'specdec fit'" },
    { .name = "--seed", .metavar = "S", .help = "Monte Carlo figures: random seed (default {default})",
      .domain = &CLI_SEED, .lib = CLI_LIB(seed, CLI_LIB_U64) },
    { .name = "--threads", .metavar = "K", .help = "Monte Carlo figures: threads (default {default})",
      .domain = &CLI_THREADS, .dflt = "2" },
    { .name = "--p-npy", .metavar = "FILE", .help = "alpha-temperature: the target's .npy matrix (default: the GPL-3 "
      "n-gram pair)" },
    { .name = "--q-npy", .metavar = "FILE", .help = "alpha-temperature: the draft's .npy matrix, the same shape" },
    { .name = "--npy-input", .metavar = "KIND", .help = "alpha-temperature: the matrices hold logits or probs (default "
      "{default})", .dflt = "logits", .names = sd_sampling_input_names },
    { .name = NULL },
};

const cli_command cmd_plot = {
    .name = "plot",
    .synopsis = "plot NAME|all [--out DIR] [--format png|svg] [--alpha LIST] [--cost LIST] [--gamma LIST] ...",
    .summary = "draw a figure with gnuplot: improvement-vs-gamma, optimal-gamma-map, ... (see --help)",
    .groups = { PLOT_OPTIONS },
    .min_pos = 1,
    .max_pos = 1,
    .run = run_plot,
    .own_format = 1,
    .more_help = list_figures,
};
