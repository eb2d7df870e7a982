/* fuzz_counters_vllm_bench.c -- the vllm-bench reader alone (src/counters/vllm_bench.c): the "Speculative Decoding"
 * block of `vllm bench serve`, per-position counts derived from the printed rates.
 *
 * sd_counters_load with opt->format = "vllm-bench", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as vllm-bench, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "vllm-bench");
}
