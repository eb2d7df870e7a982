/* cost.h -- a batch-aware roofline cost model: when verification stops being free.
 *
 * Eq. (10) of the seed assumes that gamma + 1 target positions cost one
 * target step (memory-bound decoding).  That fails as the batch grows.  For
 * one forward pass over B sequences of n new tokens each at context S:
 *
 *   t(B, n, S) = max(FLOPs / (eta_F F), Bytes / (eta_BW BW)) + t0
 *   FLOPs = 2 P_active B n                       (the weights' multiply-adds)
 *         + 4 L H d B n (S + (n + 1)/2)          (attention: QK^T and AV over the context)
 *   Bytes = W(B n) b_w                           (weights read once per pass)
 *         + B S  kv                              (the KV cache read)
 *         + B n  kv                              (the new tokens' KV written)
 *   kv    = 2 L H_kv d b_kv                      (bytes of K and V per token)
 *
 * with L layers, H query heads, H_kv KV heads, head dimension d, b_w bytes
 * per weight, b_kv bytes per KV element.  W(m) is the parameters a pass
 * over m tokens reads: all of them for a dense model; for a mixture of
 * experts with E experts of which k serve each token, the shared part plus
 * the expected share of distinct experts, 1 - (1 - k/E)^m (uniform,
 * independent routing) -- so verifying more tokens reads more experts.
 * F is the peak dense FLOP/s, BW the memory bandwidth; eta_F, eta_BW the
 * fractions of them reached, t0 a fixed per-step overhead.
 *
 *   c_effective       = t_draft(B, 1, S) / t_target(B, 1, S)
 *   verify_cost_ratio = t_target(B, gamma + 1, S) / t_target(B, 1, S)
 *   improvement(gamma) = E(N) / (gamma c_effective + verify_cost_ratio)
 *
 * At small B (memory-bound, t0 small) verify_cost_ratio -> 1 and this is
 * eq. (10) with c = c_effective.  Tensor parallelism over `devices` GPUs is
 * modelled as ideal: F, BW and memory multiply.
 */
#ifndef SPECDEC_COST_H
#define SPECDEC_COST_H

#include <stddef.h>

#include "specdec/status.h"

/* Both preset records start with their name (sd_presets_* look them up by it). */
typedef struct {
    char name[64];
    double params_total, params_active; /* parameters */
    double bytes_per_param;
    double layers, heads, kv_heads, head_dim, kv_bytes;
    double experts, experts_active;     /* 1, 1 for a dense model */
} sd_model_spec;

typedef struct {
    char name[64];
    double flops;      /* peak dense FLOP/s (BF16) */
    double bandwidth;  /* bytes/s */
    double memory;     /* bytes */
} sd_hardware;

typedef struct {
    double eta_flops, eta_bw; /* fractions of peak reached, (0, 1] */
    double overhead;          /* t0, seconds per forward pass, >= 0 */
    double devices;           /* ideal tensor parallelism, >= 1 */
} sd_cost_params;

/* The defaults: eta_F 0.5, eta_BW 0.8, t0 20 us, one device.  Never fails. */
SD_API sd_cost_params sd_cost_defaults(void);

/* The figures below take presets that loaded (all positive) and never
 * fail; they check nothing, and other figures give inf or NaN.  batch and
 * context count sequences and tokens. */

/* Seconds for one forward pass of m over B sequences of n new tokens at
 * context S (see above); *compute_bound, when compute_bound is not NULL,
 * is set to 1 when the compute roof limits it, else 0. */
SD_API double sd_cost_step_time(const sd_model_spec *m, const sd_hardware *h, const sd_cost_params *cp, double batch,
                         double n, double context, int *compute_bound);

/* Bytes of K and V per token, 2 L H_kv d b_kv. */
SD_API double sd_cost_kv_per_token(const sd_model_spec *m);

/* 1 when the weights of both models and their KV caches for B sequences
 * of S + gamma + 1 tokens fit in the devices' memory (bytes), else 0. */
SD_API int sd_cost_fits(const sd_model_spec *target, const sd_model_spec *draft, const sd_hardware *h,
                 const sd_cost_params *cp, double batch, double context, double gamma);

/* The best draft length at one (batch, context). */
typedef struct {
    double gamma_opt;                 /* 0: no gamma in the list beats plain decoding */
    double improvement_opt;           /* 1 when gamma_opt = 0 */
    double c_effective;               /* t_draft(B, 1, S) / t_target(B, 1, S) */
    double verify_cost_ratio;         /* t_target(B, g + 1, S) / t_target(B, 1, S) at g = gamma_opt (1 when 0) */
    double tokens_per_second;         /* all B sequences together, with speculation at gamma_opt */
    double tokens_per_second_baseline;/* all B sequences, plain decoding: B / t_target(B, 1, S) */
    int compute_bound;                /* the target's verification pass at g is compute-bound */
    int fits;                         /* weights and KV caches (both models, gamma_max) fit */
} sd_roofline_point;

/* What to evaluate: the pair on given hardware, the acceptance, the draft
 * lengths to consider.  alpha is eq. (4)'s i.i.d. acceptance; when acc is
 * not NULL, E(N) is the product form over acc[0..nacc-1] instead (no gamma
 * may then exceed nacc) and alpha is ignored. */
typedef struct {
    const sd_model_spec *target, *draft;
    const sd_hardware *hardware;
    sd_cost_params params;
    double alpha;
    const double *acc;
    size_t nacc;
    const double *gammas; /* ngammas whole draft lengths >= 1 */
    size_t ngammas;
} sd_roofline_request;

/* Evaluates improvement(gamma) = E(N) / (gamma c_eff + verify_cost_ratio)
 * at one (batch, context) for each requested gamma and keeps the best in
 * *out, every field of which it writes.  A gamma above nacc gets the E(N)
 * of nacc drafts.  An alpha or acc entry outside [0, 1] makes E(N) NaN,
 * which no gamma counts as beating plain decoding (gamma_opt 0). */
SD_API void sd_cost_roofline(const sd_roofline_request *rq, double batch, double context, sd_roofline_point *out);

/* The break-even batch at one context: the first of batches[0..nb-1]
 * (ascending) from which on no listed gamma beats plain decoding, so that
 * speculation should be switched off; NaN when it still helps at the last
 * listed batch, or when nb = 0. */
SD_API double sd_cost_breakeven(const sd_roofline_request *rq, const double *batches, size_t nb, double context);

/* A draft-length schedule at one context: consecutive batches sharing the
 * best gamma form one bucket [batch_from, batch_to] (gamma 0: do not
 * speculate).  out, the caller's, holds at least nb buckets; returns how
 * many it wrote (0 for nb = 0). */
typedef struct {
    double batch_from, batch_to, gamma;
} sd_schedule_bucket;

SD_API size_t sd_cost_schedule(const sd_roofline_request *rq, const double *batches, size_t nb, double context,
                               sd_schedule_bucket *out);

/* Preset tables from TSV files (header line, # comments): models with
 * columns name, params_total, params_active, bytes_per_param, layers,
 * heads, kv_heads, head_dim, kv_bytes, experts, experts_active; hardware
 * with name, tflops, bandwidth_tbs, memory_gb.  Every figure must be
 * positive (params_active <= params_total, experts_active <= experts).
 * The hardware file's TFLOP/s, TB/s and GB are stored as FLOP/s, bytes/s
 * and bytes.  *out is a malloc'd array of *n records (possibly 0) that the
 * caller releases with free().  SD_EINVAL names the file (and line) when
 * it cannot be opened or read, lacks a column, holds a bad figure or more
 * than 100000 rows; SD_ENOMEM.  On failure *out and *n are untouched and
 * nothing is held. */
SD_API sd_status sd_cost_load_models(const char *path, sd_model_spec **out, size_t *n, sd_error *err);
SD_API sd_status sd_cost_load_hardware(const char *path, sd_hardware **out, size_t *n, sd_error *err);

/* Both preset tables.  Each path, when NULL, is data file models.tsv or
 * hardware.tsv found by sd_data_find(data_dir, ...) (data.h).  Release with
 * sd_presets_free.  SD_EINVAL from sd_data_find or the loaders, SD_ENOMEM;
 * on failure *out is untouched and nothing is held. */
typedef struct {
    sd_model_spec *models;
    size_t nmodels;
    sd_hardware *hardware;
    size_t nhardware;
} sd_presets;

SD_API sd_status sd_presets_load(const char *data_dir, const char *models_path, const char *hardware_path,
                                 sd_presets *out, sd_error *err);
/* Frees p's arrays and leaves *p empty. */
SD_API void sd_presets_free(sd_presets *p);

/* The preset called name, as a pointer into p (valid until
 * sd_presets_free), into *out.  SD_EINVAL, the only failure, when name is
 * NULL or unknown: the message starts with param (the caller's name for
 * the argument, e.g. "target") and lists the known names.  On failure *out
 * is untouched. */
SD_API sd_status sd_presets_model(const sd_presets *p, const char *param, const char *name,
                                  const sd_model_spec **out, sd_error *err);
SD_API sd_status sd_presets_hardware(const sd_presets *p, const char *param, const char *name,
                                     const sd_hardware **out, sd_error *err);

#endif
