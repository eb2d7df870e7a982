/* cmd_validate.c -- `specdec validate`: the theory against the engine
 * (validate.h), with the verdict as its status. */
#include "specdec/cmd_validate.h"

#include <stdlib.h>

#include "cmd_shared.h"

static const sd_domain ONLY = { "--only", 1, 1000, 1 };

/* --only into cfg's numbers (*numbers malloc'd, NULL when none is given). */
static sd_status selection(const sd_command_args *a, sd_validate_config *cfg, unsigned **numbers, sd_error *err)
{
    sd_list only = { 0 };
    sd_status st = SD_OK;
    *numbers = NULL;
    if (sd_command_args_given(a, "--only") && (st = sd_command_args_list(a, &ONLY, &only, err)) != SD_OK)
        return st;
    if (only.n > 0 && (*numbers = malloc(only.n * sizeof **numbers)) == NULL)
        st = sd_status_fail(err, SD_ENOMEM, "out of memory");
    for (size_t i = 0; st == SD_OK && i < only.n; i++)
        (*numbers)[i] = (unsigned)only.v[i];
    cfg->only = *numbers;
    cfg->nonly = st == SD_OK ? only.n : 0;
    sd_parse_list_free(&only);
    return st;
}

static sd_status run_validate(const sd_command_args *a, const sd_cmd_validate_request *rq, sd_table **out,
                              sd_error *err)
{
    double seed, threads;
    sd_validate_config cfg = sd_validate_defaults();
    unsigned *numbers = NULL;
    int passed = 0;
    sd_status st;
    *out = NULL;
    if ((st = sd_command_args_number(a, &SD_CMD_SEED, &seed, err)) != SD_OK ||
        (st = sd_command_args_number(a, &SD_CMD_THREADS, &threads, err)) != SD_OK ||
        (st = selection(a, &cfg, &numbers, err)) != SD_OK)
        goto done;
    cfg.quick = sd_command_args_given(a, "--quick");
    cfg.seed = (uint64_t)seed;
    cfg.threads = (unsigned)threads;
    cfg.shard = rq->shard;
    cfg.nshards = rq->nshards;
    cfg.io = rq->io;
    if ((st = sd_validate_run(&cfg, out, &passed, err)) != SD_OK)
        goto done;
    st = sd_table_note(*out, err, passed ? "validate: every check passed and every negative control was caught."
                                         : "validate: some checks failed or a negative control was missed.");
    if (st != SD_OK) {
        sd_table_free(*out);
        *out = NULL;
    } else if (!passed) {
        st = SD_ECHECK; /* the table is whole: the verdict is the status */
    }
done:
    free(numbers);
    return st;
}

sd_cmd_validate_request sd_cmd_validate_defaults(void)
{
    return (sd_cmd_validate_request){ .seed = NAN, .threads = NAN, .shard = 0, .nshards = 0, .io = NULL };
}

sd_status sd_cmd_validate_table(const sd_cmd_validate_request *rq, sd_table **out, sd_error *err)
{
    const sd_command_args a = { .cmd = &sd_cmd_validate, .req = rq };
    *out = NULL;
    sd_status st = sd_command_check(&sd_cmd_validate, rq, err);
    return sd_command_end(&sd_cmd_validate, st == SD_OK ? run_validate(&a, rq, out, err) : st, err);
}

#define R sd_cmd_validate_request
static const sd_command_field FIELDS[] = {
    { .name = "--quick", SD_FIELD(R, quick, FLAG), .help = "the make check size: about 10x fewer samples" },
    { .name = "--seed", SD_FIELD(R, seed, REAL), .metavar = "S", .help = "random seed (default {default})",
      .domain = &SD_CMD_SEED, SD_LIB(validate.seed, U64) },
    { .name = "--threads", SD_FIELD(R, threads, REAL), .metavar = "K", .help = "threads, in {range}; results do not "
      "depend on it (default {default})", .domain = &SD_CMD_THREADS, SD_LIB(validate.threads, UINT) },
    { .name = "--only", SD_FIELD(R, only, LIST), .metavar = "LIST", .help = "run only the checks with these numbers "
      "(see below), e.g. 3,12 or 4:7", .domain = &ONLY },
    { .name = NULL },
};
#undef R

SD_COMMAND_CALLS(validate)
const sd_command sd_cmd_validate = {
    SD_COMMAND_ROW(validate),
    .usage = "validate [--quick] [--only LIST] [--seed S] [--threads K]",
    .summary = "hold every closed form against the rejection sampler; exit 0 iff all pass",
    .groups = { FIELDS },
    SD_COMMANDS_LIBRARY,
};
