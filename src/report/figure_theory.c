/* figure_theory.c -- the figures of closed forms alone (figure_impl.h):
 * curves against gamma (improvement, E(N), FLOP factor), one function told
 * apart by the row's variant, each a wide table with one column per
 * combination of the listed parameters; and heatmaps of the optimum over
 * (alpha, c). */
#include "figure_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/table.h"
#include "specdec/theory.h"

/* ---- curves against gamma: improvement, E(N), FLOP factor ------------------- */

/* The curves of a figure: every combination of its alpha, cost and mu lists
 * (a list the kind does not use is the one value 0), alpha slowest. */
typedef struct {
    sd_figure_curve_kind kind;
    const sd_list *alpha, *cost, *mu, *gamma;
    size_t n;
} curve_set;

static void curve_point(const curve_set *cs, size_t s, double x[3])
{
    x[0] = cs->alpha->v[s / (cs->cost->n * cs->mu->n)];
    x[1] = cs->cost->v[(s / cs->mu->n) % cs->cost->n];
    x[2] = cs->mu->v[s % cs->mu->n];
}

static double curve_value(sd_figure_curve_kind k, const double x[3], double gamma)
{
    switch (k) {
    case SD_FIGURE_CURVE_IMPROVEMENT: return sd_theory_improvement(x[0], gamma, x[1]);
    case SD_FIGURE_CURVE_TOKENS: return sd_theory_expected_tokens(x[0], gamma);
    case SD_FIGURE_CURVE_FLOPS: return sd_theory_flop_factor(x[0], gamma, x[2]);
    }
    return NAN;
}

/* "α = 0.8, c = 0.02": the parameters of one curve the kind uses, those
 * whose list has several values (varying = 1) or one value (varying = 0). */
static void describe(const curve_set *cs, const double x[3], int varying, char *buf, size_t size)
{
    static const char *const symbol[3] = { "α", "c", "μ" };
    const sd_list *used[3] = { cs->alpha, cs->kind == SD_FIGURE_CURVE_IMPROVEMENT ? cs->cost : NULL,
                               cs->kind == SD_FIGURE_CURVE_FLOPS ? cs->mu : NULL };
    buf[0] = '\0';
    for (int i = 0; i < 3; i++) {
        if (used[i] == NULL || (used[i]->n > 1) != varying)
            continue;
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, "%s%s = %g", len ? ", " : "", symbol[i], x[i]);
    }
}

/* Curve s's column name: its varying parameters (else its fixed ones) and,
 * for the improvement, a note when its optimum is unbounded or 0. */
static sd_status curve_label(const curve_set *cs, size_t s, char *buf, size_t size, sd_error *err)
{
    double x[3];
    curve_point(cs, s, x);
    describe(cs, x, 1, buf, size);
    if (buf[0] == '\0')
        describe(cs, x, 0, buf, size);
    if (cs->kind != SD_FIGURE_CURVE_IMPROVEMENT)
        return SD_OK;
    sd_optimum o;
    sd_status st = sd_theory_optimal(x[0], x[1], &o, err);
    size_t len = strlen(buf);
    if (st == SD_OK && isinf(o.gamma_opt))
        snprintf(buf + len, size - len, " (optimum unbounded)");
    else if (st == SD_OK && o.gamma_opt <= 0)
        snprintf(buf + len, size - len, " (do not speculate)");
    return st;
}

/* Block 0: gamma, then one column per curve. */
static sd_status curve_values(const curve_set *cs, const char *const *names, sd_table **out, sd_error *err)
{
    sd_table *t = sd_table_alloc(cs->n + 1, names);
    sd_cell *row = malloc((cs->n + 1) * sizeof *row);
    sd_status st = t && row ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t g = 0; g < cs->gamma->n && st == SD_OK; g++) {
        row[0] = sd_int((long long)cs->gamma->v[g]);
        for (size_t s = 0; s < cs->n; s++) {
            double x[3];
            curve_point(cs, s, x);
            row[s + 1] = sd_real(curve_value(cs->kind, x, cs->gamma->v[g]));
        }
        st = sd_table_add(t, row, err);
    }
    free(row);
    if (st != SD_OK) {
        sd_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

/* Block 1 of the improvement: each curve's optimum that lies within the gamma list. */
static sd_status curve_optima(const curve_set *cs, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "series", "gamma_opt", "improvement_opt", "label" };
    sd_table *t = sd_table_alloc(4, cols);
    sd_status st = t ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
    double gmax = cs->gamma->v[cs->gamma->n - 1];
    for (size_t s = 0; s < cs->n && st == SD_OK; s++) {
        double x[3];
        sd_optimum o;
        curve_point(cs, s, x);
        if ((st = sd_theory_optimal(x[0], x[1], &o, err)) != SD_OK || !(o.gamma_opt >= 1.0 && o.gamma_opt <= gmax))
            continue;
        char label[48];
        snprintf(label, sizeof label, "γ* = %.0f", o.gamma_opt);
        const sd_cell r[] = { sd_int((long long)s + 1), sd_real(o.gamma_opt), sd_real(o.improvement_opt),
                              sd_text(label) };
        st = sd_table_add(t, r, err);
    }
    if (st != SD_OK) {
        sd_table_free(t);
        t = NULL;
    }
    *out = t;
    return st;
}

sd_status sd_figure_curves(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                           sd_error *err)
{
    static double zero_value[1] = { 0.0 };
    static const sd_list zero = { .v = zero_value, .n = 1 };
    const sd_figure_curve_kind kind = (sd_figure_curve_kind)variant;
    const int improvement = kind == SD_FIGURE_CURVE_IMPROVEMENT, flops = kind == SD_FIGURE_CURVE_FLOPS;
    const curve_set cs = { .kind = kind, .alpha = &in->alpha, .gamma = &in->gamma,
                           .cost = improvement ? &in->cost : &zero, .mu = flops ? &in->mu : &zero,
                           .n = in->alpha.n * (improvement ? in->cost.n : 1) * (flops ? in->mu.n : 1) };
    if (cs.n > SD_FIGURE_CURVES_MAX)
        return sd_status_fail(err, SD_EINVAL, "figure %s: %zu curves; at most %d fit in one figure", name, cs.n,
                              SD_FIGURE_CURVES_MAX);
    const char **names = calloc(cs.n + 1, sizeof *names);
    char(*labels)[96] = calloc(cs.n, sizeof *labels);
    sd_status st = names && labels ? SD_OK : sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t s = 0; s < cs.n && st == SD_OK; s++) {
        st = curve_label(&cs, s, labels[s], sizeof labels[s], err);
        names[s + 1] = labels[s];
    }
    if (st == SD_OK) {
        names[0] = "gamma";
        st = curve_values(&cs, names, &out->block[0], err);
        out->nblocks = 1;
    }
    if (st == SD_OK && improvement) {
        st = curve_optima(&cs, &out->block[1], err);
        out->nblocks = 2;
    }
    free(names);
    free(labels);
    return st;
}

/* ---- heatmaps over (alpha, c) -------------------------------------------------- */

sd_status sd_figure_map(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out, sd_error *err)
{
    (void)name;
    const sd_figure_map_kind kind = (sd_figure_map_kind)variant;
    static const char *const cols[] = { "alpha", "cost", "value" };
    sd_table *t = sd_table_alloc(3, cols);
    if (t == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    out->block[0] = t;
    out->nblocks = 1;
    sd_status st = SD_OK;
    /* "do not speculate" is value 0 (NaN never reaches a table), which the drawing shows in grey */
    for (size_t j = 0; j < in->cost.n && st == SD_OK; j++)
        for (size_t i = 0; i < in->alpha.n && st == SD_OK; i++) {
            sd_optimum o;
            double a = in->alpha.v[i], c = in->cost.v[j], v;
            if ((st = sd_theory_optimal(a, c, &o, err)) != SD_OK)
                break;
            if (o.gamma_opt <= 0.0)
                v = 0.0;
            else if (kind == SD_FIGURE_MAP_GAMMA)
                v = fmin(o.gamma_opt, SD_FIGURE_GAMMA_CAP);
            else
                v = fmin(o.improvement_opt, SD_FIGURE_IMPROVEMENT_CAP);
            const sd_cell r[] = { sd_real(a), sd_real(c), sd_real(v) };
            st = sd_table_add(t, r, err);
        }
    return st;
}
