/* cmd_model_impl.h -- the private half of cmd_model.h: the model options'
 * rows (a field group of simulate and policies) and what reads them: which
 * model a request names and its synthetic config, the verification rule
 * (sample's too), a pair of distribution files, and the memory limit. */
#ifndef SPECDEC_CMD_MODEL_IMPL_H
#define SPECDEC_CMD_MODEL_IMPL_H

#include "cmd_shared.h"
#include "specdec/cmd_model.h"
#include "specdec/dist.h"
#include "specdec/model.h"
#include "specdec/verify.h"

/* The rows of sd_cmd_model_options (a group whose base is the request's member). */
extern const sd_command_field SD_CMD_MODEL_FIELDS[];

/* The model a request names. */
typedef struct {
    sd_synth_config synth; /* the synthetic family's config (its seed serves every model) */
    int from_files;        /* --p-file and --q-file */
    int ngram, npy;        /* the n-gram pair on a corpus (simulate); a .npy matrix pair */
} sd_cmd_model;

/* Reads the model options of a into *ms: which model, the synthetic config
 * (the defaults where absent); refuses options of another model. */
sd_status sd_cmd_model_read(const sd_command_args *a, sd_cmd_model *ms, sd_error *err);
/* --verify NAME (its row's default when absent) into *v. */
sd_status sd_cmd_model_verifier(const sd_command_args *a, const sd_verifier **v, sd_error *err);
/* Loads two distribution files over one vocabulary into a context-free model. */
sd_status sd_cmd_model_load_pair(const char *p_path, const char *q_path, sd_dist *p, sd_dist *q, sd_model **m,
                                 sd_error *err);
/* Refuses a run whose bank and engine counters would pass --max-memory
 * (default half the physical memory), before anything is allocated;
 * file_vocab: the files' vocabulary. */
sd_status sd_cmd_model_check_memory(const sd_command_args *a, const sd_cmd_model *ms, const sd_engine_config *ec,
                                    size_t file_vocab, sd_error *err);
/* Refuses a run on an existing model (ec->model) whose engine counters pass the limit. */
sd_status sd_cmd_model_check_built(const sd_command_args *a, const sd_engine_config *ec, sd_error *err);

#endif
