/* fuzz_counters_prometheus.c -- the prometheus reader alone (src/counters/prometheus.c):
 * a /metrics scrape, with select and since.
 *
 * sd_counters_load with opt->format = "prometheus", so that every input reaches this
 * reader whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma, bit 5 select "engine=1", bit 6 since: the rest split at
 * its first form feed, the earlier scrape before it; the other bits ignored), the rest the
 * file.  Properties: fuzz_counters.h's, among them that when detection reads the file as
 * prometheus, the named load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "prometheus");
}
