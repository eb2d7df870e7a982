/* cli.h -- the command-line program's own interface (not part of the library).
 *
 * Every subcommand is a row of the command table (commands.c), one command a
 * file (cmd_NAME.c): it parses its options with the helpers below, calls the
 * library, and returns one table, which main renders in the chosen
 * --format.  So the flow is always command line -> library -> table -> format.
 * Options come in groups: a command's own, and groups shared by several
 * commands (opt_*.c, scale.c).  An option's default and domain have one home:
 * its row, which takes them from the library (sd_*_defaults(), the library's
 * limits) wherever the library has them, so that --help says what runs.
 */
#ifndef SPECDEC_CLI_H
#define SPECDEC_CLI_H

#include <stddef.h>

#include "specdec.h"

#define CLI_MAX_OPTIONS 64
#define CLI_MAX_POSITIONAL 4096 /* merge takes a file per shard */
#define CLI_MAX_GROUPS 4

/* ---- options ------------------------------------------------------------------ */

/* The library's defaults, one struct of each: an option's row names the field
 * its default comes from. */
typedef struct {
    sd_synth_config synth;
    sd_engine_config engine;
    sd_cost_params cost;
    sd_ngram_config ngram;
    sd_sampling sampling;
    sd_validate_config validate;
    uint64_t seed;             /* SD_RNG_DEFAULT_SEED, for the commands whose library call has no defaults */
    double fit_level;          /* SD_FIT_LEVEL */
    size_t fit_replicates;     /* SD_FIT_REPLICATES */
    size_t policies_gamma_max; /* SD_POLICIES_GAMMA_MAX */
} cli_library;

/* The type of a field of cli_library. */
typedef enum { CLI_LIB_NONE, CLI_LIB_SIZE, CLI_LIB_DOUBLE, CLI_LIB_U64, CLI_LIB_UINT, CLI_LIB_ENUM } cli_lib_type;

/* A field of cli_library: an option's default from the library. */
typedef struct {
    cli_lib_type type; /* CLI_LIB_NONE: none */
    size_t offset;
} cli_lib;

#define CLI_LIB(field, t) { .type = (t), .offset = offsetof(cli_library, field) }

/* One option of a command.  Name the fields (designated initializers).  The
 * help text may hold {default} (the default's text), {range} (the domain as
 * [min, max] or [min, inf)), {max} (the domain's upper end), {names} (the
 * row's names, for a choice) and the counters' formats {formats}; --help
 * fills them in. */
typedef struct {
    const char *name;        /* "--alpha" */
    const char *metavar;     /* "LIST"; NULL for a flag that takes no value */
    const char *help;        /* one line */
    const sd_domain *domain; /* the numbers it takes ({range}); NULL: not a number, or not shown */
    const char *dflt;        /* the program's own default, as a user types it; NULL: none, or lib */
    cli_lib lib;             /* the library's default, when dflt is NULL */
    const char *const *(*names)(void); /* a choice among names (indexed as the library's enum), or NULL */
} cli_option;

typedef struct cli_args cli_args;
typedef struct cli_command cli_command;

struct cli_command {
    const char *name;     /* "speedup" */
    const sd_command *lib; /* the library's command (its fields, request and call), or NULL: the program's own,
                            * run by run() with the options of groups */
    const char *synopsis; /* usage line after "specdec " */
    const char *summary;  /* one line for `specdec --help` */
    const cli_option *groups[CLI_MAX_GROUPS]; /* option groups, each ending with a row of NULL name; --format and
                                               * --help are implied */
    int min_pos, max_pos; /* positional arguments */
    sd_status (*run)(const cli_args *a, sd_table **out, sd_error *err);
    int own_format;          /* 1: --format is the command's own option (plot: png|svg); its table prints as text */
    void (*more_help)(void); /* prints more of `--help` after the options; may be NULL */
    int scales;              /* 1: runs the engine or replications (serving), so takes --shard, --sweep and
                              * --format partial (scale.c) */
    /* A library command: sets into its request what is the program's -- a scaling command's shard
     * and engine hooks from a, simulate's progress line on a terminal (NULL: nothing). */
    void (*hooks)(void *request, const cli_args *a);
};

/* Where a scaling command's replication sets go (cli_replicas): a shard
 * records them into part; merge takes them from merged, in order. */
typedef struct {
    sd_partial *part;
    sd_partial *merged;
    size_t next;
} cli_replicas_io;

struct cli_args {
    const cli_command *cmd;
    const cli_command *const *commands; /* the program's command table (merge runs commands from it) */
    const char *value[CLI_MAX_OPTIONS]; /* by option index; NULL if absent */
    int given[CLI_MAX_OPTIONS];
    const char *pos[CLI_MAX_POSITIONAL];
    int npos;
    const char *data_dir;     /* the global --data DIR, or NULL */
    uint32_t shard, nshards;  /* set by scale.c: the engine runs only this shard (0, 0: all) ... */
    const sd_engine_io *io;   /* ... and records or replays through these hooks (NULL: neither), */
    cli_replicas_io *replicas; /* ... as its replications do through cli_replicas (NULL: neither) */
    char **text;              /* a command whose result is another program's syntax (roofline --export,
                               * metrics --export) sets *text to it (malloc'd, the caller frees) and
                               * returns no table; main prints it as it is.  NULL: tables only */
    void *req;                /* a library command's request, filled by cli_parse (cli_args_free frees it) */
    sd_list lists[CLI_MAX_OPTIONS]; /* the lists parsed into req, by field index */
    int lib_given[CLI_MAX_OPTIONS]; /* the library fields given, by field index */
};

/* Frees what cli_parse allocated in a (its request and lists). */
void cli_args_free(cli_args *a);
/* Runs the parsed command: a library command on its request, or the program's run(). */
sd_status cli_run(const cli_args *a, sd_table **out, sd_error *err);

/* The command's i-th option, counting its groups in order; NULL past the end. */
const cli_option *cli_option_at(const cli_command *cmd, int i);
/* The option called name[0..len-1] of cmd, or NULL. */
const cli_option *cli_option_find(const cli_command *cmd, const char *name, size_t len);

/* The command called name[0..len-1] in table (NULL-terminated), or NULL: the
 * one lookup of commands, for main and merge. */
const cli_command *cli_find_command(const cli_command *const *table, const char *name, size_t len);

/* Parses argv (after the command name).  Sets *help when --help is given.
 * The format name, if given, is returned in *format (else NULL). */
sd_status cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help,
                    const char **format, sd_error *err);

/* The option's value, or NULL when absent. */
const char *cli_value(const cli_args *a, const char *name);
/* 1 when the flag or option was given. */
int cli_given(const cli_args *a, const char *name);

/* x as a user would type it, into buf: whole numbers below 10^7 in full,
 * powers of ten from 10^7 as 1eN, others in at most 15 digits with a short
 * exponent (2e-5), inf.  Returns buf. */
const char *cli_number_text(double x, char *buf, size_t size);

/* The text of option o's default, into buf (size bytes), or NULL when it has
 * none.  A library default is printed as a user would type it. */
const char *cli_default_text(const cli_option *o, char *buf, size_t size);

/* The option's value, or its row's default text (buf, size bytes, holds a
 * library default's), or NULL when it has neither. */
const char *cli_text(const cli_args *a, const char *name, char *buf, size_t size);

/* A list option (dom->name names it).  When absent: its row's default, or
 * "--x is required" when it has none. */
sd_status cli_list(const cli_args *a, const sd_domain *dom, sd_list *out, sd_error *err);
/* A single-number option, with the same rules. */
sd_status cli_number(const cli_args *a, const sd_domain *dom, double *out, sd_error *err);
/* A choice among names (the row's own names when names is NULL): its index
 * in *out; the row's default when absent, or "--x is required".  Unknown names
 * fail, listing the valid ones. */
sd_status cli_choice(const cli_args *a, const char *option, const char *const *names, int *out, sd_error *err);

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

/* When err starts with a library parameter's name ("alpha: ...") that is one
 * of cmd's options, writes the option instead ("--alpha: ..."). */
void cli_name_flag(const cli_command *cmd, sd_error *err);

/* The domains the commands share. */
extern const sd_domain CLI_ALPHA, CLI_COST, CLI_MU, CLI_GAMMA, CLI_SEED, CLI_THREADS, CLI_TOKENS, CLI_DRAFTS,
    CLI_GAMMA_MAX, CLI_BATCH, CLI_CONTEXT, CLI_ACCEPTANCE;

/* ---- help.c ------------------------------------------------------------------------ */

/* `specdec --help`: the commands of table and the conventions. */
void cli_help_usage(const cli_command *const *table);
/* `specdec COMMAND --help`: the synopsis, every option with its help filled in. */
void cli_help_command(const cli_command *c);

/* ---- opt_cost.c: the cost model's options (roofline, tree, fit; --calibrate) ---------- */

extern const sd_domain CLI_ETA_F, CLI_ETA_BW, CLI_OVERHEAD, CLI_TP, CLI_LAUNCH;
/* --calibration FILE, else the shipped calibration (cost-defaults.tsv in the data folder). */
sd_status cli_load_calibration(const cli_args *a, sd_calibration **fits, size_t *n, sd_error *err);
/* The cost terms of model m on h into *cp: --tp, --granularity, --graphs; then,
 * for operator granularity or a given --calibration, the fit that applies
 * (*used, NULL when none); then --eta-flops, --eta-bw, --overhead and
 * --launch by hand (*used then NULL: no band). */
sd_status cli_calibrated(const cli_args *a, const sd_calibration *fits, size_t n, const sd_model_spec *m,
                         const sd_hardware *h, sd_cost_params *cp, const sd_calibration **used, sd_error *err);
/* --granularity into *cp and, when etas is 1, --eta-flops, --eta-bw and
 * --overhead (each its row's default, sd_cost_defaults(), when absent). */
sd_status cli_cost_params(const cli_args *a, int etas, sd_cost_params *cp, sd_error *err);
/* The cost options (CLI_COST_OPTIONS) of every command the roofline presets cost. */
extern const cli_option CLI_COST_OPTIONS[];
/* The presets from a->data_dir, or --models-file and --hardware-file where the command takes them. */
sd_status cli_presets_load(const cli_args *a, sd_presets *p, sd_error *err);

/* The calibration a request's terms came from. */
typedef struct {
    sd_calibration *fits; /* the loaded file: --calibration or the shipped one */
    size_t nfits;
    const sd_calibration *fit, *draft_fit; /* the fits that apply (NULL: none, or terms by hand) */
    int draft_borrowed;                    /* no fit for the draft: it takes the target's */
} cli_costs;

/* *rq for --target, --draft (a preset, or 'same'), --hardware, each
 * checked against the hardware, from the presets p, with the cost terms of
 * each model (cli_calibrated; --calibration must hold the target's fit)
 * and --draft-kv-window;
 * *c what they came from, to free with cli_costs_free (nothing on failure). */
sd_status cli_roofline_request(const cli_args *a, const sd_presets *p, sd_roofline_request *rq, cli_costs *c,
                               sd_error *err);
/* The notes naming the fits the terms came from and, when band is 1, what
 * the band is or that there is none; and that the draft borrows the target's fit, when it does. */
sd_status cli_costs_note(const cli_args *a, const cli_costs *c, const sd_roofline_request *rq, int band, sd_table *t,
                         sd_error *err);
void cli_costs_free(cli_costs *c);
/* --counts FILE (with --counts-gamma G where the file does not state it): the engine's counters
 * fitted (fit.h) into the conditional acceptance of positions 1..top, acc_k = S_k / S_{k-1} with
 * S_k = E(k) - E(k - 1) under the model the fit chose (the measured positions up to the measured
 * gamma); acc->v is malloc'd.  roofline and serving read it alike. */
extern const sd_domain CLI_COUNTS_GAMMA;
sd_status cli_fitted_acceptance(const cli_args *a, size_t top, sd_list *acc, sd_error *err);

/* ---- scale.c: --shard, --sweep, --format partial; the job merge re-runs --------------- */

/* The options every scaling command lists (a group). */
extern const cli_option CLI_SCALE_OPTIONS[];

/* Runs cmd (a scaling command) as a job: its invocations (one, or one per
 * --sweep row) from its arguments argv[0..argc-1] as parsed into a.  With
 * partial, every run is recorded into *part (shard --shard, default 1/1)
 * and *out stays NULL; else the invocations' tables are joined into *out.
 * The statuses of the command (SD_ECHECK passes through, except for a
 * partial), and SD_EINVAL for a bad --shard or --sweep. */
sd_status cli_scale_run(const cli_command *cmd, const cli_args *a, int argc, char **argv, int partial,
                        sd_table **out, sd_partial *part, sd_error *err);

/* A scaling library command's hooks (cli_command.hooks) read these: the shard
 * and the engine's record or replay hooks that scale.c set in a. */
void cli_engine_hooks(const cli_args *a, uint32_t *shard, uint32_t *nshards, const sd_engine_io **io);

/* R independent replications of one configuration (fingerprint fp), each
 * nfields values that run(arg, k, value + k nfields, err) computes for
 * replication k, into value[0 .. R nfields - 1]: all of them in one
 * process; under --shard I/N only the shard's share (the replications
 * whose index, counted across the job's sets, is I - 1 mod N; the rest
 * NaN), recorded into its partial; under merge none: the merged values
 * (SD_EINVAL when the parts' set does not match fp and the shape). */
sd_status cli_replicas(const cli_args *a, uint64_t fp, size_t R, size_t nfields, sd_cmd_serving_replica run, void *arg,
                       double *value, sd_error *err);

/* Merges the partial results in the files a->pos (merge's run): the job they
 * record, found in a->commands, run again on the merged counts. */
sd_status cli_scale_merge(const cli_args *a, sd_table **out, sd_error *err);

/* ---- gnuplot.c: figures drawn by gnuplot --------------------------------------- */

/* The image formats ("png", "svg", NULL), indexed by cli_image. */
typedef enum { CLI_PNG, CLI_SVG } cli_image;
const char *const *cli_image_names(void);

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

/* ---- the commands, one per file (cmd_NAME.c) ------------------------------------ */

extern const cli_command cmd_speedup, cmd_optimal, cmd_expect, cmd_overlap, cmd_simulate, cmd_sample,
    cmd_validate, cmd_plot, cmd_metrics, cmd_markov, cmd_policies, cmd_roofline, cmd_fit, cmd_merge, cmd_tree,
    cmd_serving;

/* The command table (commands.c), NULL-terminated, in --help order. */
const cli_command *const *cli_commands(void);

#endif
