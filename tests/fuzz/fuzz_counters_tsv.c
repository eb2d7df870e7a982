/* fuzz_counters_tsv.c -- the tsv reader alone (src/counters/counts_tsv.c): the columns gamma,
 * drafts, accepted_1 .. accepted_G [, draft_tokens] [, accepted_tokens], rows summed.
 *
 * sd_counters_load with opt->format = "tsv", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as tsv, the named load
 * reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "tsv");
}
