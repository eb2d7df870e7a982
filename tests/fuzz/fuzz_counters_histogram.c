/* fuzz_counters_histogram.c -- the histogram reader alone (src/counters/counts_tsv.c): the
 * columns accepted, count, given gamma.
 *
 * sd_counters_load with opt->format = "histogram", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma: 0 is refused, 65 too; the other bits ignored), the rest
 * the file.  Properties: fuzz_counters.h's, among them that when detection reads the file
 * as histogram, the named load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "histogram");
}
