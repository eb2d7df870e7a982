/* fuzz_counters_vllm_request.c -- the vllm-request reader alone: vLLM's per-request metrics.speculative_decoding JSON (src/counters/vllm_request.c): the dense and sparse acceptance_histogram and the totals checked against it.
 *
 * sd_counters_load with opt->format = "vllm-request", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as vllm-request, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "vllm-request");
}
