/* scenario.c -- the inputs of speedup and optimal: a grid of lists
 * (--alpha, --cost, --mu, --gamma), the rows of a scenario file (--from), or
 * an acceptance vector (--acceptance); and their output rows and notes. */
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sd_status scenario_note_optimum(sd_table *t, double alpha, double cost, const sd_optimum *o, sd_error *err)
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

/* Columns a scenario file may carry beyond name, alpha, cost, gamma and mu;
 * they are passed through to the output as text. */
static const char *const PASSTHROUGH[] = { "temperature", "source", "reported", "measured" };
enum { NPASS = 4 };

void scenario_free(scenario *in)
{
    for (int j = 0; j < 4; j++)
        sd_parse_list_free(&in->l[j]);
    sd_parse_list_free(&in->acc);
    sd_tsv_free(&in->tsv);
    free(in->pts);
}

double scenario_tokens(const scenario_point *p)
{
    return p->acc ? sd_theory_expected_tokens_vec(p->acc, (size_t)p->gamma)
                  : sd_theory_expected_tokens(p->alpha, p->gamma);
}

/* The --mu list, or 0 for a command that does not take it (optimal: the FLOP
 * factor is not its business). */
static sd_status mu_list(const sd_command_args *a, sd_list *out, sd_error *err)
{
    if (sd_command_field_find(a->cmd, SD_CMD_MU.name, NULL) == NULL)
        return sd_parse_list("0", &SD_CMD_MU, out, err);
    return sd_command_args_list(a, &SD_CMD_MU, out, err);
}

/* --acceptance a1,...,aG with --cost: one point per gamma = 1..G (or one, for
 * optimal); alpha is the i.i.d. acceptance with the same E(N) (eq. 4 inverted). */
static sd_status load_vector(const sd_command_args *a, int uses_gamma, scenario *in, sd_error *err)
{
    static const char *const excluded[] = { "--alpha", "--gamma", "--from", NULL };
    for (int i = 0; excluded[i] != NULL; i++)
        if (sd_command_args_given(a, excluded[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: --acceptance gives the draft positions; it excludes %s",
                                  excluded[i], excluded[i]);
    sd_status st;
    if ((st = sd_command_args_list(a, &SD_CMD_ACCEPTANCE, &in->acc, err)) != SD_OK ||
        (st = sd_command_args_list(a, &SD_CMD_COST, &in->l[1], err)) != SD_OK ||
        (st = mu_list(a, &in->l[2], err)) != SD_OK)
        return st;
    if (in->acc.n > 1000000)
        return sd_status_fail(err, SD_EINVAL, "--acceptance: at most 1000000 positions");
    size_t per = uses_gamma ? in->acc.n : 1, n;
    const size_t counts[] = { per, in->l[1].n, in->l[2].n };
    if ((st = sd_command_rows(counts, 3, &n, err)) != SD_OK)
        return st;
    if ((in->pts = malloc(n * sizeof *in->pts)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t g = uses_gamma ? i % per + 1 : in->acc.n;
        scenario_point *p = &in->pts[i];
        *p = (scenario_point){ .alpha = 0, .cost = in->l[1].v[i / per / in->l[2].n], .mu = in->l[2].v[(i / per) % in->l[2].n],
                          .gamma = (double)g, .row = NULL, .acc = in->acc.v };
        if ((st = sd_theory_alpha_from_length(scenario_tokens(p), (double)g, &p->alpha, err)) != SD_OK)
            return st;
    }
    in->n = n;
    return SD_OK;
}

/* One number of a scenario row, checked like the option of the same name. */
static sd_status scenario_number(const scenario *in, const char *path, const sd_tsv_row *r, const sd_domain *dom,
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
sd_status scenario_read(const sd_command_args *a, int uses_gamma, scenario *in, sd_error *err)
{
    memset(in, 0, sizeof *in);
    in->name_col = (size_t)-1;
    const char *path = sd_command_args_value(a, "--from");
    sd_status st;
    if (sd_command_args_given(a, "--acceptance"))
        return load_vector(a, uses_gamma, in, err);
    if (path == NULL) {
        size_t rows;
        if ((st = sd_command_args_list(a, &SD_CMD_ALPHA, &in->l[0], err)) != SD_OK ||
            (st = sd_command_args_list(a, &SD_CMD_COST, &in->l[1], err)) != SD_OK ||
            (st = mu_list(a, &in->l[2], err)) != SD_OK ||
            (st = uses_gamma ? sd_command_args_list(a, &SD_CMD_GAMMA, &in->l[3], err)
                        : sd_parse_list("1", &SD_CMD_GAMMA, &in->l[3], err)) != SD_OK || /* optimal: one point a pair */
            (st = sd_command_grid_size(in->l, 4, &rows, err)) != SD_OK)
            return st;
        if ((in->pts = malloc(rows * sizeof *in->pts)) == NULL)
            return sd_status_fail(err, SD_ENOMEM, "out of memory for %zu rows", rows);
        for (size_t i = 0; i < rows; i++) {
            double x[4];
            sd_command_grid_point(in->l, 4, i, x);
            in->pts[i] = (scenario_point){ .alpha = x[0], .cost = x[1], .mu = x[2], .gamma = x[3], .row = NULL, .acc = NULL };
        }
        in->n = rows;
        return SD_OK;
    }
    static const char *const grid_options[] = { "--alpha", "--cost", "--gamma", "--mu", NULL };
    for (int i = 0; grid_options[i] != NULL; i++)
        if (sd_command_args_given(a, grid_options[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: give the parameters either as options or with --from, not both",
                                  grid_options[i]);
    if ((st = sd_tsv_load(path, 1, SD_LIST_MAX, &in->tsv, err)) != SD_OK)
        return st;
    if (in->tsv.ncolumns > SCENARIO_COLS)
        return sd_status_fail(err, SD_EINVAL, "%s: %zu columns; at most %d", path, in->tsv.ncolumns, SCENARIO_COLS);
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
        scenario_point *p = &in->pts[i];
        *p = (scenario_point){ .row = r };
        if ((st = scenario_number(in, path, r, &SD_CMD_ALPHA, "alpha", 0, &p->alpha, err)) != SD_OK ||
            (st = scenario_number(in, path, r, &SD_CMD_COST, "cost", 0, &p->cost, err)) != SD_OK ||
            (st = scenario_number(in, path, r, &SD_CMD_MU, "mu", 0, &p->mu, err)) != SD_OK ||
            (uses_gamma && (st = scenario_number(in, path, r, &SD_CMD_GAMMA, "gamma", 1, &p->gamma, err)) != SD_OK))
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
size_t scenario_columns(const scenario *in, const char *const *core, size_t ncore, const char **cols)
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
sd_status scenario_row(sd_table *t, const scenario *in, const scenario_point *p, const sd_cell *core, size_t ncore,
                           sd_error *err)
{
    sd_cell row[SCENARIO_COLS + 16];
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

