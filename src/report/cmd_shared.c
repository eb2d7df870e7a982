/* cmd_shared.c -- what the command modules share: the library defaults their
 * rows read (cmd_shared.h) and the domains several commands take. */
#include "cmd_shared.h"

#include <string.h>

_Static_assert(sizeof(sd_commands_lib) <= SD_COMMAND_LIBRARY_MAX, "the library defaults fit the rows' reader");

void sd_commands_library(void *buf)
{
    sd_commands_lib lib = { .synth = sd_synth_defaults(), .engine = sd_engine_defaults(),
                                  .cost = sd_cost_defaults(), .ngram = sd_ngram_defaults(),
                                  .sampling = sd_sampling_defaults(), .validate = sd_validate_defaults(),
                                  .seed = SD_RNG_DEFAULT_SEED, .fit_level = SD_FIT_LEVEL,
                                  .fit_replicates = SD_FIT_REPLICATES, .policies_gamma_max = SD_POLICIES_GAMMA_MAX,
                                  .serving = sd_serving_defaults() };
    lib.serving_prompt = lib.serving.prompt.value[0];
    lib.serving_output = lib.serving.output.value[0];
    memcpy(buf, &lib, sizeof lib);
}

#define GAMMA_MAX 1e9 /* the largest draft length the closed forms take */

const sd_domain SD_CMD_ALPHA = { "--alpha", 0.0, 1.0, 0 };
const sd_domain SD_CMD_COST = { "--cost", 0.0, INFINITY, 0 };
const sd_domain SD_CMD_MU = { "--mu", 0.0, INFINITY, 0 };
const sd_domain SD_CMD_GAMMA = { "--gamma", 1.0, GAMMA_MAX, 1 };
const sd_domain SD_CMD_ACCEPTANCE = { "--acceptance", 0.0, 1.0, 0 };
const sd_domain SD_CMD_SEED = { "--seed", 0, 9007199254740992.0, 1 }; /* 2^53: every seed a double holds exactly */
const sd_domain SD_CMD_THREADS = { "--threads", 1, 256, 1 };
/* Caps on work: 1e10 tokens take about 20 minutes on two cores (doc/performance.md);
 * anything longer belongs in several runs. */
const sd_domain SD_CMD_TOKENS = { "--tokens", 1, 1e10, 1 };
const sd_domain SD_CMD_DRAFTS = { "--drafts", 1, SD_DRAFTS_MAX, 1 };
const sd_domain SD_CMD_GAMMA_MAX = { "--gamma-max", 1, SD_ORACLE_MAX, 1 };
/* The roofline's settings, as calibrate.h bounds a measured step's. */
const sd_domain SD_CMD_BATCH = { "--batch", 1, 1048576, 1 };
const sd_domain SD_CMD_CONTEXT = { "--context", 0, 16777216, 1 };
