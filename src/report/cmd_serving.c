/* cmd_serving.c -- `specdec serving`: its request, its fields and its call; the request is read
 * by cmd_serving_read.c, the table made by cmd_serving_table.c. */
#include "cmd_serving_impl.h"

#include <math.h>

sd_cmd_serving_request sd_cmd_serving_defaults(void)
{
    return (sd_cmd_serving_request){ .gamma_max = NAN, .alpha = NAN, .counts_gamma = NAN, .max_num_seqs = NAN,
                                     .max_num_batched_tokens = NAN, .memory_fraction = NAN, .slo_ttft = NAN,
                                     .slo_tpot = NAN, .method = -1, .requests = NAN, .warmup = NAN,
                                     .replications = NAN, .seed = NAN, .cost = sd_cmd_cost_defaults() };
}

sd_status sd_cmd_serving_table(const sd_cmd_serving_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_serving, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_serving, rq, err);
    return sd_command_end(&sd_cmd_serving, st == SD_OK ? serving_table(&a, &rq->replicas, out, err) : st, err);
}

#define R sd_cmd_serving_request
static const sd_command_field FIELDS[] = {
    { .name = "--target", SD_FIELD(R, target, TEXT), .metavar = "NAME", .help = "target model preset (as for "
      "roofline)" },
    { .name = "--draft", SD_FIELD(R, draft, TEXT), .metavar = "NAME", .help = "draft model preset, 'same', 'ngram' "
      "or a drafter head, 'eagle', 'eagle3', 'mtp' (as for roofline; not needed without speculation)" },
    { .name = "--hardware", SD_FIELD(R, hardware, TEXT), .metavar = "NAME", .help = "accelerator preset" },
    { .name = "--rate", SD_FIELD(R, rate, LIST), .metavar = "LIST", .help = "Poisson arrivals, requests a second, in "
      "{range}", .domain = &SERVING_RATE },
    { .name = "--users", SD_FIELD(R, users, LIST), .metavar = "LIST", .help = "a closed loop of N users, each sending "
      "its next request when the last ends (simulated only)", .domain = &SERVING_USERS },
    { .name = "--trace", SD_FIELD(R, trace, TEXT), .metavar = "FILE", .help = "arrivals from a TSV with columns time, "
      "prompt, output (seconds, tokens; simulated only)" },
    { .name = "--prompt", SD_FIELD(R, prompt, TEXT), .metavar = "N|FILE", .help = "prompt tokens: a number in "
      "{range}, or a TSV histogram with columns length, weight (default {default})", .domain = &SERVING_LENGTH,
      SD_LIB(serving_prompt, DOUBLE) },
    { .name = "--output", SD_FIELD(R, output, TEXT), .metavar = "N|FILE", .help = "output tokens, as --prompt "
      "(default {default})", .domain = &SERVING_OUTPUT, SD_LIB(serving_output, DOUBLE) },
    { .name = "--gamma", SD_FIELD(R, gamma, TEXT), .metavar = "LIST", .help = "speculation: draft lengths (0: none) "
      "and the policies schedule (the roofline's best gamma by decode batch) and goodput (the step's best gamma, "
      "SmartSpec) (default {default})", .dflt = "0,1,2,4,goodput" },
    { .name = "--gamma-max", SD_FIELD(R, gamma_max, REAL), .metavar = "N", .help = "the largest gamma of the goodput "
      "policy and the schedule, in {range} (default {default})", .domain = &SERVING_GMAX, SD_LIB(serving.gamma_max, SIZE) },
    { .name = "--alpha", SD_FIELD(R, alpha, REAL), .metavar = "A", .help = "i.i.d. acceptance, in {range}",
      .domain = &SD_CMD_ALPHA },
    { .name = "--acceptance", SD_FIELD(R, acceptance, LIST), .metavar = "A1,...,AG", .help = "acceptance by position "
      "instead (0 beyond G)", .domain = &SD_CMD_ACCEPTANCE },
    { .name = "--counts", SD_FIELD(R, counts, TEXT), .metavar = "FILE", .help = "an engine's counters (as for fit): "
      "the fitted acceptance by position" },
    { .name = "--counts-gamma", SD_FIELD(R, counts_gamma, REAL), .metavar = "G", .help = "the draft length of --counts "
      "FILE where it does not state it, in {range}", .domain = &SD_CMD_COUNTS_GAMMA },
    { .name = "--max-num-seqs", SD_FIELD(R, max_num_seqs, REAL), .metavar = "N", .help = "requests running at once, "
      "in {range} (default {default})", .domain = &SERVING_SEQS, SD_LIB(serving.max_num_seqs, SIZE) },
    { .name = "--max-num-batched-tokens", SD_FIELD(R, max_num_batched_tokens, REAL), .metavar = "N", .help = "tokens "
      "a step, prompt chunks and speculative tokens included, in {range} (default {default})", .domain = &SERVING_BATCHED,
      SD_LIB(serving.max_num_batched_tokens, SIZE) },
    { .name = "--memory-fraction", SD_FIELD(R, memory_fraction, REAL), .metavar = "X", .help = "of the GPUs' memory "
      "the engine uses (vLLM's gpu_memory_utilization), in {range} (default {default})", .domain = &SERVING_MEMFRAC,
      SD_LIB(serving.memory_fraction, DOUBLE) },
    { .name = "--slo-ttft", SD_FIELD(R, slo_ttft, REAL), .metavar = "SEC", .help = "goodput's TTFT objective, in "
      "{range} (default: none)", .domain = &SERVING_SLO_TTFT },
    { .name = "--slo-tpot", SD_FIELD(R, slo_tpot, REAL), .metavar = "SEC", .help = "goodput's TPOT objective, in "
      "{range} (default: none)", .domain = &SERVING_SLO_TPOT },
    { .name = "--method", SD_FIELD(R, method, CHOICE), .metavar = "NAME", .help = "{names} (default {default})",
      .names = serving_method_names, .dflt = "both" },
    { .name = "--requests", SD_FIELD(R, requests, REAL), .metavar = "N", .help = "measured requests a replication, in "
      "{range} (default {default})", .domain = &SERVING_REQUESTS, SD_LIB(serving.requests, SIZE) },
    { .name = "--warmup", SD_FIELD(R, warmup, REAL), .metavar = "N", .help = "requests before them, not measured "
      "(default a tenth)", .domain = &SERVING_WARMUP },
    { .name = "--replications", SD_FIELD(R, replications, REAL), .metavar = "R", .help = "independent replications, "
      "in {range} (default {default})", .domain = &SERVING_REPS, .dflt = "5" },
    { .name = "--seed", SD_FIELD(R, seed, REAL), .metavar = "S", .help = "random seed (default {default})",
      .domain = &SD_CMD_SEED, SD_LIB(seed, U64) },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(serving)
const sd_command sd_cmd_serving = {
    SD_COMMAND_ROW_DATA(serving),
    .usage = "serving --target NAME --draft NAME --hardware NAME (--alpha A | ...) (--rate LIST | --users LIST | "
             "--trace FILE) ...",
    .summary = "TTFT, TPOT and goodput under load, with and without speculation: a continuous-batching simulation "
               "and its analytical twin",
    .groups = { FIELDS, SD_CMD_COST_FIELDS },
    .base = { 0, offsetof(sd_cmd_serving_request, cost) },
    SD_COMMANDS_LIBRARY,
};
