/* cmd_shared.h -- what the command modules of report/ share (private): the
 * library defaults their rows read and the domains several commands take. */
#ifndef SPECDEC_CMD_SHARED_H
#define SPECDEC_CMD_SHARED_H

#include <math.h>
#include <stdint.h>

#include "io/command_impl.h"
#include "specdec/cost.h"
#include "specdec/engine.h"
#include "specdec/fit.h"
#include "specdec/ngram.h"
#include "specdec/policies.h"
#include "specdec/rng.h"
#include "specdec/sampling.h"
#include "specdec/serving.h"
#include "specdec/synth.h"
#include "specdec/validate.h"

/* The library's defaults, one struct of each: a field's row names the member its default is
 * (SD_LIB(synth.vocab, SIZE)), so that the help and the call read the same value. */
typedef struct {
    sd_synth_config synth;
    sd_engine_config engine;
    sd_cost_params cost;
    sd_ngram_config ngram;
    sd_sampling sampling;
    sd_validate_config validate;
    uint64_t seed;             /* SD_RNG_DEFAULT_SEED, for the commands whose library call has no defaults */
    double fit_level;          /* SD_FIT_LEVEL */
    size_t fit_replicates;     /* SD_FIT_REPLICATES */
    size_t policies_gamma_max; /* SD_POLICIES_GAMMA_MAX */
    sd_serving_config serving; /* sd_serving_defaults(): vLLM's scheduler */
    double serving_prompt, serving_output; /* its prompt's and output's length */
} sd_commands_lib;

/* Fills buf with an sd_commands_lib (every command row's library()). */
void sd_commands_library(void *buf);

#define SD_LIB(field, t) SD_FIELD_LIB(sd_commands_lib, field, t)
/* The members of a command row of report/ that say where its defaults come from. */
#define SD_COMMANDS_LIBRARY .library = sd_commands_library, .library_size = sizeof(sd_commands_lib)

/* The domains the commands share. */
extern const sd_domain SD_CMD_ALPHA, SD_CMD_COST, SD_CMD_MU, SD_CMD_GAMMA, SD_CMD_ACCEPTANCE, SD_CMD_SEED,
    SD_CMD_THREADS, SD_CMD_TOKENS, SD_CMD_DRAFTS, SD_CMD_GAMMA_MAX, SD_CMD_BATCH, SD_CMD_CONTEXT;

#endif
