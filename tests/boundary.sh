#!/bin/sh
# boundary.sh -- the library computes, the program talks (doc/design.md): libspecdec.so calls no
# process or terminal function, and the program's files but main.c use no GSL header (the numerics
# are the library's).
#
# usage: sh tests/boundary.sh BUILD        (after make: BUILD/libspecdec.so)
#        sh tests/boundary.sh --control    plants a library that calls printf and fork, and a program
#                                          file that includes GSL, and fails unless both are caught
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The undefined symbols a UI-free library must not have: processes, the terminal's streams.
FORBIDDEN='fork|vfork|execl|execlp|execle|execv|execvp|execve|execvpe|waitpid|wait|system|popen|printf|vprintf|puts|putchar|getchar|perror|stdout|stderr|isatty|chdir|setenv'

library() { # library SO: fails naming each forbidden call
    calls=$(nm -D -u "$1" | awk '{ print $NF }' | sed 's/@.*//' | grep -xE "$FORBIDDEN" | tr '\n' ' ')
    if [ -n "$calls" ]; then
        echo "boundary: $1 calls process or terminal functions: $calls(the library stays UI-free)" >&2
        return 1
    fi
}

program() { # program DIR: fails naming each file of DIR/src/cli but main.c that includes GSL
    files=$(grep -l '^[[:space:]]*#[[:space:]]*include[[:space:]]*<gsl/' "$1"/src/cli/*.c "$1"/src/cli/*.h 2>/dev/null |
        grep -v '/main\.c$' | tr '\n' ' ')
    if [ -n "$files" ]; then
        echo "boundary: $files include GSL: the numerics belong in the library" >&2
        return 1
    fi
}

if [ "${1-}" = "--control" ]; then
    T=$(mktemp -d)
    trap 'rm -rf "$T"' EXIT
    printf '#include <stdio.h>\n#include <unistd.h>\nint planted(void) { printf("x"); return (int)fork(); }\n' > "$T/p.c"
    ${CC:-cc} -shared -fPIC -o "$T/libplanted.so" "$T/p.c" || exit 1
    mkdir -p "$T/tree/src/cli"
    cp "$ROOT"/src/cli/*.c "$ROOT"/src/cli/*.h "$T/tree/src/cli/"
    printf '#include <gsl/gsl_math.h>\n' >> "$T/tree/src/cli/args.c"
    if library "$T/libplanted.so" 2> /dev/null; then echo "boundary --control: printf and fork not caught" >&2; exit 1; fi
    if program "$T/tree" 2> /dev/null; then echo "boundary --control: a GSL include not caught" >&2; exit 1; fi
    echo "boundary --control: the planted calls and include caught"
    exit 0
fi
BUILD=${1:-build}
library "$BUILD/libspecdec.so" && program "$ROOT" && echo "boundary: libspecdec.so calls no process or terminal function; the program's numerics are the library's"
