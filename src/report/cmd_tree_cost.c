/* cmd_tree_cost.c -- what a tree costs in `specdec tree` (cmd_tree_impl.h):
 * nothing, eq. (10) at gamma = the depth for each --cost, or under the
 * roofline presets at each --batch its speed-up over plain decoding
 * (sd_cmd_tree_speedup) with the calibration's band (sd_cmd_tree_band);
 * and a tree's row with its cost. */
#include "cmd_tree_impl.h"

#include <stdlib.h>
#include <string.h>

#include "specdec/theory.h"

double sd_cmd_tree_speedup(const sd_roofline_request *rq, const sd_tree *t, double expected_tokens, double batch,
                           double context, double *iteration_s)
{
    double t1 = sd_cost_plain_time(rq, batch, context);
    double tt = sd_cost_tree_time(rq, t, batch, context, expected_tokens, NULL);
    if (iteration_s != NULL)
        *iteration_s = tt;
    return expected_tokens * t1 / tt;
}

/* A tree's speed-up as a prediction of the cost model (sd_cmd_cost_band). */
typedef struct {
    const sd_tree *t;
    double expected_tokens, batch, context;
} speedup_at;

static double speedup_of(const sd_roofline_request *rq, const void *arg)
{
    const speedup_at *s = arg;
    return sd_cmd_tree_speedup(rq, s->t, s->expected_tokens, s->batch, s->context, NULL);
}

sd_status sd_cmd_tree_band(const sd_roofline_request *draws, size_t ndraws, double q, const sd_tree *t,
                           double expected_tokens, double batch, double context, double *lo, double *hi, sd_error *err)
{
    const speedup_at s = { .t = t, .expected_tokens = expected_tokens, .batch = batch, .context = context };
    return sd_cmd_cost_band(draws, ndraws, q, speedup_of, &s, lo, hi, err);
}

/* ---- the costs of the command ------------------------------------------------------------------ */

/* The presets' request, --batch, --context and the calibration's draws into c. */
static sd_status preset_cost(const sd_command_args *a, tree_cost *c, sd_error *err)
{
    sd_status st;
    if ((st = sd_command_args_list(a, &SD_CMD_BATCH, &c->batch, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_CONTEXT, &c->context, err)) != SD_OK ||
        (st = sd_cmd_cost_presets(a, &c->p, err)) != SD_OK) {
        c->presets = 0; /* nothing to free */
        return st;
    }
    if ((st = sd_cmd_cost_request(a, &c->p, &c->rq, &c->cc, err)) != SD_OK) {
        sd_presets_free(&c->p);
        c->presets = 0;
        return st;
    }
    if (c->cc.fit == NULL)
        return SD_OK;
    if ((c->draws = malloc(SD_CALIBRATE_BAND_DRAWS * sizeof *c->draws)) == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    return sd_calibrate_draws(&c->rq, c->cc.fit, c->cc.draft_fit, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_SEED,
                              c->draws, err);
}

sd_status tree_cost_read(const sd_command_args *a, tree_cost *c, sd_error *err)
{
    memset(c, 0, sizeof *c);
    c->presets = sd_command_args_given(a, "--target") || sd_command_args_given(a, "--draft") ||
                 sd_command_args_given(a, "--hardware");
    if (c->presets && sd_command_args_given(a, "--cost"))
        return sd_status_fail(err, SD_EINVAL, "--cost: give --cost LIST or --target, --draft and --hardware (roofline "
                              "presets), not both");
    if (!c->presets && (sd_command_args_given(a, "--batch") || sd_command_args_given(a, "--context")))
        return sd_status_fail(err, SD_EINVAL, "%s: goes with the roofline presets (--target, --draft, --hardware)",
                              sd_command_args_given(a, "--batch") ? "--batch" : "--context");
    if (sd_command_args_given(a, "--cost"))
        return sd_command_args_list(a, &SD_CMD_COST, &c->cost, err);
    return c->presets ? preset_cost(a, c, err) : SD_OK;
}

void tree_cost_free(tree_cost *c)
{
    free(c->cost.v);
    free(c->batch.v);
    free(c->draws);
    if (c->presets) {
        sd_cmd_costs_free(&c->cc);
        sd_presets_free(&c->p);
    }
    memset(c, 0, sizeof *c);
}

size_t tree_cost_settings(const tree_cost *c)
{
    return c->presets ? c->batch.n : c->cost.n ? c->cost.n : 1;
}

double tree_gain(const tree_cost *c, size_t i, const sd_tree *tr, const sd_tree_accept *acc)
{
    double e = sd_tree_expected_tokens(tr, acc);
    if (c->presets)
        return sd_cmd_tree_speedup(&c->rq, tr, e, c->batch.v[i], c->context, NULL);
    return c->cost.n ? sd_theory_improvement_at(e, (double)sd_tree_depth(tr), c->cost.v[i]) : 0.0;
}

/* ---- a row ------------------------------------------------------------------------------------- */

/* The cost cells of tree tr (e expected tokens) at setting i into row[*k ...]: batch,
 * iteration_ms, the speed-up and its band (or '-' without a fit), fits; or cost and improvement. */
static sd_status cost_cells(const tree_cost *c, size_t i, const sd_tree *tr, double e, sd_cell *row, size_t *k,
                            sd_error *err)
{
    if (c->presets) {
        double b = c->batch.v[i], tt, lo = NAN, hi = NAN;
        double gain = sd_cmd_tree_speedup(&c->rq, tr, e, b, c->context, &tt);
        sd_status st = c->draws == NULL ? SD_OK
                                        : sd_cmd_tree_band(c->draws, SD_CALIBRATE_BAND_DRAWS, SD_CALIBRATE_BAND_Q, tr,
                                                           e, b, c->context, &lo, &hi, err);
        if (st != SD_OK)
            return st;
        row[(*k)++] = sd_int((long long)b);
        row[(*k)++] = sd_real(1e3 * tt);
        row[(*k)++] = sd_real(gain);
        row[(*k)++] = isnan(lo) ? sd_text("-") : sd_real(lo);
        row[(*k)++] = isnan(hi) ? sd_text("-") : sd_real(hi);
        row[(*k)++] = sd_text(sd_cost_fits(&c->rq, b, c->context, (double)tr->n) ? "yes" : "no");
    } else if (c->cost.n) {
        row[(*k)++] = sd_real(c->cost.v[i]);
        row[(*k)++] = sd_real(sd_theory_improvement_at(e, (double)sd_tree_depth(tr), c->cost.v[i]));
    }
    return SD_OK;
}

sd_status tree_row(sd_table *t, const sd_tree *tr, const sd_tree_accept *acc, const tree_cost *c, size_t i,
                   const double *lead, size_t nlead, sd_error *err)
{
    size_t len = sd_tree_format(tr, NULL, 0);
    char *text = malloc(len + 1);
    if (text == NULL)
        return sd_status_fail(err, SD_ENOMEM, "tree: out of memory");
    sd_tree_format(tr, text, len + 1);
    double e = sd_tree_expected_tokens(tr, acc);
    sd_cell row[18];
    size_t k = 0;
    for (size_t j = 0; j < nlead; j++)
        row[k++] = sd_int((long long)lead[j]);
    row[k++] = sd_int((long long)tr->n);
    row[k++] = sd_int((long long)sd_tree_depth(tr));
    row[k++] = sd_int((long long)sd_tree_width(tr));
    row[k++] = sd_real(e);
    sd_status st = cost_cells(c, i, tr, e, row, &k, err);
    row[k++] = sd_text(text);
    if (st == SD_OK)
        st = sd_table_add(t, row, err);
    free(text);
    return st;
}
