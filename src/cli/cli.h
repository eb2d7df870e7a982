/* cli.h -- the command-line program's own interface (not part of the library).
 *
 * Every subcommand is a row of the command table in main.c: it parses its
 * options with the helpers below, calls the library, and returns one table;
 * main renders the table in the chosen --format.  So the flow is always
 * command line -> library -> table -> format.
 */
#ifndef SPECDEC_CLI_H
#define SPECDEC_CLI_H

#include <stddef.h>

#include "specdec.h"

#define CLI_MAX_OPTIONS 64
#define CLI_MAX_POSITIONAL 4096 /* merge takes a file per shard */

typedef struct {
    const char *name;    /* "--alpha" */
    const char *metavar; /* "LIST"; NULL for a flag that takes no value */
    const char *help;    /* one line */
} cli_option;

typedef struct cli_args cli_args;

typedef struct {
    const char *name;     /* "speedup" */
    const char *synopsis; /* usage line after "specdec " */
    const char *summary;  /* one line for `specdec --help` */
    const cli_option *options; /* ends with { NULL, NULL, NULL }; --format and --help are implied */
    int min_pos, max_pos; /* positional arguments */
    sd_status (*run)(const cli_args *a, sd_table **out, sd_error *err);
    int own_format; /* 1: --format is the command's own option (plot: png|svg); its table prints as text */
    void (*more_help)(void); /* prints more of `--help` after the options; may be NULL */
    const cli_option *common; /* options shared with other commands (the model options), or NULL */
    int scales;               /* 1: runs the engine, so takes --shard, --sweep and --format partial (scale.c) */
} cli_command;

/* The command's i-th option, counting `options` and then `common`; NULL past the end. */
const cli_option *cli_option_at(const cli_command *cmd, int i);

struct cli_args {
    const cli_command *cmd;
    const char *value[CLI_MAX_OPTIONS]; /* by option index; NULL if absent */
    int given[CLI_MAX_OPTIONS];
    const char *pos[CLI_MAX_POSITIONAL];
    int npos;
    const char *data_dir; /* the global --data DIR, or NULL */
    uint32_t shard, nshards;  /* set by scale.c: the engine runs only this shard (0, 0: all) ... */
    const sd_engine_io *io;   /* ... and records or replays through these hooks (NULL: neither) */
};

/* Parses argv (after the command name).  Sets *help when --help is given.
 * The format name, if given, is returned in *format (else NULL). */
sd_status cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help,
                    const char **format, sd_error *err);

/* The option's value, or NULL when absent. */
const char *cli_value(const cli_args *a, const char *name);
/* 1 when the flag or option was given. */
int cli_given(const cli_args *a, const char *name);

/* A list option (dom->name names it).  When absent: parses dflt, or fails
 * with "--x is required" when dflt is NULL. */
sd_status cli_list(const cli_args *a, const sd_domain *dom, const char *dflt, sd_list *out,
                   sd_error *err);
/* A single-number option, with the same rules. */
sd_status cli_number(const cli_args *a, const sd_domain *dom, const char *dflt, double *out,
                     sd_error *err);

/* A choice among names[0..] (NULL-terminated): its index in *out; dflt when
 * absent.  Unknown names fail, listing the valid ones. */
sd_status cli_choice(const cli_args *a, const char *option, const char *const *names, const char *dflt,
                     int *out, sd_error *err);

/* The one size computation of every grid: the product of counts[0..n-1],
 * overflow-safe, or SD_EINVAL past SD_LIST_MAX rows. */
sd_status cli_rows(const size_t *counts, size_t n, size_t *rows, sd_error *err);
/* Rows of the cartesian product of n lists (cli_rows of their lengths). */
sd_status cli_grid_size(const sd_list *lists, size_t n, size_t *rows, sd_error *err);
/* The idx-th combination (first list slowest) into x[0..n-1]. */
void cli_grid_point(const sd_list *lists, size_t n, size_t idx, double *x);

/* Builds a table with these column names; SD_ENOMEM on failure. */
sd_status cli_table(size_t ncols, const char *const *names, sd_table **out, sd_error *err);

/* Ends a command: frees the n lists and, when st is not SD_OK, the table;
 * stores the table (or NULL) in *out and returns st. */
sd_status cli_finish(sd_status st, sd_list *lists, size_t n, sd_table *t, sd_table **out);

/* The domains shared by the commands. */
extern const sd_domain CLI_ALPHA, CLI_COST, CLI_MU, CLI_GAMMA;

/* ---- gnuplot.c: figures drawn by gnuplot --------------------------------------- */

/* The image formats, indexing CLI_IMAGE_FORMATS ("png", "svg", NULL). */
typedef enum { CLI_PNG, CLI_SVG } cli_image;
extern const char *const CLI_IMAGE_FORMATS[];

/* Computes figure k from in (sd_figure_compute, figure.h) and writes
 * DIR/NAME.dat -- a comment line, then each block as TSV (sd_format_write),
 * blocks two blank lines apart as gnuplot's `index` reads them -- and
 * DIR/NAME.gp, which draws NAME.png or NAME.svg (fmt) at 1200x800 when run
 * as `gnuplot -d NAME.gp` inside DIR.  DIR is created if missing.  Fails
 * with the library's status when the figure cannot be computed (no file is
 * written then), SD_EINVAL when DIR is not a usable folder, SD_EIO when a
 * file cannot be written. */
sd_status cli_gnuplot_write(const sd_figure_kind *k, const sd_figure_input *in, const char *dir, cli_image fmt,
                            sd_error *err);

/* Runs `gnuplot -d NAME.gp` in DIR.  SD_EIO when gnuplot is missing (the
 * message says both files are written and how to install gnuplot) or fails. */
sd_status cli_gnuplot_run(const char *dir, const char *name, sd_error *err);

/* The cost model's options, shared by roofline and its --calibrate
 * (cmd_roofline.c): the eta's and t0, and the granularity names. */
extern const sd_domain CLI_ETA_F, CLI_ETA_BW, CLI_OVERHEAD;
extern const char *const CLI_GRANULARITIES[];

/* ---- calibrate.c: roofline --calibrate ------------------------------------------ */

/* Fits the cost model to the step times in --calibrate FILE (calibrate.h)
 * with --granularity and the starting --eta-flops, --eta-bw, --overhead;
 * one row per measurement with its fitted time, relative residual and its
 * group's fit; writes the fits to --save-calibration FILE when given. */
sd_status cli_roofline_calibrate(const cli_args *a, const sd_presets *p, sd_table **out, sd_error *err);

/* ---- scale.c: --shard, --sweep, --format partial, merge ---------------------- */

/* The options every scaling command lists. */
#define CLI_SCALE_OPTIONS                                                                                       \
    { "--shard", "I/N", "run only shard I of N (chunks I-1, I-1+N, ...) and print a partial result for merge" }, \
    { "--sweep", "FILE", "one run per row of a TSV whose columns are options (alpha, gamma, ...)" }

/* Runs cmd (a scaling command) as a job: its invocations (one, or one per
 * --sweep row) from its arguments argv[0..argc-1] as parsed into a.  With
 * partial, every run is recorded into *part (shard --shard, default 1/1)
 * and *out stays NULL; else the invocations' tables are joined into *out.
 * The statuses of the command (SD_ECHECK passes through, except for a
 * partial), and SD_EINVAL for a bad --shard or --sweep. */
sd_status cli_scale_run(const cli_command *cmd, const cli_args *a, int argc, char **argv, int partial,
                        sd_table **out, sd_partial *part, sd_error *err);

/* The command called name[0..len-1] (main.c's table), or NULL. */
const cli_command *cli_find_command_n(const char *name, size_t len);

/* ---- sampling.c: matrix pairs and sampling settings (issue 13) ------------------ */

/* The eight sampling lists: target temperature, top-k, top-p, min-p, then
 * the draft's (a draft list not given repeats the target's value). */
enum { CLI_SAMPLING_LISTS = 8 };

typedef struct {
    sd_list l[CLI_SAMPLING_LISTS];
    int draft_given[4]; /* which --draft-* options were given */
    size_t rows;        /* combinations: the product of the lists' lengths */
} cli_sampling;

/* The sampling options, for a command's option table (after its own). */
extern const cli_option CLI_SAMPLING_OPTIONS[];

/* Reads the sampling lists of a (defaults: temperature 1, top-k 0, top-p 1,
 * min-p 0); SD_EINVAL names the option.  Free with cli_sampling_free. */
sd_status cli_sampling_read(const cli_args *a, cli_sampling *s, sd_error *err);
/* 1 when any sampling option was given. */
int cli_sampling_given(const cli_args *a);
/* The idx-th combination (target temperature slowest). */
void cli_sampling_at(const cli_sampling *s, size_t idx, sd_sampling *target, sd_sampling *draft);
void cli_sampling_free(cli_sampling *s);
/* --input logits|probs (required with .npy input). */
sd_status cli_input_kind(const cli_args *a, sd_input *kind, sd_error *err);
/* Loads --p-npy and --q-npy (both required, same shape). */
sd_status cli_load_npy_pair(const cli_args *a, sd_npy *p, sd_npy *q, sd_error *err);

/* Subcommands, one per file under src/cli/. */
extern const cli_command cmd_speedup, cmd_optimal, cmd_expect, cmd_overlap, cmd_simulate, cmd_sample,
    cmd_validate, cmd_plot, cmd_metrics, cmd_markov, cmd_policies, cmd_roofline, cmd_fit, cmd_merge;

#endif
