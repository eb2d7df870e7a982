/* schedule.h -- a draft-length schedule (batch size -> gamma) written in a
 * serving engine's own configuration syntax, ready to paste.
 *
 * The schedule is sd_cost_schedule's (cost.h): buckets [batch_from,
 * batch_to] of the batches it was evaluated at, ascending, each with the best
 * gamma (0: do not speculate).  Between two buckets lie batches nobody
 * evaluated; the exports give them the smaller batch's bucket (the bucket
 * runs up to the next bucket's first batch - 1), and extend the first bucket
 * down to batch 1.  Each engine reads its syntax differently, as its source
 * says (the citations are in doc/roofline.md):
 *
 *   vllm    --speculative-config's num_speculative_tokens_per_batch_size,
 *           a list of [start, end, K], ranges inclusive, the first from 1,
 *           sorted, not overlapping, K >= 0 and at most num_speculative_tokens
 *           (vllm/v1/spec_decode/dynamic/utils.py,
 *           build_dynamic_sd_schedule_lookup: a gap takes the previous K, a
 *           batch beyond the last range the last K).  Written: one JSON
 *           object with num_speculative_tokens = the largest K and the list;
 *           the method and draft model are the user's to add.
 *   sglang  --speculative-adaptive-config's JSON: a digit-string key per
 *           batch-size slot, each {"candidate_steps": [K]}; a key is the
 *           slot's inclusive lower bound and batches above the largest key
 *           take its slot (python/sglang/srt/speculative/adaptive_step_router.py,
 *           batch_size_key_for_batch: bisect_right(keys, bs) - 1); K = 0
 *           disables drafting (adaptive_spec_params.py).  One candidate per
 *           slot: the schedule, fixed.
 *   trtllm  speculative_config's draft_len_schedule (YAML, for
 *           --extra_llm_api_options): batch size -> draft length with
 *           max_draft_len; a key is an inclusive upper bound, batches above
 *           the largest key get min_draft_len = 0, the smallest key must map
 *           to max_draft_len and no value may exceed it
 *           (tensorrt_llm/_torch/speculative/utils.py,
 *           get_draft_len_for_batch_size: bisect_left; llm_args.py,
 *           validate_draft_len_schedule_and_sort).  Above the last batch
 *           evaluated, TensorRT-LLM stops speculating where the other two
 *           keep the last gamma.
 */
#ifndef SPECDEC_SCHEDULE_H
#define SPECDEC_SCHEDULE_H

#include <stddef.h>
#include <stdio.h>

#include "specdec/cost.h"
#include "specdec/status.h"

typedef enum { SD_SCHEDULE_VLLM, SD_SCHEDULE_SGLANG, SD_SCHEDULE_TRTLLM } sd_schedule_engine;

/* "vllm", "sglang", "trtllm", NULL: indexed by sd_schedule_engine (static).
 * Never fails. */
SD_API const char *const *sd_schedule_engine_names(void);

/* Writes the schedule b[0 .. nb-1] to out in engine e's syntax (above),
 * one trailing line feed.  The buckets: batch_from <= batch_to, whole, from
 * 1 to 2^31 - 1, ascending and not overlapping; gamma whole in [0, 256].
 * SD_EINVAL (naming the bucket and the rule) for nb = 0 or a bucket outside
 * that; for trtllm, also when a later bucket's gamma exceeds the first's
 * (TensorRT-LLM requires the smallest batch to have the longest draft) or
 * every gamma is 0 (max_draft_len must be >= 1: do not speculate instead);
 * nothing is written then.  SD_EIO when out reports a write error. */
SD_API sd_status sd_schedule_export(sd_schedule_engine e, const sd_schedule_bucket *b, size_t nb, FILE *out,
                                    sd_error *err);

#endif
