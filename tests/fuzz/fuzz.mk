# fuzz.mk -- the libFuzzer harnesses in tests/fuzz/ (included by the Makefile).
#
# Each harness is built with clang into $(BUILD)/fuzz/ from the library's
# .c files themselves (not the gcc-built archive), compiled with coverage
# for libFuzzer and ASan+UBSan; fuzz_scenario also links the program's
# sources (src/cli/) with main renamed specdec_main.  Each reader of engine
# counters has its harness counters_ID, one for each line SD_COUNTERS_READER(ID)
# of src/counters/readers.def, all built from fuzz_counters_reader.c.
# tests/fuzz/run.sh replays tests/fuzz/crashes/NAME-* and then fuzzes each
# harness over a copy of tests/fuzz/corpus/NAME.
#
#   make fuzz [FUZZ_SECONDS=60]          every harness, FUZZ_SECONDS each
#   make test-fuzz [FUZZ_CHECK_SECONDS=5]    a short bounded run (make check; every harness)
#   make fuzz FUZZ_NAMES=parse FUZZ_FLAGS=-runs=10000000   one harness, libFuzzer flags

.PHONY: fuzz test-fuzz fuzz-build

FUZZ_SECONDS       ?= 60
FUZZ_CHECK_SECONDS ?= 5
FUZZ_CC            ?= clang
FUZZ_OPT           ?= -O1 -g
# The readers' IDs, from the one list of readers.
FUZZ_READERS       := $(shell sed -n 's/^SD_COUNTERS_READER(\([a-z0-9_]*\))$$/\1/p' src/counters/readers.def)
ifeq ($(strip $(FUZZ_READERS)),)
$(error tests/fuzz/fuzz.mk: no line SD_COUNTERS_READER(ID) in src/counters/readers.def)
endif
FUZZ_NAMES         ?= parse tsv_dist presets scenario counters $(FUZZ_READERS:%=counters_%) \
                      partial npy json tree serving ufunc specconfig

FUZZ_DIR  := $(BUILD)/fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library and program as they are, warnings shown but not fatal (clang
# may warn where gcc does not); the harnesses with every warning fatal.
FUZZ_BASE  = -std=c11 -D_POSIX_C_SOURCE=200809L -DHAVE_INLINE $(FUZZ_OPT) $(FUZZ_SAN) -Iinclude \
             $(shell pkg-config --cflags gsl)
FUZZ_SRC_CFLAGS = $(FUZZ_BASE) $(filter-out -Werror,$(WARNINGS)) -fsanitize=fuzzer-no-link
FUZZ_HARNESS_CFLAGS = $(FUZZ_BASE) $(WARNINGS) -Wno-float-equal -Isrc

FUZZ_LIB_OBJ := $(LIB_SRC:src/%.c=$(FUZZ_DIR)/lib/%.o)
FUZZ_CLI_OBJ := $(CLI_SRC:src/cli/%.c=$(FUZZ_DIR)/cli/%.o)
FUZZ_BINS    := $(FUZZ_NAMES:%=$(FUZZ_DIR)/fuzz_%)
FUZZ_READER_OBJ := $(FUZZ_READERS:%=$(FUZZ_DIR)/harness/fuzz_counters_%.o)

## fuzz: build the libFuzzer harnesses (clang) and run each for FUZZ_SECONDS (default 60) seconds
fuzz: $(FUZZ_BINS)
	@echo "  FUZZ  $(FUZZ_SECONDS) s per harness ($(FUZZ_DIR))"
	$(Q)sh tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_NAMES)

## test-fuzz: the libFuzzer harnesses for FUZZ_CHECK_SECONDS (default 5) seconds each; fails on any finding
test-fuzz: $(FUZZ_BINS)
	@echo "  TEST  fuzz, $(FUZZ_CHECK_SECONDS) s per harness ($(FUZZ_DIR))"
	$(Q)sh tests/fuzz/run.sh $(FUZZ_DIR) $(FUZZ_CHECK_SECONDS) $(FUZZ_NAMES)

## fuzz-build: only build the libFuzzer harnesses into $(BUILD)/fuzz/
fuzz-build: $(FUZZ_BINS)

$(FUZZ_DIR)/lib/%.o: src/%.c tests/fuzz/fuzz.mk | deps
	@mkdir -p $(@D)
	@echo "  FUZZCC $<"
	$(Q)$(FUZZ_CC) $(FUZZ_SRC_CFLAGS) -Isrc -MMD -MP -c $< -o $@

$(FUZZ_DIR)/cli/%.o: src/cli/%.c tests/fuzz/fuzz.mk | deps
	@mkdir -p $(@D)
	@echo "  FUZZCC $<"
	$(Q)$(FUZZ_CC) $(FUZZ_SRC_CFLAGS) -Dmain=specdec_main -Wno-missing-prototypes -MMD -MP -c $< -o $@

$(FUZZ_DIR)/harness/%.o: tests/fuzz/%.c tests/fuzz/fuzz.mk | deps
	@mkdir -p $(@D)
	@echo "  FUZZCC $<"
	$(Q)$(FUZZ_CC) $(FUZZ_HARNESS_CFLAGS) -MMD -MP -c $< -o $@

# A reader's harness: the one source, told which row of readers.def it fuzzes.
$(FUZZ_READER_OBJ): $(FUZZ_DIR)/harness/fuzz_counters_%.o: tests/fuzz/fuzz_counters_reader.c tests/fuzz/fuzz.mk \
                    src/counters/readers.def | deps
	@mkdir -p $(@D)
	@echo "  FUZZCC $< ($*)"
	$(Q)$(FUZZ_CC) $(FUZZ_HARNESS_CFLAGS) -DFUZZ_READER=$* -MMD -MP -c $< -o $@

$(FUZZ_DIR)/fuzz_scenario: $(FUZZ_DIR)/harness/fuzz_scenario.o $(FUZZ_CLI_OBJ) $(FUZZ_LIB_OBJ)
	@echo "  FUZZLD $@"
	$(Q)$(FUZZ_CC) $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/harness/fuzz_%.o $(FUZZ_LIB_OBJ)
	@echo "  FUZZLD $@"
	$(Q)$(FUZZ_CC) $(FUZZ_OPT) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# Keep the harness objects (make would delete them as intermediates).
.SECONDARY: $(FUZZ_NAMES:%=$(FUZZ_DIR)/harness/fuzz_%.o)

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_CLI_OBJ:.o=.d) $(FUZZ_NAMES:%=$(FUZZ_DIR)/harness/fuzz_%.d)
