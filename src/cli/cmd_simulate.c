/* cmd_simulate.c -- `specdec simulate`: the rejection sampler on a model,
 * against eq. (4) (and, on the n-gram and .npy models, a Markov fit). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const sd_domain SIM_GAMMA = { "--gamma", 1, SD_ORACLE_MAX, 1 };
static const sd_domain THRESHOLD = { "--threshold", 0, 1, 0 };
static const sd_domain ORDER = { "--order", 1, SD_NGRAM_ORDER_MAX, 1 };
static const sd_domain DRAFT_ORDER = { "--draft-order", 1, SD_NGRAM_ORDER_MAX, 1 };

/* A progress line on stderr for runs longer than a second, when it is a terminal. */
static void progress_line(void *arg, double fraction, double seconds)
{
    (void)arg;
    if (seconds > 1.0)
        fprintf(stderr, "\rspecdec: simulating... %3.0f%%", 100.0 * fraction);
}

/* The columns of simulate: one row per (alpha, gamma) run. */
static const char *const SIM_COLS[] = {
    "family", "vocab", "contexts", "regime", "policy", "gamma", "verify", "drafts", "alpha_nominal", "alpha_hat",
    "acceptance_rate", "iterations", "tokens", "tokens_per_iteration", "tokens_per_iteration_se",
    "expected_tokens_theory", "output_tv", "output_pvalue", "draft_calls", "target_calls",
    "target_positions", "per_position_acceptance", "seed", "threads", "rng",
};
enum { SIM_NCOLS = sizeof SIM_COLS / sizeof SIM_COLS[0] };

/* The acceptance the run was asked for: the model's measured mean for files,
 * noisy drafts and rules whose acceptance is not beta (greedy,
 * deterministic-draft, exact-match: calibration sets beta), else the
 * calibrated alpha (markov: its mean).  The rules' functions are compared
 * as the library's table holds them. */
static double nominal_alpha(const cli_model *ms, const sd_verifier *v, const sd_model *m)
{
    int beta_rule = sd_verify_dist_acceptance(v) == sd_verify_dist_acceptance(sd_verify_find("adjusted"));
    if (ms->from_files || ms->ngram || ms->npy || !ms->synth.calibrated || !beta_rule)
        return sd_verify_mean_acceptance(v, m);
    if (ms->synth.regime == SD_REGIME_MARKOV) {
        const sd_markov mk = { ms->synth.alpha_easy, ms->synth.alpha_hard, ms->synth.stay };
        return sd_theory_markov_mean_alpha(&mk);
    }
    return ms->synth.alpha;
}

/* The run's counters in vLLM's Prometheus exposition format, to path. */
static sd_status export_prometheus(const char *path, const sd_engine_stats *s, size_t gamma, sd_error *err)
{
    sd_counts c;
    sd_status st = sd_fit_counts_from_engine(s, gamma, &c, err);
    if (st != SD_OK)
        return st;
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: cannot write '%s': %s", path, strerror(errno));
    st = sd_counters_write_prometheus(&c, f, err);
    if (fclose(f) != 0 && st == SD_OK)
        st = sd_status_fail(err, SD_EIO, "--export-prometheus: cannot write '%s': %s", path, strerror(errno));
    return st;
}

/* The SIM_COLS cells of one run s of ec (theory: the prediction shown);
 * rates is the caller's buffer for the per-position acceptance text. */
static void sim_cells(const cli_model *ms, const sd_engine_config *ec, const sd_engine_stats *s, const sd_gof *gof,
                      double theory, char *rates, size_t nrates, sd_cell *row)
{
    /* conditional acceptance of draft i given drafts 1..i-1 accepted, i = 1..16 */
    rates[0] = '\0';
    for (size_t d = 0; d < s->max_gamma && d < 16 && s->reached[d] > 0; d++)
        snprintf(rates + strlen(rates), nrates - strlen(rates), "%s%.4f", d ? "," : "",
                 (double)s->accepted_at[d] / (double)s->reached[d]);
    const sd_model *m = ec->model;
    const char *policy = sd_engine_policy_name(ec->policy);
    const char *regime = ms->ngram ? "text" : ms->npy ? "rows" : ms->from_files ? "constant"
                                                                                : sd_synth_regime_name(ms->synth.regime);
    const sd_cell cells[SIM_NCOLS] = {
        sd_text(sd_model_family_name(sd_model_family(m))), sd_int((long long)sd_model_vocab(m)),
        sd_int((long long)sd_model_contexts(m)), sd_text(regime), sd_text(policy),
        ec->policy == SD_POLICY_FIXED ? sd_int((long long)ec->gamma) : sd_text(policy),
        sd_text(sd_verify_name(ec->verifier)), sd_int((long long)ec->drafts),
        sd_real(nominal_alpha(ms, ec->verifier, m)), sd_real(s->alpha_hat),
        sd_real(s->verified ? (double)s->accepted / (double)s->verified : 0.0), sd_int((long long)s->iterations),
        sd_int((long long)s->tokens), sd_real(sd_engine_stats_mean_n(s)), sd_real(sd_engine_stats_mean_n_se(s)),
        sd_real(theory), sd_real(gof->tv), sd_real(gof->pvalue), sd_int((long long)s->draft_calls),
        sd_int((long long)s->target_calls), sd_int((long long)s->target_positions), sd_text(rates),
        sd_int((long long)ec->seed), sd_int((long long)ec->threads), sd_text(sd_rng_type()->name),
    };
    memcpy(row, cells, sizeof cells);
}

/* The note of a tree run: the tree, its children and the per-rank acceptance (T1) used. */
static sd_status tree_note(const sd_engine_config *ec, const sd_tree_accept *acc, sd_table *t, sd_error *err)
{
    size_t len = sd_tree_format(ec->tree, NULL, 0);
    char *text = malloc(len + 1), ranks[SD_TREE_MAX_RANK * 12 + 1] = "";
    if (text == NULL)
        return sd_status_fail(err, SD_ENOMEM, "out of memory");
    sd_tree_format(ec->tree, text, len + 1);
    for (size_t k = 0; k < acc->ranks; k++)
        snprintf(ranks + strlen(ranks), sizeof ranks - strlen(ranks), "%s%.5g", k ? ", " : "", acc->p[0][k]);
    sd_status st = sd_table_note(t, err,
                                 "tree %s (%zu nodes, depth %zu), %s children: gamma is its depth, target_positions "
                                 "count its nodes + 1, and expected_tokens_theory is (T1) at the per-rank "
                                 "acceptance p = (%s), the mean over the contexts the walks visited (doc/trees.md).",
                                 text, ec->tree->n, sd_tree_depth(ec->tree), sd_engine_children_name(ec->children), ranks);
    free(text);
    return st;
}

/* One engine run of ec on its model, as one row of t (and its counters
 * exported when `export` names a file). */
static sd_status simulate_row(const cli_model *ms, const sd_engine_config *ec, const char *export, sd_table *t,
                              sd_error *err)
{
    sd_engine_stats s;
    sd_gof gof;
    sd_status st = sd_engine_run(ec, &s, err);
    if (st != SD_OK)
        return st;
    if (export != NULL && (st = export_prometheus(export, &s, ec->gamma, err)) != SD_OK) {
        sd_engine_stats_free(&s);
        return st;
    }
    if (ec->progress != NULL && s.seconds > 1.0)
        fprintf(stderr, "\r%40s\r", "");
    char rates[512];
    if ((st = sd_gof_output(ec->model, ec->verifier, &s, &gof, err)) == SD_OK) {
        /* eq. (4) for a fixed gamma; the ceiling for the oracle; for the adaptive
         * policies, eq. (4) at the mean draft length (a reference, not a law) */
        double mean_g = (double)s.draft_calls / (double)s.iterations;
        double theory = ec->policy == SD_POLICY_ORACLE ? sd_theory_ceiling(s.alpha_hat)
                        : sd_theory_expected_tokens(s.alpha_hat, ec->policy == SD_POLICY_FIXED ? (double)ec->gamma : mean_g);
        sd_tree_accept acc;
        if (ec->tree != NULL && (st = sd_engine_tree_theory(ec, s.ctx_tokens, &acc, &theory, err)) == SD_OK)
            st = tree_note(ec, &acc, t, err);
        if (st != SD_OK) {
            sd_engine_stats_free(&s);
            return st;
        }
        sd_cell row[SIM_NCOLS];
        sim_cells(ms, ec, &s, &gof, theory, rates, sizeof rates, row);
        st = sd_table_add(t, row, err);
        if (st == SD_OK && s.verified == 0) /* 0 drafts verified: the rate is not measured */
            st = sd_table_note(t, err, "gamma %zu: no draft reached verification (the policy drafted none), so "
                               "acceptance_rate is reported as 0: not measured.", ec->gamma);
    }
    sd_engine_stats_free(&s);
    return st;
}

/* The engine options simulate reads into ec (all but the model and gamma). */
static sd_status read_engine_options(const cli_args *a, const cli_model *ms, sd_engine_config *ec, sd_error *err)
{
    double tokens, threads, drafts, gamma_max;
    int policy;
    sd_status st;
    *ec = sd_engine_defaults();
    if ((st = cli_verifier(a, &ec->verifier, err)) != SD_OK ||
        (st = cli_number(a, &CLI_DRAFTS, &drafts, err)) != SD_OK ||
        (st = cli_number(a, &THRESHOLD, &ec->threshold, err)) != SD_OK ||
        (st = cli_number(a, &CLI_GAMMA_MAX, &gamma_max, err)) != SD_OK ||
        (st = cli_choice(a, "--policy", NULL, &policy, err)) != SD_OK ||
        (st = cli_number(a, &CLI_TOKENS, &tokens, err)) != SD_OK ||
        (st = cli_number(a, &CLI_THREADS, &threads, err)) != SD_OK)
        return st;
    if (policy == SD_POLICY_ORACLE && cli_given(a, "--gamma"))
        return sd_status_fail(err, SD_EINVAL, "--gamma: the oracle policy chooses its own draft length");
    ec->policy = (sd_policy)policy;
    ec->drafts = (size_t)drafts;
    ec->gamma_max = (size_t)gamma_max;
    ec->tokens = (uint64_t)tokens;
    ec->threads = (unsigned)threads;
    ec->seed = ms->synth.seed;
    ec->shard = a->shard;
    ec->nshards = a->nshards;
    ec->io = a->io;
    if (a->nshards > 1 && cli_given(a, "--export-prometheus"))
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: a shard's counters are partial; export from one run");
    if (isatty(STDERR_FILENO))
        ec->progress = progress_line;
    return SD_OK;
}

/* ---- simulate on the n-gram pair and on .npy pairs ------------------------------------- */

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
static sd_status text_rows(const cli_args *a, const cli_model *ms, sd_engine_config ec, const sd_list *gammas,
                           const sd_cell *extra, size_t nextra, sd_table *t, sd_error *err)
{
    sd_markov mk;
    sd_status st;
    if ((st = cli_check_model_memory(a, &ec, err)) != SD_OK || (ec.tree == NULL && (st = fit_path(&ec, &mk, err)) != SD_OK))
        return st;
    if (ec.tree != NULL) { /* one run of the tree: (T1) at the visited contexts, no Markov prediction */
        sd_engine_stats s;
        sd_gof gof;
        sd_tree_accept acc;
        double theory;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            return st;
        if ((st = sd_gof_output(ec.model, ec.verifier, &s, &gof, err)) == SD_OK &&
            (st = sd_engine_tree_theory(&ec, s.ctx_tokens, &acc, &theory, err)) == SD_OK &&
            (st = tree_note(&ec, &acc, t, err)) == SD_OK) {
            sd_cell row[SIM_NCOLS + EXTRA_MAX];
            char rates[512];
            sim_cells(ms, &ec, &s, &gof, theory, rates, sizeof rates, row);
            memcpy(row + SIM_NCOLS, extra, nextra * sizeof *extra);
            st = sd_table_add(t, row, err);
        }
        sd_engine_stats_free(&s);
        return st;
    }
    for (size_t j = 0; j < gammas->n && st == SD_OK; j++) {
        ec.gamma = (size_t)gammas->v[j];
        sd_engine_stats s;
        sd_gof gof;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        if ((st = sd_gof_output(ec.model, ec.verifier, &s, &gof, err)) == SD_OK) {
            double measured = sd_engine_stats_mean_n(&s), eq4 = sd_theory_expected_tokens(s.alpha_hat, (double)ec.gamma);
            double markov = sd_theory_markov_expected_tokens(&mk, (double)ec.gamma);
            sd_cell row[SIM_NCOLS + EXTRA_MAX];
            const sd_cell pred[NPRED] = { sd_real(mk.a_easy), sd_real(mk.a_hard), sd_real(mk.stay), sd_real(markov),
                                          sd_real((eq4 - measured) / measured),
                                          sd_real((markov - measured) / measured) };
            char rates[512];
            sim_cells(ms, &ec, &s, &gof, eq4, rates, sizeof rates, row);
            memcpy(row + SIM_NCOLS, extra, nextra * sizeof *extra);
            memcpy(row + SIM_NCOLS + nextra, pred, sizeof pred);
            st = sd_table_add(t, row, err);
        }
        sd_engine_stats_free(&s);
    }
    return st;
}

/* A table of simulate's columns and these, then the Markov predictions (not for a tree). */
static sd_status text_table(const char *const *more, size_t nmore, int predictions, sd_table **t, sd_error *err)
{
    const char *names[SIM_NCOLS + EXTRA_MAX];
    memcpy(names, SIM_COLS, sizeof SIM_COLS);
    memcpy(names + SIM_NCOLS, more, nmore * sizeof *more);
    memcpy(names + SIM_NCOLS + nmore, PREDICTION_COLS, sizeof PREDICTION_COLS);
    return cli_table(SIM_NCOLS + nmore + (predictions ? NPRED : 0), names, t, err);
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

static sd_status simulate_ngram(const cli_args *a, const cli_model *ms, sd_engine_config ec, const sd_list *gammas,
                                sd_table **t, sd_error *err)
{
    double order, draft_order;
    cli_sampling cs = { 0 };
    sd_status st;
    if ((st = cli_number(a, &ORDER, &order, err)) != SD_OK ||
        (st = cli_number(a, &DRAFT_ORDER, &draft_order, err)) != SD_OK ||
        (st = cli_sampling_read(a, &cs, err)) != SD_OK || (st = text_table(NGRAM_COLS, NNGRAM + NNPY, ec.tree == NULL, t, err)) != SD_OK) {
        cli_sampling_free(&cs);
        return st;
    }
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_model *m = NULL;
        cli_sampling_at(&cs, i, &tg, &dr);
        const sd_ngram_config ng = { .order = (size_t)order, .draft_order = (size_t)draft_order, .target = &tg,
                                     .draft = &dr };
        if ((st = sd_ngram_load(cli_value(a, "--corpus"), &ng, &m, err)) != SD_OK)
            break;
        ec.model = m;
        if (i == 0 && cli_given(a, "--export-npy"))
            st = export_ngram(cli_value(a, "--export-npy"), m, err);
        sd_cell extra[NNGRAM + NNPY] = { sd_int((long long)order), sd_int((long long)draft_order),
                                         sd_real((double)sd_model_bytes(m) / 1048576.0),
                                         sd_real(sd_model_build_seconds(m)) };
        setting_cells(&tg, &dr, extra + NNGRAM);
        if (st == SD_OK)
            st = text_rows(a, ms, ec, gammas, extra, NNGRAM + NNPY, *t, err);
        sd_model_free(m);
    }
    cli_sampling_free(&cs);
    return st;
}

/* The rows of p and q transformed by one combination of settings. */
static sd_status transformed_model(const sd_npy *p, const sd_npy *q, sd_input kind, const sd_sampling *tg,
                                   const sd_sampling *dr, const cli_model *ms, sd_model **m, sd_error *err)
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

static sd_status simulate_npy(const cli_args *a, const cli_model *ms, sd_engine_config ec, const sd_list *gammas,
                              sd_table **t, sd_error *err)
{
    sd_npy p = { 0 }, q = { 0 };
    cli_sampling cs = { 0 };
    sd_input kind;
    sd_status st;
    if ((st = cli_input_kind(a, &kind, err)) == SD_OK && (st = cli_sampling_read(a, &cs, err)) == SD_OK &&
        (st = cli_load_npy_pair(a, &p, &q, err)) == SD_OK)
        st = text_table(NPY_COLS, NNPY, ec.tree == NULL, t, err);
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_model *m = NULL;
        cli_sampling_at(&cs, i, &tg, &dr);
        if ((st = transformed_model(&p, &q, kind, &tg, &dr, ms, &m, err)) != SD_OK)
            break;
        ec.model = m;
        sd_cell extra[NNPY];
        setting_cells(&tg, &dr, extra);
        st = text_rows(a, ms, ec, gammas, extra, NNPY, *t, err);
        sd_model_free(m);
    }
    sd_npy_free(&p), sd_npy_free(&q);
    cli_sampling_free(&cs);
    return st;
}

/* --tree SPEC and --children NAME into *tree (the caller frees it) and ec; SD_OK with *tree
 * NULL when --tree is not given. */
static sd_status sim_tree(const cli_args *a, sd_engine_config *ec, sd_tree **tree, sd_error *err)
{
    *tree = NULL;
    if (!cli_given(a, "--tree"))
        return cli_given(a, "--children") ? sd_status_fail(err, SD_EINVAL, "--children: goes with --tree") : SD_OK;
    if (cli_given(a, "--gamma") || ec->policy != SD_POLICY_FIXED || ec->drafts > 1)
        return sd_status_fail(err, SD_EINVAL, "--tree: the tree sets what is drafted: it takes no --%s",
                              cli_given(a, "--gamma") ? "gamma" : ec->policy != SD_POLICY_FIXED ? "policy" : "drafts");
    if (ec->verifier != sd_verify_find("adjusted"))
        return sd_status_fail(err, SD_EINVAL, "--tree: the tree's children are verified by the adjusted rule, not %s",
                              sd_verify_name(ec->verifier));
    if (cli_given(a, "--export-prometheus"))
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: vLLM's counters describe chains, not trees");
    int kind = SD_CHILDREN_TOP_K;
    sd_status st = cli_choice(a, "--children", sd_engine_children_names(), &kind, err);
    sd_tree *t = st == SD_OK ? malloc(sizeof *t) : NULL;
    if (st == SD_OK && t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && (st = sd_tree_parse(cli_value(a, "--tree"), NULL, t, "--tree", err)) == SD_OK) {
        ec->tree = t;
        ec->children = (sd_children)kind;
        ec->gamma = sd_tree_depth(t);
        *tree = t;
        return SD_OK;
    }
    free(t);
    return st;
}

static sd_status run_simulate(const cli_args *a, sd_table **out, sd_error *err)
{
    sd_tree *tree = NULL;
    cli_model ms;
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    sd_engine_config ec;
    sd_status st;
    if ((st = cli_model_read(a, &ms, err)) != SD_OK || (st = read_engine_options(a, &ms, &ec, err)) != SD_OK ||
        (st = sim_tree(a, &ec, &tree, err)) != SD_OK)
        goto done;
    if (tree != NULL) { /* one run: the tree's depth is the gamma the counters are laid out by */
        char depth[32];
        snprintf(depth, sizeof depth, "%zu", ec.gamma);
        st = sd_parse_list(depth, &SIM_GAMMA, &l[1], err);
    } else {
        st = cli_list(a, &SIM_GAMMA, &l[1], err);
    }
    if (st != SD_OK)
        goto done;
    if (ms.ngram || ms.npy) {
        if (ec.policy != SD_POLICY_FIXED || ec.drafts != 1 || cli_given(a, "--export-prometheus"))
            st = sd_status_fail(err, SD_EINVAL, "--%s: the n-gram and .npy models run the fixed policy with one draft per "
                                "position (the Markov prediction is for fixed gamma)",
                                ec.policy != SD_POLICY_FIXED ? "policy" : ec.drafts != 1 ? "drafts" : "export-prometheus");
        else
            st = ms.ngram ? simulate_ngram(a, &ms, ec, &l[1], &t, err) : simulate_npy(a, &ms, ec, &l[1], &t, err);
        goto done;
    }
    if (ms.from_files || !ms.synth.calibrated || ms.synth.regime == SD_REGIME_MARKOV)
        st = sd_parse_list("1", &CLI_ALPHA, &l[0], err); /* one model; alpha comes from it */
    else
        st = cli_list(a, &CLI_ALPHA, &l[0], err);
    if (st != SD_OK || (st = cli_table(SIM_NCOLS, SIM_COLS, &t, err)) != SD_OK)
        goto done;
    if (ms.from_files && (st = cli_load_pair(cli_value(a, "--p-file"), cli_value(a, "--q-file"), &p, &q, &m, err)) != SD_OK)
        goto done;
    ms.synth.threads = ec.threads;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++) { /* the largest run decides */
        sd_engine_config big = ec;
        big.gamma = (size_t)l[1].v[j];
        st = cli_check_memory(a, &ms, &big, p.n, err);
    }
    if (st == SD_OK && cli_given(a, "--export-prometheus") &&
        (l[0].n * l[1].n != 1 || ec.policy != SD_POLICY_FIXED || ec.drafts != 1 || sd_verify_is_blockwise(ec.verifier)))
        st = sd_status_fail(err, SD_EINVAL, "--export-prometheus: needs one run (one alpha, one gamma) of the fixed policy "
                            "with one draft per position and a token-wise rule");
    if (st != SD_OK)
        goto done;
    for (size_t i = 0; i < l[0].n && st == SD_OK; i++) {
        if (!ms.from_files) {
            sd_model_free(m);
            m = NULL;
            ms.synth.alpha = l[0].v[i];
            if ((st = sd_synth_model(&ms.synth, &m, err)) != SD_OK)
                break;
        }
        ec.model = m;
        size_t ngamma = ec.policy == SD_POLICY_ORACLE ? 1 : l[1].n;
        for (size_t j = 0; j < ngamma && st == SD_OK; j++) {
            ec.gamma = (size_t)l[1].v[j];
            st = simulate_row(&ms, &ec, cli_value(a, "--export-prometheus"), t, err);
        }
    }
done:
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    free(tree);
    return cli_finish(st, l, 2, t, out);
}

static const cli_option SIMULATE_OPTIONS[] = {
    { .name = "--gamma", .metavar = "LIST", .help = "draft lengths, in {range} (default {default})",
      .domain = &SIM_GAMMA, .lib = CLI_LIB(engine.gamma, CLI_LIB_SIZE) },
    { .name = "--policy", .metavar = "NAME", .help = "fixed, oracle (until the first rejection), threshold, heuristic "
      "(+2/-1) (default {default})", .lib = CLI_LIB(engine.policy, CLI_LIB_ENUM), .names = sd_engine_policy_names },
    { .name = "--threshold", .metavar = "H", .help = "threshold policy: draft while the draft's top probability is >= H "
      "(default {default})", .domain = &THRESHOLD, .lib = CLI_LIB(engine.threshold, CLI_LIB_DOUBLE) },
    { .name = "--gamma-max", .metavar = "G", .help = "heuristic policy: the largest draft length (default {default})",
      .domain = &CLI_GAMMA_MAX, .lib = CLI_LIB(engine.gamma_max, CLI_LIB_SIZE) },
    { .name = "--drafts", .metavar = "K", .help = "drafts per position, recursive rejection (adjusted only), in "
      "{range} (default {default})", .domain = &CLI_DRAFTS, .lib = CLI_LIB(engine.drafts, CLI_LIB_SIZE) },
    { .name = "--tree", .metavar = "SPEC", .help = "draft this tree every iteration (tree --help: the forms but "
      "sglang:), verified from the root down by the adjusted rule" },
    { .name = "--children", .metavar = "NAME", .help = "--tree: {names}: q's top tokens tried in rank order, or "
      "draws from q (recursive rejection) (default {default})", .dflt = "top-k", .names = sd_engine_children_names },
    { .name = "--tokens", .metavar = "T", .help = "about T tokens per row, in whole chunks of 2048 iterations, at most "
      "{max} (about 20 min on 2 cores) (default {default})", .domain = &CLI_TOKENS,
      .lib = CLI_LIB(engine.tokens, CLI_LIB_U64) },
    { .name = "--threads", .metavar = "K", .help = "threads, in {range}; results do not depend on it (default "
      "{default})", .domain = &CLI_THREADS, .lib = CLI_LIB(engine.threads, CLI_LIB_UINT) },
    { .name = "--export-prometheus", .metavar = "FILE", .help = "write the run's counters in vLLM's Prometheus "
      "exposition format (for fit)" },
    { .name = "--corpus", .metavar = "FILE", .help = "--family ngram: the text both byte-level models learn (e.g. "
      "/usr/share/common-licenses/GPL-3)" },
    { .name = "--order", .metavar = "N", .help = "--family ngram: the target's order, in {range} (default {default})",
      .domain = &ORDER, .lib = CLI_LIB(ngram.order, CLI_LIB_SIZE) },
    { .name = "--draft-order", .metavar = "M", .help = "--family ngram: the draft's order, in [1, N] (default "
      "{default})", .domain = &DRAFT_ORDER, .lib = CLI_LIB(ngram.draft_order, CLI_LIB_SIZE) },
    { .name = "--export-npy", .metavar = "PREFIX", .help = "--family ngram: also write the first setting's pair as "
      "logits at 1024 corpus positions, PREFIX-p.npy and PREFIX-q.npy" },
    { .name = "--p-npy", .metavar = "FILE", .help = "target rows from an .npy matrix (V,) or (rows, V); the rows are "
      "the context bank" },
    { .name = "--q-npy", .metavar = "FILE", .help = "draft rows, the same shape as --p-npy" },
    { .name = "--input", .metavar = "KIND", .help = "--p-npy: the numbers are logits or probs (required)" },
    { .name = "--top-k", .metavar = "LIST", .help = ".npy pairs and ngram: keep the tokens at least as likely as the "
      "k-th (ties kept); 0: off (default {default})", .domain = &CLI_SAMPLING_DOMAINS[1],
      .lib = CLI_LIB(sampling.top_k, CLI_LIB_SIZE) },
    { .name = "--top-p", .metavar = "LIST", .help = ".npy pairs and ngram: keep the smallest top set of mass >= P "
      "(ties kept) (default {default}: off)", .domain = &CLI_SAMPLING_DOMAINS[2],
      .lib = CLI_LIB(sampling.top_p, CLI_LIB_DOUBLE) },
    { .name = "--min-p", .metavar = "LIST", .help = ".npy pairs and ngram: keep the tokens with p >= P max p (default "
      "{default}: off)", .domain = &CLI_SAMPLING_DOMAINS[3], .lib = CLI_LIB(sampling.min_p, CLI_LIB_DOUBLE) },
    { .name = "--draft-temperature", .metavar = "LIST", .help = ".npy pairs and ngram: the draft's temperature "
      "(default: --temperature)", .domain = &CLI_SAMPLING_DOMAINS[4] },
    { .name = "--draft-top-k", .metavar = "LIST", .help = ".npy pairs and ngram: the draft's top-k (default: --top-k)",
      .domain = &CLI_SAMPLING_DOMAINS[5] },
    { .name = "--draft-top-p", .metavar = "LIST", .help = ".npy pairs and ngram: the draft's top-p (default: --top-p)",
      .domain = &CLI_SAMPLING_DOMAINS[6] },
    { .name = "--draft-min-p", .metavar = "LIST", .help = ".npy pairs and ngram: the draft's min-p (default: --min-p)",
      .domain = &CLI_SAMPLING_DOMAINS[7] },
    { .name = NULL },
};

const cli_command cmd_simulate = {
    .name = "simulate",
    .synopsis = "simulate [--family NAME --vocab V --alpha LIST | --p-file P --q-file Q | --family ngram --corpus FILE "
                "| --p-npy T --q-npy D --input KIND] [--gamma LIST] ...",
    .summary = "run the rejection sampler on synthetic or file models and compare with eq. (4)",
    .groups = { SIMULATE_OPTIONS, CLI_MODEL_OPTIONS, CLI_SCALE_OPTIONS },
    .run = run_simulate,
    .scales = 1,
};
