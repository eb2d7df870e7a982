/* cmd_overlap_impl.h -- the private half of cmd_overlap.h: what its parts share
 * (cmd_overlap.c: files and matrix pairs by rule; cmd_overlap_ranks.c: --ranks). */
#ifndef SPECDEC_CMD_OVERLAP_IMPL_H
#define SPECDEC_CMD_OVERLAP_IMPL_H

#include "cmd_sampling_impl.h"
#include "specdec/cmd_overlap.h"
#include "specdec/tree.h"

/* The two distribution files P_FILE and Q_FILE over one vocabulary. */
sd_status overlap_load_files(const sd_cmd_overlap_request *rq, sd_dist *p, sd_dist *q, sd_error *err);
/* --ranks K's domain. */
extern const sd_domain OVERLAP_RANKS;
/* --ranks: one row per children kind, setting and rank. */
sd_status overlap_ranks(const sd_command_args *a, sd_table **out, sd_error *err);

#endif
