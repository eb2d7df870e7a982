#!/bin/sh
# cli.sh -- golden and invalid-input tests of the specdec program.
#
# usage: sh tests/cli.sh PATH/TO/specdec    (from any folder)
#        UPDATE=1 sh tests/cli.sh ...       rewrites the golden files
#
# Every case runs twice: from the repository root and from / (the program
# must find its data from anywhere), each under a timeout of CASE_TIMEOUT
# seconds (default 120), so that a hang fails instead of stalling.
#
# Each line of tests/cli/cases is  STATUS|NAME|PATTERN|ARGUMENTS.
# A case passes when the exit status is STATUS and
#   - STATUS 0: stderr is empty, and stdout equals tests/cli/golden/NAME.out
#     when that file exists (otherwise stdout is non-empty and, when PATTERN
#     is given, has a line matching it);
#   - STATUS != 0: stdout is empty and stderr is exactly one line matching
#     the extended regular expression PATTERN.
# ARGUMENTS are word-split by the shell; $T is a scratch folder holding the
# files made below and $D the repository's data/ folder.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SPECDEC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CASES=$ROOT/tests/cli/cases
GOLDEN=$ROOT/tests/cli/golden
D=$ROOT/data
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

printf '0.5\n0.5x\n' > "$T/garbage.txt"
printf '0.5\n-0.5\n1\n' > "$T/negative.txt"
printf '0.5\n0.6\n' > "$T/sum.txt"
printf '0.2\n0.3\n0.5\n' > "$T/three.txt"
printf '0.5\n0.5\n' > "$T/two.txt"
printf '0.5\nnan\n' > "$T/nan.txt"
printf '# nothing\n' > "$T/empty.txt"
printf 'name\talpha\tcost\tgamma\tspeed\na\t0.5\t0.1\t3\t2\n' > "$T/scen-extra.tsv"
printf 'name\talpha\tcost\na\t0.5\t0.1\n' > "$T/scen-nogamma.tsv"
printf '# a comment\nname\talpha\tcost\na\t0.5\t0.1\nb\t1.5\t0.1\n' > "$T/scen-bad.tsv"
printf 'name\talpha\tcost\na\t0.5\n' > "$T/scen-short.tsv"
printf 'name\ttflops\tbandwidth_tbs\tmemory_gb\nx\t100\t2\t80\ny\t100\t0\t80\n' > "$T/hw-bad.tsv"
printf 'name\ttflops\tbandwidth_tbs\tmemory_gb\nx\t100\t2\n' > "$T/hw-short.tsv"
printf 'name\ttflops\tbandwidth_tbs\tmemory_gb\nx\t1e300\t2\t80\n' > "$T/hw-huge.tsv"

pass=0
fail=0
for where in "$ROOT" /; do
while IFS='|' read -r status name pattern args; do
    case "$status" in '#'*|'') continue ;; esac
    eval "set -- $args"
    (cd "$where" && exec timeout "$CASE_TIMEOUT" "$SPECDEC" "$@") > "$T/out" 2> "$T/err"
    got=$?
    why=""
    if [ "$got" -eq 124 ]; then
        why="timed out after $CASE_TIMEOUT s"
    elif [ "$got" -ne "$status" ]; then
        why="exit status $got, expected $status"
    elif [ "$status" -eq 0 ]; then
        if [ -s "$T/err" ]; then
            why="unexpected stderr: $(head -n 1 "$T/err")"
        elif [ "${UPDATE:-0}" = 1 ] && [ -f "$GOLDEN/$name.out" ]; then
            cp "$T/out" "$GOLDEN/$name.out"
        elif [ -f "$GOLDEN/$name.out" ]; then
            cmp -s "$T/out" "$GOLDEN/$name.out" || why="stdout differs from $GOLDEN/$name.out: $(diff "$GOLDEN/$name.out" "$T/out" | head -n 3 | tr '\n' ' ')"
        elif [ ! -s "$T/out" ]; then
            why="empty stdout"
        elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$T/out"; then
            why="stdout '$(head -n 1 "$T/out")' does not match '$pattern'"
        fi
    else
        if [ -s "$T/out" ]; then
            why="stdout not empty on error"
        elif [ "$(wc -l < "$T/err")" -ne 1 ]; then
            why="stderr has $(wc -l < "$T/err") lines, expected 1"
        elif ! grep -Eq -- "$pattern" "$T/err"; then
            why="stderr '$(cat "$T/err")' does not match '$pattern'"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name (from $where): $why"
    fi
done < "$CASES"
done
# Without gnuplot the figure's data and script are still written, one line
# says how to install gnuplot, and the exit status is 1.
env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot expected-tokens --out "$T/nognuplot" > "$T/out" 2> "$T/err"
got=$?
if [ "$got" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
   grep -q 'apt-get install gnuplot-nox' "$T/err" &&
   [ -s "$T/nognuplot/expected-tokens.dat" ] && [ -s "$T/nognuplot/expected-tokens.gp" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL plot-without-gnuplot: exit $got, stderr '$(cat "$T/err")'"
fi

# Every figure's script (written without gnuplot, as png and as svg) sets the
# size, the font and its output, a title, both axes and a legend, and reads
# its own data file.  The figures are those of 'plot --help'; the Monte Carlo
# ones run with fewer tokens (the others refuse --tokens, and run without).
figure_run() { # NAME FORMAT: runs the figure into $T/scripts without gnuplot
    env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot "$1" --format "$2" \
        --out "$T/scripts" --tokens 20000 > "$T/out" 2> "$T/err"
    if grep -q -- '--tokens: the figure .* does not take it' "$T/err"; then
        env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot "$1" --format "$2" \
            --out "$T/scripts" > "$T/out" 2> "$T/err"
    fi
}
"$SPECDEC" plot --help | awk '/^figures/ { on = 1; next } on && /^  [a-z]/ { print $1 }' > "$T/figure-names"
[ -s "$T/figure-names" ] || { fail=$((fail + 1)); echo "FAIL plot-scripts: no figures in 'plot --help'"; }
while read -r fig; do
    why=""
    for fmt in png svg; do
        figure_run "$fig" "$fmt"
        gp=$T/scripts/$fig.gp
        if ! grep -q 'apt-get install gnuplot-nox' "$T/err"; then
            why="$fmt: $(cat "$T/err")"
        elif ! grep -Fq "set output \"$fig.$fmt\"" "$gp"; then
            why="$fmt: no 'set output \"$fig.$fmt\"'"
        fi
        [ -z "$why" ] || break
    done
    for want in 'size 1200,800' 'font "DejaVu Sans,16"' 'set title "' 'set xlabel "' 'set ylabel "' "\"$fig.dat\""; do
        [ -n "$why" ] || grep -Fq -- "$want" "$gp" || why="no '$want'"
    done
    [ -n "$why" ] || grep -Eq 'title "|set cblabel' "$gp" || why="no legend (title \" or set cblabel)"
    [ -n "$why" ] || [ "$(head -c 10 "$T/scripts/$fig.dat")" = "# specdec " ] || why="$fig.dat lacks its comment line"
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL plot-script $fig: $why"
    fi
done < "$T/figure-names"

# With gnuplot, a figure is a 1200 x 800 PNG (the size in its IHDR chunk).
if command -v gnuplot > /dev/null 2>&1; then
    "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot expected-tokens --out "$T/drawn" > "$T/out" 2> "$T/err"
    got=$?
    size=$(od -An -tx1 -j16 -N8 "$T/drawn/expected-tokens.png" 2>/dev/null | tr -d ' \n')
    if [ "$got" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(head -c 4 "$T/drawn/expected-tokens.png" | tail -c 3)" = PNG ] &&
       [ "$size" = 000004b000000320 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL plot-png-size: exit $got, IHDR size bytes '$size' (want 1200 x 800), stderr '$(cat "$T/err")'"
    fi
fi

# A help text that cannot be written is an error with its reason, not a silent exit 1.
for args in "--help" "speedup --help" "--version"; do
    # shellcheck disable=SC2086
    timeout "$CASE_TIMEOUT" "$SPECDEC" $args > /dev/full 2> "$T/err"
    got=$?
    if [ "$got" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q '^specdec: cannot write to standard output: ' "$T/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $args > /dev/full: exit $got, stderr '$(cat "$T/err")'"
    fi
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
