/* cmd_sample.c -- `specdec sample`: one position of speculative sampling,
 * many draws, against the rule's output distribution (sample.h). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

/* Caps on work: 1e10 draws take about 10 minutes on two cores. */
static const sd_domain DRAWS = { "--draws", 1, 1e10, 1 };

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
    if ((st = cli_verifier(a, &sc.verifier, err)) != SD_OK ||
        (st = cli_number(a, &DRAWS, &draws, err)) != SD_OK ||
        (st = cli_number(a, &CLI_DRAFTS, &drafts, err)) != SD_OK ||
        (st = cli_number(a, &CLI_SEED, &seed, err)) != SD_OK ||
        (st = cli_load_pair(a->pos[0], a->pos[1], &p, &q, &m, err)) != SD_OK || (st = cli_table(7, cols, &t, err)) != SD_OK)
        goto done;
    size_t n = p.n;
    counts = malloc(n * sizeof *counts);
    expect = malloc(n * sizeof *expect);
    if (counts == NULL || expect == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    sc.model = m;
    sc.drafts = (size_t)drafts;
    sc.draws = (uint64_t)draws;
    sc.seed = (uint64_t)seed;
    sc.shard = a->shard;
    sc.nshards = a->nshards;
    sc.io = a->io;
    if ((st = sd_sample_run(&sc, counts, expect, err)) != SD_OK)
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

static const cli_option SAMPLE_OPTIONS[] = {
    { .name = "--draws", .metavar = "N", .help = "draws, at most {max} (about 10 min) (default {default})",
      .domain = &DRAWS, .dflt = "1000000" },
    { .name = "--drafts", .metavar = "K", .help = "drafts per position, recursive rejection (adjusted only), in "
      "{range} (default {default})", .domain = &CLI_DRAFTS, .lib = CLI_LIB(engine.drafts, CLI_LIB_SIZE) },
    { .name = "--verify", .metavar = "NAME", .help = "adjusted, target, deterministic-draft or exact-match (default {default})",
      .dflt = "adjusted" },
    { .name = "--seed", .metavar = "S", .help = "random seed (default {default})", .domain = &CLI_SEED,
      .lib = CLI_LIB(seed, CLI_LIB_U64) },
    { .name = NULL },
};

const cli_command cmd_sample = {
    .name = "sample",
    .synopsis = "sample P_FILE Q_FILE [--draws N] [--verify adjusted|target|deterministic-draft|exact-match] [--seed S]",
    .summary = "one position of speculative sampling: observed against expected output frequencies",
    .groups = { SAMPLE_OPTIONS, CLI_SCALE_OPTIONS },
    .min_pos = 2,
    .max_pos = 2,
    .run = run_sample,
    .scales = 1,
};
