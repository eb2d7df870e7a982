/* cmd_validate.h -- `specdec validate` as a library call: every closed
 * form held against the rejection sampler, as validate.h's table of checks.
 *
 * The one command whose call returns SD_ECHECK: when a check fails or a
 * negative control is missed, sd_cmd_validate_table still gives the whole
 * table (the program prints it and exits 1).
 */
#ifndef SPECDEC_CMD_VALIDATE_H
#define SPECDEC_CMD_VALIDATE_H

#include <stdint.h>

#include "specdec/command.h"
#include "specdec/engine_stats.h"

/* Fields as command.h reads them; man specdec names each one's domain. */
typedef struct {
    int quick;            /* --quick: the make check size, about 10x fewer samples */
    double seed;          /* --seed S: the random seed, whole in [0, 2^53]; default sd_validate_defaults()'s */
    double threads;       /* --threads K: in [1, 256]; the results do not depend on it; default the library's */
    sd_command_list only; /* --only LIST: run only the checks with these numbers (sd_validate_check_at), whole
                           * in [1, 1000]; default all */
    /* Not fields (no option sets them): how every engine run of a job spread over processes runs, as
     * sd_validate_config takes them; the program sets them for --shard and merge.  0, 0, NULL (as
     * sd_cmd_validate_defaults() gives): whole runs. */
    uint32_t shard, nshards; /* every engine run as shard `shard` of `nshards` (engine_stats.h) */
    const sd_engine_io *io;  /* every engine run's record or replay hooks (engine_stats.h), or NULL */
} sd_cmd_validate_request;

/* Nothing given, no shard, no hooks. */
SD_API sd_cmd_validate_request sd_cmd_validate_defaults(void);
/* The table of the checks selected (validate.h's columns), with a note on
 * the verdict.  SD_OK when every check passed and every negative control
 * was caught; SD_ECHECK, with the whole table in *out all the same, when
 * not.  SD_EINVAL naming the field, SD_ENOMEM, SD_EFAIL (a GSL routine or
 * an engine thread); *out NULL on those. */
SD_API sd_status sd_cmd_validate_table(const sd_cmd_validate_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_validate;

#endif
