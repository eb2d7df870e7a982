# specdec -- build, run, test.  Quiet by default; `make V=1` shows full commands.
#
# Every entry point first runs `deps`, which installs GSL, Check, gnuplot and
# pkg-config with apt-get when they are missing and we are root, or says the
# exact apt-get command otherwise.

.DEFAULT_GOAL := all
.PHONY: all run check test-unit test-cli sanitize bench plots deps clean help

V ?= 0
ifeq ($(V),0)
Q := @
else
Q :=
endif

BUILD    ?= build
SAN      ?= 0
CC       ?= cc
CFLAGS   ?= -O2 -g
WARNINGS := -Wall -Wextra -Werror -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wfloat-equal -Wvla -Wpointer-arith -Wcast-qual -Wundef -Wwrite-strings
ifeq ($(SAN),1)
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif

# Deferred (=) so that pkg-config runs after `deps` has installed the packages.
ALL_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -DHAVE_INLINE $(WARNINGS) $(CFLAGS) $(SANFLAGS) -Isrc \
             $(shell pkg-config --cflags gsl)
LIBS       = $(shell pkg-config --libs gsl) -lm -lpthread
CHECK_LIBS = $(shell pkg-config --libs check)

LIB_SRC  := $(wildcard src/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
TEST_SRC := $(wildcard tests/*.c)
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/lib/%.o)
CLI_OBJ  := $(CLI_SRC:src/cli/%.c=$(BUILD)/cli/%.o)
TEST_OBJ := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%.o)

BENCH_TOKENS ?= 10000000
SPECDEC := $(BUILD)/specdec
TESTS   := $(BUILD)/specdec-tests
LIBA    := $(BUILD)/libspecdec.a

DEB_PACKAGES := pkg-config libgsl-dev check gnuplot-nox

## all: build the specdec program and its library
all: $(SPECDEC)

## run: the main job: the seed's example (alpha 0.8, c 0.02) table and optimum
run: $(SPECDEC)
	$(Q)$(SPECDEC) speedup --alpha 0.8 --cost 0.02
	@echo
	$(Q)$(SPECDEC) optimal --alpha 0.8 --cost 0.02

## check: unit tests and CLI tests, then the unit tests again under ASan+UBSan
check: test-unit test-cli
	$(Q)$(MAKE) --no-print-directory sanitize

## test-unit: the Check runner, one suite per library module
test-unit: $(TESTS)
	@echo "  TEST  unit ($(BUILD))"
	$(Q)$(TESTS)

## test-cli: golden and invalid-input tests of the specdec program
test-cli: $(SPECDEC)
	@echo "  TEST  cli ($(BUILD))"
	$(Q)sh tests/cli.sh $(SPECDEC)

## sanitize: build in build/san with -fsanitize=address,undefined and run all tests
sanitize:
	$(Q)$(MAKE) --no-print-directory BUILD=build/san SAN=1 test-unit test-cli

## plots: every figure as PNG and SVG into plots/ (the PNGs are the README's)
plots: $(SPECDEC)
	$(Q)$(SPECDEC) plot all --out plots --format svg >/dev/null
	$(Q)$(SPECDEC) plot all --out plots --format png >/dev/null
	@ls plots/*.png plots/*.svg

## bench: engine throughput and bank cost by vocabulary size (a Markdown table)
bench: $(BUILD)/specdec-bench
	$(Q)$(BUILD)/specdec-bench $(BENCH_TOKENS)

## deps: make sure pkg-config, GSL, Check and gnuplot are installed
deps:
	$(Q)missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists gsl 2>/dev/null || missing="$$missing libgsl-dev"; \
	pkg-config --exists check 2>/dev/null || missing="$$missing check"; \
	command -v gnuplot >/dev/null 2>&1 || missing="$$missing gnuplot-nox"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "  DEPS  apt-get install$$missing"; \
	    log=$$( { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } 2>&1 ) \
	      || { echo "$$log" | tail -n 5 >&2; echo "specdec: apt-get install$$missing failed" >&2; exit 1; }; \
	  else \
	    echo "specdec: missing$$missing; install with: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

$(BUILD)/lib/%.o: src/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/cli/%.o: src/cli/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -DSPECDEC_DATA_DIR='"$(CURDIR)/data"' -MMD -MP -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-float-equal $(shell pkg-config --cflags check) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@echo "  AR    $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(SPECDEC): $(CLI_OBJ) $(LIBA)
	@echo "  LD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(CLI_OBJ) $(LIBA) $(LIBS)

$(BUILD)/specdec-bench: $(BUILD)/bench/bench.o $(LIBA)
	@echo "  LD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBA) $(LIBS)

$(BUILD)/bench/%.o: tests/bench/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(TESTS): $(TEST_OBJ) $(LIBA)
	@echo "  LD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(TEST_OBJ) $(LIBA) $(CHECK_LIBS) $(LIBS)

## clean: remove build/
clean:
	$(Q)rm -rf build

## help: list the targets
help:
	@sed -n 's/^## //p' Makefile

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
