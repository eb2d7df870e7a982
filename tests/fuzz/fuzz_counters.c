/* fuzz_counters.c -- sd_counters_load with detection and every format by name, and
 * sd_counters_write_prometheus (counters.h).
 *
 * The input and the properties are fuzz_counters.h's: byte 0 picks the format (bits 0-2:
 * 0 = detect, 1-6 = sd_counters_formats()[n - 1], 7 = an unknown name), gamma (bits 3-4),
 * select "engine=1" (bit 5), since (bit 6: the rest is split at its first form feed, the
 * earlier scrape before it, the file after it) or opt = NULL (bit 7); the rest is the file.
 * Detection (counters.c's detect(): a claimed TSV header, one kind of log line, else a
 * scrape) is this harness's own code; each reader alone is fuzz_counters_ID
 * (fuzz_counters_reader.c, one per line of src/counters/readers.def).
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, NULL, 1);
}
