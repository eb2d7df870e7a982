/* cmd_engine.c -- the Monte Carlo commands: simulate and sample. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const sd_domain VOCAB = { "--vocab", 1, SD_VOCAB_MAX, 1 };
/* Caps on work: 1e10 tokens or draws take about 20 minutes on two cores
 * (README, Performance); anything longer belongs in several runs. */
static const sd_domain TOKENS = { "--tokens", 1, 1e10, 1 };
static const sd_domain DRAWS = { "--draws", 1, 1e10, 1 };
static const sd_domain MAX_MEMORY = { "--max-memory", 1e-3, 1e6, 0 };
static const sd_domain SEED = { "--seed", 0, 9007199254740992.0, 1 };
static const sd_domain THREADS = { "--threads", 1, 256, 1 };
static const sd_domain CONTEXTS = { "--contexts", 1, 65536, 1 };
static const sd_domain HISTORY = { "--history", 0, SD_HISTORY_MAX, 1 };
static const sd_domain ZIPF_S = { "--zipf-s", 1e-3, 100, 0 };
static const sd_domain KAPPA = { "--kappa", 1e-3, 1e6, 0 };
static const sd_domain TEMPERATURE = { "--temperature", 1e-3, 1e3, 0 };
static const sd_domain NOISE = { "--noise", 0, 100, 0 };
static const sd_domain CONCENTRATION = { "--concentration", 1e-3, 1e6, 0 };
static const sd_domain ALPHA_EASY = { "--alpha-easy", 0, 1, 0 };
static const sd_domain ALPHA_HARD = { "--alpha-hard", 0, 1, 0 };
static const sd_domain STAY = { "--stay", 0, 1, 0 };
static const sd_domain SIM_GAMMA = { "--gamma", 1, SD_ORACLE_MAX, 1 };
static const sd_domain DRAFTS = { "--drafts", 1, 64, 1 };

static const sd_domain THRESHOLD = { "--threshold", 0, 1, 0 };
static const sd_domain THRESHOLDS = { "--thresholds", 0, 1, 0 };
static const sd_domain GAMMA_MAX = { "--gamma-max", 1, SD_ORACLE_MAX, 1 };
static const sd_domain POLICY_COST = { "--cost", 0, INFINITY, 0 };

#define DEFAULT_SEED "20261129"

static sd_status find_verifier(const cli_args *a, const sd_verifier **v, sd_error *err)
{
    const char *name = cli_value(a, "--verify");
    *v = sd_verify_find(name ? name : "adjusted");
    if (*v == NULL)
        return sd_status_fail(err, SD_EINVAL, "--verify: unknown rule '%s'; expected one of %s", name, sd_verify_names());
    return SD_OK;
}

/* Loads two distribution files over one vocabulary into a context-free model. */
static sd_status load_pair(const char *p_path, const char *q_path, sd_dist *p, sd_dist *q, sd_model **m,
                           sd_error *err)
{
    sd_status st;
    if ((st = sd_dist_load(p_path, p, err)) != SD_OK || (st = sd_dist_load(q_path, q, err)) != SD_OK ||
        (st = sd_dist_compatible(p, q, p_path, q_path, err)) != SD_OK)
        return st;
    return sd_model_pair(p->p, q->p, p->n, m, err);
}

/* A progress line on stderr for runs longer than a second, when it is a terminal. */
static void progress_line(void *arg, double fraction, double seconds)
{
    (void)arg;
    if (seconds > 1.0)
        fprintf(stderr, "\rspecdec: simulating... %3.0f%%", 100.0 * fraction);
}

typedef struct {
    sd_synth_config synth;
    int from_files;
    int ngram, npy; /* issue 13: the n-gram pair on a corpus; a .npy matrix pair */
    double alpha_nominal;
} model_spec;

/* The options of the n-gram pair and of .npy pairs (issue 13): each only
 * with its model, and neither with distribution files. */
static sd_status check_text_options(const cli_args *a, const model_spec *ms, sd_error *err)
{
    static const char *const NGRAM_ONLY[] = { "--corpus", "--order", "--draft-order", "--export-npy", NULL };
    static const char *const NPY_ONLY[] = { "--input", NULL };
    static const char *const SAMPLING[] = { "--top-k", "--top-p", "--min-p", "--draft-temperature", "--draft-top-k",
                                            "--draft-top-p", "--draft-min-p", NULL };
    if (ms->ngram && strcmp(a->cmd->name, "simulate") != 0)
        return sd_status_fail(err, SD_EINVAL, "--family: the n-gram pair runs in simulate (ngram is not a family of %s)",
                              a->cmd->name);
    if (ms->ngram && ms->npy)
        return sd_status_fail(err, SD_EINVAL, "--p-npy: give --family ngram or a .npy pair, not both");
    if ((ms->ngram || ms->npy) && (cli_given(a, "--p-file") || cli_given(a, "--q-file")))
        return sd_status_fail(err, SD_EINVAL, "--p-file: give distribution files, --family ngram or a .npy pair, one of them");
    for (int i = 0; NGRAM_ONLY[i] != NULL; i++)
        if (!ms->ngram && cli_given(a, NGRAM_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --family ngram", NGRAM_ONLY[i]);
    for (int i = 0; NPY_ONLY[i] != NULL; i++)
        if (!ms->npy && cli_given(a, NPY_ONLY[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --p-npy and --q-npy", NPY_ONLY[i]);
    for (int i = 0; SAMPLING[i] != NULL; i++)
        if (!ms->npy && !ms->ngram && cli_given(a, SAMPLING[i]))
            return sd_status_fail(err, SD_EINVAL, "%s: needs --p-npy and --q-npy, or --family ngram", SAMPLING[i]);
    if (ms->ngram && !cli_given(a, "--corpus"))
        return sd_status_fail(err, SD_EINVAL, "--corpus is required with --family ngram (e.g. /usr/share/common-licenses/GPL-3)");
    if ((ms->ngram || ms->npy) && (cli_given(a, "--alpha") || cli_given(a, "--noise") || cli_given(a, "--regime")))
        return sd_status_fail(err, SD_EINVAL, "--%s: the n-gram and .npy models have their own acceptance",
                              cli_given(a, "--alpha") ? "alpha" : cli_given(a, "--noise") ? "noise" : "regime");
    return SD_OK;
}

/* The synthetic-model options common to simulate and validate. */
static sd_status read_model_spec(const cli_args *a, model_spec *ms, sd_error *err)
{
    sd_synth_config *c = &ms->synth;
    double vocab, contexts = 0, history, seed;
    int family, regime;
    sd_status st;
    memset(ms, 0, sizeof *ms);
    const char *fam = cli_value(a, "--family");
    ms->ngram = fam != NULL && strcmp(fam, "ngram") == 0;
    ms->npy = cli_given(a, "--p-npy") || cli_given(a, "--q-npy");
    if ((st = check_text_options(a, ms, err)) != SD_OK)
        return st;
    if (ms->ngram || ms->npy)
        fam = NULL; /* not a synthetic family: the synthetic defaults stay for the seed */
    family = SD_FAMILY_ZIPF;
    if ((fam != NULL && (st = cli_choice(a, "--family", sd_family_names(), "zipf", &family, err)) != SD_OK) ||
        (st = cli_choice(a, "--regime", sd_regime_names(), "constant", &regime, err)) != SD_OK ||
        (st = cli_number(a, &VOCAB, "1000", &vocab, err)) != SD_OK ||
        (st = cli_number(a, &HISTORY, "2", &history, err)) != SD_OK ||
        (st = cli_number(a, &SEED, DEFAULT_SEED, &seed, err)) != SD_OK ||
        (st = cli_number(a, &ZIPF_S, "1.5", &c->zipf_s, err)) != SD_OK ||
        (st = cli_number(a, &KAPPA, "0.5", &c->kappa, err)) != SD_OK ||
        (!ms->npy && !ms->ngram && (st = cli_number(a, &TEMPERATURE, "1", &c->temperature, err)) != SD_OK) ||
        (st = cli_number(a, &CONCENTRATION, "20", &c->concentration, err)) != SD_OK ||
        (st = cli_number(a, &ALPHA_EASY, "0.95", &c->alpha_easy, err)) != SD_OK ||
        (st = cli_number(a, &ALPHA_HARD, "0.3", &c->alpha_hard, err)) != SD_OK ||
        (st = cli_number(a, &STAY, "0.9", &c->stay, err)) != SD_OK ||
        (cli_given(a, "--contexts") && (st = cli_number(a, &CONTEXTS, NULL, &contexts, err)) != SD_OK))
        return st;
    c->family = (sd_family)family;
    c->regime = (sd_regime)regime;
    c->vocab = (size_t)vocab;
    c->contexts = (size_t)contexts;
    c->history = (size_t)history;
    c->seed = (uint64_t)seed;
    c->calibrated = !cli_given(a, "--noise");
    if (!c->calibrated) {
        if (cli_given(a, "--alpha"))
            return sd_status_fail(err, SD_EINVAL, "--noise and --alpha exclude each other: a noisy draft's alpha is measured");
        if ((st = cli_number(a, &NOISE, NULL, &c->noise, err)) != SD_OK)
            return st;
    }
    if (regime == SD_REGIME_MARKOV && cli_given(a, "--alpha"))
        return sd_status_fail(err, SD_EINVAL, "--alpha: the markov regime takes --alpha-easy, --alpha-hard and --stay");
    ms->from_files = cli_given(a, "--p-file") || cli_given(a, "--q-file");
    if (ms->from_files && !(cli_given(a, "--p-file") && cli_given(a, "--q-file")))
        return sd_status_fail(err, SD_EINVAL, "--p-file and --q-file go together");
    return SD_OK;
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
 * noisy and greedy drafts, else the calibrated alpha (markov: its mean). */
static double nominal_alpha(const model_spec *ms, const sd_verifier *v, const sd_model *m)
{
    if (ms->from_files || ms->ngram || ms->npy || !ms->synth.calibrated || sd_verify_is_greedy(v))
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
static void sim_cells(const model_spec *ms, const sd_engine_config *ec, const sd_engine_stats *s, const sd_gof *gof,
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
                                                                                : sd_regime_name(ms->synth.regime);
    const sd_cell cells[SIM_NCOLS] = {
        sd_text(sd_family_name(sd_model_family(m))), sd_int((long long)sd_model_vocab(m)),
        sd_int((long long)sd_model_contexts(m)), sd_text(regime), sd_text(policy),
        ec->policy == SD_POLICY_FIXED ? sd_int((long long)ec->gamma) : sd_text(policy),
        sd_text(sd_verify_name(ec->verifier)), sd_int((long long)ec->drafts),
        sd_real(nominal_alpha(ms, ec->verifier, m)), sd_real(s->alpha_hat),
        sd_real(s->verified ? (double)s->accepted / (double)s->verified : 0.0), sd_int((long long)s->iterations),
        sd_int((long long)s->tokens), sd_real(sd_engine_mean_n(s)), sd_real(sd_engine_mean_n_se(s)),
        sd_real(theory), sd_real(gof->tv), sd_real(gof->pvalue), sd_int((long long)s->draft_calls),
        sd_int((long long)s->target_calls), sd_int((long long)s->target_positions), sd_text(rates),
        sd_int((long long)ec->seed), sd_int((long long)ec->threads), sd_text(sd_rng_type()->name),
    };
    memcpy(row, cells, sizeof cells);
}

/* One engine run of ec on its model, as one row of t (and its counters
 * exported when `export` names a file). */
static sd_status simulate_row(const model_spec *ms, const sd_engine_config *ec, const char *export, sd_table *t,
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
    if ((st = sd_engine_output_gof(ec->model, ec->verifier, &s, &gof, err)) == SD_OK) {
        /* eq. (4) for a fixed gamma; the ceiling for the oracle; for the adaptive
         * policies, eq. (4) at the mean draft length (a reference, not a law) */
        double mean_g = (double)s.draft_calls / (double)s.iterations;
        double theory = ec->policy == SD_POLICY_ORACLE ? sd_theory_ceiling(s.alpha_hat)
                        : sd_theory_expected_tokens(s.alpha_hat, ec->policy == SD_POLICY_FIXED ? (double)ec->gamma : mean_g);
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

/* --max-memory in GiB, or half the physical memory. */
static sd_status memory_limit(const cli_args *a, double *limit_gib, sd_error *err)
{
    double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    *limit_gib = phys > 0 ? phys / 2 / 1073741824.0 : 4.0;
    return cli_given(a, "--max-memory") ? cli_number(a, &MAX_MEMORY, NULL, limit_gib, err) : SD_OK;
}

/* Refuses a run whose bank and engine counters would pass --max-memory GiB
 * (default: half the physical memory), before anything is allocated. */
static sd_status check_memory(const cli_args *a, const model_spec *ms, const sd_engine_config *ec, size_t file_vocab,
                              sd_error *err)
{
    double limit_gib, limit;
    sd_status st = memory_limit(a, &limit_gib, err);
    if (st != SD_OK)
        return st;
    limit = limit_gib * 1073741824.0;
    size_t vocab = ms->from_files ? file_vocab : ms->synth.vocab;
    size_t contexts = ms->from_files ? 1 : ms->synth.contexts ? ms->synth.contexts : sd_synth_default_contexts(vocab);
    double bank = ms->from_files ? 0.0 : (double)sd_synth_bytes(&ms->synth);
    double engine = (double)sd_engine_bytes(ec, vocab, contexts);
    if (bank + engine <= limit)
        return SD_OK;
    return sd_status_fail(err, SD_EINVAL, "--max-memory: this run needs about %.3g GiB (bank %.3g, engine counters %.3g "
                          "for %u threads) but the limit is %.3g GiB; lower --vocab, --contexts or --threads, or raise "
                          "--max-memory", (bank + engine) / 1073741824.0, bank / 1073741824.0, engine / 1073741824.0,
                          ec->threads, limit_gib);
}

/* The engine options simulate reads into ec (all but the model and gamma). */
static sd_status read_engine_options(const cli_args *a, const model_spec *ms, sd_engine_config *ec, sd_error *err)
{
    double tokens, threads, drafts, gamma_max;
    int policy;
    sd_status st;
    *ec = sd_engine_defaults();
    if ((st = find_verifier(a, &ec->verifier, err)) != SD_OK ||
        (st = cli_number(a, &DRAFTS, "1", &drafts, err)) != SD_OK ||
        (st = cli_number(a, &THRESHOLD, "0.5", &ec->threshold, err)) != SD_OK ||
        (st = cli_number(a, &GAMMA_MAX, "32", &gamma_max, err)) != SD_OK ||
        (st = cli_choice(a, "--policy", sd_engine_policy_names(), "fixed", &policy, err)) != SD_OK ||
        (st = cli_number(a, &TOKENS, "1000000", &tokens, err)) != SD_OK ||
        (st = cli_number(a, &THREADS, "1", &threads, err)) != SD_OK)
        return st;
    if (policy == SD_POLICY_ORACLE && cli_given(a, "--gamma"))
        return sd_status_fail(err, SD_EINVAL, "--gamma: the oracle policy chooses its own draft length");
    ec->policy = (sd_policy)policy;
    ec->drafts = (size_t)drafts;
    ec->gamma_max = (size_t)gamma_max;
    ec->tokens = (uint64_t)tokens;
    ec->threads = (unsigned)threads;
    ec->seed = ms->synth.seed;
    ec->shard = a->shard, ec->nshards = a->nshards, ec->io = a->io;
    if (a->nshards > 1 && cli_given(a, "--export-prometheus"))
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: a shard's counters are partial; export from one run");
    if (isatty(STDERR_FILENO))
        ec->progress = progress_line;
    return SD_OK;
}

/* ---- simulate on the n-gram pair and on .npy pairs (issue 13) ------------------------- */

static const sd_domain ORDER = { "--order", 1, SD_NGRAM_ORDER_MAX, 1 };
static const sd_domain DRAFT_ORDER = { "--draft-order", 1, SD_NGRAM_ORDER_MAX, 1 };
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
    sd_status st = sd_model_path_acceptance(ec->model, ec->verifier, PATH_TOKENS, ec->seed, path, err);
    if (st == SD_OK)
        *mk = sd_markov_fit(path, PATH_TOKENS);
    free(path);
    return st;
}

/* Refuses a run on an existing model whose engine counters pass --max-memory. */
static sd_status check_model_memory(const cli_args *a, const sd_engine_config *ec, sd_error *err)
{
    double limit_gib;
    sd_status st = memory_limit(a, &limit_gib, err);
    if (st != SD_OK)
        return st;
    double need = (double)sd_model_bytes(ec->model) +
                  (double)sd_engine_bytes(ec, sd_model_vocab(ec->model), sd_model_contexts(ec->model));
    if (need <= limit_gib * 1073741824.0)
        return SD_OK;
    return sd_status_fail(err, SD_EINVAL, "--max-memory: this run needs about %.3g GiB but the limit is %.3g GiB; lower "
                          "--threads or --order, or raise --max-memory", need / 1073741824.0, limit_gib);
}

/* One engine run per gamma on m, each a row: simulate's columns, then
 * extra[0..nextra-1] (the model's settings) and the predictions. */
static sd_status text_rows(const cli_args *a, const model_spec *ms, sd_engine_config ec, const sd_list *gammas,
                           const sd_cell *extra, size_t nextra, sd_table *t, sd_error *err)
{
    sd_markov mk;
    sd_status st;
    if ((st = check_model_memory(a, &ec, err)) != SD_OK || (st = fit_path(&ec, &mk, err)) != SD_OK)
        return st;
    for (size_t j = 0; j < gammas->n && st == SD_OK; j++) {
        ec.gamma = (size_t)gammas->v[j];
        sd_engine_stats s;
        sd_gof gof;
        if ((st = sd_engine_run(&ec, &s, err)) != SD_OK)
            break;
        if ((st = sd_engine_output_gof(ec.model, ec.verifier, &s, &gof, err)) == SD_OK) {
            double measured = sd_engine_mean_n(&s), eq4 = sd_theory_expected_tokens(s.alpha_hat, (double)ec.gamma);
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

/* A table of simulate's columns and these. */
static sd_status text_table(const char *const *more, size_t nmore, sd_table **t, sd_error *err)
{
    const char *names[SIM_NCOLS + EXTRA_MAX];
    memcpy(names, SIM_COLS, sizeof SIM_COLS);
    memcpy(names + SIM_NCOLS, more, nmore * sizeof *more);
    memcpy(names + SIM_NCOLS + nmore, PREDICTION_COLS, sizeof PREDICTION_COLS);
    return cli_table(SIM_NCOLS + nmore + NPRED, names, t, err);
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

static sd_status simulate_ngram(const cli_args *a, const model_spec *ms, sd_engine_config ec, const sd_list *gammas,
                                sd_table **t, sd_error *err)
{
    double order, draft_order;
    cli_sampling cs = { 0 };
    sd_status st;
    if ((st = cli_number(a, &ORDER, "5", &order, err)) != SD_OK ||
        (st = cli_number(a, &DRAFT_ORDER, "2", &draft_order, err)) != SD_OK ||
        (st = cli_sampling_read(a, &cs, err)) != SD_OK || (st = text_table(NGRAM_COLS, NNGRAM + NNPY, t, err)) != SD_OK) {
        cli_sampling_free(&cs);
        return st;
    }
    for (size_t i = 0; i < cs.rows && st == SD_OK; i++) {
        sd_sampling tg, dr;
        sd_model *m = NULL;
        cli_sampling_at(&cs, i, &tg, &dr);
        if ((st = sd_model_ngram_load(cli_value(a, "--corpus"), (size_t)order, (size_t)draft_order, &tg, &dr, &m,
                                      err)) != SD_OK)
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
                                   const sd_sampling *dr, const model_spec *ms, sd_model **m, sd_error *err)
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
    if (st == SD_OK)
        st = sd_model_rows(tp, tq, p->rows, p->cols, ms->synth.history, ms->synth.seed, m, err);
    free(tp), free(tq);
    return st;
}

static sd_status simulate_npy(const cli_args *a, const model_spec *ms, sd_engine_config ec, const sd_list *gammas,
                              sd_table **t, sd_error *err)
{
    sd_npy p = { 0 }, q = { 0 };
    cli_sampling cs = { 0 };
    sd_input kind;
    sd_status st;
    if ((st = cli_input_kind(a, &kind, err)) == SD_OK && (st = cli_sampling_read(a, &cs, err)) == SD_OK &&
        (st = cli_load_npy_pair(a, &p, &q, err)) == SD_OK)
        st = text_table(NPY_COLS, NNPY, t, err);
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

static sd_status run_simulate(const cli_args *a, sd_table **out, sd_error *err)
{
    model_spec ms;
    sd_list l[2] = { { 0 } };
    sd_table *t = NULL;
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    sd_engine_config ec;
    sd_status st;
    if ((st = read_model_spec(a, &ms, err)) != SD_OK || (st = read_engine_options(a, &ms, &ec, err)) != SD_OK ||
        (st = cli_list(a, &SIM_GAMMA, "5", &l[1], err)) != SD_OK)
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
        st = cli_list(a, &CLI_ALPHA, "0.8", &l[0], err);
    if (st != SD_OK || (st = cli_table(SIM_NCOLS, SIM_COLS, &t, err)) != SD_OK)
        goto done;
    if (ms.from_files && (st = load_pair(cli_value(a, "--p-file"), cli_value(a, "--q-file"), &p, &q, &m, err)) != SD_OK)
        goto done;
    ms.synth.threads = ec.threads;
    for (size_t j = 0; j < l[1].n && st == SD_OK; j++) { /* the largest run decides */
        sd_engine_config big = ec;
        big.gamma = (size_t)l[1].v[j];
        st = check_memory(a, &ms, &big, p.n, err);
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
            if ((st = sd_model_synth(&ms.synth, &m, err)) != SD_OK)
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
    return cli_finish(st, l, 2, t, out);
}

static sd_status run_sample(const cli_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "token", "p", "q", "observed", "expected", "seed", "rng" };
    sd_dist p = { 0 }, q = { 0 };
    sd_model *m = NULL;
    sd_table *t = NULL;
    double draws, seed, drafts;
    uint64_t *counts = NULL;
    double *expect = NULL;
    sd_sample_config sc = { 0 };
    sd_status st;
    if ((st = find_verifier(a, &sc.verifier, err)) != SD_OK ||
        (st = cli_number(a, &DRAWS, "1000000", &draws, err)) != SD_OK ||
        (st = cli_number(a, &DRAFTS, "1", &drafts, err)) != SD_OK ||
        (st = cli_number(a, &SEED, DEFAULT_SEED, &seed, err)) != SD_OK ||
        (st = load_pair(a->pos[0], a->pos[1], &p, &q, &m, err)) != SD_OK || (st = cli_table(7, cols, &t, err)) != SD_OK)
        goto done;
    size_t n = p.n;
    counts = malloc(n * sizeof *counts);
    expect = malloc(n * sizeof *expect);
    if (counts == NULL || expect == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    sc.model = m, sc.drafts = (size_t)drafts, sc.draws = (uint64_t)draws, sc.seed = (uint64_t)seed;
    sc.shard = a->shard, sc.nshards = a->nshards, sc.io = a->io;
    if ((st = sd_engine_sample(&sc, counts, expect, err)) != SD_OK)
        goto done;
    for (size_t tok = 0; tok < n && st == SD_OK; tok++) {
        char label[32];
        snprintf(label, sizeof label, "%zu", tok);
        const sd_cell row[] = { sd_text(p.labels ? p.labels[tok] : label), sd_real(p.p[tok]), sd_real(q.p[tok]),
                                sd_real((double)counts[tok] / draws), sd_real(expect[tok]),
                                sd_int((long long)seed), sd_text(sd_rng_type()->name) };
        st = sd_table_add(t, row, err);
    }
done:
    free(counts);
    free(expect);
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    return cli_finish(st, NULL, 0, t, out);
}

static sd_status run_policies(const cli_args *a, sd_table **out, sd_error *err)
{
    model_spec ms;
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    const sd_verifier *v;
    double tokens, threads, cost, gamma_max;
    sd_list th = { 0 };
    sd_status st;
    *out = NULL;
    if ((st = read_model_spec(a, &ms, err)) != SD_OK || (st = find_verifier(a, &v, err)) != SD_OK ||
        (st = cli_number(a, &TOKENS, "300000", &tokens, err)) != SD_OK ||
        (st = cli_number(a, &THREADS, "2", &threads, err)) != SD_OK ||
        (st = cli_number(a, &POLICY_COST, NULL, &cost, err)) != SD_OK ||
        (st = cli_number(a, &GAMMA_MAX, "24", &gamma_max, err)) != SD_OK ||
        (cli_given(a, "--thresholds") && (st = cli_list(a, &THRESHOLDS, NULL, &th, err)) != SD_OK))
        goto done;
    if (!ms.synth.calibrated || ms.synth.regime == SD_REGIME_MARKOV || ms.from_files)
        ms.synth.alpha = 0.8;
    else if ((st = cli_number(a, &CLI_ALPHA, "0.8", &ms.synth.alpha, err)) != SD_OK)
        goto done;
    ms.synth.threads = (unsigned)threads;
    sd_engine_config probe = sd_engine_defaults(); /* the largest run of the policy sweep */
    probe.policy = SD_POLICY_ORACLE, probe.threads = (unsigned)threads;
    if (ms.from_files)
        st = load_pair(cli_value(a, "--p-file"), cli_value(a, "--q-file"), &p, &q, &m, err);
    if (st == SD_OK)
        st = check_memory(a, &ms, &probe, p.n, err);
    if (st == SD_OK && !ms.from_files)
        st = sd_model_synth(&ms.synth, &m, err);
    if (st == SD_OK) {
        sd_engine_config base = sd_engine_defaults();
        base.model = m, base.verifier = v, base.gamma_max = (size_t)gamma_max, base.tokens = (uint64_t)tokens;
        base.seed = ms.synth.seed, base.threads = (unsigned)threads;
        base.shard = a->shard, base.nshards = a->nshards, base.io = a->io;
        st = sd_engine_policies(&base, cost, th.v, th.n, out, err);
    }
done:
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    sd_parse_list_free(&th);
    return st;
}

/* The model options simulate and policies share. */
static const cli_option model_options[] = {
    { "--family", "NAME", "target family: {families} (default zipf); simulate also takes ngram" },
    { "--vocab", "V", "vocabulary size, in [1, 4194304] (default 1000)" },
    { "--alpha", "LIST", "calibrated draft: acceptance per context, in [0, 1] (default 0.8; policies: one value)" },
    { "--noise", "SIGMA", "uncalibrated draft: q = softmax(log p + SIGMA N(0,1)); alpha is measured" },
    { "--regime", "NAME", "per-context alpha: {regimes} (default constant)" },
    { "--concentration", "NU", "beta regime: alpha_c ~ Beta(alpha NU, (1 - alpha) NU) (default 20)" },
    { "--alpha-easy", "A", "markov regime: acceptance in the easy state (default 0.95)" },
    { "--alpha-hard", "A", "markov regime: acceptance in the hard state (default 0.3)" },
    { "--stay", "P", "markov regime: probability of keeping the state per token (default 0.9)" },
    { "--zipf-s", "S", "zipf exponent (default 1.5)" },
    { "--kappa", "K", "dirichlet concentration (default 0.5)" },
    { "--temperature", "T", "logits family: its temperature (default 1); simulate on .npy pairs and ngram: the sampling LIST, 0 greedy" },
    { "--contexts", "K", "contexts in the bank (default: about 2^21 / V, 2 to 64)" },
    { "--history", "K", "prefix tokens that select a context, in [0, 8] (default 2)" },
    { "--p-file", "P", "context-free target from a distribution file (with --q-file)" },
    { "--q-file", "Q", "context-free draft from a distribution file (with --p-file)" },
    { "--verify", "NAME", "verification rule: {verifiers} (default adjusted)" },
    { "--seed", "S", "random seed (default " DEFAULT_SEED ")" },
    { "--max-memory", "GIB", "refuse runs whose bank and counters need more (default: half the physical memory)" },
    { NULL, NULL, NULL },
};

static const cli_option simulate_options[] = {
    { "--gamma", "LIST", "draft lengths, in [1, 4096] (default 5)" },
    { "--policy", "NAME", "fixed, oracle (until the first rejection), threshold, heuristic (+2/-1) (default fixed)" },
    { "--threshold", "H", "threshold policy: draft while the draft's top probability is >= H (default 0.5)" },
    { "--gamma-max", "G", "heuristic policy: the largest draft length (default 32)" },
    { "--drafts", "K", "drafts per position, recursive rejection (adjusted only), in [1, 64] (default 1)" },
    { "--tokens", "T", "about T tokens per row, in whole chunks of 2048 iterations, at most 1e10 (about 20 min on 2 cores) (default 1000000)" },
    { "--threads", "K", "threads, in [1, 256]; results do not depend on it (default 1)" },
    { "--export-prometheus", "FILE", "write the run's counters in vLLM's Prometheus exposition format (for fit)" },
    CLI_SCALE_OPTIONS,
    { "--corpus", "FILE", "--family ngram: the text both byte-level models learn (e.g. /usr/share/common-licenses/GPL-3)" },
    { "--order", "N", "--family ngram: the target's order, in [1, 8] (default 5)" },
    { "--draft-order", "M", "--family ngram: the draft's order, in [1, N] (default 2)" },
    { "--export-npy", "PREFIX", "--family ngram: also write the first setting's pair as logits at 1024 corpus positions, PREFIX-p.npy and PREFIX-q.npy" },
    { "--p-npy", "FILE", "target rows from an .npy matrix (V,) or (rows, V); the rows are the context bank" },
    { "--q-npy", "FILE", "draft rows, the same shape as --p-npy" },
    { "--input", "KIND", "--p-npy: the numbers are logits or probs (required)" },
    { "--top-k", "LIST", ".npy pairs and ngram: keep the tokens at least as likely as the k-th (ties kept); 0: off (default 0)" },
    { "--top-p", "LIST", ".npy pairs and ngram: keep the smallest top set of mass >= P (ties kept) (default 1: off)" },
    { "--min-p", "LIST", ".npy pairs and ngram: keep the tokens with p >= P max p (default 0: off)" },
    { "--draft-temperature", "LIST", ".npy pairs and ngram: the draft's temperature (default: --temperature)" },
    { "--draft-top-k", "LIST", ".npy pairs and ngram: the draft's top-k (default: --top-k)" },
    { "--draft-top-p", "LIST", ".npy pairs and ngram: the draft's top-p (default: --top-p)" },
    { "--draft-min-p", "LIST", ".npy pairs and ngram: the draft's min-p (default: --min-p)" },
    { NULL, NULL, NULL },
};

static const cli_option sample_options[] = {
    { "--draws", "N", "draws, at most 1e10 (about 10 min) (default 1000000)" },
    { "--drafts", "K", "drafts per position, recursive rejection (adjusted only), in [1, 64] (default 1)" },
    { "--verify", "NAME", "adjusted, target or deterministic-draft (default adjusted)" },
    { "--seed", "S", "random seed (default " DEFAULT_SEED ")" },
    CLI_SCALE_OPTIONS,
    { NULL, NULL, NULL },
};

const cli_command cmd_simulate = {
    "simulate", "simulate [--family NAME --vocab V --alpha LIST | --p-file P --q-file Q | --family ngram --corpus FILE | "
    "--p-npy T --q-npy D --input KIND] [--gamma LIST] ...",
    "run the rejection sampler on synthetic or file models and compare with eq. (4)",
    simulate_options, 0, 0, run_simulate, 0, NULL, model_options, 1,
};

static const cli_option policies_options[] = {
    { "--cost", "C", "draft/target cost ratio for the improvement, in [0, inf) (required)" },
    { "--gamma-max", "G", "sweep fixed gamma over 1..G; the cap of the adaptive policies (default 24)" },
    { "--thresholds", "LIST", "thresholds for the threshold policy (default: quartiles of the draft's top probability)" },
    { "--tokens", "T", "tokens per run, at most 1e10 (about 20 min on 2 cores) (default 300000)" },
    { "--threads", "K", "threads (default 2)" },
    CLI_SCALE_OPTIONS,
    { NULL, NULL, NULL },
};

const cli_command cmd_policies = {
    "policies", "policies --cost C [model options as simulate] [--gamma-max G] [--thresholds LIST]",
    "draft-length policies side by side: fixed, heuristic +2/-1, threshold, oracle, ceiling",
    policies_options, 0, 0, run_policies, 0, NULL, model_options, 1,
};

const cli_command cmd_sample = {
    "sample", "sample P_FILE Q_FILE [--draws N] [--verify adjusted|target|deterministic-draft] [--seed S]",
    "one position of speculative sampling: observed against expected output frequencies",
    sample_options, 2, 2, run_sample, 0, NULL, NULL, 1,
};
