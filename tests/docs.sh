#!/bin/sh
# docs.sh -- checks that the options the documentation names exist.
#
#   sh tests/docs.sh SPECDEC README DOCDIR
#   sh tests/docs.sh --control SPECDEC README DOCDIR
#   e.g. sh tests/docs.sh build/specdec README.md doc
#
# Every word beginning with -- in README and in DOCDIR/*.md must be an option
# of the program: a word beginning with -- in 'SPECDEC --help' or in
# 'SPECDEC COMMAND --help' for a command that 'SPECDEC --help' lists (words
# are taken as tests/man.sh takes them: runs of letters, digits and hyphens).
# The man page (DOCDIR/specdec.1) and the completion (DOCDIR/specdec.bash) are
# not read: tests/man.sh holds them to the program.  The options of other
# programs in the docs' shell snippets are allowed by the list below.
#
# --control is the negative control: it copies README and DOCDIR/*.md into a
# scratch folder, adds a line naming --no-such-option to the copy of README,
# runs the check on the copy, and passes only when that check fails and names
# the planted option.
#
# Prints one summary line; exits 0 if every check passes (with --control: if
# the planted option was caught), 1 otherwise, 2 on wrong usage.  Paths are
# taken as given: nothing depends on the current folder.

set -u
LC_ALL=C
export LC_ALL

# Options of other programs, allowed in the docs; each with where and why.
ALLOW='
--cflags        pkg-config, compiling the examples against the installed library (library.md, README)
--libs          pkg-config, as above
--will-cite     GNU parallel: silences its citation notice (scaling.md)
--sshloginfile  GNU parallel: the hosts of a multi-host run (scaling.md)
--transferfile  GNU parallel: copies the sweep file to each host (scaling.md)
--return        GNU parallel: brings each part back (scaling.md)
--dependency    sbatch, as examples/slurm/submit.sh uses it (scaling.md)
--report        tests/layers.sh: the figures of the layout (design.md)
--control       tests/layers.sh: the planted violations (design.md)
--tool          valgrind --tool=callgrind, the instruction counts (performance.md)
--max-concurrency  vllm bench serve: the in-flight cap of the published load grid (serving.md)
--request-rate  vllm bench serve: its arrival rate (serving.md)
--system-site-packages  python3 -m venv: the environment sees the system NumPy (python.md)
--no-build-isolation  pip install: build with the setuptools beside pip, offline (python.md)
--no-index      pip install: never the network (python.md)
--speculative-config  vllm serve: where the exported schedule goes (roofline.md)
--speculative-adaptive  SGLang launch_server: adaptive speculation on (roofline.md)
--speculative-adaptive-config  SGLang: the file of the exported schedule (roofline.md)
--speculative-num-steps  SGLang: the starting draft length, one of the schedule steps (roofline.md)
--draft-max     llama-server: its longest draft, what fit --gamma gives for llama.cpp logs (fit.md)
'

usage() {
    echo "usage: sh docs.sh [--control] SPECDEC README DOCDIR" >&2
    exit 2
}

control=0
if [ $# -ge 1 ] && [ "$1" = --control ]; then
    control=1
    shift
fi
[ $# -eq 3 ] || usage
bin=$1
readme=$2
docdir=$3
if [ ! -x "$bin" ]; then
    echo "docs: $bin is not an executable program" >&2
    usage
fi
if [ ! -r "$readme" ]; then
    echo "docs: cannot read $readme" >&2
    usage
fi
if [ ! -d "$docdir" ]; then
    echo "docs: $docdir is not a folder" >&2
    usage
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/specdec-docs.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM

# ---------------------------------------------------------- negative control
if [ "$control" -eq 1 ]; then
    mkdir "$tmp/doc" || exit 1
    cp "$readme" "$tmp/README.md" || exit 1
    for f in "$docdir"/*.md; do
        [ -e "$f" ] || continue
        cp "$f" "$tmp/doc/" || exit 1
    done
    echo 'Planted by the control of tests/docs.sh: `specdec speedup --no-such-option`.' >>"$tmp/README.md"
    sh "$0" "$bin" "$tmp/README.md" "$tmp/doc" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -eq 1 ] && grep -q -e 'README.md:[0-9]*: --no-such-option' "$tmp/err"; then
        echo "docs: control: the planted --no-such-option was caught (exit 1)"
        exit 0
    fi
    echo "docs: control FAILED: the check on a README naming --no-such-option exited $rc:"
    sed 's/^/    /' "$tmp/out" "$tmp/err"
    exit 1
fi

# ------------------------------------------------------- the program's options
# The words beginning with -- in a text, one per line, each once.
option_words() {
    tr -cs 'A-Za-z0-9-' '\n' | grep -e '^--[A-Za-z0-9]' | awk '!seen[$0]++'
}

if ! "$bin" --help >"$tmp/help" 2>"$tmp/help.err" </dev/null; then
    echo "docs: FAILED: '$bin --help' failed: $(cat "$tmp/help.err")"
    exit 1
fi
awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on && /^  [a-z]/ { print $1 }' \
    "$tmp/help" >"$tmp/commands"
ncommands=$(wc -l <"$tmp/commands" | tr -d ' ')
if [ "$ncommands" -eq 0 ]; then
    echo "docs: FAILED: '$bin --help' lists no commands (no 'commands:' block)"
    exit 1
fi
cp "$tmp/help" "$tmp/all"
while read -r cmd; do
    if ! "$bin" "$cmd" --help >"$tmp/cmdhelp" 2>"$tmp/cmdhelp.err" </dev/null; then
        echo "docs: FAILED: '$bin $cmd --help' failed: $(cat "$tmp/cmdhelp.err")"
        exit 1
    fi
    cat "$tmp/cmdhelp" >>"$tmp/all"
done <"$tmp/commands"
option_words <"$tmp/all" >"$tmp/options"
echo "$ALLOW" | awk '$1 ~ /^--/ { print $1 }' >>"$tmp/options"

# ------------------------------------------------------------- the docs' words
# One line per word beginning with --: "ok" for an option, "FILE:LINE: WORD"
# for a word that is not one.
: >"$tmp/words"
nfiles=0
for f in "$readme" "$docdir"/*.md; do
    [ -e "$f" ] || continue
    nfiles=$((nfiles + 1))
    awk -v file="$f" '
        FNR == NR { known[$0] = 1; next }
        {
            n = split($0, w, /[^A-Za-z0-9-]+/)
            for (i = 1; i <= n; i++)
                if (w[i] ~ /^--[A-Za-z0-9]/)
                    print ((w[i] in known) ? "ok" : file ":" FNR ": " w[i])
        }
    ' "$tmp/options" "$f" >>"$tmp/words"
done
nwords=$(wc -l <"$tmp/words" | tr -d ' ')
grep -v -x ok "$tmp/words" >"$tmp/bad"

if [ -s "$tmp/bad" ]; then
    sed 's/$/ is not an option of specdec (nor allowed in tests\/docs.sh)/' "$tmp/bad" >&2
    echo "docs: FAILED: $(wc -l <"$tmp/bad" | tr -d ' ') unknown option word(s) in $nfiles files ($nwords words checked against $ncommands commands' options)"
    exit 1
fi
echo "docs: $nwords option words in $nfiles files, all options of specdec ($ncommands commands)"
exit 0
