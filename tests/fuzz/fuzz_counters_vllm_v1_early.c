/* fuzz_counters_vllm_v1_early.c -- the vllm-v1-early reader alone (src/counters/vllm_v1_early.c): vLLM 0.8's early V1
 * "Speculative metrics:" lines, summed, drafts = draft tokens / gamma.
 *
 * sd_counters_load with opt->format = "vllm-v1-early", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as vllm-v1-early, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "vllm-v1-early");
}
