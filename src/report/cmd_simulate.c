/* cmd_simulate.c -- `specdec simulate`: its options, and the rejection
 * sampler on a synthetic or file model against eq. (4), or a token tree
 * against (T1); the n-gram pair and .npy pairs are cmd_simulate_text.c, a
 * run's row cmd_simulate_row.c. */
#include "cmd_simulate_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "specdec/counters.h"

static const sd_domain SIM_GAMMA = { "--gamma", 1, SD_ORACLE_MAX, 1 };
static const sd_domain THRESHOLD = { "--threshold", 0, 1, 0 };

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

/* One engine run of ec on its model, as one row of t (and its counters
 * exported when `export` names a file). */
static sd_status simulate_row(const sd_cmd_model *ms, const sd_engine_config *ec, const char *export, sd_table *t,
                              sd_error *err)
{
    sd_engine_stats s;
    sd_gof gof;
    sd_status st = simulate_engine(ec, &s, err);
    if (st != SD_OK)
        return st;
    if (export != NULL && (st = export_prometheus(export, &s, ec->gamma, err)) != SD_OK) {
        sd_engine_stats_free(&s);
        return st;
    }
    char rates[512];
    if ((st = sd_gof_output(ec->model, ec->verifier, &s, &gof, err)) == SD_OK) {
        /* eq. (4) for a fixed gamma; the ceiling for the oracle; for the adaptive
         * policies, eq. (4) at the mean draft length (a reference, not a law) */
        double mean_g = (double)s.draft_calls / (double)s.iterations;
        double g = ec->policy == SD_POLICY_FIXED ? (double)ec->gamma : mean_g;
        double theory = ec->policy == SD_POLICY_ORACLE ? sd_theory_ceiling(s.alpha_hat)
                                                       : sd_theory_expected_tokens(s.alpha_hat, g);
        sd_tree_accept acc;
        if (ec->tree != NULL && (st = sd_engine_tree_theory(ec, s.ctx_tokens, &acc, &theory, err)) == SD_OK)
            st = simulate_tree_note(ec, &acc, t, err);
        if (st != SD_OK) {
            sd_engine_stats_free(&s);
            return st;
        }
        sd_cell row[SIMULATE_NCOLS];
        simulate_cells(ms, ec, &s, &gof, theory, rates, sizeof rates, row);
        st = sd_table_add(t, row, err);
        if (st == SD_OK && s.verified == 0) /* 0 drafts verified: the rate is not measured */
            st = sd_table_note(t, err, "gamma %zu: no draft reached verification (the policy drafted none), so "
                               "acceptance_rate is reported as 0: not measured.", ec->gamma);
    }
    sd_engine_stats_free(&s);
    return st;
}

/* The engine options simulate reads into ec (all but the model and gamma). */
static sd_status read_engine_options(const sd_command_args *a, const sd_cmd_model *ms, sd_engine_config *ec,
                                     sd_error *err)
{
    const sd_cmd_simulate_request *rq = a->req;
    double tokens, threads, drafts, gamma_max;
    int policy;
    sd_status st;
    *ec = sd_engine_defaults();
    if ((st = sd_cmd_model_verifier(a, &ec->verifier, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_DRAFTS, &drafts, err)) != SD_OK ||
        (st = sd_command_args_number(a, &THRESHOLD, &ec->threshold, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_GAMMA_MAX, &gamma_max, err)) != SD_OK ||
        (st = sd_command_args_choice(a, "--policy", NULL, &policy, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_TOKENS, &tokens, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_THREADS, &threads, err)) != SD_OK)
        return st;
    if (policy == SD_POLICY_ORACLE && sd_command_args_given(a, "--gamma"))
        return sd_status_fail(err, SD_EINVAL, "--gamma: the oracle policy chooses its own draft length");
    ec->policy = (sd_policy)policy;
    ec->drafts = (size_t)drafts;
    ec->gamma_max = (size_t)gamma_max;
    ec->tokens = (uint64_t)tokens;
    ec->threads = (unsigned)threads;
    ec->seed = ms->synth.seed;
    ec->shard = rq->shard;
    ec->nshards = rq->nshards;
    ec->io = rq->io;
    ec->progress = rq->progress;
    ec->progress_arg = rq->progress_arg;
    if (rq->nshards > 1 && sd_command_args_given(a, "--export-prometheus"))
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: a shard's counters are partial; export from one "
                              "run");
    return SD_OK;
}

/* --tree SPEC and --children NAME into *tree (the caller frees it) and ec; SD_OK with *tree
 * NULL when --tree is not given. */
static sd_status sim_tree(const sd_command_args *a, sd_engine_config *ec, sd_tree **tree, sd_error *err)
{
    *tree = NULL;
    int gamma = sd_command_args_given(a, "--gamma");
    if (!sd_command_args_given(a, "--tree"))
        return sd_command_args_given(a, "--children") ? sd_status_fail(err, SD_EINVAL, "--children: goes with --tree")
                                                      : SD_OK;
    if (gamma || ec->policy != SD_POLICY_FIXED || ec->drafts > 1)
        return sd_status_fail(err, SD_EINVAL, "--tree: the tree sets what is drafted: it takes no --%s",
                              gamma ? "gamma" : ec->policy != SD_POLICY_FIXED ? "policy" : "drafts");
    if (ec->verifier != sd_verify_find("adjusted"))
        return sd_status_fail(err, SD_EINVAL, "--tree: the tree's children are verified by the adjusted rule, not %s",
                              sd_verify_name(ec->verifier));
    if (sd_command_args_given(a, "--export-prometheus"))
        return sd_status_fail(err, SD_EINVAL, "--export-prometheus: vLLM's counters describe chains, not trees");
    int kind = SD_CHILDREN_TOP_K;
    sd_status st = sd_command_args_choice(a, "--children", sd_engine_children_names(), &kind, err);
    sd_tree *t = st == SD_OK ? malloc(sizeof *t) : NULL;
    if (st == SD_OK && t == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    if (st == SD_OK && (st = sd_tree_parse(sd_command_args_value(a, "--tree"), NULL, t, "--tree", err)) == SD_OK) {
        ec->tree = t;
        ec->children = (sd_children)kind;
        ec->gamma = sd_tree_depth(t);
        *tree = t;
        return SD_OK;
    }
    free(t);
    return st;
}

/* The synthetic models (one per alpha) or the pair of files: one run per gamma each (one for the
 * oracle), a row each, into *t; gammas holds the tree's depth for a tree. */
static sd_status simulate_chains(const sd_command_args *a, sd_cmd_model *ms, sd_engine_config ec,
                                 const sd_list *gammas, sd_table **t, sd_error *err)
{
    sd_list alphas = { 0 };
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    const char *export = sd_command_args_value(a, "--export-prometheus");
    sd_status st;
    if (ms->from_files || !ms->synth.calibrated || ms->synth.regime == SD_REGIME_MARKOV)
        st = sd_parse_list("1", &SD_CMD_ALPHA, &alphas, err); /* one model; alpha comes from it */
    else
        st = sd_command_args_list(a, &SD_CMD_ALPHA, &alphas, err);
    if (st == SD_OK && (st = sd_command_table(SIMULATE_NCOLS, SIMULATE_COLS, t, err)) == SD_OK && ms->from_files)
        st = sd_cmd_model_load_pair(sd_command_args_value(a, "--p-file"), sd_command_args_value(a, "--q-file"), &p,
                                    &q, &m, err);
    ms->synth.threads = ec.threads;
    for (size_t j = 0; j < gammas->n && st == SD_OK; j++) { /* the largest run decides */
        sd_engine_config big = ec;
        big.gamma = (size_t)gammas->v[j];
        st = sd_cmd_model_check_memory(a, ms, &big, p.n, err);
    }
    if (st == SD_OK && export != NULL &&
        (alphas.n * gammas->n != 1 || ec.policy != SD_POLICY_FIXED || ec.drafts != 1 ||
         sd_verify_is_blockwise(ec.verifier)))
        st = sd_status_fail(err, SD_EINVAL, "--export-prometheus: needs one run (one alpha, one gamma) of the fixed "
                            "policy with one draft per position and a token-wise rule");
    for (size_t i = 0; i < alphas.n && st == SD_OK; i++) {
        if (!ms->from_files) {
            sd_model_free(m);
            m = NULL;
            ms->synth.alpha = alphas.v[i];
            if ((st = sd_synth_model(&ms->synth, &m, err)) != SD_OK)
                break;
        }
        ec.model = m;
        size_t ngamma = ec.policy == SD_POLICY_ORACLE ? 1 : gammas->n;
        for (size_t j = 0; j < ngamma && st == SD_OK; j++) {
            ec.gamma = (size_t)gammas->v[j];
            st = simulate_row(ms, &ec, export, *t, err);
        }
    }
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    sd_parse_list_free(&alphas);
    return st;
}

static sd_status run_simulate(const sd_command_args *a, sd_table **out, sd_error *err)
{
    sd_tree *tree = NULL;
    sd_cmd_model ms;
    sd_list gammas = { 0 };
    sd_table *t = NULL;
    sd_engine_config ec;
    sd_status st;
    if ((st = sd_cmd_model_read(a, &ms, err)) != SD_OK || (st = read_engine_options(a, &ms, &ec, err)) != SD_OK ||
        (st = sim_tree(a, &ec, &tree, err)) != SD_OK)
        goto done;
    if (tree != NULL) { /* one run: the tree's depth is the gamma the counters are laid out by */
        char depth[32];
        snprintf(depth, sizeof depth, "%zu", ec.gamma);
        st = sd_parse_list(depth, &SIM_GAMMA, &gammas, err);
    } else {
        st = sd_command_args_list(a, &SIM_GAMMA, &gammas, err);
    }
    if (st != SD_OK)
        goto done;
    if (!ms.ngram && !ms.npy)
        st = simulate_chains(a, &ms, ec, &gammas, &t, err);
    else if (ec.policy != SD_POLICY_FIXED || ec.drafts != 1 || sd_command_args_given(a, "--export-prometheus"))
        st = sd_status_fail(err, SD_EINVAL, "--%s: the n-gram and .npy models run the fixed policy with one draft "
                            "per position (the Markov prediction is for fixed gamma)",
                            ec.policy != SD_POLICY_FIXED ? "policy" : ec.drafts != 1 ? "drafts" : "export-prometheus");
    else
        st = simulate_text(a, &ms, ec, &gammas, &t, err);
done:
    free(tree);
    return sd_command_finish(st, &gammas, 1, t, out);
}

sd_cmd_simulate_request sd_cmd_simulate_defaults(void)
{
    return (sd_cmd_simulate_request){ .policy = -1, .threshold = NAN, .gamma_max = NAN, .drafts = NAN,
                                      .children = -1, .tokens = NAN, .threads = NAN, .order = NAN,
                                      .draft_order = NAN, .input = -1, .model = sd_cmd_model_defaults() };
}

sd_status sd_cmd_simulate_table(const sd_cmd_simulate_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_simulate, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_simulate, rq, err);
    return sd_command_end(&sd_cmd_simulate, st == SD_OK ? run_simulate(&a, out, err) : st, err);
}

#define R sd_cmd_simulate_request
#define SAMPLING(i) .domain = &SD_CMD_SAMPLING_DOMAINS[i]
static const sd_command_field FIELDS[] = {
    { .name = "--gamma", SD_FIELD(R, gamma, LIST), .metavar = "LIST", .help = "draft lengths, in {range} (default "
      "{default})", .domain = &SIM_GAMMA, SD_LIB(engine.gamma, SIZE) },
    { .name = "--policy", SD_FIELD(R, policy, CHOICE), .metavar = "NAME", .help = "fixed, oracle (until the first "
      "rejection), threshold, heuristic (+2/-1) (default {default})", SD_LIB(engine.policy, ENUM),
      .names = sd_engine_policy_names },
    { .name = "--threshold", SD_FIELD(R, threshold, REAL), .metavar = "H", .help = "threshold policy: draft while the "
      "draft's top probability is >= H (default {default})", .domain = &THRESHOLD, SD_LIB(engine.threshold, DOUBLE) },
    { .name = "--gamma-max", SD_FIELD(R, gamma_max, REAL), .metavar = "G", .help = "heuristic policy: the largest "
      "draft length (default {default})", .domain = &SD_CMD_GAMMA_MAX, SD_LIB(engine.gamma_max, SIZE) },
    { .name = "--drafts", SD_FIELD(R, drafts, REAL), .metavar = "K", .help = "drafts per position, recursive "
      "rejection (adjusted only), in {range} (default {default})", .domain = &SD_CMD_DRAFTS,
      SD_LIB(engine.drafts, SIZE) },
    { .name = "--tree", SD_FIELD(R, tree, TEXT), .metavar = "SPEC", .help = "draft this tree every iteration (tree "
      "--help: the forms but sglang:), verified from the root down by the adjusted rule" },
    { .name = "--children", SD_FIELD(R, children, CHOICE), .metavar = "NAME", .help = "--tree: {names}: q's top "
      "tokens tried in rank order, or draws from q (recursive rejection) (default {default})", .dflt = "top-k",
      .names = sd_engine_children_names },
    { .name = "--tokens", SD_FIELD(R, tokens, REAL), .metavar = "T", .help = "about T tokens per row, in whole chunks "
      "of 2048 iterations, at most {max} (about 20 min on 2 cores) (default {default})", .domain = &SD_CMD_TOKENS,
      SD_LIB(engine.tokens, U64) },
    { .name = "--threads", SD_FIELD(R, threads, REAL), .metavar = "K", .help = "threads, in {range}; results do not "
      "depend on it (default {default})", .domain = &SD_CMD_THREADS, SD_LIB(engine.threads, UINT) },
    { .name = "--export-prometheus", SD_FIELD(R, export_prometheus, TEXT), .metavar = "FILE", .help = "write the "
      "run's counters in vLLM's Prometheus exposition format (for fit)" },
    { .name = "--corpus", SD_FIELD(R, corpus, TEXT), .metavar = "FILE", .help = "--family ngram: the text both "
      "byte-level models learn (e.g. /usr/share/common-licenses/GPL-3)" },
    { .name = "--order", SD_FIELD(R, order, REAL), .metavar = "N", .help = "--family ngram: the target's order, in "
      "{range} (default {default})", .domain = &SIMULATE_ORDER, SD_LIB(ngram.order, SIZE) },
    { .name = "--draft-order", SD_FIELD(R, draft_order, REAL), .metavar = "M", .help = "--family ngram: the draft's "
      "order, in [1, N] (default {default})", .domain = &SIMULATE_DRAFT_ORDER, SD_LIB(ngram.draft_order, SIZE) },
    { .name = "--export-npy", SD_FIELD(R, export_npy, TEXT), .metavar = "PREFIX", .help = "--family ngram: also "
      "write the first setting's pair as logits at 1024 corpus positions, PREFIX-p.npy and PREFIX-q.npy" },
    { .name = "--p-npy", SD_FIELD(R, p_npy, TEXT), .metavar = "FILE", .help = "target rows from an .npy matrix (V,) "
      "or (rows, V); the rows are the context bank" },
    { .name = "--q-npy", SD_FIELD(R, q_npy, TEXT), .metavar = "FILE", .help = "draft rows, the same shape as "
      "--p-npy" },
    { .name = "--input", SD_FIELD(R, input, CHOICE), .metavar = "KIND", .help = "--p-npy: the numbers are logits or "
      "probs (required)", .names = sd_sampling_input_names },
    { .name = "--top-k", SD_FIELD(R, top_k, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: keep the tokens "
      "at least as likely as the k-th (ties kept); 0: off (default {default})", SAMPLING(1),
      SD_LIB(sampling.top_k, SIZE) },
    { .name = "--top-p", SD_FIELD(R, top_p, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: keep the "
      "smallest top set of mass >= P (ties kept) (default {default}: off)", SAMPLING(2),
      SD_LIB(sampling.top_p, DOUBLE) },
    { .name = "--min-p", SD_FIELD(R, min_p, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: keep the tokens "
      "with p >= P max p (default {default}: off)", SAMPLING(3), SD_LIB(sampling.min_p, DOUBLE) },
    { .name = "--draft-temperature", SD_FIELD(R, draft_temperature, LIST), .metavar = "LIST", .help = ".npy pairs "
      "and ngram: the draft's temperature (default: --temperature)", SAMPLING(4) },
    { .name = "--draft-top-k", SD_FIELD(R, draft_top_k, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: "
      "the draft's top-k (default: --top-k)", SAMPLING(5) },
    { .name = "--draft-top-p", SD_FIELD(R, draft_top_p, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: "
      "the draft's top-p (default: --top-p)", SAMPLING(6) },
    { .name = "--draft-min-p", SD_FIELD(R, draft_min_p, LIST), .metavar = "LIST", .help = ".npy pairs and ngram: "
      "the draft's min-p (default: --min-p)", SAMPLING(7) },
    { .name = NULL },
};
#undef SAMPLING
#undef R

SD_COMMAND_CALLS(simulate)
const sd_command sd_cmd_simulate = {
    SD_COMMAND_ROW(simulate),
    .usage = "simulate [--family NAME --vocab V --alpha LIST | --p-file P --q-file Q | --family ngram --corpus FILE "
             "| --p-npy T --q-npy D --input KIND] [--gamma LIST] ...",
    .summary = "run the rejection sampler on synthetic or file models and compare with eq. (4)",
    .groups = { FIELDS, SD_CMD_MODEL_FIELDS },
    .base = { 0, offsetof(sd_cmd_simulate_request, model) },
    SD_COMMANDS_LIBRARY,
};
