/* fuzz_counters_trtllm_bench.c -- the trtllm-bench reader alone (src/counters/trtllm_bench.c):
 * the "DECODING STATISTICS" block of a trtllm-bench report, a gauge, gamma from AL = 1 +
 * gamma x DAR or --gamma.
 *
 * sd_counters_load with opt->format = "trtllm-bench", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as trtllm-bench, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "trtllm-bench");
}
