/* cmd_model.h -- the model options of simulate and policies, as each takes
 * them in its request: a synthetic family (synth.h) with a calibrated or a
 * noisy draft, or a context-free pair of distribution files (dist.h); the
 * verification rule (verify.h), the seed, and the memory a run may take.
 * simulate also takes --family ngram (ngram.h) and .npy pairs (its own
 * fields).  Fields as command.h reads them; man specdec gives each one's
 * domain and default.
 */
#ifndef SPECDEC_CMD_MODEL_H
#define SPECDEC_CMD_MODEL_H

#include "specdec/command.h"

typedef struct {
    const char *family;           /* --family NAME: a synthetic family (default zipf), or ngram (simulate) */
    double vocab;                 /* --vocab V: the vocabulary */
    sd_command_list alpha;        /* --alpha LIST: the calibrated draft's acceptance per context (policies: one) */
    double noise;                 /* --noise SIGMA: an uncalibrated draft instead, q = softmax(log p + SIGMA N(0,1)) */
    int regime;                   /* --regime: constant, beta or markov acceptance per context */
    double concentration;         /* --concentration NU: the beta regime's */
    double alpha_easy, alpha_hard; /* --alpha-easy A, --alpha-hard A: the markov regime's two states */
    double stay;                  /* --stay P: the markov regime's chance of keeping its state */
    double zipf_s, kappa;         /* --zipf-s S, --kappa K: the zipf and dirichlet families' */
    sd_command_list temperature;  /* --temperature: the logits family's (one value); simulate on .npy pairs and
                                   * ngram: the sampling list, 0 greedy */
    double contexts;              /* --contexts K: contexts in the bank (default about 2^21 / V, 2 to 64) */
    double history;               /* --history K: prefix tokens that select a context */
    const char *p_file, *q_file;  /* --p-file P, --q-file Q: a context-free pair from distribution files */
    const char *verify;           /* --verify NAME: the verification rule (default adjusted) */
    double seed;                  /* --seed S */
    double max_memory;            /* --max-memory GIB: refuse runs that need more (default half the memory) */
} sd_cmd_model_options;

/* Nothing given. */
SD_API sd_cmd_model_options sd_cmd_model_defaults(void);

#endif
