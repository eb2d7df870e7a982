/* fuzz_counters_vllm_offline.c -- the vllm-offline reader alone (src/counters/vllm_offline.c): the summary of vLLM's
 * examples/offline_inference/spec_decode.py, per-position counts derived.
 *
 * sd_counters_load with opt->format = "vllm-offline", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as vllm-offline, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "vllm-offline");
}
