/* cmd_plot.c -- `specdec plot NAME|all`: the library's figure data
 * (figure.h), drawn by gnuplot (gnuplot.c).  A command of the program's own,
 * described by rows as the library's are (command.h). */
#include "cli.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const sd_domain ALPHA = { "--alpha", 0.0, 1.0, 0 };
static const sd_domain COST = { "--cost", 0.0, INFINITY, 0 };
static const sd_domain PLOT_GAMMA = { "--gamma", 1, SD_FIGURE_GAMMA_MAX, 1 };
static const sd_domain MU = { "--mu", 0.0, INFINITY, 0 };
static const sd_domain TOKENS = { "--tokens", 1, 1e10, 1 };
static const sd_domain SEED = { "--seed", 0, 9007199254740992.0, 1 }; /* 2^53 */
static const sd_domain THREADS = { "--threads", 1, 256, 1 };

/* The request: the figure, where it goes, and its inputs. */
typedef struct {
    const char *name;                     /* NAME: a figure, or all */
    const char *out;                      /* --out DIR */
    int format;                           /* --format png|svg */
    sd_command_list alpha, cost, gamma, mu;
    double tokens, seed, threads;
    const char *input, *p_npy, *q_npy;    /* --input FILE, --p-npy, --q-npy */
    int npy_input;                        /* --npy-input logits|probs */
    const char *data_dir;
} plot_request;

/* One input list: the user's, or the figure's default (figure.h); an error
 * when the figure does not take it (its default is NULL). */
static sd_status input_list(const sd_command_args *a, const sd_figure_kind *k, const sd_domain *dom, const char *dflt,
                            sd_list *out, sd_error *err)
{
    int given = sd_command_args_given(a, dom->name);
    if (dflt == NULL)
        return given ? sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", dom->name, k->name) : SD_OK;
    return given ? sd_command_args_list(a, dom, out, err) : sd_parse_list(dflt, dom, out, err);
}

static sd_status add_file(sd_table *t, const char *figure, const char *dir, const char *name, const char *ext,
                          sd_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    const sd_cell row[] = { sd_text(figure), sd_text(path) };
    return sd_table_add(t, row, err);
}

static sd_status one_figure(const sd_command_args *a, const sd_figure_kind *k, const char *dir, cli_image fmt,
                            sd_table *t, sd_error *err)
{
    sd_figure_input in = { .threads = 1, .data_dir = sd_command_args_data_dir(a),
                           .input = sd_command_args_value(a, "--input"),
                           .p_npy = sd_command_args_value(a, "--p-npy"),
                           .q_npy = sd_command_args_value(a, "--q-npy") };
    if (!k->needs_input && sd_command_args_given(a, "--input"))
        return sd_status_fail(err, SD_EINVAL, "--input: the figure %s does not take it", k->name);
    static const char *const npy_options[] = { "--p-npy", "--q-npy", "--npy-input", NULL };
    for (int i = 0; k->id != SD_FIGURE_ALPHA_TEMPERATURE && npy_options[i] != NULL; i++)
        if (sd_command_args_given(a, npy_options[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", npy_options[i], k->name);
    if (sd_command_args_given(a, "--p-npy") != sd_command_args_given(a, "--q-npy"))
        return sd_status_fail(err, SD_EINVAL, "--p-npy and --q-npy go together");
    int kind = SD_INPUT_LOGITS;
    sd_status st = sd_command_args_choice(a, "--npy-input", NULL, &kind, err);
    if (st != SD_OK)
        return st;
    in.npy_probs = kind == SD_INPUT_PROBS;
    if (!k->monte_carlo && sd_command_args_given(a, TOKENS.name))
        return sd_status_fail(err, SD_EINVAL, "%s: the figure %s does not take it", TOKENS.name, k->name);
    double tokens, seed, threads;
    if ((st = input_list(a, k, &ALPHA, k->alpha, &in.alpha, err)) == SD_OK &&
        (st = input_list(a, k, &COST, k->cost, &in.cost, err)) == SD_OK &&
        (st = input_list(a, k, &PLOT_GAMMA, k->gamma, &in.gamma, err)) == SD_OK &&
        (st = input_list(a, k, &MU, k->mu, &in.mu, err)) == SD_OK &&
        (st = sd_command_args_number(a, &TOKENS, &tokens, err)) == SD_OK &&
        (st = sd_command_args_number(a, &SEED, &seed, err)) == SD_OK &&
        (st = sd_command_args_number(a, &THREADS, &threads, err)) == SD_OK) {
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

/* Ends the call: the table, or NULL and st. */
static sd_status finish(sd_status st, sd_table *t, sd_table **out)
{
    if (st != SD_OK) {
        sd_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

static sd_status run_plot(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "figure", "file" };
    char buf[64];
    const char *name = ((const plot_request *)a->req)->name, *dir = sd_command_args_text(a, "--out", buf, sizeof buf);
    int fmt;
    sd_table *t = NULL;
    sd_status st;
    if ((st = sd_command_args_choice(a, "--format", NULL, &fmt, err)) != SD_OK)
        return st;
    if ((t = sd_table_alloc(2, cols)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (strcmp(name, "all") == 0) {
        static const char *const inputs[] = { "--alpha", "--cost", "--gamma", "--mu", "--input", "--p-npy", "--q-npy",
                                              "--npy-input", NULL };
        for (int i = 0; inputs[i] != NULL; i++)
            if (sd_command_args_given(a, inputs[i]))
                return finish(sd_status_fail(err, SD_EINVAL, "%s: 'plot all' draws every figure with its defaults; "
                                                 "name one figure to change its inputs", inputs[i]), t, out);
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
    return finish(st, t, out);
}

static void list_figures(void)
{
    printf("\nfigures (NAME; 'all' draws each with its defaults, except fit, which needs --input):\n");
    const sd_figure_kind *k;
    for (size_t i = 0; (k = sd_figure_at(i)) != NULL; i++)
        printf("  %-27s %s\n", k->name, k->summary);
}

static void plot_defaults(void *r)
{
    *(plot_request *)r = (plot_request){ .format = -1, .tokens = NAN, .seed = NAN, .threads = NAN, .npy_input = -1 };
}

/* The defaults the rows read from the library: the default seed. */
static void plot_library(void *buf)
{
    const uint64_t seed = SD_RNG_DEFAULT_SEED;
    memcpy(buf, &seed, sizeof seed);
}

static const sd_command PLOT;

static sd_status plot_table(const void *r, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &PLOT, .req = r };
    return sd_command_end(&PLOT, run_plot(&a, out, err), err);
}

#define R plot_request
#define F(member, kind) .type = SD_COMMAND_##kind, .offset = offsetof(R, member)
static const sd_command_field FIELDS[] = {
    { .name = "NAME", F(name, TEXT), .position = 1, .metavar = "NAME", .help = "a figure, or all" },
    { .name = "--out", F(out, TEXT), .metavar = "DIR", .help = "folder for NAME.dat, NAME.gp and the figure (default "
      "{default})", .dflt = "plots" },
    { .name = "--format", F(format, CHOICE), .metavar = "FMT", .help = "png or svg (default {default})", .dflt = "png",
      .names = cli_image_names },
    { .name = "--alpha", F(alpha, LIST), .metavar = "LIST", .help = "acceptance rates (default: the figure's)",
      .domain = &ALPHA },
    { .name = "--cost", F(cost, LIST), .metavar = "LIST", .help = "cost ratios c (default: the figure's)",
      .domain = &COST },
    { .name = "--gamma", F(gamma, LIST), .metavar = "LIST", .help = "draft lengths, in {range} (default: the "
      "figure's)", .domain = &PLOT_GAMMA },
    { .name = "--mu", F(mu, LIST), .metavar = "LIST", .help = "FLOP ratios (flop-factor; default: the figure's)",
      .domain = &MU },
    { .name = "--tokens", F(tokens, REAL), .metavar = "T", .help = "Monte Carlo figures: tokens per run (default "
      "{default})", .domain = &TOKENS, .dflt = "400000" },
    { .name = "--input", F(input, TEXT), .metavar = "FILE", .help = "fit: an engine's counters file, as for 'specdec "
      "fit'" },
    { .name = "--seed", F(seed, REAL), .metavar = "S", .help = "Monte Carlo figures: random seed (default {default})",
      .domain = &SEED, .lib = SD_COMMAND_LIB_U64, .lib_offset = 0 },
    { .name = "--threads", F(threads, REAL), .metavar = "K", .help = "Monte Carlo figures: threads (default "
      "{default})", .domain = &THREADS, .dflt = "2" },
    { .name = "--p-npy", F(p_npy, TEXT), .metavar = "FILE", .help = "alpha-temperature: the target's .npy matrix "
      "(default: the GPL-3 n-gram pair)" },
    { .name = "--q-npy", F(q_npy, TEXT), .metavar = "FILE", .help = "alpha-temperature: the draft's .npy matrix, the "
      "same shape" },
    { .name = "--npy-input", F(npy_input, CHOICE), .metavar = "KIND", .help = "alpha-temperature: the matrices hold "
      "logits or probs (default {default})", .dflt = "logits", .names = sd_sampling_input_names },
    { .name = NULL },
};
#undef F
#undef R

static const sd_command PLOT = {
    .name = "plot",
    .summary = "draw a figure with gnuplot: improvement-vs-gamma, optimal-gamma-map, ... (see --help)",
    .usage = "plot NAME|all [--out DIR] [--format png|svg] [--alpha LIST] [--cost LIST] [--gamma LIST] ...",
    .size = sizeof(plot_request),
    .groups = { FIELDS },
    .defaults = plot_defaults,
    .table = plot_table,
    .library = plot_library,
    .library_size = sizeof(uint64_t),
    .data_dir = offsetof(plot_request, data_dir),
};

const cli_command cmd_plot = {
    .name = "plot",
    .cmd = &PLOT,
    .min_pos = 1,
    .max_pos = 1,
    .own_format = 1,
    .more_help = list_figures,
};
