/* specconfig.h -- vLLM's speculative config, as users launch with it: the drafter and gamma.
 *
 * vLLM takes speculation as one JSON object (`vllm serve ... --speculative-config
 * '{"method": "eagle3", "model": "...", "num_speculative_tokens": 3}'`; its
 * SpeculativeConfig, vllm/config/speculative.py).  This reads the members
 * that choose what specdec prices, and ignores the others (tensor parallel
 * sizes, quantization, backends: the cost options set those):
 *
 *   method                  ngram, ngram_gpu, suffix -> the n-gram proposer (cost.h's
 *                           sd_presets_ngram); eagle, eagle3 -> the drafter head of that
 *                           kind; any of vLLM's MTP types (deepseek_mtp, mtp, ..., a name
 *                           ending in "mtp") -> mtp; draft_model -> the preset "model"
 *                           names.  medusa, mlp_speculator, dflash, dspark, custom_class
 *                           and extract_hidden_states are refused: specdec does not price
 *                           those drafters.
 *   model                   a Hugging Face name or path; for draft_model (or no method)
 *                           the preset whose name its last component starts with, case
 *                           aside, up to a '-' or its end ("meta-llama/Llama-3.2-1B-Instruct"
 *                           -> llama-3.2-1b), the longest such.
 *   num_speculative_tokens  gamma, a count in [1, 256]; absent: 0 (not given).
 */
#ifndef SPECDEC_SPECCONFIG_H
#define SPECDEC_SPECCONFIG_H

#include "specdec/presets.h"
#include "specdec/status.h"

typedef struct {
    char draft[64];  /* what it selects, as --draft takes it: "ngram", "eagle", "eagle3", "mtp" or a preset */
    char method[64]; /* the method as given, or "draft_model" when only a model was */
    double gamma;    /* num_speculative_tokens; 0: not given */
} sd_specconfig;

/* The JSON text (one object) into *out, with presets p for a draft model.
 * SD_EINVAL naming param (and the member: "--speculative-config: method:
 * ...") for text that is not one JSON object, a member of the wrong type, a
 * method specdec does not price or does not know, a draft model that is no
 * preset, neither method nor model, or num_speculative_tokens outside [1,
 * 256]; SD_ENOMEM.  On failure *out is untouched. */
SD_API sd_status sd_specconfig_read(const char *text, const char *param, const sd_presets *p, sd_specconfig *out,
                                    sd_error *err);

#endif
