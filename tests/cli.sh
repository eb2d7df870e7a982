#!/bin/sh
# cli.sh -- golden and invalid-input tests of the specdec program.
#
# usage: sh tests/cli.sh PATH/TO/specdec    (from the repository root)
#        UPDATE=1 sh tests/cli.sh ...       rewrites the golden files
#
# Each line of tests/cli/cases is  STATUS|NAME|STDERR_PATTERN|ARGUMENTS.
# A case passes when the exit status is STATUS and
#   - STATUS 0: stderr is empty, and stdout equals tests/cli/golden/NAME.out
#     when that file exists (otherwise stdout is non-empty);
#   - STATUS != 0: stdout is empty and stderr is exactly one line matching
#     the extended regular expression STDERR_PATTERN.
# ARGUMENTS are word-split by the shell; $T is a scratch folder holding the
# files made below.
set -u
SPECDEC=$1
CASES=tests/cli/cases
GOLDEN=tests/cli/golden
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

printf '0.5\n0.5x\n' > "$T/garbage.txt"
printf '0.5\n-0.5\n1\n' > "$T/negative.txt"
printf '0.5\n0.6\n' > "$T/sum.txt"
printf '0.2\n0.3\n0.5\n' > "$T/three.txt"
printf '0.5\n0.5\n' > "$T/two.txt"
printf '0.5\nnan\n' > "$T/nan.txt"
printf '# nothing\n' > "$T/empty.txt"

pass=0
fail=0
while IFS='|' read -r status name pattern args; do
    case "$status" in '#'*|'') continue ;; esac
    eval "set -- $args"
    "$SPECDEC" "$@" > "$T/out" 2> "$T/err"
    got=$?
    why=""
    if [ "$got" -ne "$status" ]; then
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
        echo "FAIL $name: $why"
    fi
done < "$CASES"
echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
