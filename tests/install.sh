#!/bin/sh
# install.sh -- install specdec as a user or packager would, and use it.
#
# usage: sh tests/install.sh BUILD     (BUILD: the build folder, e.g. build)
#
#  1. make install DESTDIR=<scratch> (PREFIX /usr/local): every file in its
#     place, the shared library's soname and links, a valid specdec.pc;
#  2. the exported symbols of libspecdec.so are exactly the functions and
#     objects the installed headers declare with SD_API;
#  3. examples/ compile against the staged tree with pkg-config and run on
#     the shared library (LD_LIBRARY_PATH);
#  4. the man page is clean under groff -man -ww, covers every command and
#     option, and the completion script loads (tests/man.sh);
#  5. make install PREFIX=<scratch> (a build whose compiled-in data folder is
#     that prefix): the installed program, run from /, passes validate
#     --quick and lists the roofline presets; make uninstall removes it all.
# Prints "install: N passed, M failed".
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$1
MAKE=${MAKE:-make}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
check() { # check NAME COMMAND...: passes when COMMAND exits 0
    name=$1; shift
    if "$@" > "$T/log" 2>&1; then ok; else bad "$name: $(tail -n 3 "$T/log" | tr '\n' ' ')"; fi
}

# ---- 1. a staged install ------------------------------------------------------------
S=$T/stage
P=/usr/local
check "make install DESTDIR" $MAKE -s -C "$ROOT" --no-print-directory BUILD="$BUILD" DESTDIR="$S" install
for f in bin/specdec lib/libspecdec.a lib/libspecdec.so lib/pkgconfig/specdec.pc include/specdec.h \
         include/specdec/theory.h include/specdec/engine.h share/specdec/models.tsv share/specdec/hardware.tsv \
         share/man/man1/specdec.1 share/bash-completion/completions/specdec; do
    if [ -e "$S$P/$f" ]; then ok; else bad "installed file $P/$f missing"; fi
done
so=$(cd "$S$P/lib" && ls libspecdec.so.*.* 2>/dev/null | head -n 1)
soname=$(objdump -p "$S$P/lib/$so" 2>/dev/null | sed -n 's/^ *SONAME *//p')
if [ -n "$so" ] && [ "$soname" = "$(readlink "$S$P/lib/libspecdec.so" 2>/dev/null)" ] &&
   [ "$(readlink "$S$P/lib/$soname")" = "$so" ]; then ok; else bad "soname '$soname' and links of '$so'"; fi
for h in "$ROOT"/include/specdec/*.h; do # every public header is installed, and nothing internal
    [ -e "$S$P/include/specdec/$(basename "$h")" ] || bad "header $(basename "$h") not installed"
done
if [ ! -e "$S$P/include/specdec/internal.h" ] && [ ! -e "$S$P/include/internal.h" ]; then ok; else bad "internal.h installed"; fi
export PKG_CONFIG_PATH="$S$P/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$S"
check "pkg-config --modversion" sh -c '[ "$(pkg-config --modversion specdec)" = "$1" ]' sh \
    "$(sed -n 's/^#define SPECDEC_VERSION "\(.*\)"/\1/p' "$ROOT/include/specdec/version.h")"
check "pkg-config Requires.private gsl" sh -c 'pkg-config --print-requires-private specdec | grep -qx gsl'

# ---- 2. exported symbols = declared API ------------------------------------------------
nm -D --defined-only "$S$P/lib/$so" | awk '$2 ~ /^[TDRB]$/ { print $3 }' | sort > "$T/exported"
cat "$S$P/include/specdec.h" "$S$P"/include/specdec/*.h | tr '\n' ' ' | sed 's/;/;\n/g' |
    grep 'SD_API' | sed -n -e 's/.*SD_API extern [^;]*[^a-z0-9_]\(sd_[a-z0-9_]*\) *;.*/\1/p' \
        -e 's/.*[^a-z0-9_]\(sd_[a-z0-9_]*\) *[([].*/\1/p' | sort -u > "$T/declared"
if [ -s "$T/declared" ] && cmp -s "$T/exported" "$T/declared"; then
    ok
else
    bad "exported symbols differ from the SD_API declarations: $(diff "$T/declared" "$T/exported" | grep '^[<>]' | tr '\n' ' ')"
fi
if grep -qv '^sd_' "$T/exported"; then bad "exported symbols outside sd_*: $(grep -v '^sd_' "$T/exported" | tr '\n' ' ')"; else ok; fi

# ---- 3. the examples against the staged tree ---------------------------------------------
for ex in optimal_grid monte_carlo my_model; do
    check "compile examples/$ex.c" sh -c 'cc -std=c11 -Wall -Wextra -Werror "$1" $(pkg-config --cflags --libs specdec gsl) -lm -o "$2"' \
        sh "$ROOT/examples/$ex.c" "$T/$ex"
    check "run examples/$ex" sh -c 'cd / && SPECDEC_DATA="$4" LD_LIBRARY_PATH="$1" "$2" > "$3.out"' sh "$S$P/lib" "$T/$ex" \
        "$T/$ex" "$S$P/share/specdec"
    if LD_LIBRARY_PATH="$S$P/lib" ldd "$T/$ex" 2>/dev/null | grep -q "libspecdec.so.* => $S$P/lib/"; then ok
    else bad "examples/$ex does not load the staged libspecdec.so"; fi
done
if grep -qx '| 0.8 | 0.02 | 11 | 3.8167 |' "$T/optimal_grid.out" 2>/dev/null; then ok; else bad "optimal_grid: no row alpha 0.8, c 0.02, gamma 11, 3.8167 (the seed's example)"; fi
# my_model's table is the program's for the same options (the library call and the program agree)
if "$S$P/bin/specdec" --data "$S$P/share/specdec" roofline --target llama-3.1-8b --draft llama-3.2-1b --hardware h100-sxm \
    --alpha 0.8 --batch 1,8,32,128 --format tsv 2>/dev/null | cmp -s - "$T/my_model.out"; then ok
else bad "my_model: its table is not the program's roofline table for the same options"; fi

# ---- 4. man page and completion -----------------------------------------------------------
check "man page and completion" sh "$ROOT/tests/man.sh" "$S$P/bin/specdec" "$S$P/share/man/man1/specdec.1" \
    "$S$P/share/bash-completion/completions/specdec"

# ---- 5. a real prefix: the compiled-in data folder, run from / -------------------------------
R=$T/root
check "make install PREFIX" $MAKE -s -C "$ROOT" --no-print-directory BUILD="$BUILD/install" PREFIX="$R" install
check "installed validate --quick from /" sh -c 'cd / && "$1/bin/specdec" validate --quick --threads 2 > /dev/null' sh "$R"
check "installed roofline --list-models from /" sh -c 'cd / && "$1/bin/specdec" roofline --list-models | grep -q "^llama-3.1-8b "' sh "$R"
check "installed --version" sh -c '"$1/bin/specdec" --version | grep -Eq "^specdec [0-9.]+ \(library [0-9.]+, GSL [0-9.]+\)$"' sh "$R"
check "make uninstall PREFIX" $MAKE -s -C "$ROOT" --no-print-directory BUILD="$BUILD/install" PREFIX="$R" uninstall
left=$(find "$R" -type f -o -type l 2>/dev/null | head -n 3)
if [ -z "$left" ]; then ok; else bad "uninstall left files: $left"; fi

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
