/* cmd_policies.h -- `specdec policies` as a library call: the draft-length
 * policies side by side on one model (policies.h), measured by the engine.
 */
#ifndef SPECDEC_CMD_POLICIES_H
#define SPECDEC_CMD_POLICIES_H

#include <stdint.h>

#include "specdec/cmd_model.h"
#include "specdec/command.h"
#include "specdec/engine_stats.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    double cost;                /* --cost C: the draft/target cost ratio of the improvement (required) */
    double gamma_max;           /* --gamma-max G: fixed gamma swept over 1..G; the adaptive policies' cap */
    sd_command_list thresholds; /* --thresholds LIST: the threshold policy's (default: the quartiles of the
                                 * draft's top probability) */
    double tokens;              /* --tokens T: tokens per run (default 300000) */
    double threads;             /* --threads K (default 2) */
    sd_cmd_model_options model; /* the model options (cmd_model.h); --alpha takes one value */
    /* Not fields: what a caller may set besides (defaults() sets none). */
    uint32_t shard, nshards;    /* run only this shard of every engine run (engine.h); 0, 0: all */
    const sd_engine_io *io;     /* every engine run's record or replay hooks (engine_stats.h), or NULL */
} sd_cmd_policies_request;

/* Nothing given. */
SD_API sd_cmd_policies_request sd_cmd_policies_defaults(void);
/* The table of sd_policies_run (policies.h).  SD_EINVAL naming the field,
 * SD_ENOMEM, SD_EFAIL; *out NULL on failure. */
SD_API sd_status sd_cmd_policies_table(const sd_cmd_policies_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_policies;

#endif
