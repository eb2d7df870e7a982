/* presets.h -- model and accelerator presets: what the cost model knows of a pair and its hardware.
 *
 * A model preset gives the shapes of a decoder-only transformer (the
 * fields of its config.json) and the number types it is served in; an
 * accelerator preset gives the vendor's dense peak throughput for each
 * number type it publishes one for, the memory bandwidth and size, and the
 * interconnect between GPUs.  Both are read from TSV files (data/models.tsv,
 * data/hardware.tsv), whose comments cite the cards and datasheets.
 */
#ifndef SPECDEC_PRESETS_H
#define SPECDEC_PRESETS_H

#include <stddef.h>

#include "specdec/dtype.h"
#include "specdec/status.h"

/* Both preset records start with their name (sd_presets_* look them up by it). */
typedef struct {
    char name[64];
    double params_total, params_active;  /* parameters (the card's counts; memory and the pass model use them) */
    double layers, d_model, heads, kv_heads, head_dim;
    double d_ff;                         /* MLP width; for a mixture of experts, each expert's */
    double vocab;
    double experts, experts_active;      /* 1, 1 for a dense model */
    sd_dtype weight, kv, act, compute;   /* weights, KV cache, activations, the matrix units' inputs */
    double fuse;                         /* a drafter head's fc over fuse x d_model features into d_model
                                          * (sd_presets_drafter); 0 for a model of its own */
} sd_model_spec;

typedef struct {
    char name[64];
    char family[64];          /* the architecture the calibration groups it with ("" : its own name) */
    double flops[SD_NDTYPES]; /* dense peak FLOP/s by compute type; 0 when the vendor publishes none */
    double bandwidth;         /* memory, bytes/s */
    double memory;            /* bytes */
    double link_bandwidth;    /* interconnect, bytes/s per GPU per direction */
    double link_latency;      /* seconds per hop */
} sd_hardware;

/* The proposer without a model, named "ngram": drafts looked up in the
 * sequence's own context (prompt lookup; vLLM's and SGLang's ngram method,
 * llama.cpp's lookup decoding, TensorRT-LLM's NGram).  No weights, no KV
 * cache, no layers: a draft pass of it costs nothing on the accelerator
 * (cost.h; the host's lookup is not modelled).  Static, never NULL. */
SD_API const sd_model_spec *sd_presets_ngram(void);

/* The drafter heads built from a target's shapes, NULL-terminated (static):
 *   eagle   EAGLE-1 (Li et al. 2024, arXiv 2401.15077): one decoder layer of
 *           the target's shapes over an fc of the token's embedding and the
 *           target's feature (2 d -> d), the target's LM head;
 *   eagle3  EAGLE-3 (Li et al. 2025, arXiv 2503.01840): one decoder layer over
 *           an fc of three of the target's layers' features (3 d -> d), an LM
 *           head over a reduced draft vocabulary of 32000 tokens (SpecForge's
 *           LlamaForCausalLMEagle3, draft_vocab_size 32000; its q, k and v
 *           read the embedding beside the feature, 2 d, priced as d here);
 *   mtp     a DeepSeek-V3 multi-token-prediction module (arXiv 2412.19437,
 *           sec. 2.2) reused step by step: one layer of the target's, experts
 *           included, over an fc of the embedding and the feature (2 d -> d),
 *           the target's LM head.
 * Never fails. */
SD_API const char *const *sd_presets_drafter_names(void);

/* The drafter head kind (sd_presets_drafter_names) built from target into
 * *out, named after its kind: its weights are its layer, the fc and an LM
 * head of its own vocabulary (the embedding is the target's, not counted),
 * in the target's number types.  SD_EINVAL naming param and the kinds when
 * kind is none of them; *out is then untouched. */
SD_API sd_status sd_presets_drafter(const sd_model_spec *target, const char *param, const char *kind,
                                    sd_model_spec *out, sd_error *err);

/* SD_OK when h publishes a peak for m's compute type, else SD_EINVAL
 * naming both (a model with FP8 compute on an A100, say). */
SD_API sd_status sd_presets_check(const sd_model_spec *m, const sd_hardware *h, sd_error *err);

/* Preset tables from TSV files (header line, # comments).
 * Models: columns name, params_total, params_active, layers, d_model,
 * heads, kv_heads, head_dim, d_ff, vocab, experts, experts_active,
 * weight_dtype, kv_dtype, act_dtype, compute_dtype.  Hardware: name,
 * tflops_bf16, tflops_fp16, tflops_fp8, tflops_int8, tflops_fp4 ("-" where
 * the vendor publishes none; bf16 is required), bandwidth_tbs, memory_gb,
 * link_gbs (per direction), link_latency_us, and optionally family.  Every figure must be
 * positive and bounded (params_active <= params_total, experts_active <=
 * experts).  TFLOP/s, TB/s, GB, GB/s and microseconds are stored as FLOP/s,
 * bytes/s, bytes, bytes/s and seconds.  *out is a malloc'd array of *n
 * records (possibly 0) that the caller releases with free().  SD_EINVAL
 * names the file (and line and column) when it cannot be opened or read,
 * lacks a column, holds a bad figure or more than 100000 rows; SD_ENOMEM.
 * On failure *out and *n are untouched and nothing is held. */
SD_API sd_status sd_presets_load_models(const char *path, sd_model_spec **out, size_t *n, sd_error *err);
SD_API sd_status sd_presets_load_hardware(const char *path, sd_hardware **out, size_t *n, sd_error *err);

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
