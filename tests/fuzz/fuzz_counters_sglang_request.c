/* fuzz_counters_sglang_request.c -- the sglang-request reader alone: SGLang's per-request meta_info (src/counters/sglang_request.c): every generation of field names, the histogram, gamma from proposed / verify_ct.
 *
 * sd_counters_load with opt->format = "sglang-request", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as sglang-request, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "sglang-request");
}
