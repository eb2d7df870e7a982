/* cmd_policies.c -- `specdec policies`: the draft-length policies side by
 * side on one model (policies.h). */
#include "cli.h"

#include <math.h>

static const sd_domain THRESHOLDS = { "--thresholds", 0, 1, 0 };
static const sd_domain POLICY_COST = { "--cost", 0, INFINITY, 0 };

static sd_status run_policies(const cli_args *a, sd_table **out, sd_error *err)
{
    cli_model ms;
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    const sd_verifier *v;
    double tokens, threads, cost, gamma_max;
    sd_list th = { 0 };
    sd_status st;
    *out = NULL;
    if ((st = cli_model_read(a, &ms, err)) != SD_OK || (st = cli_verifier(a, &v, err)) != SD_OK ||
        (st = cli_number(a, &CLI_TOKENS, &tokens, err)) != SD_OK ||
        (st = cli_number(a, &CLI_THREADS, &threads, err)) != SD_OK ||
        (st = cli_number(a, &POLICY_COST, &cost, err)) != SD_OK ||
        (st = cli_number(a, &CLI_GAMMA_MAX, &gamma_max, err)) != SD_OK ||
        (cli_given(a, "--thresholds") && (st = cli_list(a, &THRESHOLDS, &th, err)) != SD_OK))
        goto done;
    /* one calibrated alpha; the other models keep the default, which their acceptance overrides */
    if (ms.synth.calibrated && ms.synth.regime != SD_REGIME_MARKOV && !ms.from_files &&
        (st = cli_number(a, &CLI_ALPHA, &ms.synth.alpha, err)) != SD_OK)
        goto done;
    ms.synth.threads = (unsigned)threads;
    sd_engine_config probe = sd_engine_defaults(); /* the largest run of the policy sweep */
    probe.policy = SD_POLICY_ORACLE;
    probe.threads = (unsigned)threads;
    if (ms.from_files)
        st = cli_load_pair(cli_value(a, "--p-file"), cli_value(a, "--q-file"), &p, &q, &m, err);
    if (st == SD_OK)
        st = cli_check_memory(a, &ms, &probe, p.n, err);
    if (st == SD_OK && !ms.from_files)
        st = sd_synth_model(&ms.synth, &m, err);
    if (st == SD_OK) {
        sd_engine_config base = sd_engine_defaults();
        base.model = m;
        base.verifier = v;
        base.gamma_max = (size_t)gamma_max;
        base.tokens = (uint64_t)tokens;
        base.seed = ms.synth.seed;
        base.threads = (unsigned)threads;
        base.shard = a->shard;
        base.nshards = a->nshards;
        base.io = a->io;
        st = sd_policies_run(&base, cost, th.v, th.n, out, err);
    }
done:
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    sd_parse_list_free(&th);
    return st;
}

static const cli_option POLICIES_OPTIONS[] = {
    { .name = "--cost", .metavar = "C", .help = "draft/target cost ratio for the improvement, in {range} (required)",
      .domain = &POLICY_COST },
    { .name = "--gamma-max", .metavar = "G", .help = "sweep fixed gamma over 1..G; the cap of the adaptive policies "
      "(default {default})", .domain = &CLI_GAMMA_MAX, .lib = CLI_LIB(policies_gamma_max, CLI_LIB_SIZE) },
    { .name = "--thresholds", .metavar = "LIST", .help = "thresholds for the threshold policy (default: quartiles of the "
      "draft's top probability)", .domain = &THRESHOLDS },
    { .name = "--tokens", .metavar = "T", .help = "tokens per run, at most {max} (about 20 min on 2 cores) (default "
      "{default})", .domain = &CLI_TOKENS, .dflt = "300000" },
    { .name = "--threads", .metavar = "K", .help = "threads (default {default})", .domain = &CLI_THREADS, .dflt = "2" },
    { .name = NULL },
};

const cli_command cmd_policies = {
    .name = "policies",
    .synopsis = "policies --cost C [model options as simulate] [--gamma-max G] [--thresholds LIST]",
    .summary = "draft-length policies side by side: fixed, heuristic +2/-1, threshold, oracle, ceiling",
    .groups = { POLICIES_OPTIONS, CLI_MODEL_OPTIONS, CLI_SCALE_OPTIONS },
    .run = run_policies,
    .scales = 1,
};
