/* cmd_validate.c -- `specdec validate`: the theory against the engine. */
#include "cli.h"
#include "validate.h"

static const sd_domain SEED = { "--seed", 0, 9007199254740992.0, 1 };
static const sd_domain THREADS = { "--threads", 1, 256, 1 };

static sd_status run_validate(const cli_args *a, sd_table **out, sd_error *err)
{
    double seed, threads;
    sd_status st;
    if ((st = cli_number(a, &SEED, "20261129", &seed, err)) != SD_OK ||
        (st = cli_number(a, &THREADS, "2", &threads, err)) != SD_OK)
        return st;
    const char *data = cli_value(a, "--data");
    sd_validate_config cfg = { cli_given(a, "--quick"), (uint64_t)seed, (unsigned)threads, data ? data : "data" };
    int passed = 0;
    if ((st = sd_validate_run(&cfg, out, &passed, err)) != SD_OK)
        return st;
    if (!passed)
        sd_table_note(*out, NULL, "validate: some checks failed or a negative control was missed.");
    else
        sd_table_note(*out, NULL, "validate: every check passed and every negative control was caught.");
    return passed ? SD_OK : SD_ECHECK;
}

static const cli_option validate_options[] = {
    { "--quick", NULL, "the make check size: about 10x fewer samples" },
    { "--seed", "S", "random seed (default 20261129)" },
    { "--threads", "K", "threads, in [1, 256]; results do not depend on it (default 2)" },
    { "--data", "DIR", "folder with four-token-p.txt and four-token-q.txt (default data)" },
    { NULL, NULL, NULL },
};

const cli_command cmd_validate = {
    "validate", "validate [--quick] [--seed S] [--threads K]",
    "hold every closed form against the rejection sampler; exit 0 iff all pass",
    validate_options, 0, 0, run_validate, 0, NULL, NULL,
};
