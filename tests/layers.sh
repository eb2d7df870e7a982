#!/bin/sh
# layers.sh -- the include rule of doc/design.md, checked on the tree.
#
#   sh tests/layers.sh ROOT [BUILD]      check the tree at ROOT
#   sh tests/layers.sh --report ROOT [BUILD]   the same, then the figures of the layout
#   sh tests/layers.sh --control ROOT    plant each kind of violation in a copy; each must be caught
#   sh tests/layers.sh --compare-report ROOT BUILD   the figures in doc/design.md (between "<!-- report -->"
#                                        and "<!-- /report -->") are the tree's; a changed one in a copy is caught
#   sh tests/layers.sh --write-report ROOT BUILD     writes the tree's figures there (make design-report)
#
# The layers and what each may include are the block between the lines
# "<!-- layers -->" and "<!-- /layers -->" of ROOT/doc/design.md, one layer a
# line: its folder under src/ and the folders it may include, or "-" for none.
# A module is a file name without its extension and without _impl; its layer
# is the folder of src/LAYER/MODULE.c; include/specdec/MODULE.h is its public
# half, src/LAYER/MODULE_impl.h its private half.  Checked:
#   (a) the folders of src/ are exactly the layers of the table and cli/;
#   (b) every #include "..." of a library file (src/LAYER/*, include/specdec/*)
#       names a header of its own layer or of a layer its row lists; never the
#       umbrella specdec.h; a public header includes only public headers;
#   (c) src/cli/ includes only include/ (the umbrella, public headers) and its own folder;
#   (d) every public header and every X_impl.h has its module's .c (a header
#       without one is not a module of the table);
#   (e) no cycle among modules: the graph of includes between modules, and,
#       given BUILD (after make), the graph of which object calls or reads a
#       symbol another defines (nm), library and program -- so that a cycle
#       through a shared header (cli/cli.h) is seen too.
# Prints each violation on stderr and one summary line; exits 0 when every
# check passes, 1 otherwise, 2 on wrong usage.
set -u

usage() { echo "usage: sh tests/layers.sh [--report|--control|--compare-report|--write-report] ROOT [BUILD]" >&2; exit 2; }
mode=check
case ${1-} in
--report) mode=report; shift ;;
--control) mode=control; shift ;;
--compare-report) mode=compare; shift ;;
--write-report) mode=write; shift ;;
esac
[ $# -ge 1 ] && [ $# -le 2 ] || usage
ROOT=$1
BUILD=${2-}
[ -d "$ROOT/src" ] && [ -r "$ROOT/doc/design.md" ] || { echo "layers: $ROOT has no src/ or doc/design.md" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/specdec-layers.XXXXXX") || exit 1
trap 'rm -rf "$T"' 0
trap 'exit 1' HUP INT TERM

# ---------------------------------------------------------------- the check
# check DIR [BUILD]: runs (a)-(e) on the tree at DIR; prints violations on
# stderr and the summary on stdout; returns 0 when none.
check() {
    dir=$1
    build=${2-}
    w=$T/work.$$
    rm -rf "$w" && mkdir -p "$w"
    awk '/<!-- \/layers -->/ { on = 0 } on && NF && $1 !~ /^```/ { print } /<!-- layers -->/ { on = 1 }' \
        "$dir/doc/design.md" > "$w/table"
    if [ ! -s "$w/table" ]; then
        echo "layers: $dir/doc/design.md has no <!-- layers --> table" >&2
        return 1
    fi
    (cd "$dir" && find src -mindepth 1 -maxdepth 1 -type d | sed 's|^src/||' | sort) > "$w/folders"
    # every library source and header, and the program's, with their #include "..." lines
    (cd "$dir" && find src include -type f \( -name '*.c' -o -name '*.h' -o -name '*.def' \) | sort) > "$w/files"
    : > "$w/includes"
    while read -r f; do
        # "..." includes, and <specdec.h> / <specdec/...> (the installed spelling of the same headers)
        grep -n -e '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' -e '^[[:space:]]*#[[:space:]]*include[[:space:]]*<specdec[./]' "$dir/$f" |
            sed -e 's/^\([0-9]*\):[^"<]*["<]\([^">]*\)[">].*/\1 \2/' -e "s|^|$f |"
    done < "$w/files" >> "$w/includes"

    awk -v dir="$dir" -v w="$w" '
        function layer_of(path,   a) { # the layer of a path under src/, or "" outside it
            if (path ~ /^src\//) { split(path, a, "/"); return a[2] }
            return ""
        }
        function module_of(path,   m) {
            m = path; sub(/.*\//, "", m); sub(/\.([ch]|def)$/, "", m); sub(/_impl$/, "", m); return m
        }
        function exists(path) { return (path in file) }
        function bad(msg) { print "layers: " msg > "/dev/stderr"; nbad++ }
        BEGIN {
            while ((getline line < (w "/table")) > 0) {
                n = split(line, a, /[ \t]+/)
                lay = a[1]; row[lay] = 1; nrows++
                for (i = 2; i <= n; i++) if (a[i] != "-") may[lay, a[i]] = 1
            }
            while ((getline line < (w "/folders")) > 0) {
                folder[line] = 1
                if (line != "cli" && !(line in row)) bad("src/" line "/ is not a layer of doc/design.md")
            }
            for (lay in row) if (!(lay in folder)) bad("layer " lay " of doc/design.md has no folder src/" lay "/")
            while ((getline line < (w "/files")) > 0) {
                file[line] = 1
                if (line ~ /^src\/[^\/]+\/[^\/]+\.c$/) home[module_of(line)] = layer_of(line)
            }
            close(w "/files")
            while ((getline line < (w "/files")) > 0) {
                m = module_of(line)
                if (line ~ /^include\/specdec\// && !(m in home))
                    bad(line ": a public header without its module (no src/LAYER/" m ".c)")
                if (line ~ /_impl\.h$/) {
                    d = line; sub(/\/[^\/]*$/, "", d)
                    if (!exists(d "/" m ".c")) bad(line ": a private half without its module " d "/" m ".c beside it")
                }
            }
        }
        {
            f = $1; ln = $2; inc = $3; nincludes++
            fl = f ~ /^include\// ? home[module_of(f)] : layer_of(f)
            where = f ":" ln ": #include \"" inc "\""
            if (f ~ /^src\/[^\/]+$/ && !(f in outside)) { bad(f ": a library file outside every layer folder"); outside[f] = 1 }
            if (inc == "specdec.h") {
                target = "include/specdec.h"; tl = "umbrella"
            } else if (inc ~ /^specdec\//) {
                target = "include/" inc
                if (!exists(target)) { bad(where ": no such public header"); next }
                tl = home[module_of(target)]
            } else {
                d = f; sub(/\/[^\/]*$/, "", d)
                target = exists(d "/" inc) ? d "/" inc : exists("src/" inc) ? "src/" inc : ""
                if (target == "") { bad(where ": no such header beside it or under src/"); next }
                tl = layer_of(target)
            }
            if (f == "include/specdec.h") { # the umbrella: public headers only
                if (target !~ /^include\/specdec\//) { bad(where ": the umbrella includes public headers only"); up++ }
                next
            }
            if (fl == "cli") {
                if (tl != "cli" && target !~ /^include\//) { bad(where ": the program sees include/ only"); up++ }
                next
            }
            if (tl == "umbrella") { bad(where ": a library file includes the umbrella (programs only)"); up++; next }
            if (f ~ /^include\// && target !~ /^include\//) { bad(where ": a public header includes a private one"); up++; next }
            if (tl != fl && !((fl, tl) in may)) {
                bad(where ": layer " fl " may not include layer " tl " (doc/design.md)"); up++
            }
            if (tl != "" && module_of(target) != module_of(f))
                print fl "/" module_of(f), tl "/" module_of(target) > (w "/edges")
        }
        END {
            printf "%d %d %d\n", nincludes, up + 0, nbad + 0 > (w "/counts")
            exit nbad > 0
        }' "$w/includes"
    rc=$?
    touch "$w/edges"
    read -r nincludes nup nbad < "$w/counts"

    # (e) cycles: the strongly connected components of more than one module (Tarjan)
    cycles=0
    loops() { # loops NAME EDGES: reports each cycle of a graph of "from to" lines
        sort -u "$2" | awk '$1 != $2' | awk -v what="$1" '
            { n = ++deg[$1]; adj[$1, n] = $2; node[$1]; node[$2] }
            function visit(v,   i, u, m) {
                index_[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
                for (i = 1; i <= deg[v]; i++) {
                    u = adj[v, i]
                    if (!(u in index_)) { visit(u); if (low[u] < low[v]) low[v] = low[u] }
                    else if (on[u] && index_[u] < low[v]) low[v] = index_[u]
                }
                if (low[v] == index_[v]) {
                    m = ""; size = 0
                    do { u = stack[sp--]; on[u] = 0; m = u (m == "" ? "" : " ") m; size++ } while (u != v)
                    if (size > 1) { print "layers: a cycle among the " what ": " m > "/dev/stderr"; found++ }
                }
            }
            END { for (v in node) if (!(v in index_)) visit(v); print found + 0 }' > "$w/found"
        cycles=$((cycles + $(cat "$w/found")))
    }
    loops "modules' includes" "$w/edges"
    objects=0
    if [ -n "$build" ]; then
        if ! command -v nm > /dev/null 2>&1; then
            echo "layers: nm not found (binutils)" >&2
            return 1
        fi
        : > "$w/syms"
        for o in "$build"/lib/*/*.o "$build"/cli/*.o; do
            [ -f "$o" ] || continue
            rel=${o#"$build"/}
            case $rel in lib/*) rel=${rel#lib/} ;; esac
            src=src/${rel%.o}.c
            [ -f "$dir/$src" ] || continue # an object of a file that no longer exists
            objects=$((objects + 1))
            nm -P "$o" | awk -v m="${rel%.o}" '$2 ~ /^[TDBRCV]$/ { print "def", $1, m } $2 == "U" { print "use", $1, m }' >> "$w/syms"
        done
        if [ "$objects" -eq 0 ]; then
            echo "layers: no objects under $build/lib or $build/cli: run make first" >&2
            return 1
        fi
        awk '$1 == "def" { who[$2] = $3 } $1 == "use" { use[NR] = $2 " " $3 }
             END { for (i in use) { split(use[i], a, " "); if (a[1] in who && who[a[1]] != a[2]) print a[2], who[a[1]] } }' \
            "$w/syms" > "$w/calls"
        loops "objects' symbols" "$w/calls"
    fi
    echo "layers: $(wc -l < "$w/files" | tr -d ' ') files, $nincludes includes, $nup pointing where the table forbids, $cycles cycles${build:+ (includes and $objects objects' symbols)}"
    [ "$rc" -eq 0 ] && [ "$cycles" -eq 0 ]
}

# ---------------------------------------------------------------- the figures
report() {
    dir=$1
    echo "files per folder:"
    for d in $(cd "$dir" && find src include tests -type d | sort); do
        n=$(find "$dir/$d" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \) | wc -l)
        [ "$n" -gt 0 ] || continue
        printf '  %-22s %3d files\n' "$d/" "$n"
    done
    echo "longest library files:"
    (cd "$dir" && find src -path src/cli -prune -o -type f \( -name '*.c' -o -name '*.h' \) -print | xargs wc -l |
        grep -v ' total$' | sort -rn | head -n 3 | sed 's/^/  /')
    echo "longest program files:"
    (cd "$dir" && wc -l src/cli/*.c | grep -v ' total$' | sort -rn | head -n 3 | sed 's/^/  /')
    if [ -n "${2-}" ] && [ -f "$2/libspecdec.so" ]; then
        echo "exported symbols: $(nm -D --defined-only "$2/libspecdec.so" | awk '$2 ~ /^[TDBR]$/' | wc -l)"
    fi
}

# ---------------------------------------------------------------- the control
# Each plant, made in a fresh copy of the tree, must make the check fail.
control() {
    caught=0
    missed=0
    plant() { # plant NAME WHY COMMAND...: COMMAND edits the copy at $T/copy; the check must fail saying WHY
        name=$1
        why=$2
        shift 2
        rm -rf "$T/copy" && mkdir -p "$T/copy"
        cp -R "$ROOT/src" "$ROOT/include" "$T/copy/" && mkdir -p "$T/copy/doc" && cp "$ROOT/doc/design.md" "$T/copy/doc/"
        "$@"
        if check "$T/copy" > /dev/null 2> "$T/why"; then
            echo "layers: control MISSED: $name" >&2
            missed=$((missed + 1))
        elif ! grep -q -e "$why" "$T/why"; then
            echo "layers: control MISSED: $name (failed, but not saying '$why': $(head -n 1 "$T/why"))" >&2
            missed=$((missed + 1))
        else
            caught=$((caught + 1))
        fi
    }
    first_c() { find "$T/copy/src/$1" -name '*.c' | sort | head -n 1; }
    prepend() { { echo "$2"; cat "$1"; } > "$T/tmp" && mv "$T/tmp" "$1"; }
    if ! check "$ROOT" > /dev/null 2>&1; then
        echo "layers: control: the tree itself fails the check; the controls mean nothing" >&2
        return 1
    fi
    plant "an upward include (common includes a report header)" "may not include layer report" \
        eval 'prepend "$(first_c common)" "#include \"specdec/validate.h\""'
    plant "a sibling include (cost includes a Monte Carlo header)" "may not include layer mc" \
        eval 'prepend "$(first_c cost)" "#include \"specdec/engine.h\""'
    plant "the umbrella in the library" "includes the umbrella" eval 'prepend "$(first_c theory)" "#include \"specdec.h\""'
    plant "the umbrella in the library, in angle brackets" "includes the umbrella" \
        eval 'prepend "$(first_c theory)" "#include <specdec.h>"'
    plant "a private header of the library in the program" "the program sees include/ only" \
        eval 'prepend "$(first_c cli)" "#include \"mc/verify_impl.h\""'
    plant "a public header including a private one" "a public header includes a private one" \
        eval 'prepend "$T/copy/include/specdec/theory.h" "#include \"random/rng_impl.h\""'
    plant "a folder the table does not list" "is not a layer of doc/design.md" mkdir "$T/copy/src/extra"
    plant "a cycle within a layer" "a cycle among the modules" eval '
        a=$(find "$T/copy/src/io" -name "*.c" | sort | sed -n 1p); b=$(find "$T/copy/src/io" -name "*.c" | sort | sed -n 2p)
        ma=$(basename "$a" .c); mb=$(basename "$b" .c)
        printf "/* */\n" > "$T/copy/src/io/${ma}_impl.h"; printf "/* */\n" > "$T/copy/src/io/${mb}_impl.h"
        prepend "$a" "#include \"${mb}_impl.h\""; prepend "$b" "#include \"${ma}_impl.h\""'
    echo "layers: control: $caught of $((caught + missed)) planted violations caught"
    [ "$missed" -eq 0 ]
}

# ---------------------------------------------------------------- the figures in doc/design.md
# The fenced block between <!-- report --> and <!-- /report -->: its first line the command, then its output.
report_text() { # report_text ROOT BUILD: the block's lines as they should read
    echo '$ sh tests/layers.sh --report . build'
    check "$1" "$2" 2> /dev/null
    report "$1" "$2"
}
shown() { # shown DESIGN_MD: the block's lines as they read
    awk '/<!-- \/report -->/ { on = 0 } on && $0 !~ /^```/ { print } /<!-- report -->/ { on = 1 }' "$1"
}
compare() { # compare ROOT BUILD DESIGN_MD: fails, with a diff, when the shown figures are not the tree's
    [ -s "$T/fresh" ] || report_text "$1" "$2" > "$T/fresh" # the tree's figures, made once
    shown "$3" > "$T/shown"
    if [ ! -s "$T/shown" ]; then
        echo "layers: $3 has no <!-- report --> block" >&2
        return 1
    fi
    if ! cmp -s "$T/fresh" "$T/shown"; then
        echo "layers: the figures in $3 are not the tree's (run: make design-report):" >&2
        diff "$T/shown" "$T/fresh" | sed 's/^/  /' >&2
        return 1
    fi
    echo "layers: the figures in $3 are the tree's"
}
write_report() { # write_report ROOT BUILD: rewrites the block of ROOT/doc/design.md
    report_text "$1" "$2" > "$T/fresh"
    awk -v fresh="$T/fresh" '/<!-- \/report -->/ { on = 0; print "```"; while ((getline l < fresh) > 0) print l;
                                                    print "```" } !on { print } /<!-- report -->/ { on = 1 }' \
        "$1/doc/design.md" > "$T/design.md" && cat "$T/design.md" > "$1/doc/design.md"
}

case $mode in
compare)
    [ -n "$BUILD" ] || usage
    compare "$ROOT" "$BUILD" "$ROOT/doc/design.md" || exit 1
    # the control: one figure changed in a copy must be caught
    sed 's/^exported symbols: \([0-9]*\)$/exported symbols: 1\1/' "$ROOT/doc/design.md" > "$T/planted.md"
    if compare "$ROOT" "$BUILD" "$T/planted.md" > /dev/null 2>&1; then
        echo "layers: control MISSED: a changed figure in doc/design.md" >&2
        exit 1
    fi
    echo "layers: control: a changed figure in doc/design.md caught"
    ;;
write) [ -n "$BUILD" ] || usage; write_report "$ROOT" "$BUILD" ;;
check) check "$ROOT" "$BUILD" ;;
report) check "$ROOT" "$BUILD"; rc=$?; report "$ROOT" "$BUILD"; exit $rc ;;
control) control ;;
esac
