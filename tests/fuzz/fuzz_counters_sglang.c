/* fuzz_counters_sglang.c -- the sglang reader alone (src/counters/sglang.c): SGLang's "Decode batch ... accept
 * len" lines, a gauge, gamma from --gamma or the one (version, gamma) the rates fit.
 *
 * sd_counters_load with opt->format = "sglang", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as sglang, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "sglang");
}
