/* cmd_overlap.h -- `specdec overlap` as a library call: beta and D_LK of
 * two distribution files (eqs. 1, 5, 6) with the other rules'
 * acceptances; each rule's acceptance of a .npy matrix pair under every
 * sampling setting, summarised or row by row; or the per-rank acceptance
 * of token-tree children (tree.h).
 */
#ifndef SPECDEC_CMD_OVERLAP_H
#define SPECDEC_CMD_OVERLAP_H

#include "specdec/cmd_sampling.h"
#include "specdec/command.h"

/* Fields as command.h reads them; man specdec gives each one's domain and default. */
typedef struct {
    const char *p_file, *q_file;      /* P_FILE, Q_FILE: two distribution files (dist.h); or p_npy and q_npy */
    double drafts;                    /* --drafts K: with files, P(one of K drafts accepted) too */
    const char *p_npy, *q_npy;        /* --p-npy FILE, --q-npy FILE: a matrix pair (npy.h), row i with row i */
    int input;                        /* --input: logits or probs (sampling.h); required with them */
    int per_row;                      /* --per-row: each row's acceptance instead of the summary */
    double ranks;                     /* --ranks K: the acceptance of tree children by rank 0 .. K-1 instead */
    int children;                     /* --children: with ranks, top-k or sampled only (default both) */
    const char *export_acceptance;    /* --export-acceptance FILE: with ranks, the mean p per rank as tree reads it */
    sd_cmd_sampling_options sampling; /* the matrix pair's sampling settings (cmd_sampling.h) */
} sd_cmd_overlap_request;

/* Nothing given. */
SD_API sd_cmd_overlap_request sd_cmd_overlap_defaults(void);
/* The table: for files beta, tv, each other rule's acceptance (and drafts,
 * acceptance with drafts); for a matrix pair the settings, then a summary
 * row per rule (rule, rows, alpha_hat, its standard error and 95%
 * interval, quantiles of beta) or a row per matrix row (per_row); for
 * ranks a row per setting, children kind and rank.  Writes
 * --export-acceptance when given.  SD_EINVAL naming the field ("overlap:
 * missing argument" without files or a pair), SD_ENOMEM, SD_EIO; *out NULL
 * on failure. */
SD_API sd_status sd_cmd_overlap_table(const sd_cmd_overlap_request *rq, sd_table **out, sd_error *err);
/* The row (command.h). */
SD_API extern const sd_command sd_cmd_overlap;

#endif
