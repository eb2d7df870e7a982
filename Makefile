# specdec -- build, run, test.  Quiet by default; `make V=1` shows full commands.
#
# Every entry point first runs `deps`, which installs GSL, Check, gnuplot and
# pkg-config with apt-get when they are missing and we are root, or says the
# exact apt-get command otherwise.

.DEFAULT_GOAL := all
.PHONY: all run check test-unit test-cli test-scale test-install test-layers test-docs test-python test-clean design-report sanitize bench plots deps clean help install uninstall examples

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

# Installation folders (GNU conventions); DESTDIR stages the whole tree.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
DESTDIR    ?=
# The Python package goes where the system's python3 looks under PREFIX (Debian:
# /usr/local/lib/python3.X/dist-packages); PYTHON is the system's python3, which sees
# Debian's python3-numpy (a python3 earlier on PATH, pyenv's say, may not).
PYTHON     ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PYTHONDIR  ?= $(LIBDIR)/$(shell $(PYTHON) -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null)/dist-packages

VERSION_MAJOR := $(shell sed -n 's/^\#define SPECDEC_VERSION_MAJOR //p' include/specdec/version.h)
VERSION_MINOR := $(shell sed -n 's/^\#define SPECDEC_VERSION_MINOR //p' include/specdec/version.h)
VERSION       := $(shell sed -n 's/^\#define SPECDEC_VERSION "\(.*\)"/\1/p' include/specdec/version.h)

# Deferred (=) so that pkg-config runs after `deps` has installed the packages.
# The program sees only include/ (the public headers); the library also src/.
BASE_CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -DHAVE_INLINE $(WARNINGS) $(CFLAGS) $(SANFLAGS) -Iinclude \
              $(shell pkg-config --cflags gsl)
ALL_CFLAGS  = $(BASE_CFLAGS) -Isrc
LIBS       = $(shell pkg-config --libs gsl) -lm -lpthread
CHECK_LIBS = $(shell pkg-config --libs check)

# The library is every layer folder of src/ (doc/design.md lists them; tests/layers.sh
# checks the two agree); the program is src/cli/, which sees include/ only and links the
# library.  The library computes, the program talks: nothing of src/cli/ is in the library.
LIB_SRC  := $(filter-out src/cli/%,$(wildcard src/*/*.c))
CLI_SRC  := $(wildcard src/cli/*.c)
TEST_SRC := $(wildcard tests/unit/*.c)
LIB_OBJ  := $(LIB_SRC:src/%.c=$(BUILD)/lib/%.o)
CLI_OBJ  := $(CLI_SRC:src/cli/%.c=$(BUILD)/cli/%.o)
TEST_OBJ := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%.o)

BENCH_TOKENS ?= 10000000
SPECDEC := $(BUILD)/specdec
TESTS   := $(BUILD)/specdec-tests
LIBA    := $(BUILD)/libspecdec.a
SONAME  := libspecdec.so.$(VERSION_MAJOR)
LIBSO   := $(BUILD)/libspecdec.so.$(VERSION_MAJOR).$(VERSION_MINOR)
PUBLIC_HEADERS := $(wildcard include/specdec/*.h)
DATA_FILES     := $(wildcard data/*.tsv data/*.txt)

DEB_PACKAGES := pkg-config libgsl-dev check gnuplot-nox groff-base clang libclang-rt-dev

## all: build the specdec program and its static and shared libraries
all: $(SPECDEC) $(LIBSO)

## run: the main job: the seed's example (alpha 0.8, c 0.02) table and optimum
run: $(SPECDEC)
	$(Q)$(SPECDEC) speedup --alpha 0.8 --cost 0.02
	@echo
	$(Q)$(SPECDEC) optimal --alpha 0.8 --cost 0.02

## check: layout, docs, unit, CLI, scale, install, Python and short fuzz tests, then unit, CLI and scale tests again under ASan+UBSan; last, the work tree is as committed
check: test-layers test-docs test-unit test-cli test-scale test-install test-python test-fuzz
	$(Q)$(MAKE) --no-print-directory sanitize
	$(Q)$(MAKE) --no-print-directory test-clean

## test-clean: nothing a test wrote is left in the work tree (git status is empty), and a planted file is caught
test-clean:
	@echo "  TEST  clean"
	$(Q)sh tests/clean.sh --control
	$(Q)sh tests/clean.sh .

## test-layers: the include rule of doc/design.md (no include upward, no cycle), the library's boundary (no process or terminal call), and planted violations each must catch
test-layers: $(SPECDEC) $(LIBSO)
	@echo "  TEST  layers ($(BUILD))"
	$(Q)sh tests/layers.sh . $(BUILD)
	$(Q)sh tests/layers.sh --control .
	$(Q)sh tests/boundary.sh $(BUILD)
	$(Q)sh tests/boundary.sh --control
	$(Q)sh tests/layers.sh --compare-report . $(BUILD)

## design-report: writes the layout's figures (tests/layers.sh --report) into doc/design.md, where test-layers compares them
design-report: $(SPECDEC) $(LIBSO)
	$(Q)sh tests/layers.sh --write-report . $(BUILD)

## test-docs: README.md and doc/ name only options the program has (and a planted one is caught)
test-docs: $(SPECDEC)
	@echo "  TEST  docs ($(BUILD))"
	$(Q)sh tests/docs.sh $(SPECDEC) README.md doc
	$(Q)sh tests/docs.sh --control $(SPECDEC) README.md doc

## test-unit: the Check runner (tests/unit/), one suite per public header
test-unit: $(TESTS)
	@echo "  TEST  unit ($(BUILD))"
	$(Q)$(TESTS)

## test-cli: golden and invalid-input tests of the specdec program, from / (the sanitizer pass runs them from here)
test-cli: $(SPECDEC)
	@echo "  TEST  cli ($(BUILD))"
	$(Q)CLI_WHERE=$(if $(filter 1,$(SAN)),root,slash) sh tests/cli.sh $(SPECDEC)

## test-scale: shards merged equal one run bit for bit; merge refuses what is not one job; GNU parallel
test-scale: $(SPECDEC)
	@echo "  TEST  scale ($(BUILD))"
	$(Q)sh tests/scale.sh $(SPECDEC)

## test-install: install into a scratch DESTDIR, build examples/ against it, run it from /
test-install: $(SPECDEC) $(LIBSO) $(LIBA)
	@echo "  TEST  install ($(BUILD))"
	$(Q)MAKE="$(MAKE)" sh tests/install.sh $(BUILD)

## test-python: the Python package (python/) under pytest against the program, from the build tree, from a pip install and from an installed copy
test-python: $(SPECDEC) $(LIBSO)
	@echo "  TEST  python ($(BUILD))"
	$(Q)MAKE="$(MAKE)" PYTHON="$(PYTHON)" sh tests/python.sh $(BUILD)

## sanitize: build in build/san with -fsanitize=address,undefined and run the unit, CLI (from the root only) and scale tests
sanitize:
	$(Q)$(MAKE) --no-print-directory BUILD=build/san SAN=1 test-unit test-cli test-scale

## plots: every figure as PNG and SVG into plots/ (the PNGs are the README's)
plots: $(SPECDEC)
	$(Q)$(SPECDEC) plot all --out plots --format svg >/dev/null
	$(Q)$(SPECDEC) plot all --out plots --format png >/dev/null
	$(Q)$(SPECDEC) plot fit --input tests/fixtures/counters-vllm-v1.log --out plots --format svg >/dev/null
	$(Q)$(SPECDEC) plot fit --input tests/fixtures/counters-vllm-v1.log --out plots --format png >/dev/null
	@ls plots/*.png plots/*.svg

## bench: engine throughput and bank cost by vocabulary size, serving, and the Python package (Markdown tables)
bench: $(BUILD)/specdec-bench $(LIBSO)
	$(Q)$(BUILD)/specdec-bench $(BENCH_TOKENS)
	$(Q)PYTHONPATH=python $(PYTHON) tests/bench/bench_python.py

## deps: make sure pkg-config, GSL, Check, gnuplot, groff, GNU parallel, clang, python3 with NumPy, pytest and pip, and npm (for pyright) are installed
deps:
	$(Q)missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing="$$missing pkg-config"; \
	pkg-config --exists gsl 2>/dev/null || missing="$$missing libgsl-dev"; \
	pkg-config --exists check 2>/dev/null || missing="$$missing check"; \
	command -v gnuplot >/dev/null 2>&1 || missing="$$missing gnuplot-nox"; \
	command -v groff >/dev/null 2>&1 || missing="$$missing groff-base"; \
	command -v parallel >/dev/null 2>&1 || missing="$$missing parallel"; \
	command -v clang >/dev/null 2>&1 || missing="$$missing clang libclang-rt-dev"; \
	$(PYTHON) -c 'import numpy, pytest, setuptools, venv' >/dev/null 2>&1 || \
	  missing="$$missing python3 python3-numpy python3-pytest python3-setuptools python3-venv"; \
	$(PYTHON) -m pip --version >/dev/null 2>&1 || missing="$$missing python3-pip"; \
	command -v npm >/dev/null 2>&1 || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "  DEPS  apt-get install$$missing"; \
	    log=$$( { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; } 2>&1 ) \
	      || { echo "$$log" | tail -n 5 >&2; echo "specdec: apt-get install$$missing failed" >&2; exit 1; }; \
	  else \
	    echo "specdec: missing$$missing; install with: sudo apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

# Library objects serve both libraries: position-independent, hidden unless SD_API.
$(BUILD)/lib/%.o: src/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

# The installed data folder is compiled into data.o; a change of DATADIR rebuilds it.
$(BUILD)/lib/io/data.o: CFLAGS += -DSPECDEC_DATADIR='"$(DATADIR)/specdec"'
$(BUILD)/lib/io/data.o: $(BUILD)/datadir.stamp
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(DATADIR)/specdec' | cmp -s - $@ || echo '$(DATADIR)/specdec' > $@

$(BUILD)/cli/%.o: src/cli/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(BASE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/unit/%.o: tests/unit/%.c | deps
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(ALL_CFLAGS) -Wno-float-equal $(shell pkg-config --cflags check) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@echo "  AR    $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBSO): $(LIB_OBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(ALL_CFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LIBS)
	$(Q)ln -sf $(notdir $@) $(BUILD)/$(SONAME) && ln -sf $(SONAME) $(BUILD)/libspecdec.so

$(BUILD)/specdec.pc: specdec.pc.in include/specdec/version.h
	@echo "  GEN   $@"
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' $< > $@

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

## install: the program, both libraries, headers, specdec.pc, data, man page, completion, the Python package
install: $(SPECDEC) $(LIBA) $(LIBSO) $(BUILD)/specdec.pc
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/specdec \
	  $(DESTDIR)$(DATADIR)/specdec $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLETIONDIR)
	$(Q)install -m 755 $(SPECDEC) $(DESTDIR)$(BINDIR)/specdec
	$(Q)install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libspecdec.a
	$(Q)install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO))
	$(Q)ln -sf $(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	$(Q)ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libspecdec.so
	$(Q)install -m 644 $(BUILD)/specdec.pc $(DESTDIR)$(LIBDIR)/pkgconfig/specdec.pc
	$(Q)install -m 644 include/specdec.h $(DESTDIR)$(INCLUDEDIR)/specdec.h
	$(Q)install -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(INCLUDEDIR)/specdec/
	$(Q)install -m 644 $(DATA_FILES) $(DESTDIR)$(DATADIR)/specdec/
	$(Q)install -m 644 doc/specdec.1 $(DESTDIR)$(MANDIR)/man1/specdec.1
	$(Q)install -m 644 doc/specdec.bash $(DESTDIR)$(COMPLETIONDIR)/specdec
	$(Q)install -d $(DESTDIR)$(PYTHONDIR)/specdec
	$(Q)install -m 644 $(wildcard python/specdec/*.py python/specdec/*.pyi) python/specdec/py.typed \
	  $(DESTDIR)$(PYTHONDIR)/specdec/
	$(Q)printf '# written by make install: where libspecdec was installed\nLIBDIR = %s\n' "'$(LIBDIR)'" \
	  > $(DESTDIR)$(PYTHONDIR)/specdec/_install.py

## uninstall: remove what install put in place (the same variables)
uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/specdec $(DESTDIR)$(LIBDIR)/libspecdec.a $(DESTDIR)$(LIBDIR)/libspecdec.so \
	  $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/$(notdir $(LIBSO)) $(DESTDIR)$(LIBDIR)/pkgconfig/specdec.pc \
	  $(DESTDIR)$(INCLUDEDIR)/specdec.h $(DESTDIR)$(MANDIR)/man1/specdec.1 $(DESTDIR)$(COMPLETIONDIR)/specdec
	$(Q)rm -rf $(DESTDIR)$(INCLUDEDIR)/specdec $(DESTDIR)$(DATADIR)/specdec $(DESTDIR)$(PYTHONDIR)/specdec

FORCE:

## clean: remove build/
clean:
	$(Q)rm -rf build

## help: list the targets
help:
	@sed -n 's/^## //p' Makefile

# The libFuzzer harnesses: `make fuzz FUZZ_SECONDS=N`, and a short run in `make check`.
-include tests/fuzz/fuzz.mk

.PHONY: FORCE
-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
