/* fuzz_counters_llama_cpp.c -- the llama.cpp reader alone (src/counters/llama_cpp.c):
 * llama-server's "draft acceptance", "acc per pos" and "statistics" lines, the drafts and
 * reached[] derived from them (derive.c).
 *
 * sd_counters_load with opt->format = "llama.cpp", so that every input reaches this reader
 * whatever detection would make of it.  Input: byte 0 the options as laid out in
 * fuzz_counters.h (bits 3-4 gamma; the other bits ignored), the rest the file.  Properties:
 * fuzz_counters.h's, among them that when detection reads the file as llama.cpp, the named
 * load reads the same counts.
 */
#include "fuzz_counters.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_counters_input(data, size, "llama.cpp");
}
