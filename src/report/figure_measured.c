/* figure_measured.c -- the figures of acceptance measured on real models
 * rather than synthetic banks (figure_impl.h): `specdec fit`'s tables for
 * an engine's counters file, and alpha against temperature on a pair of
 * logit or probability matrices (by default the n-gram pair's logits). */
#include "figure_impl.h"

#include <stdlib.h>

#include "specdec/cmd_fit.h"
#include "specdec/counters.h"
#include "specdec/fit.h"
#include "specdec/ngram.h"
#include "specdec/npy.h"
#include "specdec/sampling.h"
#include "specdec/table.h"
#include "specdec/theory.h"

/* ---- fit --------------------------------------------------------------------------------- */

/* `specdec fit`'s positions and predictions for the counters file in->input. */
sd_status sd_figure_fit(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                        sd_error *err)
{
    (void)variant;
    if (in->input == NULL)
        return sd_status_fail(err, SD_EINVAL, "input: the figure %s draws an engine's counters; give the file", name);
    sd_status st = sd_figure_one_value(&in->cost, "cost", name, err);
    if (st != SD_OK)
        return st;
    sd_counts c;
    sd_fit f;
    if ((st = sd_counters_load(in->input, NULL, &c, err)) != SD_OK ||
        (st = sd_fit_counts(&c, SD_FIT_LEVEL, &f, err)) != SD_OK)
        return st;
    size_t n = 2 * c.gamma;
    double cost[2 * SD_COUNTS_MAX_GAMMA];
    for (size_t g = 1; g <= n; g++)
        cost[g - 1] = sd_theory_cost_factor((double)g, in->cost.v[0]);
    const sd_fit_request rq = { .gamma_max = n, .cost = cost, .replicates = SD_FIT_REPLICATES, .seed = in->seed };
    if ((st = sd_cmd_fit_report_table(&c, &f, &rq, SD_CMD_FIT_REPORT_POSITIONS, &out->block[0], err)) != SD_OK)
        return st;
    out->nblocks = 1;
    if ((st = sd_cmd_fit_report_table(&c, &f, &rq, SD_CMD_FIT_REPORT_PREDICTIONS, &out->block[1], err)) != SD_OK)
        return st;
    out->nblocks = 2;
    out->fit_gamma = (double)c.gamma;
    out->fit_pvalue = f.test_pvalue;
    out->fit_model = sd_fit_model_name(f.chosen);
    return SD_OK;
}

/* ---- alpha against temperature --------------------------------------------------------------- */

enum { TEMPERATURE_STEPS = 40, NGRAM_ROWS = 1024 };

/* The figure's matrix pair: the user's files, or the n-gram pair's logits. */
static sd_status alpha_pair(const sd_figure_input *in, sd_npy *p, sd_npy *q, sd_error *err)
{
    sd_status st;
    if (in->p_npy != NULL || in->q_npy != NULL) {
        if (in->p_npy == NULL || in->q_npy == NULL)
            return sd_status_fail(err, SD_EINVAL, "p_npy: the figure needs both p_npy and q_npy, or neither");
        if ((st = sd_npy_load(in->p_npy, p, err)) == SD_OK && (st = sd_npy_load(in->q_npy, q, err)) != SD_OK)
            sd_npy_free(p);
        return st;
    }
    sd_model *m;
    const sd_ngram_config ng = sd_ngram_defaults(); /* orders 5 and 2, as trained */
    if ((st = sd_ngram_load(SD_NGRAM_DEFAULT_CORPUS, &ng, &m, err)) != SD_OK)
        return st;
    size_t v = sd_model_vocab(m);
    *p = (sd_npy){ .rows = NGRAM_ROWS, .cols = v, .ndim = 2, .v = malloc(NGRAM_ROWS * v * sizeof(double)) };
    *q = (sd_npy){ .rows = NGRAM_ROWS, .cols = v, .ndim = 2, .v = malloc(NGRAM_ROWS * v * sizeof(double)) };
    if (p->v == NULL || q->v == NULL) {
        sd_npy_free(p);
        sd_npy_free(q);
        sd_model_free(m);
        return sd_status_fail(err, SD_ENOMEM, "out of memory for the n-gram matrices");
    }
    sd_ngram_logits(m, NGRAM_ROWS, p->v, q->v);
    sd_model_free(m);
    return SD_OK;
}

sd_status sd_figure_alpha_temperature(const sd_figure_input *in, const char *name, int variant, sd_figure_data *out,
                                      sd_error *err)
{
    (void)name;
    (void)variant;
    static const char *const cols[] = { "temperature", "adjusted", "adjusted_ci_low", "adjusted_ci_high",
                                        "deterministic_draft", "deterministic_draft_ci_low",
                                        "deterministic_draft_ci_high" };
    sd_npy p = { 0 }, q = { 0 };
    sd_status st = alpha_pair(in, &p, &q, err);
    if (st != SD_OK)
        return st;
    double *beta = malloc(p.rows * sizeof *beta), *dd = malloc(p.rows * sizeof *dd);
    sd_table *t = sd_table_alloc(7, cols);
    if (beta == NULL || dd == NULL || t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (int i = 0; i <= TEMPERATURE_STEPS && st == SD_OK; i++) {
        sd_sampling s = sd_sampling_defaults();
        s.temperature = 0.05 * i;
        sd_summary a, b;
        const sd_sampling_pair pair = { .p = &p, .q = &q, .kind = in->npy_probs ? SD_INPUT_PROBS : SD_INPUT_LOGITS,
                                        .target = s, .draft = s, .p_name = in->p_npy ? in->p_npy : "p",
                                        .q_name = in->q_npy ? in->q_npy : "q" };
        if ((st = sd_sampling_rows(&pair, beta, dd, err)) != SD_OK ||
            (st = sd_sampling_summarise(beta, p.rows, &a, err)) != SD_OK ||
            (st = sd_sampling_summarise(dd, p.rows, &b, err)) != SD_OK)
            break;
        const sd_cell row[] = { sd_real(s.temperature), sd_real(a.mean), sd_real(a.ci_low), sd_real(a.ci_high),
                                sd_real(b.mean), sd_real(b.ci_low), sd_real(b.ci_high) };
        st = sd_table_add(t, row, err);
    }
    free(beta);
    free(dd);
    sd_npy_free(&p);
    sd_npy_free(&q);
    if (st != SD_OK) {
        sd_table_free(t);
        return st;
    }
    out->block[0] = t;
    out->nblocks = 1;
    return SD_OK;
}
