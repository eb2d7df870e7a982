/* loop.h -- the speculation loop's own time: engine profiles.
 *
 * The roofline (cost.h) prices the passes.  A serving engine's speculative
 * iteration also spends time no kernel roofline sees: host work, sampling
 * and state updates between draft steps, the rejection sampler and the
 * bookkeeping of each iteration, the scheduler's work per running sequence,
 * a second draft pass over the tokens just accepted, and a verify pass that
 * leaves the decode fast path.  An engine profile prices each of them:
 *
 *   draft_step       tau_d   seconds per draft step (host, sampling, state), >= 0
 *   draft_step_seq   tau_ds  seconds per draft step per sequence, >= 0
 *   iteration        tau_i   seconds per iteration, whatever gamma, >= 0
 *   iteration_token  tau_it  seconds per verified token (B (gamma + 1) a pass), >= 0
 *   host_seq         h       seconds per running sequence per step, plain decoding too, >= 0
 *   verify_premium   p       the verify pass costs (1 + p) times its roofline, >= 0
 *   catch_up         kappa   1: the draft runs again over 1 + the accepted tokens (EAGLE, MTP,
 *                            draft models in vLLM V1), 0: not
 *
 * With the roofline's passes t_T(B, T, S) and t_D(B, T, S_d) (cost.h), at
 * batch B, context S, draft length gamma and E(N) tokens an iteration
 * (eq. 4, or its product form):
 *
 *   plain step  T_0 = t_T(B, 1, S) + B h
 *   iteration   T_g = gamma [t_D(B, 1, S_d) + tau_d + B tau_ds]
 *                     + kappa [t_D(B, E(N), S_d) - t_D(B, 1, S_d)]
 *                     + (1 + p) t_T(B, gamma + 1, S) + tau_i + B (gamma + 1) tau_it + B h
 *   improvement = E(N) T_0 / T_g = E(N) / (gamma c_eff + verify_cost_ratio)
 *
 * with c_eff = (t_D + tau_d + B tau_ds) / T_0 and verify_cost_ratio the rest
 * of T_g over T_0: eq. (10) of the seed with the loop's time in c and in the
 * verify pass.  The catch-up pass is priced as the draft's pass over E(N)
 * tokens (the bonus token and the accepted ones) in place of its first
 * step's single token.  Every term 0 (sd_loop_none): T_0 = t_T(B, 1, S),
 * and the roofline's figures are today's bit for bit (validate checks it).
 *
 * Not modelled: overlap of the host with the GPU (an engine that schedules
 * the next step while this one runs hides part of h), a draft step floor
 * that varies with gamma, and sequences that draft nothing (n-gram lookups
 * that find no match).
 */
#ifndef SPECDEC_LOOP_H
#define SPECDEC_LOOP_H

#include <stddef.h>

#include "specdec/presets.h"
#include "specdec/status.h"

typedef struct {
    double draft_step, draft_step_seq; /* tau_d, tau_ds: seconds */
    double iteration, iteration_token; /* tau_i, tau_it: seconds */
    double host_seq;                   /* h: seconds per running sequence per step */
    double verify_premium;             /* p: a fraction of the verify pass's roofline */
    int catch_up;                      /* kappa: 1 or 0 */
} sd_loop_params;

/* Every term 0: the roofline alone.  Never fails. */
SD_API sd_loop_params sd_loop_none(void);

/* 1 when every term of p is 0 (or below: not a term), else 0.  Never fails. */
SD_API int sd_loop_is_none(const sd_loop_params *p);

/* An engine profile: an engine, the drafter kind it holds for, and the terms.
 * A drafter kind "*" holds for every kind the engine has no row of its own for. */
typedef struct {
    char engine[64];  /* "vllm-v1" */
    char drafter[64]; /* "draft-model", "self", "ngram", a drafter head's kind (presets.h) or "*" */
    char source[64];  /* the key of the file's comment that cites the figures */
    sd_loop_params p;
    size_t line;      /* the file's line it came from */
} sd_loop_profile;

/* The drafter kinds a profile row may name, NULL-terminated (static):
 * draft-model, self, ngram, eagle, eagle3, mtp, "*".  Never fails. */
SD_API const char *const *sd_loop_drafter_names(void);

/* The drafter kind of a pair: "self" when the draft is the target (a
 * KV-windowed copy), "ngram" for sd_presets_ngram(), a drafter head's kind
 * for one sd_presets_drafter built, else "draft-model".  Never fails. */
SD_API const char *sd_loop_drafter_of(const sd_model_spec *target, const sd_model_spec *draft);

/* The profiles of a TSV file (columns engine, drafter, source, draft_step_ms,
 * draft_step_seq_us, iteration_ms, iteration_token_us, host_seq_us,
 * verify_premium, catch_up as on|off; # comments) into a malloc'd array of
 * *n (free() it).  Times are written in the units their column names say.
 * SD_EINVAL names the file, line and column (a bad value, an unknown
 * drafter kind, an (engine, drafter) pair given twice); SD_ENOMEM.  On
 * failure nothing is written or held. */
SD_API sd_status sd_loop_load(const char *path, sd_loop_profile **out, size_t *n, sd_error *err);

/* The shipped profiles: data file engine-profiles.tsv (data.h's search,
 * from data_dir when not NULL).  As sd_loop_load. */
SD_API sd_status sd_loop_load_defaults(const char *data_dir, sd_loop_profile **out, size_t *n, sd_error *err);

/* The profile of engine for drafter kind drafter among p[0..n-1]: the
 * engine's row for that kind, else its "*" row.  SD_EINVAL, naming param
 * and the engines known, when the engine has no row for the kind; *out is
 * then untouched. */
SD_API sd_status sd_loop_find(const sd_loop_profile *p, size_t n, const char *param, const char *engine,
                              const char *drafter, const sd_loop_profile **out, sd_error *err);

/* "vllm-v1, vllm-v0, ..." -- the engines of p[0..n-1], each once, in file
 * order, into buf (truncated to size).  Returns buf.  Never fails. */
SD_API const char *sd_loop_engine_list(const sd_loop_profile *p, size_t n, char *buf, size_t size);

#endif
