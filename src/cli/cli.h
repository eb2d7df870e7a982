/* cli.h -- the command-line program's own interface (not part of the library).
 *
 * Every command is a row of the command table (commands.c), one command a
 * file (cmd_NAME.c): the row names its command's description (command.h:
 * the library's sd_cmd_NAME, with its usage line and positionals, or for
 * plot and merge the program's own), and the program's part: the count of
 * positional arguments, more help, and hooks that set what only the program has (shards, a progress line on a
 * terminal) into the request.  The parser (args.c) fills the request
 * through the command's rows, the command runs, and main renders its table
 * in the chosen --format.  So the flow is always command line -> request ->
 * library -> table -> format, and --help, the parser, the bindings and the
 * library read one set of rows.
 */
#ifndef SPECDEC_CLI_H
#define SPECDEC_CLI_H

#include <stddef.h>

#include "specdec.h"

#define CLI_MAX_OPTIONS 96
#define CLI_MAX_POSITIONAL 4096 /* merge takes a file per shard */

/* ---- commands and their arguments ----------------------------------------------------------- */

typedef struct cli_args cli_args;
typedef struct cli_command cli_command;

struct cli_command {
    const char *name;       /* "speedup" */
    const sd_command *cmd;  /* its fields, request and call: the library's, or the program's own (plot, merge) */
    int min_pos, max_pos;   /* positional arguments */
    int own_format;          /* 1: --format is the command's own option (plot: png|svg); its table prints as text */
    void (*more_help)(void); /* prints more of `--help` after the options; may be NULL */
    int scales;              /* 1: runs the engine or replications (serving), so takes --shard, --sweep and
                              * --format partial (scale.c) */
    /* Sets into the request what is the program's -- a scaling command's shard and engine hooks
     * from a, simulate's progress line on a terminal, merge's job (NULL: nothing). */
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
    const char *pos[CLI_MAX_POSITIONAL];
    int npos;
    const char *data_dir;     /* the global --data DIR, or NULL */
    const char *shard_text, *sweep_text; /* a scaling command's --shard I/N and --sweep FILE (NULL: absent) */
    uint32_t shard, nshards;  /* set by scale.c: the engine runs only this shard (0, 0: all) ... */
    const sd_engine_io *io;   /* ... and records or replays through these hooks (NULL: neither), */
    cli_replicas_io *replicas; /* ... as its replications do through cli_replicas (NULL: neither) */
    char **text;              /* a command whose result is another program's syntax (roofline --export,
                               * metrics --export) sets *text to it (malloc'd, the caller frees) and
                               * returns no table; main prints it as it is.  NULL: tables only */
    void *req;                /* the command's request, filled by cli_parse (cli_args_free frees it) */
    sd_list lists[CLI_MAX_OPTIONS]; /* the lists parsed into req, by field index */
    int given[CLI_MAX_OPTIONS];     /* the fields given, by index (the command's, then the program's) */
};

/* Frees what cli_parse allocated in a (its request and lists). */
void cli_args_free(cli_args *a);
/* Runs the parsed command: a library command on its request, or the program's run(). */
sd_status cli_run(const cli_args *a, sd_table **out, sd_error *err);

/* The command called name[0..len-1] in table (NULL-terminated), or NULL: the
 * one lookup of commands, for main and merge. */
const cli_command *cli_find_command(const cli_command *const *table, const char *name, size_t len);

/* Parses argv (after the command name) into a's request through the
 * command's rows (a value is checked against its field's domain as it is
 * read).  Sets *help when --help is given.  The format name, if given, is
 * returned in *format (else NULL).  Free a with cli_args_free, whatever it
 * returns. */
sd_status cli_parse(const cli_command *cmd, int argc, char **argv, cli_args *a, int *help,
                    const char **format, sd_error *err);

/* 1 when the option was given (the command's, or the program's --shard and --sweep). */
int cli_given(const cli_args *a, const char *name);
/* A text option's value (the command's, or --shard's and --sweep's), or NULL. */
const char *cli_value(const cli_args *a, const char *name);

/* The program's own options of a command: the scale-out's (--shard, --sweep, scale.c), whose
 * offsets are into cli_args; NULL for a command that does not scale. */
const sd_command_field *cli_program_fields(const cli_command *c);

/* ---- help.c ------------------------------------------------------------------------ */

/* `specdec --help`: the commands of table and the conventions. */
void cli_help_usage(const cli_command *const *table);
/* `specdec COMMAND --help`: the synopsis, every option with its help filled in. */
void cli_help_command(const cli_command *c);

/* ---- scale.c: --shard, --sweep, --format partial; the job merge re-runs --------------- */


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
