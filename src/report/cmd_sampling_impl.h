/* cmd_sampling_impl.h -- the private half of cmd_sampling.h: the sampling
 * options' rows (overlap's group; simulate lists them in its own words) and
 * what reads them, by option name: the lists and their combinations, and a
 * .npy matrix pair with what its numbers are. */
#ifndef SPECDEC_CMD_SAMPLING_IMPL_H
#define SPECDEC_CMD_SAMPLING_IMPL_H

#include "cmd_shared.h"
#include "specdec/cmd_sampling.h"
#include "specdec/npy.h"

/* The eight sampling lists: target temperature, top-k, top-p, min-p, then
 * the draft's (a draft list not given repeats the target's value). */
enum { SD_CMD_SAMPLING_LISTS = 8 };

/* The rows of sd_cmd_sampling_options (a group whose base is the request's member). */
extern const sd_command_field SD_CMD_SAMPLING_FIELDS[];
/* Their domains, in sd_cmd_sampling order (simulate's rows take them too). */
extern const sd_domain SD_CMD_SAMPLING_DOMAINS[SD_CMD_SAMPLING_LISTS];

typedef struct {
    sd_list l[SD_CMD_SAMPLING_LISTS];
    int draft_given[4]; /* which --draft-* options were given */
    size_t rows;        /* combinations: the product of the lists' lengths */
} sd_cmd_sampling;

/* Reads the sampling lists of a (defaults: sd_sampling_defaults()); SD_EINVAL
 * names the option.  Free with sd_cmd_sampling_free. */
sd_status sd_cmd_sampling_read(const sd_command_args *a, sd_cmd_sampling *s, sd_error *err);
/* 1 when any sampling option was given. */
int sd_cmd_sampling_given(const sd_command_args *a);
/* The idx-th combination (target temperature slowest). */
void sd_cmd_sampling_at(const sd_cmd_sampling *s, size_t idx, sd_sampling *target, sd_sampling *draft);
void sd_cmd_sampling_free(sd_cmd_sampling *s);
/* --input logits|probs (required with .npy input). */
sd_status sd_cmd_sampling_input(const sd_command_args *a, sd_input *kind, sd_error *err);
/* Loads --p-npy and --q-npy (both required, same shape). */
sd_status sd_cmd_sampling_load_npy(const sd_command_args *a, sd_npy *p, sd_npy *q, sd_error *err);

#endif
