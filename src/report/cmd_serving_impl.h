/* cmd_serving_impl.h -- the private half of cmd_serving.h: what its parts
 * share (cmd_serving.c, the fields and the call; cmd_serving_read.c reads the
 * request into a serving configuration; cmd_serving_table.c runs it at every
 * load and speculation choice). */
#ifndef SPECDEC_CMD_SERVING_IMPL_H
#define SPECDEC_CMD_SERVING_IMPL_H

#include "cmd_cost_impl.h"
#include "specdec/cmd_serving.h"
#include "specdec/schedule.h"
#include "specdec/serving.h"

enum { SERVING_ANALYTIC, SERVING_SIMULATE, SERVING_BOTH }; /* --method */

/* One entry of --gamma: a number (0: no speculation) or a policy's name. */
typedef struct {
    sd_serving_policy policy;
    size_t gamma;
    char name[16];
} serving_spec;

/* What one call holds and must release, and what the request read into it. */
typedef struct {
    sd_presets presets;
    sd_cmd_costs costs;
    sd_roofline_request rq;
    sd_list acc, loads;
    double *len[4]; /* prompt value, weight; output value, weight */
    double *trace_col[3];
    serving_spec *spec;
    size_t nspec;
    sd_schedule_bucket *buckets;
    size_t nbuckets;
    int schedule;        /* a choice is the schedule */
    int method;          /* SERVING_* */
    uint64_t seed;
    size_t replications;
} serving_run;

/* The domains of the fields, and --method's names. */
extern const sd_domain SERVING_RATE, SERVING_USERS, SERVING_LENGTH, SERVING_OUTPUT, SERVING_REQUESTS, SERVING_WARMUP,
    SERVING_SEQS, SERVING_BATCHED, SERVING_MEMFRAC, SERVING_GMAX, SERVING_SLO_TTFT, SERVING_SLO_TPOT, SERVING_REPS;
const char *const *serving_method_names(void);

void serving_run_free(serving_run *r);
/* 1 when a speculation choice drafts (not every one is none or 0). */
int serving_speculates(const serving_run *r);
/* The request of a into *r and *c (the first load and choice), c checked: sd_serving_check's
 * statuses, and SD_EINVAL naming the field. */
sd_status serving_read(const sd_command_args *a, serving_run *r, sd_serving_config *c, sd_error *err);
/* The table of a's request, the replications run through reps. */
sd_status serving_table(const sd_command_args *a, const sd_cmd_serving_replicas *reps, sd_table **out,
                        sd_error *err);

#endif
