/* fuzz_counters_speculation_profile.c -- the speculation-profile reader alone: NVIDIA's speculation_profile.json (src/counters/speculation_profile.c): the histogram's counts or a gauge, the schema's consistency rules.
 *
 * sd_counters_load with opt->format = "speculation-profile", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as speculation-profile, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "speculation-profile");
}
