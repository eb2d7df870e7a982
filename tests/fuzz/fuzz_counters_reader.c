/* fuzz_counters_reader.c -- one reader alone: fuzz_counters_ID, built by fuzz.mk with
 * -DFUZZ_READER=ID for each line SD_COUNTERS_READER(ID) of src/counters/readers.def, so that
 * every reader has its harness.
 *
 * sd_counters_load with opt->format the row's name (sd_counters_reader_ID, counters_impl.h),
 * so that every input reaches this reader whatever detection would make of it.  Input: byte
 * 0 the options as laid out in fuzz_counters.h (bits 3-4 gamma; 5 select and 6 since for
 * the format that takes them; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as this format, the
 * named load reads the same counts.
 */
#include "fuzz_counters.h"

#include "counters/counters_impl.h"

#ifndef FUZZ_READER
#error "build with -DFUZZ_READER=ID, ID a line SD_COUNTERS_READER(ID) of src/counters/readers.def"
#endif
#define ROW_OF(id) sd_counters_reader_##id
#define ROW(id) ROW_OF(id)

/* The gammas bits 3-4 pick where fuzz_counters.h's GAMMAS do not suit the format:
 * llama-timings has counts at gamma 1 only. */
static const size_t TIMINGS_GAMMAS[4] = { 0, 1, 4, SD_COUNTS_MAX_GAMMA + 1 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const sd_counters_reader *r = &ROW(FUZZ_READER);
    if (strcmp(r->name, "llama-timings") == 0)
        fuzz_gammas = TIMINGS_GAMMAS;
    return fuzz_counters_input(data, size, r->name, r->scrape);
}
