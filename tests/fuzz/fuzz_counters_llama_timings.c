/* fuzz_counters_llama_timings.c -- the llama-timings reader alone: llama-server's timings JSON (src/counters/llama_timings.c): draft_n and draft_n_accepted summed, counts only at gamma 1.
 *
 * sd_counters_load with opt->format = "llama-timings", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h, except that bits 3-4 pick gamma from 0, 1, 4, 65 (the reader gives counts
 * at gamma 1 only); the other bits are ignored, the rest is the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as llama-timings, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

static const size_t TIMINGS_GAMMAS[4] = { 0, 1, 4, SD_COUNTS_MAX_GAMMA + 1 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_gammas = TIMINGS_GAMMAS;
    return fuzz_counters_input(data, size, "llama-timings");
}
