/* cmd_plot.c -- `specdec plot NAME|all`: the library's figure data
 * (figure.h), drawn by gnuplot (gnuplot.c). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const sd_domain PLOT_GAMMA = { "--gamma", 1, SD_FIGURE_GAMMA_MAX, 1 };
static const sd_domain TOKENS = { "--tokens", 1, 1e10, 1 };
static const sd_domain SEED = { "--seed", 0, 9007199254740992.0, 1 };
static const sd_domain THREADS = { "--threads", 1, 256, 1 };

/* One input list: the user's, or the figure's default; an error when the
 * figure does not take it. */
static sd_status input_list(const cli_args *a, const sd_figure_kind *k, const sd_domain *dom, const char *dflt,
                            sd_list *out, sd_error *err)
{
    if (dflt == NULL) {
        if (cli_given(a, dom->name))
            return sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", dom->name, k->name);
        return SD_OK;
    }
    return cli_list(a, dom, dflt, out, err);
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
    sd_status kst = cli_choice(a, "--npy-input", sd_sampling_input_names(), "logits", &kind, err);
    if (kst != SD_OK)
        return kst;
    in.npy_probs = kind == SD_INPUT_PROBS;
    sd_list tokens_given = { NULL, 0 }; /* only to refuse --tokens for a figure that is not Monte Carlo */
    double tokens, seed, threads;
    sd_status st;
    if ((st = input_list(a, k, &CLI_ALPHA, k->alpha, &in.alpha, err)) == SD_OK &&
        (st = input_list(a, k, &CLI_COST, k->cost, &in.cost, err)) == SD_OK &&
        (st = input_list(a, k, &PLOT_GAMMA, k->gamma, &in.gamma, err)) == SD_OK &&
        (st = input_list(a, k, &CLI_MU, k->mu, &in.mu, err)) == SD_OK &&
        (st = input_list(a, k, &TOKENS, k->monte_carlo ? "400000" : NULL, &tokens_given, err)) == SD_OK &&
        (st = cli_number(a, &TOKENS, "400000", &tokens, err)) == SD_OK &&
        (st = cli_number(a, &SEED, "20261129", &seed, err)) == SD_OK &&
        (st = cli_number(a, &THREADS, "2", &threads, err)) == SD_OK) {
        in.tokens = (uint64_t)tokens;
        in.seed = (uint64_t)seed;
        in.threads = (unsigned)threads;
        st = cli_gnuplot_write(k, &in, dir, fmt, err);
    }
    if (st == SD_OK && (st = add_file(t, k->name, dir, k->name, "dat", err)) == SD_OK &&
        (st = add_file(t, k->name, dir, k->name, "gp", err)) == SD_OK &&
        (st = cli_gnuplot_run(dir, k->name, err)) == SD_OK)
        st = add_file(t, k->name, dir, k->name, CLI_IMAGE_FORMATS[fmt], err);
    sd_parse_list_free(&in.alpha), sd_parse_list_free(&in.cost), sd_parse_list_free(&in.gamma), sd_parse_list_free(&in.mu);
    sd_parse_list_free(&tokens_given);
    return st;
}

static sd_status run_plot(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "figure", "file" };
    const char *name = a->pos[0], *dir = cli_value(a, "--out");
    int fmt;
    sd_table *t = NULL;
    sd_status st;
    if ((st = cli_choice(a, "--format", CLI_IMAGE_FORMATS, "png", &fmt, err)) != SD_OK ||
        (st = cli_table(2, cols, &t, err)) != SD_OK)
        return cli_finish(st, NULL, 0, t, out);
    if (dir == NULL)
        dir = "plots";
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

static const cli_option plot_options[] = {
    { "--out", "DIR", "folder for NAME.dat, NAME.gp and the figure (default plots)" },
    { "--format", "FMT", "png or svg (default png)" },
    { "--alpha", "LIST", "acceptance rates (default: the figure's)" },
    { "--cost", "LIST", "cost ratios c (default: the figure's)" },
    { "--gamma", "LIST", "draft lengths, in [1, 4096] (default: the figure's)" },
    { "--mu", "LIST", "FLOP ratios (flop-factor; default 0,0.05)" },
    { "--tokens", "T", "Monte Carlo figures: tokens per run (default 400000)" },
    { "--input", "FILE", "fit: an engine's counters file, as for 'specdec fit'" },
    { "--seed", "S", "Monte Carlo figures: random seed (default 20261129)" },
    { "--threads", "K", "Monte Carlo figures: threads (default 2)" },
    { "--p-npy", "FILE", "alpha-temperature: the target's .npy matrix (default: the GPL-3 n-gram pair)" },
    { "--q-npy", "FILE", "alpha-temperature: the draft's .npy matrix, the same shape" },
    { "--npy-input", "KIND", "alpha-temperature: the matrices hold logits or probs (default logits)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_plot = {
    "plot", "plot NAME|all [--out DIR] [--format png|svg] [--alpha LIST] [--cost LIST] [--gamma LIST] ...",
    "draw a figure with gnuplot: improvement-vs-gamma, optimal-gamma-map, ... (see --help)",
    plot_options, 1, 1, run_plot, 1, list_figures, NULL, 0,
};
