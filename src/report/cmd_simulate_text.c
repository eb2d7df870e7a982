/* cmd_simulate_text.c -- `specdec simulate` on the models of real text: the
 * byte-level n-gram pair (ngram.h) and .npy matrix pairs (npy.h), each under
 * every sampling setting given, against eq. (4) and a Markov fit of the
 * model's acceptance along a path the target generates (path.h). */
#include "cmd_simulate_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/path.h"

const sd_domain SIMULATE_ORDER = { "--order", 1, SD_NGRAM_ORDER_MAX, 1 };
const sd_domain SIMULATE_DRAFT_ORDER = { "--draft-order", 1, SD_NGRAM_ORDER_MAX, 1 };

enum { PATH_TOKENS = 200000 }; /* the path the Markov fit reads */

/* The columns simulate adds for these models: the model's settings, then
 * the Markov prediction and the relative errors of both predictions. */
static const char *const NGRAM_COLS[] = { "order", "draft_order", "model_mib", "build_seconds", "temperature", "top_k",
                                          "top_p", "min_p", "draft_temperature", "draft_top_k", "draft_top_p",
                                          "draft_min_p" };
static const char *const NPY_COLS[] = { "temperature", "top_k", "top_p", "min_p",
                                        "draft_temperature", "draft_top_k", "draft_top_p", "draft_min_p" };
static const char *const PREDICTION_COLS[] = { "markov_a_easy", "markov_a_hard", "markov_stay",
                                               "markov_expected_tokens", "eq4_relative_error",
                                               "markov_relative_error" };
enum { NNGRAM = 4, NNPY = 8, NPRED = 6, EXTRA_MAX = NNGRAM + NNPY + NPRED };

/* The Markov fit of the model's acceptance along a sampled path (ngram.h). */
static sd_status fit_path(const sd_engine_config *ec, sd_markov *mk, sd_error *err)
{
    double *path = malloc(PATH_TOKENS * sizeof *path);
    if (path == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_status st = sd_path_acceptance(ec->model, ec->verifier, PATH_TOKENS, ec->seed, path, err);
    if (st == SD_OK)
        *mk = sd_theory_markov_fit(path, PATH_TOKENS);
    free(path);
    return st;
}

/* One engine run per gamma on m, each a row: simulate's columns, then
 * extra[0..nextra-1] (the model's settings) and the predictions. */
static sd_status text_rows(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config ec,
                           const sd_list *gammas, const sd_cell *extra, size_t nextra, sd_table *t, sd_error *err)
{
    sd_markov mk;
    sd_status st;
    if ((st = sd_cmd_model_check_built(a, &ec, err)) != SD_OK ||
        (ec.tree == NULL && (st = fit_path(&ec, &mk, err)) != SD_OK))
        return st;
    if (ec.tree != NULL) { /* one run of the tree: (T1) at the visited contexts, no Markov prediction */
        sd_engine_stats s;
        sd_gof gof;
        sd_tree_accept acc;
        double theory;
        if ((st = simulate_engine(&ec, &s, err)) != SD_OK)
            return st;
        if ((st = sd_gof_output(ec.model, ec.verifier, &s, &gof, err)) == SD_OK &&
            (st = sd_engine_tree_theory(&ec, s.ctx_tokens, &acc, &theory, err)) == SD_OK &&
            (st = simulate_tree_note(&ec, &acc, t, err)) == SD_OK) {
            sd_cell row[SIMULATE_NCOLS + EXTRA_MAX];
            char rates[512];
            simulate_cells(ms, &ec, &s, &gof, theory, rates, sizeof rates, row);
            memcpy(row + SIMULATE_NCOLS, extra, nextra * sizeof *extra);
            st = sd_table_add(t, row, err);
        }
        sd_engine_stats_free(&s);
        return st;
    }
    for (size_t j = 0; j < gammas->n && st == SD_OK; j++) {
        ec.gamma = (size_t)gammas->v[j];
        sd_engine_stats s;
        sd_gof gof;
        if ((st = simulate_engine(&ec, &s, err)) != SD_OK)
            break;
        if ((st = sd_gof_output(ec.model, ec.verifier, &s, &gof, err)) == SD_OK) {
            double measured = sd_engine_stats_mean_n(&s);
            double eq4 = sd_theory_expected_tokens(s.alpha_hat, (double)ec.gamma);
            double markov = sd_theory_markov_expected_tokens(&mk, (double)ec.gamma);
            sd_cell row[SIMULATE_NCOLS + EXTRA_MAX];
            const sd_cell pred[NPRED] = { sd_real(mk.a_easy), sd_real(mk.a_hard), sd_real(mk.stay), sd_real(markov),
                                          sd_real((eq4 - measured) / measured),
                                          sd_real((markov - measured) / measured) };
            char rates[512];
            simulate_cells(ms, &ec, &s, &gof, eq4, rates, sizeof rates, row);
            memcpy(row + SIMULATE_NCOLS, extra, nextra * sizeof *extra);
            memcpy(row + SIMULATE_NCOLS + nextra, pred, sizeof pred);
            st = sd_table_add(t, row, err);
        }
        sd_engine_stats_free(&s);
    }
    return st;
}

/* A table of simulate's columns and these, then the Markov predictions (not for a tree). */
static sd_status text_table(const char *const *more, size_t nmore, int predictions, sd_table **t, sd_error *err)
{
    const char *names[SIMULATE_NCOLS + EXTRA_MAX];
    memcpy(names, SIMULATE_COLS, sizeof SIMULATE_COLS);
    memcpy(names + SIMULATE_NCOLS, more, nmore * sizeof *more);
    memcpy(names + SIMULATE_NCOLS + nmore, PREDICTION_COLS, sizeof PREDICTION_COLS);
    return sd_command_table(SIMULATE_NCOLS + nmore + (predictions ? NPRED : 0), names, t, err);
}

enum { EXPORT_ROWS = 1024 };

/* The pair's logits at EXPORT_ROWS corpus positions as PREFIX-p.npy and PREFIX-q.npy. */
static sd_status export_ngram(const char *prefix, const sd_model *m, sd_error *err)
{
    size_t v = sd_model_vocab(m);
    double *p = malloc(EXPORT_ROWS * v * sizeof *p), *q = malloc(EXPORT_ROWS * v * sizeof *q);
    sd_status st = p == NULL || q == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory") : SD_OK;
    char path[4200];
    if (st == SD_OK) {
        sd_ngram_logits(m, EXPORT_ROWS, p, q);
        snprintf(path, sizeof path, "%s-p.npy", prefix);
        st = sd_npy_save(path, p, EXPORT_ROWS, v, err);
    }
    if (st == SD_OK) {
        snprintf(path, sizeof path, "%s-q.npy", prefix);
        st = sd_npy_save(path, q, EXPORT_ROWS, v, err);
    }
    free(p), free(q);
    if (st != SD_OK && strncmp(err->msg, prefix, strlen(prefix)) == 0) { /* name the option */
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "--export-npy: %.480s", err->msg);
        snprintf(err->msg, sizeof err->msg, "%.*s", (int)sizeof err->msg - 1, msg);
    }
    return st;
}

/* The eight settings of one combination as cells. */
static void setting_cells(const sd_sampling *tg, const sd_sampling *dr, sd_cell *cells)
{
    const sd_cell c[NNPY] = { sd_real(tg->temperature), sd_int((long long)tg->top_k), sd_real(tg->top_p),
                              sd_real(tg->min_p), sd_real(dr->temperature), sd_int((long long)dr->top_k),
                              sd_real(dr->top_p), sd_real(dr->min_p) };
    memcpy(cells, c, sizeof c);
}

static sd_status simulate_ngram(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config ec,
                                const sd_list *gammas, sd_table **t, sd_error *err)
{
    double order, draft_order;
    sd_cmd_sampling cs = { 0 };
    sd_status st;
    if ((st = sd_command_args_number(a, &SIMULATE_ORDER, &order, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SIMULATE_DRAFT_ORDER, &draft_order, err)) != SD_OK ||
        (st = sd_cmd_sampling_read(a, &cs, err)) != SD_OK ||
        (st = text_table(NGRAM_COLS, NNGRAM + NNPY, ec.tree == NULL, t, err)) != SD_OK) {
        sd_cmd_sampling_free(&cs);
        return st;
    }
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_model *m = NULL;
        sd_cmd_sampling_at(&cs, i, &tg, &dr);
        const sd_ngram_config ng = { .order = (size_t)order, .draft_order = (size_t)draft_order, .target = &tg,
                                     .draft = &dr };
        if ((st = sd_ngram_load(sd_command_args_value(a, "--corpus"), &ng, &m, err)) != SD_OK)
            break;
        ec.model = m;
        if (i == 0 && sd_command_args_given(a, "--export-npy"))
            st = export_ngram(sd_command_args_value(a, "--export-npy"), m, err);
        sd_cell extra[NNGRAM + NNPY] = { sd_int((long long)order), sd_int((long long)draft_order),
                                         sd_real((double)sd_model_bytes(m) / 1048576.0),
                                         sd_real(sd_model_build_seconds(m)) };
        setting_cells(&tg, &dr, extra + NNGRAM);
        if (st == SD_OK)
            st = text_rows(a, ms, ec, gammas, extra, NNGRAM + NNPY, *t, err);
        sd_model_free(m);
    }
    sd_cmd_sampling_free(&cs);
    return st;
}

/* The rows of p and q transformed by one combination of settings. */
static sd_status transformed_model(const sd_npy *p, const sd_npy *q, sd_input kind, const sd_sampling *tg,
                                   const sd_sampling *dr, const sd_cmd_model *ms, sd_model **m, sd_error *err)
{
    size_t n = p->rows * p->cols;
    double *tp = malloc(n * sizeof *tp), *tq = malloc(n * sizeof *tq);
    sd_status st = tp == NULL || tq == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory for %zu values", n) : SD_OK;
    for (size_t i = 0; i < p->rows && st == SD_OK; i++) {
        char pn[64], qn[64];
        snprintf(pn, sizeof pn, "--p-npy: row %zu", i);
        snprintf(qn, sizeof qn, "--q-npy: row %zu", i);
        if ((st = sd_sampling_apply(tg, kind, p->v + i * p->cols, p->cols, tp + i * p->cols, pn, err)) == SD_OK)
            st = sd_sampling_apply(dr, kind, q->v + i * q->cols, q->cols, tq + i * q->cols, qn, err);
    }
    const sd_model_rows_request rq = { .p = tp, .q = tq, .rows = p->rows, .vocab = p->cols,
                                       .history = ms->synth.history, .seed = ms->synth.seed };
    if (st == SD_OK)
        st = sd_model_rows(&rq, m, err);
    free(tp);
    free(tq);
    return st;
}

static sd_status simulate_npy(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config ec,
                              const sd_list *gammas, sd_table **t, sd_error *err)
{
    sd_npy p = { 0 }, q = { 0 };
    sd_cmd_sampling cs = { 0 };
    sd_input kind;
    sd_status st;
    if ((st = sd_cmd_sampling_input(a, &kind, err)) == SD_OK && (st = sd_cmd_sampling_read(a, &cs, err)) == SD_OK &&
        (st = sd_cmd_sampling_load_npy(a, &p, &q, err)) == SD_OK)
        st = text_table(NPY_COLS, NNPY, ec.tree == NULL, t, err);
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_model *m = NULL;
        sd_cmd_sampling_at(&cs, i, &tg, &dr);
        if ((st = transformed_model(&p, &q, kind, &tg, &dr, ms, &m, err)) != SD_OK)
            break;
        ec.model = m;
        sd_cell extra[NNPY];
        setting_cells(&tg, &dr, extra);
        st = text_rows(a, ms, ec, gammas, extra, NNPY, *t, err);
        sd_model_free(m);
    }
    sd_npy_free(&p), sd_npy_free(&q);
    sd_cmd_sampling_free(&cs);
    return st;
}

sd_status simulate_text(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config ec, const sd_list *gammas,
                        sd_table **t, sd_error *err)
{
    return ms->ngram ? simulate_ngram(a, ms, ec, gammas, t, err) : simulate_npy(a, ms, ec, gammas, t, err);
}
