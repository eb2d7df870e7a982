/* cmd_sample.c -- `specdec sample`: one position of speculative sampling,
 * many draws, against the rule's output distribution (sample.h). */
#include "specdec/cmd_sample.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd_model_impl.h"
#include "specdec/sample.h"

/* Caps on work: 1e10 draws take about 10 minutes on two cores. */
static const sd_domain DRAWS = { "--draws", 1, 1e10, 1 };

/* The draws of sc on the pair p, q, a row per token into t. */
static sd_status sample_rows(sd_sample_config *sc, const sd_dist *p, const sd_dist *q, sd_table *t, sd_error *err)
{
    size_t n = p->n;
    uint64_t *counts = malloc(n * sizeof *counts);
    double *expect = malloc(n * sizeof *expect);
    sd_status st = counts == NULL || expect == NULL ? sd_status_fail(err, SD_ENOMEM, "out of memory") : SD_OK;
    if (st == SD_OK)
        st = sd_sample_run(sc, counts, expect, err);
    for (size_t tok = 0; tok < n && st == SD_OK; tok++) {
        char label[32];
        snprintf(label, sizeof label, "%zu", tok);
        const sd_cell row[] = { sd_text(p->labels ? p->labels[tok] : label), sd_real(p->p[tok]), sd_real(q->p[tok]),
                                sd_real((double)counts[tok] / (double)sc->draws), sd_real(expect[tok]),
                                sd_int((long long)sc->seed), sd_text(sd_rng_type()->name) };
        st = sd_table_add(t, row, err);
    }
    free(counts);
    free(expect);
    return st;
}

static sd_status run_sample(const sd_command_args *a, sd_table **out, sd_error *err)
{
    static const char *const cols[] = { "token", "p", "q", "observed", "expected", "seed", "rng" };
    const sd_cmd_sample_request *rq = a->req;
    sd_dist p = { 0 }, q = { 0 };
    sd_model *m = NULL;
    sd_table *t = NULL;
    double draws, seed, drafts;
    sd_sample_config sc = { .shard = rq->shard, .nshards = rq->nshards, .io = rq->io };
    sd_status st;
    if (rq->p_file == NULL || rq->q_file == NULL)
        st = sd_status_fail(err, SD_EINVAL, "sample: missing argument; usage: specdec %s", sd_cmd_sample.usage);
    else if ((st = sd_cmd_model_verifier(a, &sc.verifier, err)) == SD_OK &&
             (st = sd_command_args_number(a, &DRAWS, &draws, err)) == SD_OK &&
             (st = sd_command_args_number(a, &SD_CMD_DRAFTS, &drafts, err)) == SD_OK &&
             (st = sd_command_args_number(a, &SD_CMD_SEED, &seed, err)) == SD_OK &&
             (st = sd_cmd_model_load_pair(rq->p_file, rq->q_file, &p, &q, &m, err)) == SD_OK &&
             (st = sd_command_table(7, cols, &t, err)) == SD_OK) {
        sc.model = m;
        sc.drafts = (size_t)drafts;
        sc.draws = (uint64_t)draws;
        sc.seed = (uint64_t)seed;
        st = sample_rows(&sc, &p, &q, t, err);
    }
    sd_model_free(m);
    sd_dist_free(&p);
    sd_dist_free(&q);
    return sd_command_finish(st, NULL, 0, t, out);
}

sd_cmd_sample_request sd_cmd_sample_defaults(void)
{
    return (sd_cmd_sample_request){ .draws = NAN, .drafts = NAN, .seed = NAN };
}

sd_status sd_cmd_sample_table(const sd_cmd_sample_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_sample, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_sample, rq, err);
    return sd_command_end(&sd_cmd_sample, st == SD_OK ? run_sample(&a, out, err) : st, err);
}

#define R sd_cmd_sample_request
static const sd_command_field FIELDS[] = {
    { .name = "P_FILE", SD_FIELD(R, p_file, TEXT), .position = 1, .metavar = "P_FILE", .help = "the target's "
      "distribution file" },
    { .name = "Q_FILE", SD_FIELD(R, q_file, TEXT), .position = 2, .metavar = "Q_FILE", .help = "the draft's "
      "distribution file, over the same tokens" },
    { .name = "--draws", SD_FIELD(R, draws, REAL), .metavar = "N", .help = "draws, at most {max} (about 10 min) "
      "(default {default})", .domain = &DRAWS, .dflt = "1000000" },
    { .name = "--drafts", SD_FIELD(R, drafts, REAL), .metavar = "K", .help = "drafts per position, recursive "
      "rejection (adjusted only), in {range} (default {default})", .domain = &SD_CMD_DRAFTS,
      SD_LIB(engine.drafts, SIZE) },
    { .name = "--verify", SD_FIELD(R, verify, TEXT), .metavar = "NAME", .help = "adjusted, target, "
      "deterministic-draft or exact-match (default {default})", .dflt = "adjusted" },
    { .name = "--seed", SD_FIELD(R, seed, REAL), .metavar = "S", .help = "random seed (default {default})",
      .domain = &SD_CMD_SEED, SD_LIB(seed, U64) },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(sample)
const sd_command sd_cmd_sample = {
    SD_COMMAND_ROW(sample),
    .usage = "sample P_FILE Q_FILE [--draws N] [--verify adjusted|target|deterministic-draft|exact-match] [--seed S]",
    .summary = "one position of speculative sampling: observed against expected output frequencies",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};
