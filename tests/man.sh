#!/bin/sh
# man.sh -- checks the man page and the bash completion against the program.
#
#   sh tests/man.sh SPECDEC MANPAGE COMPLETION
#   e.g. sh tests/man.sh build/specdec doc/specdec.1 doc/specdec.bash
#
# (a) groff -man -ww -z MANPAGE exits 0 and prints nothing on stderr;
# (b) every command that 'SPECDEC --help' lists has a subsection (.SS COMMAND)
#     in MANPAGE, and every word beginning with -- in 'SPECDEC COMMAND --help'
#     appears in a .TP tag of that subsection, or of GLOBAL OPTIONS for an
#     option that moved before the command (in the man source '\-\-opt';
#     backslashes before hyphens are removed first); the words beginning with
#     -- in 'SPECDEC --help' appear in the page, and the figure names of
#     'SPECDEC plot --help' in the subsection of plot;
# (c) COMPLETION passes bash -n, and, sourced in bash, its completion function
#     offers every command after 'specdec ', every option of a command after
#     'specdec COMMAND --' (or, for a global option, after 'specdec --') and
#     every figure after 'specdec plot '.
# Prints one summary line; exits 0 if every check passes, 1 otherwise, 2 on
# wrong usage.  Paths are taken as given: nothing depends on the current folder.

set -u

if [ $# -ne 3 ]; then
    echo "usage: sh man.sh SPECDEC MANPAGE COMPLETION" >&2
    exit 2
fi
bin=$1
page=$2
comp=$3

failures=0
fail() {
    echo "man: $*" >&2
    failures=$((failures + 1))
}

for f in "$page" "$comp"; do
    if [ ! -r "$f" ]; then
        echo "man: cannot read $f" >&2
        exit 1
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/specdec-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' 0
trap 'exit 1' HUP INT TERM

# The words beginning with -- in a text, one per line, each once.
option_words() {
    tr -cs 'A-Za-z0-9-' '\n' | grep -e '^--[A-Za-z0-9]' | awk '!seen[$0]++'
}

# mentions WORD FILE: WORD occurs in FILE, not as part of a longer hyphenated
# name (a letter may precede it: the end of a font escape such as \fB).
mentions() {
    grep -Eq -e "(^|[^-])$1([^A-Za-z0-9-]|\$)" "$2"
}

# ---------------------------------------------------------------- (a) groff
if ! command -v groff >/dev/null 2>&1; then
    fail "groff not found; install it (apt-get install groff-base)"
else
    groff -man -ww -z "$page" >"$tmp/groff.out" 2>"$tmp/groff.err"
    rc=$?
    if [ "$rc" -ne 0 ] || [ -s "$tmp/groff.err" ]; then
        fail "groff -man -ww -z $page: exit $rc, messages:"
        sed 's/^/    /' "$tmp/groff.err" >&2
    fi
fi

# The man source with '\-' as '-' and the escapes that only allow or forbid
# breaks (\% \: \&) removed.
sed -e 's/\\-/-/g' -e 's/\\[%:&]//g' "$page" >"$tmp/page"

# section CMD: the text of the subsection '.SS CMD' (or '.SS "specdec CMD ..."')
# up to the next .SS or .SH; exit 1 if there is none.
section() {
    awk -v cmd="$1" '
        /^\.S[SH]([ \t]|$)/ {
            if (on) exit
            if ($0 ~ /^\.SS[ \t]/) {
                title = $0
                sub(/^\.SS[ \t]+/, "", title)
                gsub(/"/, "", title)
                sub(/^specdec[ \t]+/, "", title)
                split(title, w, /[ \t]+/)
                if (w[1] == cmd) { on = 1; found = 1 }
            }
            next
        }
        on { print }
        END { exit found ? 0 : 1 }
    ' "$tmp/page"
}

# global_section: the text of the section GLOBAL OPTIONS, up to the next .SH.
global_section() {
    awk '
        /^\.SH([ \t]|$)/ {
            if (on) exit
            title = $0
            sub(/^\.SH[ \t]+/, "", title)
            gsub(/"/, "", title)
            if (title == "GLOBAL OPTIONS") on = 1
            next
        }
        on { print }
    ' "$tmp/page"
}

# tags: the tag lines of the .TP paragraphs of a section text on stdin.
tags() {
    awk '
        /^\.\\"/ { next }
        tag { print; tag = 0; next }
        /^\.TP([ \t]|$)/ { tag = 1 }
    '
}

# ------------------------------------------------------- (b) commands, options
global_section | tags >"$tmp/global.tags"
if ! "$bin" --help >"$tmp/help" 2>"$tmp/help.err"; then
    fail "'$bin --help' failed: $(cat "$tmp/help.err")"
fi
awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on && /^  [a-z]/ { print $1 }' \
    "$tmp/help" >"$tmp/commands"
ncommands=$(wc -l <"$tmp/commands" | tr -d ' ')
if [ "$ncommands" -eq 0 ]; then
    fail "'$bin --help' lists no commands (no 'commands:' block)"
fi

noptions=0
missing=""
# The global options and words of 'specdec --help' (--format, --version, ...).
option_words <"$tmp/help" >"$tmp/global"
while read -r opt; do
    noptions=$((noptions + 1))
    mentions "$opt" "$tmp/page" || missing="$missing $opt"
done <"$tmp/global"
[ -z "$missing" ] || fail "$page lacks the global option(s):$missing"

: >"$tmp/pairs"
while read -r cmd; do
    if ! section "$cmd" >"$tmp/section"; then
        fail "$page has no subsection '.SS $cmd'"
        continue
    fi
    if ! "$bin" "$cmd" --help >"$tmp/cmdhelp" 2>"$tmp/cmdhelp.err" </dev/null; then
        fail "'$bin $cmd --help' failed: $(cat "$tmp/cmdhelp.err")"
        continue
    fi
    tags <"$tmp/section" >"$tmp/section.tags"
    missing=""
    option_words <"$tmp/cmdhelp" >"$tmp/cmdopts"
    while read -r opt; do
        noptions=$((noptions + 1))
        echo "$cmd $opt" >>"$tmp/pairs"
        mentions "$opt" "$tmp/section.tags" || mentions "$opt" "$tmp/global.tags" ||
            missing="$missing $opt"
    done <"$tmp/cmdopts"
    [ -z "$missing" ] || fail "$page: subsection '$cmd' has no .TP entry for$missing"
done <"$tmp/commands"

# The figures of plot (lines under 'figures' in 'specdec plot --help').
: >"$tmp/figures"
if grep -qx plot "$tmp/commands" && "$bin" plot --help >"$tmp/plothelp" 2>/dev/null; then
    awk '/^figures/ { on = 1; next } on && /^[ \t]*$/ { exit } on && /^  [a-z]/ { print $1 }' \
        "$tmp/plothelp" >"$tmp/figures"
    missing=""
    section plot >"$tmp/section"
    while read -r fig; do
        mentions "$fig" "$tmp/section" || missing="$missing $fig"
    done <"$tmp/figures"
    [ -z "$missing" ] || fail "$page: subsection 'plot' lacks the figure(s)$missing"
fi

# ------------------------------------------------------------ (c) completion
# offered WORD...: the words the completion offers for the command line
# 'WORD...' whose last word is being completed.
offered() {
    bash -c '
        comp=$1
        shift
        . "$comp" >/dev/null 2>&1 || exit 3
        spec=$(complete -p specdec 2>/dev/null) || exit 4
        case $spec in *" -F "*) ;; *) exit 4 ;; esac
        fn=${spec#* -F }
        fn=${fn%% *}
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        COMPREPLY=()
        "$fn" specdec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" </dev/null
        for w in "${COMPREPLY[@]}"; do echo "$w"; done
    ' specdec-man "$comp" "$@"
}

if ! command -v bash >/dev/null 2>&1; then
    fail "bash not found: cannot check $comp"
elif ! bash -n "$comp" 2>"$tmp/bash.err"; then
    fail "bash -n $comp failed:"
    sed 's/^/    /' "$tmp/bash.err" >&2
elif ! offered specdec "" >"$tmp/offered"; then
    fail "$comp: sourcing it gives no 'complete -F FUNCTION specdec'"
else
    missing=""
    while read -r cmd; do
        grep -qxF -e "$cmd" "$tmp/offered" || missing="$missing $cmd"
    done <"$tmp/commands"
    [ -z "$missing" ] || fail "$comp: 'specdec <TAB>' does not offer$missing"

    offered specdec -- >"$tmp/offered.global"
    missing=""
    while read -r cmd; do
        offered specdec "$cmd" -- >"$tmp/offered" </dev/null
        awk -v c="$cmd" '$1 == c { print $2 }' "$tmp/pairs" >"$tmp/cmdopts"
        while read -r opt; do
            grep -qxF -e "$opt" "$tmp/offered" || grep -qxF -e "$opt" "$tmp/offered.global" ||
                missing="$missing $cmd:$opt"
        done <"$tmp/cmdopts"
    done <"$tmp/commands"
    [ -z "$missing" ] || fail "$comp: 'specdec COMMAND --<TAB>' does not offer$missing"

    if [ -s "$tmp/figures" ]; then
        offered specdec plot "" >"$tmp/offered"
        missing=""
        while read -r fig; do
            grep -qxF -e "$fig" "$tmp/offered" || missing="$missing $fig"
        done <"$tmp/figures"
        [ -z "$missing" ] || fail "$comp: 'specdec plot <TAB>' does not offer$missing"
    fi
fi

if [ "$failures" -ne 0 ]; then
    echo "man: FAILED: $failures problem(s); $ncommands commands, $noptions options checked"
    exit 1
fi
echo "man: $ncommands commands, $noptions options documented"
exit 0
