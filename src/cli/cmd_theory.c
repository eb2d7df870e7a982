/* cmd_theory.c -- the closed-form commands: speedup, optimal, expect. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Notes only for small grids: beyond this many (alpha, cost) pairs the
 * table speaks for itself. */
enum { MAX_NOTES = 8 };

/* One sentence about the optimum for (alpha, cost), for the text notes. */
static sd_status note_optimum(sd_table *t, double alpha, double cost, const sd_optimum *o,
                              sd_error *err)
{
    if (o->gamma_opt <= 0.0)
        return sd_table_note(t, err, "alpha %g <= cost %g: no gamma speeds decoding up; do not speculate "
                             "(gamma_opt 0).", alpha, cost);
    if (isinf(o->gamma_opt))
        return sd_table_note(t, err, "alpha %g, cost %g: the improvement grows with gamma toward %.5g "
                             "without reaching it (gamma_opt inf).", alpha, cost, o->improvement_opt);
    return sd_table_note(t, err, "alpha %g, cost %g: optimum gamma = %.0f, improvement %.5g, "
                         "E(N) %.5g (eq. 10 maximised; continuous optimum %.4g, ceiling %.5g).",
                         alpha, cost, o->gamma_opt, o->improvement_opt, o->expected_tokens_opt,
                         o->gamma_continuous, o->ceiling);
}

/* ---- inputs: a grid of lists, or the rows of a scenario file (--from) ------------- */

/* Columns a scenario file may carry beyond name, alpha, cost, gamma and mu;
 * they are passed through to the output as text. */
static const char *const PASSTHROUGH[] = { "temperature", "source", "reported", "measured" };
enum { NPASS = 4, MAX_COLS = 24 };

typedef struct {
    double alpha, cost, mu, gamma;
    const sd_tsv_row *row; /* its scenario line, in --from mode */
    const double *acc;     /* per-position acceptance a_1..a_gamma, in --acceptance mode */
} point;

typedef struct {
    sd_list l[4]; /* alpha, cost, mu, gamma */
    sd_list acc;  /* --acceptance */
    sd_tsv tsv;
    size_t name_col, pass_col[NPASS];
    point *pts;
    size_t n;
} inputs;

static void inputs_free(inputs *in)
{
    for (int j = 0; j < 4; j++)
        sd_parse_list_free(&in->l[j]);
    sd_parse_list_free(&in->acc);
    sd_tsv_free(&in->tsv);
    free(in->pts);
}

/* E(N) at a point: eq. (4), or the product form for an acceptance vector. */
static double point_tokens(const point *p)
{
    return p->acc ? sd_theory_expected_tokens_vec(p->acc, (size_t)p->gamma)
                  : sd_theory_expected_tokens(p->alpha, p->gamma);
}

static const sd_domain ACCEPTANCE = { "--acceptance", 0.0, 1.0, 0 };

/* --acceptance a1,...,aG with --cost: one point per gamma = 1..G (or one, for
 * optimal); alpha is the i.i.d. acceptance with the same E(N) (eq. 4 inverted). */
static sd_status load_vector(const cli_args *a, int uses_gamma, inputs *in, sd_error *err)
{
    static const char *const excluded[] = { "--alpha", "--gamma", "--from", NULL };
    for (int i = 0; excluded[i] != NULL; i++)
        if (cli_given(a, excluded[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: --acceptance gives the draft positions; it excludes %s",
                                  excluded[i], excluded[i]);
    sd_status st;
    if ((st = cli_list(a, &ACCEPTANCE, NULL, &in->acc, err)) != SD_OK ||
        (st = cli_list(a, &CLI_COST, NULL, &in->l[1], err)) != SD_OK ||
        (st = cli_list(a, &CLI_MU, "0", &in->l[2], err)) != SD_OK)
        return st;
    if (in->acc.n > 1000000)
        return sd_status_fail(err, SD_EINVAL, "--acceptance: at most 1000000 positions");
    size_t per = uses_gamma ? in->acc.n : 1, n;
    const size_t counts[] = { per, in->l[1].n, in->l[2].n };
    if ((st = cli_rows(counts, 3, &n, err)) != SD_OK)
        return st;
    if ((in->pts = malloc(n * sizeof *in->pts)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t g = uses_gamma ? i % per + 1 : in->acc.n;
        point *p = &in->pts[i];
        *p = (point){ 0, in->l[1].v[i / per / in->l[2].n], in->l[2].v[(i / per) % in->l[2].n], (double)g, NULL,
                      in->acc.v };
        if ((st = sd_theory_alpha_from_length(point_tokens(p), (double)g, &p->alpha, err)) != SD_OK)
            return st;
    }
    in->n = n;
    return SD_OK;
}

/* One number of a scenario row, checked like the option of the same name. */
static sd_status scenario_number(const inputs *in, const char *path, const sd_tsv_row *r, const sd_domain *dom,
                                 const char *column, double dflt, double *out, sd_error *err)
{
    size_t j = sd_tsv_column(&in->tsv, column);
    if (j == (size_t)-1) {
        *out = dflt;
        return SD_OK;
    }
    char where[600];
    snprintf(where, sizeof where, "%s:%zu: %s", path, r->line, column);
    sd_domain d = *dom;
    d.name = where;
    return sd_parse_number(r->field[j], &d, out, err);
}

/* Fills in->pts from --from FILE (columns name, alpha, cost, [gamma], [mu] and
 * the pass-through ones) or from the lists; uses_gamma says whether the
 * command reads gamma. */
static sd_status load_inputs(const cli_args *a, int uses_gamma, inputs *in, sd_error *err)
{
    memset(in, 0, sizeof *in);
    in->name_col = (size_t)-1;
    const char *path = cli_value(a, "--from");
    sd_status st;
    if (cli_given(a, "--acceptance"))
        return load_vector(a, uses_gamma, in, err);
    if (path == NULL) {
        size_t rows;
        if ((st = cli_list(a, &CLI_ALPHA, NULL, &in->l[0], err)) != SD_OK ||
            (st = cli_list(a, &CLI_COST, NULL, &in->l[1], err)) != SD_OK ||
            (st = cli_list(a, &CLI_MU, "0", &in->l[2], err)) != SD_OK ||
            (st = cli_list(a, &CLI_GAMMA, uses_gamma ? "1:25" : "1", &in->l[3], err)) != SD_OK ||
            (st = cli_grid_size(in->l, 4, &rows, err)) != SD_OK)
            return st;
        if ((in->pts = malloc(rows * sizeof *in->pts)) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", rows);
        for (size_t i = 0; i < rows; i++) {
            double x[4];
            cli_grid_point(in->l, 4, i, x);
            in->pts[i] = (point){ x[0], x[1], x[2], x[3], NULL, NULL };
        }
        in->n = rows;
        return SD_OK;
    }
    static const char *const grid_options[] = { "--alpha", "--cost", "--gamma", "--mu", NULL };
    for (int i = 0; grid_options[i] != NULL; i++)
        if (cli_given(a, grid_options[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: give the parameters either as options or with --from, not both",
                                  grid_options[i]);
    if ((st = sd_tsv_load(path, 1, SD_LIST_MAX, &in->tsv, err)) != SD_OK)
        return st;
    if (in->tsv.ncolumns > MAX_COLS)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu columns; at most %d", path, in->tsv.ncolumns, MAX_COLS);
    for (size_t j = 0; j < in->tsv.ncolumns; j++) {
        const char *c = in->tsv.column[j];
        int known = !strcmp(c, "name") || !strcmp(c, "alpha") || !strcmp(c, "cost") || !strcmp(c, "gamma") ||
                    !strcmp(c, "mu");
        for (int k = 0; k < NPASS; k++)
            known |= !strcmp(c, PASSTHROUGH[k]);
        if (!known)
            return sd_status_fail(err, SD_EINVAL, "%s: unknown column '%s'; expected name, alpha, cost, gamma, mu, "
                                  "temperature, source, reported, measured", path, c);
        if (sd_tsv_column(&in->tsv, c) != j)
            return sd_status_fail(err, SD_EINVAL, "%s: column '%s' appears twice", path, c);
    }
    static const char *const required[] = { "name", "alpha", "cost", "gamma" };
    for (int k = 0; k < (uses_gamma ? 4 : 3); k++)
        if (sd_tsv_column(&in->tsv, required[k]) == (size_t)-1)
            return sd_status_fail(err, SD_EINVAL, "%s: no '%s' column; a scenario file needs name, alpha, cost%s", path,
                                  required[k], uses_gamma ? ", gamma" : "");
    in->name_col = sd_tsv_column(&in->tsv, "name");
    for (int k = 0; k < NPASS; k++)
        in->pass_col[k] = sd_tsv_column(&in->tsv, PASSTHROUGH[k]);
    if ((in->pts = malloc((in->tsv.nrows ? in->tsv.nrows : 1) * sizeof *in->pts)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < in->tsv.nrows; i++) {
        const sd_tsv_row *r = &in->tsv.row[i];
        point *p = &in->pts[i];
        *p = (point){ 0, 0, 0, 0, r, NULL };
        if ((st = scenario_number(in, path, r, &CLI_ALPHA, "alpha", 0, &p->alpha, err)) != SD_OK ||
            (st = scenario_number(in, path, r, &CLI_COST, "cost", 0, &p->cost, err)) != SD_OK ||
            (st = scenario_number(in, path, r, &CLI_MU, "mu", 0, &p->mu, err)) != SD_OK ||
            (uses_gamma && (st = scenario_number(in, path, r, &CLI_GAMMA, "gamma", 1, &p->gamma, err)) != SD_OK))
            return st;
        if (r->field[in->name_col][0] == '\0')
            return sd_status_fail(err, SD_EINVAL, "%s:%zu: empty name", path, r->line);
    }
    if (in->tsv.nrows == 0)
        return sd_status_fail(err, SD_EINVAL, "%s: no scenario rows under the header", path);
    in->n = in->tsv.nrows;
    return SD_OK;
}

/* The output columns: name first and pass-through columns last in --from mode. */
static size_t columns(const inputs *in, const char *const *core, size_t ncore, const char **cols)
{
    size_t n = 0;
    if (in->name_col != (size_t)-1)
        cols[n++] = "name";
    for (size_t j = 0; j < ncore; j++)
        cols[n++] = core[j];
    for (int k = 0; in->name_col != (size_t)-1 && k < NPASS; k++)
        if (in->pass_col[k] != (size_t)-1)
            cols[n++] = PASSTHROUGH[k];
    return n;
}

/* Adds one row: name, the core cells, the pass-through cells. */
static sd_status add_point_row(sd_table *t, const inputs *in, const point *p, const sd_cell *core, size_t ncore,
                               sd_error *err)
{
    sd_cell row[MAX_COLS + 16];
    size_t n = 0;
    if (p->row != NULL)
        row[n++] = sd_text(p->row->field[in->name_col]);
    for (size_t j = 0; j < ncore; j++)
        row[n++] = core[j];
    for (int k = 0; p->row != NULL && k < NPASS; k++)
        if (in->pass_col[k] != (size_t)-1)
            row[n++] = sd_text(p->row->field[in->pass_col[k]]);
    return sd_table_add(t, row, err);
}

static sd_status run_speedup(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const core[] = { "alpha", "cost", "mu", "gamma", "expected_tokens",
                                        "cost_factor", "improvement", "flop_factor" };
    enum { NCORE = sizeof core / sizeof core[0] };
    inputs in;
    const char *cols[MAX_COLS + 16];
    sd_table *t = NULL;
    sd_status st;
    if ((st = load_inputs(a, 1, &in, err)) != SD_OK ||
        (st = cli_table(columns(&in, core, NCORE, cols), cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < in.n && st == SD_OK; i++) {
        const point *p = &in.pts[i];
        const sd_cell cells[NCORE] = {
            sd_real(p->alpha), sd_real(p->cost), sd_real(p->mu), sd_int((long long)p->gamma),
            sd_real(point_tokens(p)),
            sd_real(sd_theory_cost_factor(p->gamma, p->cost)),
            sd_real(sd_theory_improvement_at(point_tokens(p), p->gamma, p->cost)),
            sd_real(sd_theory_flop_factor_at(point_tokens(p), p->gamma, p->mu)),
        };
        st = add_point_row(t, &in, p, cells, NCORE, err);
    }
    /* Grid mode, for each (alpha, cost) pair: the best listed gamma and the true optimum. */
    size_t pairs = in.l[0].n * in.l[1].n;
    for (size_t k = 0; st == SD_OK && pairs <= MAX_NOTES && k < pairs; k++) {
        double alpha = in.l[0].v[k / in.l[1].n], cost = in.l[1].v[k % in.l[1].n];
        double best_g = in.l[3].v[0], best_f = -1.0;
        for (size_t j = 0; j < in.l[3].n; j++) {
            double f = sd_theory_improvement(alpha, in.l[3].v[j], cost);
            if (f > best_f) {
                best_f = f;
                best_g = in.l[3].v[j];
            }
        }
        sd_optimum o;
        if ((st = sd_theory_optimal(alpha, cost, &o, err)) != SD_OK)
            break;
        int listed_is_optimal = o.gamma_opt > 0.0 && o.gamma_opt < INFINITY && !(best_f < o.improvement_opt);
        if (!listed_is_optimal)
            st = sd_table_note(t, err, "alpha %g, cost %g: best listed gamma = %.0f (improvement %.5g).",
                               alpha, cost, best_g, best_f);
        if (st == SD_OK)
            st = note_optimum(t, alpha, cost, &o, err);
    }
done:
    inputs_free(&in);
    return cli_finish(st, NULL, 0, t, out);
}

static sd_status run_optimal(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const core[] = { "alpha", "cost", "gamma_opt", "improvement_opt",
                                        "expected_tokens_opt", "gamma_continuous", "ceiling" };
    enum { NCORE = sizeof core / sizeof core[0] };
    inputs in;
    const char *cols[MAX_COLS + 16];
    sd_table *t = NULL;
    sd_status st;
    if ((st = load_inputs(a, 0, &in, err)) != SD_OK ||
        (st = cli_table(columns(&in, core, NCORE, cols), cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < in.n && st == SD_OK; i++) {
        const point *p = &in.pts[i];
        sd_optimum o;
        double alpha = p->alpha;
        if (p->acc != NULL) { /* a vector: scan it; the best gamma's effective alpha; the ceiling at gamma = G */
            if ((st = sd_theory_optimal_vec(p->acc, (size_t)p->gamma, p->cost, &o, err)) != SD_OK ||
                (o.gamma_opt >= 1 &&
                 (st = sd_theory_alpha_from_length(o.expected_tokens_opt, o.gamma_opt, &alpha, err)) != SD_OK))
                break;
            o.gamma_continuous = o.gamma_opt;
            o.ceiling = point_tokens(p);
        } else if ((st = sd_theory_optimal(p->alpha, p->cost, &o, err)) != SD_OK) {
            break;
        }
        const sd_cell cells[NCORE] = { sd_real(alpha), sd_real(p->cost), sd_real(o.gamma_opt),
                                       sd_real(o.improvement_opt), sd_real(o.expected_tokens_opt),
                                       sd_real(o.gamma_continuous), sd_real(o.ceiling) };
        if ((st = add_point_row(t, &in, p, cells, NCORE, err)) == SD_OK && in.n <= MAX_NOTES && p->row == NULL &&
            p->acc == NULL)
            st = note_optimum(t, p->alpha, p->cost, &o, err);
    }
done:
    inputs_free(&in);
    return cli_finish(st, NULL, 0, t, out);
}

static sd_status run_expect(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "alpha", "gamma", "n", "pmf", "survival" };
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    size_t pairs = 0;
    sd_status st;
    if ((st = cli_list(a, &CLI_ALPHA, NULL, &l[0], err)) != SD_OK ||
        (st = cli_list(a, &CLI_GAMMA, NULL, &l[1], err)) != SD_OK ||
        (st = cli_grid_size(l, 2, &pairs, err)) != SD_OK)
        goto done;
    double rows = 0.0;
    for (size_t j = 0; j < l[1].n; j++)
        rows += (l[1].v[j] + 1.0) * (double)l[0].n;
    if (rows > SD_LIST_MAX) {
        st = sd_status_fail(err, SD_EINVAL, "--gamma: %.0f rows of n = 1..gamma+1 exceed the limit of %u",
                            rows, SD_LIST_MAX);
        goto done;
    }
    if ((st = cli_table(5, cols, &t, err)) != SD_OK)
        goto done;
    for (size_t i = 0; i < pairs && st == SD_OK; i++) {
        double x[2];
        cli_grid_point(l, 2, i, x);
        for (double n = 1.0; n <= x[1] + 1.0 && st == SD_OK; n += 1.0) {
            const sd_cell row[] = { sd_real(x[0]), sd_int((long long)x[1]), sd_int((long long)n),
                                    sd_real(sd_theory_pmf(x[0], x[1], n)),
                                    sd_real(sd_theory_survival(x[0], x[1], n)) };
            st = sd_table_add(t, row, err);
        }
    }
done:
    return cli_finish(st, l, 2, t, out);
}

static const cli_option speedup_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1] (eq. 7)" },
    { "--cost", "LIST", "draft/target time ratio c, in [0, inf) (eq. 8)" },
    { "--gamma", "LIST", "draft lengths, whole numbers in [1, 1e9] (default 1:25)" },
    { "--mu", "LIST", "draft/target FLOP ratio, in [0, inf) (eq. 11; default 0)" },
    { "--from", "FILE", "scenarios: TSV with name, alpha, cost, gamma [, mu, temperature, source, reported, measured]" },
    { "--acceptance", "A1,...,AG", "per-position acceptance: rows for gamma = 1..G, E(N) = 1 + sum prod a_i" },
    { NULL, NULL, NULL },
};

static const cli_option optimal_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1]" },
    { "--cost", "LIST", "draft/target time ratio c, in [0, inf)" },
    { "--from", "FILE", "scenarios: TSV with name, alpha, cost [, gamma, mu, temperature, source, reported, measured]" },
    { "--acceptance", "A1,...,AG", "per-position acceptance: the best gamma in 0..G for that vector" },
    { NULL, NULL, NULL },
};

static const cli_option expect_options[] = {
    { "--alpha", "LIST", "expected acceptance rate, in [0, 1]" },
    { "--gamma", "LIST", "draft lengths, whole numbers in [1, 1e9]" },
    { NULL, NULL, NULL },
};

const cli_command cmd_speedup = {
    "speedup", "speedup --alpha LIST --cost LIST [--gamma LIST] [--mu LIST] | --from FILE",
    "E(N), cost factor, wall-time improvement and FLOP factor per gamma (eqs. 4, 9, 10, 11)",
    speedup_options, 0, 0, run_speedup, 0, NULL, NULL, 0,
};

const cli_command cmd_optimal = {
    "optimal", "optimal --alpha LIST --cost LIST | --from FILE",
    "the draft length that maximises eq. (10), via Lambert W",
    optimal_options, 0, 0, run_optimal, 0, NULL, NULL, 0,
};

const cli_command cmd_expect = {
    "expect", "expect --alpha LIST --gamma LIST",
    "the distribution of N, tokens per iteration (eqs. 2, 3)",
    expect_options, 0, 0, run_expect, 0, NULL, NULL, 0,
};
