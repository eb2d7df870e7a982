/* sampling.h -- sampling settings (temperature, top-k, top-p, min-p) and
 * the acceptance of a matrix pair under them.
 *
 * The transforms turn one row of logits or probabilities into the
 * distribution an engine samples from, in vLLM's order (v1 Sampler.sample,
 * docs.vllm.ai, vllm.v1.sample.sampler: temperature, then min-p, then
 * top-k and top-p):
 *
 *   1. input      logits z as given (-inf: a masked token); probabilities
 *                 p become z = log p (log 0 = -inf).
 *   2. temperature T > 0: p = softmax(z / T).  T = 0 is greedy: the point
 *                 mass on the largest z (ties: the lowest token id), and
 *                 steps 3-5 keep it.
 *   3. min-p      keep the tokens with p >= min_p * max p (0: off).
 *   4. top-k      keep the tokens with p >= the k-th largest p among those
 *                 kept (ties at the boundary are all kept, so more than k
 *                 may remain; 0 or k >= V: off).
 *   5. top-p      renormalise; sort by p, largest first; the smallest prefix
 *                 whose mass is >= top_p (a prefix that reaches top_p
 *                 exactly stops there) sets the boundary probability; keep
 *                 the tokens with p >= it (ties at the boundary kept; 1:
 *                 off).
 *   6.            renormalise what is kept.
 *
 * Every step keeps the most likely token, so the result is a distribution.
 */
#ifndef SPECDEC_SAMPLING_H
#define SPECDEC_SAMPLING_H

#include <stddef.h>

#include "specdec/dist.h"
#include "specdec/npy.h"
#include "specdec/status.h"

typedef enum { SD_INPUT_LOGITS, SD_INPUT_PROBS } sd_input;

typedef struct {
    double temperature; /* [0, SD_TEMPERATURE_MAX]; 0: greedy */
    size_t top_k;       /* 0: off */
    double top_p;       /* (0, 1]; 1: off */
    double min_p;       /* [0, 1]; 0: off */
} sd_sampling;

#define SD_TEMPERATURE_MAX 1e3

/* Temperature 1, top-k 0, top-p 1, min-p 0: the distribution as given.
 * Never fails. */
SD_API sd_sampling sd_sampling_defaults(void);

/* "logits", "probs", NULL: indexed by sd_input (static). */
SD_API const char *const *sd_sampling_input_names(void);

/* Applies s to in[0..n-1], read as kind, into the distribution out[0..n-1]
 * (the caller's; in and out may be the same array), as described above.
 * SD_EINVAL, naming the field of s (temperature, top_k, top_p, min_p) when
 * it is outside its domain, or the input (name, with the entry) when
 * logits hold NaN or +inf or are all -inf, or probabilities fail
 * sd_dist_check; SD_ENOMEM.  On failure out is untouched. */
SD_API sd_status sd_sampling_apply(const sd_sampling *s, sd_input kind, const double *in, size_t n, double *out,
                                   const char *name, sd_error *err);

/* A matrix pair and the settings each side is sampled with: row i of p
 * (the target) and of q (the draft) are the distributions at one position. */
typedef struct {
    const sd_npy *p, *q;        /* the same shape */
    sd_input kind;              /* what their numbers are */
    sd_sampling target, draft;  /* applied to p's rows and to q's */
    const char *p_name, *q_name; /* for messages, e.g. the files' paths */
} sd_sampling_pair;

/* The rows of a pair under its settings: row i of p and of q transformed
 * by target and draft, then beta[i] = sum min(p, q) (eq. 1: adjusted,
 * target and block at one position) and dd[i] = p(argmax q)
 * (deterministic-draft, dist.h), both arrays the caller's of p->rows.
 * SD_EINVAL when the shapes differ (naming q_name), or as
 * sd_sampling_apply (naming "P_NAME row i" or "Q_NAME row i"); SD_ENOMEM.
 * On failure beta and dd may be partly written. */
SD_API sd_status sd_sampling_rows(const sd_sampling_pair *pair, double *beta, double *dd, sd_error *err);

/* The same rows scored by k acceptances (dist.h; verify.h's
 * sd_verify_dist_acceptance gives a rule's): out[j * p->rows + i] is
 * acc[j] of row i's transformed p and q, out the caller's k x p->rows
 * doubles.  sd_sampling_rows is this with {sd_dist_overlap,
 * sd_dist_point_acceptance}.  Fails as sd_sampling_rows; on failure out
 * may be partly written. */
SD_API sd_status sd_sampling_acceptances(const sd_sampling_pair *pair, size_t k, const sd_dist_acceptance_fn *acc,
                                         double *out, sd_error *err);

/* The same rows' per-rank acceptance of token-tree children (dist.h, sd_dist_rank_acceptance:
 * sampled 0 for deterministic top-k children, 1 for children drawn from q):
 * out[k * p->rows + i], k < ranks, the chance that row i's child of rank k is the one
 * accepted; out the caller's ranks x p->rows doubles.  Fails as sd_sampling_rows. */
SD_API sd_status sd_sampling_rank_acceptances(const sd_sampling_pair *pair, size_t ranks, int sampled, double *out,
                                              sd_error *err);

/* A matrix pair as it lies in memory, row after row (C order), of doubles or of floats
 * (NumPy's and PyTorch's float64 and float32): exactly one of p64 and p32, and one of q64
 * and q32, is set; a float is widened exactly to a double, a row at a time, so a float32
 * pair is read without a double copy.  The rest as in sd_sampling_pair. */
typedef struct {
    const double *p64, *q64;
    const float *p32, *q32;
    size_t rows, cols;
    sd_input kind;
    sd_sampling target, draft;
    const char *p_name, *q_name;
} sd_sampling_view;
/* sd_sampling_acceptances and sd_sampling_rank_acceptances of a view (which they are, for a
 * pair of .npy matrices): the same results for the same numbers, the same failures, and
 * SD_EINVAL when a side has neither or both of its pointers set. */
SD_API sd_status sd_sampling_view_acceptances(const sd_sampling_view *v, size_t k, const sd_dist_acceptance_fn *acc,
                                              double *out, sd_error *err);
SD_API sd_status sd_sampling_view_rank_acceptances(const sd_sampling_view *v, size_t ranks, int sampled, double *out,
                                                   sd_error *err);
/* The mean of x[0..n-1] with its standard error and 95% interval (Student
 * t with n - 1 degrees of freedom; the interval is the mean itself when
 * n = 1, with se 0), and its quantiles (GSL's
 * gsl_stats_quantile_from_sorted_data: min, 10%, 25%, median, 75%, 90%,
 * max). */
typedef struct {
    double mean, se, ci_low, ci_high;
    double q[7];
} sd_summary;

/* Summarises x[0..n-1], n >= 1 (sorts a copy).  SD_ENOMEM, the only
 * failure; *out is then untouched. */
SD_API sd_status sd_sampling_summarise(const double *x, size_t n, sd_summary *out, sd_error *err);

#endif
