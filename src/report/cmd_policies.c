/* cmd_policies.c -- `specdec policies`: the draft-length policies side by
 * side on one model (policies.h). */
#include "specdec/cmd_policies.h"

#include "cmd_model_impl.h"

static const sd_domain THRESHOLDS = { "--thresholds", 0, 1, 0 };

/* The engine's settings every policy shares, on model m with verifier v. */
static sd_status base_config(const sd_command_args *a, const sd_cmd_model *ms, const sd_model *m,
                             const sd_verifier *v, sd_engine_config *base, sd_error *err)
{
    const sd_cmd_policies_request *rq = a->req;
    double tokens, threads, gamma_max;
    sd_status st;
    if ((st = sd_command_args_number(a, &SD_CMD_TOKENS, &tokens, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_THREADS, &threads, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_GAMMA_MAX, &gamma_max, err)) != SD_OK)
        return st;
    *base = sd_engine_defaults();
    base->model = m;
    base->verifier = v;
    base->gamma_max = (size_t)gamma_max;
    base->tokens = (uint64_t)tokens;
    base->seed = ms->synth.seed;
    base->threads = (unsigned)threads;
    base->shard = rq->shard;
    base->nshards = rq->nshards;
    base->io = rq->io;
    return SD_OK;
}

static sd_status run_policies(const sd_command_args *a, sd_table **out, sd_error *err)
{
    sd_cmd_model ms;
    sd_model *m = NULL;
    sd_dist p = { 0 }, q = { 0 };
    const sd_verifier *v;
    double cost;
    sd_list th = { 0 };
    sd_engine_config base;
    sd_status st;
    *out = NULL;
    if ((st = sd_cmd_model_read(a, &ms, err)) != SD_OK || (st = sd_cmd_model_verifier(a, &v, err)) != SD_OK ||
        (st = base_config(a, &ms, NULL, v, &base, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_COST, &cost, err)) != SD_OK ||
        (sd_command_args_given(a, "--thresholds") && (st = sd_command_args_list(a, &THRESHOLDS, &th, err)) != SD_OK))
        goto done;
    /* one calibrated alpha; the other models keep the default, which their acceptance overrides */
    if (ms.synth.calibrated && ms.synth.regime != SD_REGIME_MARKOV && !ms.from_files &&
        (st = sd_command_args_number(a, &SD_CMD_ALPHA, &ms.synth.alpha, err)) != SD_OK)
        goto done;
    ms.synth.threads = base.threads;
    sd_engine_config probe = sd_engine_defaults(); /* the largest run of the policy sweep */
    probe.policy = SD_POLICY_ORACLE;
    probe.threads = base.threads;
    if (ms.from_files)
        st = sd_cmd_model_load_pair(sd_command_args_value(a, "--p-file"), sd_command_args_value(a, "--q-file"), &p,
                                    &q, &m, err);
    if (st == SD_OK)
        st = sd_cmd_model_check_memory(a, &ms, &probe, p.n, err);
    if (st == SD_OK && !ms.from_files)
        st = sd_synth_model(&ms.synth, &m, err);
    base.model = m;
    if (st == SD_OK)
        st = sd_policies_run(&base, cost, th.v, th.n, out, err);
done:
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    sd_parse_list_free(&th);
    return st;
}

sd_cmd_policies_request sd_cmd_policies_defaults(void)
{
    return (sd_cmd_policies_request){ .cost = NAN, .gamma_max = NAN, .tokens = NAN, .threads = NAN,
                                      .model = sd_cmd_model_defaults() };
}

sd_status sd_cmd_policies_table(const sd_cmd_policies_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_policies, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_policies, rq, err);
    return sd_command_end(&sd_cmd_policies, st == SD_OK ? run_policies(&a, out, err) : st, err);
}

#define R sd_cmd_policies_request
static const sd_command_field FIELDS[] = {
    { .name = "--cost", SD_FIELD(R, cost, REAL), .metavar = "C", .help = "draft/target cost ratio for the "
      "improvement, in {range} (required)", .domain = &SD_CMD_COST },
    { .name = "--gamma-max", SD_FIELD(R, gamma_max, REAL), .metavar = "G", .help = "sweep fixed gamma over 1..G; the "
      "cap of the adaptive policies (default {default})", .domain = &SD_CMD_GAMMA_MAX,
      SD_LIB(policies_gamma_max, SIZE) },
    { .name = "--thresholds", SD_FIELD(R, thresholds, LIST), .metavar = "LIST", .help = "thresholds for the "
      "threshold policy (default: quartiles of the draft's top probability)", .domain = &THRESHOLDS },
    { .name = "--tokens", SD_FIELD(R, tokens, REAL), .metavar = "T", .help = "tokens per run, at most {max} (about "
      "20 min on 2 cores) (default {default})", .domain = &SD_CMD_TOKENS, .dflt = "300000" },
    { .name = "--threads", SD_FIELD(R, threads, REAL), .metavar = "K", .help = "threads (default {default})",
      .domain = &SD_CMD_THREADS, .dflt = "2" },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(policies)
const sd_command sd_cmd_policies = {
    SD_COMMAND_ROW(policies),
    .usage = "policies --cost C [model options as simulate] [--gamma-max G] [--thresholds LIST]",
    .summary = "draft-length policies side by side: fixed, heuristic +2/-1, threshold, oracle, ceiling",
    .groups = { FIELDS, SD_CMD_MODEL_FIELDS },
    .base = { 0, offsetof(sd_cmd_policies_request, model) },
    SD_COMMANDS_LIBRARY,
};
