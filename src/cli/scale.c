/* scale.c -- Monte Carlo beyond one process: --shard I/N, --sweep FILE,
 * --format partial, and `specdec merge`.
 *
 * One mechanism serves all four: a job is a list of invocations of one
 * command (one, or a sweep file's rows), each run as usual through
 * cli_parse and the command's run().  A shard runs every invocation with
 * the engine's record hook, which collects each engine run's counts over
 * the shard's chunks into a partial result (partial.h), and prints that
 * instead of the tables; the partial carries the invocations as context
 * lines.  `merge` checks and merges the parts, then runs the same
 * invocations again with the replay hook, which hands each engine run the
 * merged counts instead of running it -- so the tables are computed by the
 * very code that computes them unsharded, from the same numbers.  A
 * command that replicates a simulation itself (serving) does the same
 * through cli_replicas: a shard runs its share of the replications and
 * records their values, merge hands them all back.
 */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEP '\x1f' /* between a stored invocation's arguments */

/* ---- the job: its invocations ----------------------------------------------------------- */

typedef struct {
    char **argv; /* the command's arguments, without --shard, --sweep and --format */
    int argc;
    size_t row;  /* the sweep row (its file line), 0 without a sweep */
} invocation;

typedef struct {
    invocation *inv;
    size_t n;
    char *data_dir; /* the global --data, or NULL */
    const cli_command *const *commands; /* the program's table, handed to each run */
} job;

static void job_free(job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        for (int k = 0; k < j->inv[i].argc; k++)
            free(j->inv[i].argv[k]);
        free(j->inv[i].argv);
    }
    free(j->inv);
    free(j->data_dir);
    *j = (job){ 0 };
}

static sd_status no_memory(sd_error *err) { return sd_status_fail(err, SD_ENOMEM, "out of memory"); }

static sd_status add_arg(invocation *v, const char *text, sd_error *err)
{
    char **a = realloc(v->argv, (size_t)(v->argc + 1) * sizeof *a);
    if (a != NULL)
        v->argv = a;
    if (a == NULL || (a[v->argc] = strdup(text)) == NULL)
        return no_memory(err);
    v->argc++;
    return SD_OK;
}

static sd_status add_invocation(job *j, sd_error *err)
{
    invocation *v = realloc(j->inv, (j->n + 1) * sizeof *v);
    if (v == NULL)
        return no_memory(err);
    j->inv = v;
    j->inv[j->n++] = (invocation){ 0 };
    return SD_OK;
}

/* An option of the scale-out layer: --shard, --sweep, --format (with its value). */
static int scale_option(const char *arg, int *takes_value)
{
    static const char *const names[] = { "--shard", "--sweep", "--format" };
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(arg, names[i], n) == 0 && (arg[n] == '\0' || arg[n] == '=')) {
            *takes_value = arg[n] == '\0';
            return 1;
        }
    }
    return 0;
}

/* The invocations of cmd with argv: one, or one per row of --sweep FILE,
 * whose columns name options ("alpha" or "--alpha") added to the rest. */
static sd_status build_job(const cli_args *a, int argc, char **argv, job *j, sd_error *err)
{
    sd_status st = add_invocation(j, err);
    for (int i = 0; i < argc && st == SD_OK; i++) {
        int takes;
        if (scale_option(argv[i], &takes)) {
            i += takes;
            continue;
        }
        st = add_arg(&j->inv[0], argv[i], err);
    }
    if (st != SD_OK || !cli_given(a, "--sweep"))
        return st;
    const char *path = cli_value(a, "--sweep");
    sd_tsv t;
    if ((st = sd_tsv_load(path, 1, 100000, &t, err)) != SD_OK)
        return st;
    if (t.nrows == 0)
        st = sd_status_fail(err, SD_EINVAL, "--sweep: %s has no rows", path);
    for (size_t c = 0; c < t.ncolumns && st == SD_OK; c++)
        if (strcmp(t.column[c], "--sweep") == 0 || strcmp(t.column[c], "sweep") == 0 ||
            strcmp(t.column[c], "shard") == 0 || strcmp(t.column[c], "--shard") == 0 ||
            strcmp(t.column[c], "format") == 0 || strcmp(t.column[c], "--format") == 0)
            st = sd_status_fail(err, SD_EINVAL, "--sweep: %s: column '%s' cannot vary in a sweep", path, t.column[c]);
    invocation base = j->inv[0];
    j->inv[0] = (invocation){ 0 };
    j->n = 0;
    for (size_t r = 0; r < t.nrows && st == SD_OK; r++) {
        if ((st = add_invocation(j, err)) != SD_OK)
            break;
        invocation *v = &j->inv[j->n - 1];
        v->row = t.row[r].line;
        for (int k = 0; k < base.argc && st == SD_OK; k++)
            st = add_arg(v, base.argv[k], err);
        for (size_t c = 0; c < t.ncolumns && st == SD_OK; c++) {
            char flag[256];
            snprintf(flag, sizeof flag, "%s%s", strncmp(t.column[c], "--", 2) == 0 ? "" : "--", t.column[c]);
            if ((st = add_arg(v, flag, err)) == SD_OK)
                st = add_arg(v, t.row[r].field[c], err);
        }
    }
    for (int k = 0; k < base.argc; k++)
        free(base.argv[k]);
    free(base.argv);
    sd_tsv_free(&t);
    return st;
}

/* ---- running the invocations -------------------------------------------------------------- */

/* Appends src's rows and notes to dst (the same columns). */
static sd_status append_table(sd_table *dst, const sd_table *src, size_t row, sd_error *err)
{
    size_t nc = sd_table_ncols(src);
    if (nc != sd_table_ncols(dst))
        return sd_status_fail(err, SD_EINVAL, "--sweep: row at line %zu gives a table of other columns", row);
    for (size_t c = 0; c < nc; c++)
        if (strcmp(sd_table_name(src, c), sd_table_name(dst, c)) != 0)
            return sd_status_fail(err, SD_EINVAL, "--sweep: row at line %zu gives a table of other columns", row);
    sd_cell *cells = malloc((nc ? nc : 1) * sizeof *cells);
    if (cells == NULL)
        return no_memory(err);
    sd_status st = SD_OK;
    for (size_t r = 0; r < sd_table_nrows(src) && st == SD_OK; r++) {
        for (size_t c = 0; c < nc; c++)
            cells[c] = *sd_table_cell(src, r, c);
        st = sd_table_add(dst, cells, err);
    }
    free(cells);
    for (size_t i = 0; i < sd_table_nnotes(src) && st == SD_OK; i++)
        st = row ? sd_table_note(dst, err, "sweep row at line %zu: %s", row, sd_table_note_at(src, i))
                 : sd_table_note(dst, err, "%s", sd_table_note_at(src, i));
    return st;
}

/* A failure st of invocation v: err names its sweep row, if it has one. */
static void name_row(const invocation *v, sd_status st, sd_error *err)
{
    if (v->row == 0)
        return;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    sd_status_fail(err, st, "%s (sweep row at line %zu)", msg, v->row);
}

/* Runs every invocation of j with cmd and the hooks, into one table
 * (*out, NULL when out is NULL: a shard keeps no tables).  SD_ECHECK when
 * a run reported a failed check and all else went well. */
static sd_status run_job(const cli_command *cmd, const job *j, uint32_t shard, uint32_t nshards,
                         const sd_engine_io *io, cli_replicas_io *reps, sd_table **out, sd_error *err)
{
    sd_status st = SD_OK, worst = SD_OK;
    sd_table *all = NULL;
    for (size_t i = 0; i < j->n && (st == SD_OK || st == SD_ECHECK); i++) {
        cli_args a;
        int help;
        const char *fmt;
        const invocation *v = &j->inv[i];
        if ((st = cli_parse(cmd, v->argc, v->argv, &a, &help, &fmt, err)) != SD_OK) {
            cli_args_free(&a);
            name_row(v, st, err);
            break;
        }
        if (help) {
            cli_args_free(&a);
            sd_table_free(all);
            return sd_status_fail(err, SD_EINVAL, "--help cannot be part of a sharded or swept run");
        }
        a.data_dir = j->data_dir;
        a.commands = j->commands;
        a.shard = shard;
        a.nshards = nshards;
        a.io = io;
        a.replicas = reps;
        sd_table *t = NULL;
        st = cli_run(&a, &t, err);
        cli_args_free(&a);
        if (st == SD_ECHECK)
            worst = SD_ECHECK;
        if ((st == SD_OK || st == SD_ECHECK) && out != NULL) {
            if (all == NULL) {
                all = t;
                t = NULL;
            } else if (append_table(all, t, v->row, err) != SD_OK) {
                st = SD_EINVAL;
            }
        }
        sd_table_free(t);
        if (st != SD_OK && st != SD_ECHECK)
            name_row(v, st, err);
    }
    if (st != SD_OK && st != SD_ECHECK) {
        sd_table_free(all);
        return st;
    }
    if (out != NULL)
        *out = all;
    else
        sd_table_free(all);
    return worst;
}

static sd_status record_run(void *arg, uint64_t fingerprint, const sd_engine_stats *s, sd_error *err)
{
    return sd_partial_add_run(arg, fingerprint, s, err);
}

typedef struct {
    sd_partial *merged;
    size_t next;
} replayer;

static sd_status replay_run(void *arg, uint64_t fingerprint, sd_engine_stats *out, sd_error *err)
{
    replayer *r = arg;
    if (r->next >= r->merged->nruns)
        return sd_status_fail(err, SD_EINVAL, "merge: the command runs the engine more often than the parts recorded "
                              "(another specdec version?)");
    sd_partial_run *run = &r->merged->runs[r->next++];
    if (run->fingerprint != fingerprint)
        return sd_status_fail(err, SD_EINVAL, "merge: engine run %zu of the parts had another configuration or model "
                              "than the command asks for now (changed data files or specdec version?)", r->next);
    *out = run->stats; /* moved: each run is replayed once */
    run->stats = (sd_engine_stats){ 0 };
    return SD_OK;
}

void cli_engine_hooks(const cli_args *a, uint32_t *shard, uint32_t *nshards, const sd_engine_io **io)
{
    *shard = a->shard;
    *nshards = a->nshards;
    *io = a->io;
}

sd_status cli_replicas(const cli_args *a, uint64_t fp, size_t R, size_t nfields, sd_cmd_serving_replica run, void *arg,
                       double *value, sd_error *err)
{
    cli_replicas_io *io = a->replicas;
    if (io != NULL && io->merged != NULL) { /* merge: the parts' values */
        const sd_partial *m = io->merged;
        if (io->next >= m->nreplicas)
            return sd_status_fail(err, SD_EINVAL, "merge: the command runs more replication sets than the parts "
                                  "recorded (another specdec version?)");
        const sd_partial_replicas *x = &m->replicas[io->next++];
        if (x->fingerprint != fp || x->nslots != R || x->nfields != nfields)
            return sd_status_fail(err, SD_EINVAL, "merge: replication set %zu of the parts had another configuration "
                                  "than the command asks for now (changed data files or specdec version?)", io->next);
        memcpy(value, x->value, R * nfields * sizeof *value);
        return SD_OK;
    }
    sd_partial *p = io != NULL ? io->part : NULL;
    size_t offset = 0; /* the replications of the job's earlier sets */
    for (size_t i = 0; p != NULL && i < p->nreplicas; i++)
        offset += p->replicas[i].nslots;
    unsigned char *have = calloc(R, 1);
    if (have == NULL)
        return no_memory(err);
    sd_status st = SD_OK;
    for (size_t k = 0; k < R && st == SD_OK; k++) {
        have[k] = p == NULL || a->nshards <= 1 || (offset + k) % a->nshards == a->shard - 1;
        if (have[k])
            st = run(arg, k, value + k * nfields, err);
        else
            for (size_t f = 0; f < nfields; f++)
                value[k * nfields + f] = NAN;
    }
    if (st == SD_OK && p != NULL)
        st = sd_partial_add_replicas(p, fp, R, nfields, value, have, err);
    free(have);
    return st;
}

/* The job's invocations as context lines: "data DIR", then per invocation
 * "run ROW COMMAND<US>ARG<US>ARG...", without --threads: shards may use
 * any number of threads and still be parts of one job. */
static sd_status job_context(const cli_command *cmd, const job *j, sd_partial *p, sd_error *err)
{
    sd_status st = SD_OK;
    if (j->data_dir != NULL) {
        char *line = malloc(strlen(j->data_dir) + 6);
        if (line == NULL)
            return no_memory(err);
        sprintf(line, "data %s", j->data_dir);
        st = sd_partial_add_context(p, line, err);
        free(line);
    }
    for (size_t i = 0; i < j->n && st == SD_OK; i++) {
        size_t len = strlen(cmd->name) + 8;
        for (int k = 0; k < j->inv[i].argc; k++) {
            if (strchr(j->inv[i].argv[k], SEP) != NULL)
                return sd_status_fail(err, SD_EINVAL, "an argument holds the byte 0x1f, which a partial result cannot keep");
            len += strlen(j->inv[i].argv[k]) + 1;
        }
        char *line = malloc(len + 32);
        if (line == NULL)
            return no_memory(err);
        int n = sprintf(line, "run %zu %s", j->inv[i].row, cmd->name);
        for (int k = 0; k < j->inv[i].argc; k++) {
            const char *arg = j->inv[i].argv[k];
            if (strcmp(arg, "--threads") == 0 || strncmp(arg, "--threads=", 10) == 0) { /* never changes a result */
                k += arg[9] == '\0';
                continue;
            }
            n += sprintf(line + n, "%c%s", SEP, arg);
        }
        st = sd_partial_add_context(p, line, err);
        free(line);
    }
    return st;
}

/* ---- `COMMAND --shard I/N`, `--format partial`, `--sweep FILE` ----------------------------- */

static sd_status parse_shard(const char *text, uint32_t *shard, uint32_t *nshards, sd_error *err)
{
    static const sd_domain I = { "--shard", 1, 1048576, 1 };
    const char *slash = text ? strchr(text, '/') : NULL;
    char left[64];
    if (slash == NULL || (size_t)(slash - text) >= sizeof left)
        return sd_status_fail(err, SD_EINVAL, "--shard: '%s' is not I/N (shard I of N, 1 <= I <= N <= 1048576)",
                              text ? text : "");
    memcpy(left, text, (size_t)(slash - text));
    left[slash - text] = '\0';
    double i, n;
    sd_status st;
    if ((st = sd_parse_number(left, &I, &i, err)) != SD_OK || (st = sd_parse_number(slash + 1, &I, &n, err)) != SD_OK)
        return st;
    if (i > n)
        return sd_status_fail(err, SD_EINVAL, "--shard: %s: shard %.0f of %.0f does not exist (1 <= I <= N)", text, i, n);
    *shard = (uint32_t)i;
    *nshards = (uint32_t)n;
    return SD_OK;
}

sd_status cli_scale_run(const cli_command *cmd, const cli_args *a, int argc, char **argv, int partial,
                        sd_table **out, sd_partial *part, sd_error *err)
{
    uint32_t shard = 1, nshards = 1;
    job j = { 0 };
    sd_status st = SD_OK;
    *out = NULL;
    *part = sd_partial_init(1, 1);
    if (cli_given(a, "--shard") && (st = parse_shard(cli_value(a, "--shard"), &shard, &nshards, err)) != SD_OK)
        return st;
    if (a->data_dir != NULL && (j.data_dir = strdup(a->data_dir)) == NULL)
        return no_memory(err);
    j.commands = a->commands;
    if ((st = build_job(a, argc, argv, &j, err)) != SD_OK) {
        job_free(&j);
        return st;
    }
    if (!partial) {
        st = run_job(cmd, &j, 1, 1, NULL, NULL, out, err);
        job_free(&j);
        return st;
    }
    *part = sd_partial_init(shard, nshards);
    sd_engine_io io = { .record = record_run, .arg = part };
    cli_replicas_io reps = { .part = part };
    if ((st = job_context(cmd, &j, part, err)) == SD_OK) {
        st = run_job(cmd, &j, shard, nshards, &io, &reps, NULL, err);
        if (st == SD_ECHECK) /* a shard's verdict means nothing: the merge decides */
            st = SD_OK;
    }
    if (st != SD_OK)
        sd_partial_free(part);
    job_free(&j);
    return st;
}

/* ---- `specdec merge FILE...` ------------------------------------------------------------------ */

/* Every partial in the files (several may follow one another in one file, or on "-"). */
static sd_status read_parts(const cli_args *a, sd_partial **parts, char ***names, size_t *n, sd_error *err)
{
    sd_status st = SD_OK;
    for (int f = 0; f < a->npos && st == SD_OK; f++) {
        const char *path = a->pos[f];
        int is_stdin = strcmp(path, "-") == 0;
        FILE *in = is_stdin ? stdin : fopen(path, "r");
        if (in == NULL) {
            st = sd_status_fail(err, SD_EINVAL, "%s: cannot open: %s", path, strerror(errno));
            break;
        }
        size_t line = 0;
        for (int got = 1, k = 0; got && st == SD_OK; k++) {
            sd_partial p;
            if ((st = sd_partial_read(in, is_stdin ? "-" : path, &line, &p, &got, err)) != SD_OK || !got) {
                if (st == SD_OK && k == 0)
                    st = sd_status_fail(err, SD_EINVAL, "%s: empty: no partial result in it", path);
                break;
            }
            sd_partial *np = realloc(*parts, (*n + 1) * sizeof *np);
            char **nn = np ? realloc(*names, (*n + 1) * sizeof *nn) : NULL;
            if (np != NULL)
                *parts = np;
            if (nn != NULL)
                *names = nn;
            char label[4200];
            snprintf(label, sizeof label, "%s (shard %" PRIu32 "/%" PRIu32 ")", path, p.shard, p.nshards);
            if (np == NULL || nn == NULL || (nn[*n] = strdup(label)) == NULL) {
                sd_partial_free(&p);
                st = no_memory(err);
                break;
            }
            (*parts)[(*n)++] = p;
        }
        if (!is_stdin)
            fclose(in);
    }
    return st;
}

/* The merged context lines back into a job; *cmd from the first "run" line. */
static sd_status job_from_context(const cli_command *const *commands, const sd_partial *m, const cli_command **cmd,
                                  job *j, sd_error *err)
{
    sd_status st = SD_OK;
    *cmd = NULL;
    for (size_t i = 0; i < m->ncontext && st == SD_OK; i++) {
        const char *line = m->context[i];
        if (strncmp(line, "data ", 5) == 0) {
            free(j->data_dir);
            if ((j->data_dir = strdup(line + 5)) == NULL)
                st = no_memory(err);
            continue;
        }
        size_t row;
        int used = 0;
        if (sscanf(line, "run %zu %n", &row, &used) != 1 || used == 0)
            return sd_status_fail(err, SD_EINVAL, "merge: the parts hold a context line specdec does not know: %.60s", line);
        const char *name = line + used, *sep = strchr(name, SEP);
        size_t nlen = sep ? (size_t)(sep - name) : strlen(name);
        const cli_command *c = cli_find_command(commands, name, nlen);
        if (c == NULL || (*cmd != NULL && c != *cmd) || !c->scales)
            return sd_status_fail(err, SD_EINVAL, "merge: the parts name a command that cannot be merged: %.*s", (int)nlen,
                                  name);
        *cmd = c;
        if ((st = add_invocation(j, err)) != SD_OK)
            break;
        invocation *v = &j->inv[j->n - 1];
        v->row = row;
        while (sep != NULL && st == SD_OK) {
            const char *start = sep + 1;
            sep = strchr(start, SEP);
            size_t len = sep ? (size_t)(sep - start) : strlen(start);
            char *arg = strndup(start, len);
            st = arg ? add_arg(v, arg, err) : no_memory(err);
            free(arg);
        }
    }
    if (st == SD_OK && *cmd == NULL)
        st = sd_status_fail(err, SD_EINVAL, "merge: the parts record no command");
    return st;
}

sd_status cli_scale_merge(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_partial *parts = NULL, merged = { 0 };
    char **names = NULL;
    size_t n = 0;
    job j = { .commands = a->commands };
    const cli_command *cmd = NULL;
    sd_status st;
    *out = NULL;
    if ((st = read_parts(a, &parts, &names, &n, err)) == SD_OK &&
        (st = sd_partial_merge(parts, (const char *const *)names, n, &merged, err)) == SD_OK &&
        (st = job_from_context(a->commands, &merged, &cmd, &j, err)) == SD_OK) {
        replayer r = { &merged, 0 };
        sd_engine_io io = { .replay = replay_run, .arg = &r };
        cli_replicas_io reps = { .merged = &merged };
        st = run_job(cmd, &j, 1, 1, &io, &reps, out, err);
        if ((st == SD_OK || st == SD_ECHECK) && (r.next != merged.nruns || reps.next != merged.nreplicas)) {
            sd_table_free(*out);
            *out = NULL;
            st = sd_status_fail(err, SD_EINVAL, "merge: the parts hold %zu engine runs and %zu replication sets, the "
                                "command used %zu and %zu (another specdec version?)", merged.nruns, merged.nreplicas,
                                r.next, reps.next);
        }
    }
    for (size_t i = 0; i < n; i++) {
        sd_partial_free(&parts[i]);
        free(names[i]);
    }
    free(parts);
    free(names);
    sd_partial_free(&merged);
    job_free(&j);
    return st;
}
