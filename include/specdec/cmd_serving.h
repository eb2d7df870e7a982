/* cmd_serving.h -- `specdec serving` as a library call: TTFT, TPOT and
 * goodput against the request rate (or the users of a closed loop, or a
 * trace), with and without speculation, by the continuous-batching
 * simulation and its analytical twin side by side (serving.h), on a
 * target/draft pair and accelerator priced by the roofline (cost.h).
 */
#ifndef SPECDEC_CMD_SERVING_H
#define SPECDEC_CMD_SERVING_H

#include <stdint.h>

#include "specdec/cmd_cost.h"
#include "specdec/command.h"

/* One replication of a configuration: its nfields values into value[0 .. nfields-1]. */
typedef sd_status (*sd_cmd_serving_replica)(void *arg, size_t k, double *value, sd_error *err);

/* Where the replications of a configuration run: run NULL, all of them in
 * this call, one after another; else run(ctx, fingerprint, R, nfields,
 * one, arg, value, err) fills value[0 .. R nfields - 1] (replication k at
 * value + k nfields), by running them (one(arg, k, ...)) or by handing back
 * what another process ran (the program's --shard and merge). */
typedef struct {
    sd_status (*run)(void *ctx, uint64_t fingerprint, size_t R, size_t nfields, sd_cmd_serving_replica one,
                     void *arg, double *value, sd_error *err);
    void *ctx;
} sd_cmd_serving_replicas;

/* Fields as command.h reads them; man specdec gives each one's domain and
 * default (vLLM's scheduler defaults come from sd_serving_defaults()). */
typedef struct {
    const char *target, *draft, *hardware; /* --target, --draft ('same', 'ngram' or a preset), --hardware; without
                                            * speculation (every --gamma 0 or none) no draft is needed */
    sd_command_list rate, users;           /* --rate LIST (Poisson) or --users LIST (a closed loop) */
    const char *trace;                     /* --trace FILE (time, prompt, output) instead */
    const char *prompt, *output;           /* --prompt, --output: a number of tokens, or a TSV histogram's path */
    const char *gamma;                     /* --gamma LIST: draft lengths (0: none) and none, schedule, goodput */
    double gamma_max;                      /* --gamma-max N: of goodput and the schedule */
    double alpha;                          /* --alpha A: i.i.d. acceptance; or acceptance or counts */
    sd_command_list acceptance;            /* --acceptance A1,...,AG: by position (0 beyond G) */
    const char *counts;                    /* --counts FILE: an engine's counters, fitted by position */
    double counts_gamma;                   /* --counts-gamma G: their draft length where they do not state it */
    double max_num_seqs, max_num_batched_tokens, memory_fraction; /* the engine's limits */
    double slo_ttft, slo_tpot;             /* --slo-ttft, --slo-tpot SEC: goodput's objectives (default none) */
    int method;                            /* --method: analytic, simulate or both */
    double requests, warmup, replications, seed; /* --requests, --warmup, --replications, --seed */
    sd_cmd_cost_options cost;              /* the cost options (cmd_cost.h) */
    const char *data_dir;                  /* the data folder (data.h); NULL: the usual search */
    sd_cmd_serving_replicas replicas;      /* not a field: where replications run (default: here) */
} sd_cmd_serving_request;

/* Nothing given, the replications here. */
SD_API sd_cmd_serving_request sd_cmd_serving_defaults(void);
/* The table: per load and speculation choice, the twin's row and the
 * simulation's (the mean of the replications, with 95% t intervals through
 * sd_sampling_summarise), with notes.  SD_EINVAL naming the field,
 * SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_serving_table(const sd_cmd_serving_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_serving;

#endif
