/* cmd_validate.c -- `specdec validate`: the theory against the engine. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>


static const sd_domain ONLY = { "--only", 1, 1000, 1 };

static sd_status run_validate(const cli_args *a, sd_table **out, sd_error *err)
{
    double seed, threads;
    sd_list only = { 0 };
    sd_validate_config cfg = sd_validate_defaults();
    unsigned *numbers = NULL;
    int passed = 0;
    sd_status st;
    if ((st = cli_number(a, &CLI_SEED, &seed, err)) != SD_OK || (st = cli_number(a, &CLI_THREADS, &threads, err)) != SD_OK ||
        (cli_given(a, "--only") && (st = cli_list(a, &ONLY, &only, err)) != SD_OK))
        goto done;
    if (only.n > 0 && (numbers = malloc(only.n * sizeof *numbers)) == NULL) {
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < only.n; i++)
        numbers[i] = (unsigned)only.v[i];
    cfg.quick = cli_given(a, "--quick");
    cfg.seed = (uint64_t)seed;
    cfg.threads = (unsigned)threads;
    cfg.only = numbers;
    cfg.nonly = only.n;
    cfg.shard = a->shard;
    cfg.nshards = a->nshards;
    cfg.io = a->io;
    if ((st = sd_validate_run(&cfg, out, &passed, err)) != SD_OK)
        goto done;
    sd_table_note(*out, NULL, passed ? "validate: every check passed and every negative control was caught."
                                     : "validate: some checks failed or a negative control was missed.");
    st = passed ? SD_OK : SD_ECHECK;
done:
    free(numbers);
    sd_parse_list_free(&only);
    return st;
}

/* The checks and their numbers, from the library's table. */
static void list_checks(void)
{
    printf("\nchecks (--only takes their numbers):\n");
    const sd_validate_check *c;
    for (size_t i = 0; (c = sd_validate_check_at(i)) != NULL; i++) {
        char num[16];
        if (c->first == c->last)
            snprintf(num, sizeof num, "%u", c->first);
        else
            snprintf(num, sizeof num, "%u-%u", c->first, c->last);
        printf("  %-6s %-11s %s\n", num, c->name, c->summary);
    }
}

static const cli_option VALIDATE_OPTIONS[] = {
    { .name = "--quick", .help = "the make check size: about 10x fewer samples" },
    { .name = "--seed", .metavar = "S", .help = "random seed (default {default})", .domain = &CLI_SEED,
      .lib = CLI_LIB(validate.seed, CLI_LIB_U64) },
    { .name = "--threads", .metavar = "K", .help = "threads, in {range}; results do not depend on it (default "
      "{default})", .domain = &CLI_THREADS, .lib = CLI_LIB(validate.threads, CLI_LIB_UINT) },
    { .name = "--only", .metavar = "LIST", .help = "run only the checks with these numbers (see below), e.g. 3,12 or "
      "4:7", .domain = &ONLY },
    { .name = NULL },
};

const cli_command cmd_validate = {
    .name = "validate",
    .synopsis = "validate [--quick] [--only LIST] [--seed S] [--threads K]",
    .summary = "hold every closed form against the rejection sampler; exit 0 iff all pass",
    .groups = { VALIDATE_OPTIONS, CLI_SCALE_OPTIONS },
    .run = run_validate,
    .more_help = list_checks,
    .scales = 1,
};
