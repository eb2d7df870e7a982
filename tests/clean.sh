#!/bin/sh
# clean.sh -- the work tree is as git has it: nothing a test wrote is left untracked or modified.
#
# usage: sh tests/clean.sh [DIR]          (DIR: the checkout; default this one)
#        sh tests/clean.sh --control      plants an untracked file, a modified file and a file in a
#                                         new folder in a scratch repository and fails unless each is caught
# Outside a git checkout (a release tarball) there is nothing to compare with: it says so and passes.
set -u
check() { # check DIR: prints what is not as committed, fails when anything is
    if ! git -C "$1" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        echo "clean: $1 is not a git checkout; nothing to compare"
        return 0
    fi
    left=$(git -C "$1" status --porcelain --untracked-files=all)
    if [ -n "$left" ]; then
        echo "clean: the work tree is not as committed (files a command wrote, or edits not committed):" >&2
        echo "$left" | sed 's/^/  /' >&2
        return 1
    fi
    echo "clean: the work tree is as committed"
}

if [ "${1-}" = "--control" ]; then
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    git init -q "$T/repo" && printf 'a\n' > "$T/repo/a" &&
        git -C "$T/repo" add a && git -C "$T/repo" -c user.name=t -c user.email=t@t commit -qm a || exit 1
    check "$T/repo" > /dev/null 2>&1 || { echo "clean --control: a clean repository was refused" >&2; exit 1; }
    caught=0
    for plant in 'printf x > "$T/repo/part.1"' 'printf b >> "$T/repo/a"' 'mkdir -p "$T/repo/d" && printf x > "$T/repo/d/p"'; do
        eval "$plant"
        if check "$T/repo" > /dev/null 2>&1; then
            echo "clean --control: not caught: $plant" >&2
        else
            caught=$((caught + 1))
        fi
        git -C "$T/repo" checkout -q -- a && rm -rf "$T/repo/part.1" "$T/repo/d"
    done
    [ "$caught" -eq 3 ] || exit 1
    echo "clean --control: 3 planted files caught"
    exit 0
fi
check "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
