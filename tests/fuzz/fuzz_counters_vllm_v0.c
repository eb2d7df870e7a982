/* fuzz_counters_vllm_v0.c -- the vllm-v0 reader alone (src/counters/vllm_v0.c): vLLM V0's
 * cumulative "Speculative metrics:" lines, the last of each run summed.
 *
 * sd_counters_load with opt->format = "vllm-v0", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as vllm-v0, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "vllm-v0");
}
