/* fuzz_counters_llama_speculative.c -- the llama-speculative reader alone (src/counters/llama_speculative.c):
 * the final counters of llama.cpp's speculative examples, drafts = n_predict - n_accept.
 *
 * sd_counters_load with opt->format = "llama-speculative", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as llama-speculative, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "llama-speculative");
}
