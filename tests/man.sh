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
#     every figure after 'specdec plot ';
# (d) the completion's value lists against --help's: for every option of
#     'SPECDEC COMMAND --help' whose line lists the names it takes (below), the
#     completion offers each of those names after 'specdec COMMAND OPTION ', and
#     offers nothing there that the option's help line does not name; and it
#     offers no option after 'specdec COMMAND --' that the command does not have.
#     A help line lists names when its metavar is lower-case names joined by '|'
#     (on|off), or when its text -- asides in parentheses removed, cut at the
#     first ';', taken after its last ': ' -- is a list of at least two names:
#     "a, b, c", "a, b or c", "a, or b", a trailing "only" dropped; for a
#     metavar NAME, KIND, ENGINE, FORMAT or FMT the first name may end a phrase
#     ("the numbers are logits or probs").  Then (d) plants drift in a copy of
#     the completion -- each value list loses its first name and gains
#     no-such-name -- and fails unless the check catches both.
# (e) the man page's value lists against --help's: every name that (d) finds on
#     an option's help line appears in that option's .TP paragraph of the
#     command's subsection; then a name no option takes, planted in one list,
#     must be reported.
# Prints one summary line; exits 0 if every check passes, 1 otherwise, 2 on
# wrong usage.  Paths are taken as given: nothing depends on the current folder.
#
#   sh tests/man.sh --control SPECDEC MANPAGE COMPLETION
# runs only the planted control of (d): exits 0 when the check catches it.

set -u

control_only=0
if [ $# -ge 1 ] && [ "$1" = --control ]; then
    control_only=1
    shift
fi
if [ $# -ne 3 ]; then
    echo "usage: sh man.sh [--control] SPECDEC MANPAGE COMPLETION" >&2
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

# ------------------------------------------------ (d) the completion's value lists
# A path that still names the file from another folder.
absolute() {
    case $1 in
    /*) echo "$1" ;;
    */*) echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    *) echo "$1" ;;
    esac
}

# commands HELP: the commands that HELP ('SPECDEC --help') lists, into $tmp/commands.
commands() {
    awk '/^commands:/ { on = 1; next } on && /^[ \t]*$/ { exit } on && /^  [a-z]/ { print $1 }' "$1" >"$tmp/commands"
}

# choices: for each command, "COMMAND OPTION NAME..." for every option whose help line
# lists the names it takes (the rule at the top) into $tmp/choices, and "COMMAND OPTION
# WORD..." with every word of that line into $tmp/choicewords; every option of the command,
# "COMMAND OPTION", into $tmp/cmdoptions.
choices() {
    : >"$tmp/choices"
    : >"$tmp/choicewords"
    : >"$tmp/cmdoptions"
    while read -r cmd; do
        "$bin" "$cmd" --help 2>/dev/null </dev/null | awk -v cmd="$cmd" -v out="$tmp" '
            /^  --[a-z]/ {
                line = substr($0, 3)
                opt = line; sub(/ .*/, "", opt)
                print cmd, opt >> (out "/cmdoptions")
                rest = substr(line, length(opt) + 1)
                meta = ""
                if (rest ~ /^ [^ ]/) { meta = substr(rest, 2); sub(/ .*/, "", meta); rest = substr(rest, length(meta) + 2) }
                help = rest; sub(/^ +/, "", help)
                names = ""
                if (meta ~ /^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)+$/) {
                    names = meta; gsub(/\|/, " ", names)
                } else {
                    t = help
                    while (t ~ /\([^()]*\)/) sub(/\([^()]*\)/, "", t)
                    sub(/;.*/, "", t)
                    n = split(t, parts, ": "); t = parts[n]
                    sub(/ +$/, "", t); sub(/ only$/, "", t)
                    gsub(/,? or /, ",", t)
                    k = split(t, items, ",")
                    ok = k >= 2
                    for (i = 1; i <= k && ok; i++) {
                        w = items[i]; gsub(/^ +| +$/, "", w)
                        if (i == 1 && meta ~ /^(NAME|KIND|ENGINE|FORMAT|FMT)$/) sub(/.* /, "", w)
                        if (w !~ /^[a-z][a-z0-9.+_-]*$/) ok = 0
                        names = names (i > 1 ? " " : "") w
                    }
                    if (!ok) names = ""
                }
                if (names == "") next
                print cmd, opt, names >> (out "/choices")
                words = meta " " help; gsub(/[^A-Za-z0-9.+_-]+/, " ", words)
                print cmd, opt, words >> (out "/choicewords")
            }'
    done <"$tmp/commands"
}

# offered_values COMP: for each line "COMMAND WORD" on stdin, "COMMAND WORD OFFERED..." with
# what COMP offers after 'SPECDEC COMMAND WORD ' (WORD an option) or after 'SPECDEC COMMAND
# WORD' (WORD "--": the options), run from an empty folder so that no file name is offered.
offered_values() {
    mkdir -p "$tmp/empty"
    ov_comp=$(absolute "$1")
    ov_prog=$(absolute "$bin")
    (cd "$tmp/empty" && bash -c '
        comp=$1
        prog=$2
        . "$comp" >/dev/null 2>&1 || exit 3
        spec=$(complete -p specdec 2>/dev/null) || exit 4
        fn=${spec#* -F }
        fn=${fn%% *}
        while read -r cmd word; do
            if [ "$word" = -- ]; then
                COMP_WORDS=("$prog" "$cmd" --)
            else
                COMP_WORDS=("$prog" "$cmd" "$word" "")
            fi
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            "$fn" specdec "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" </dev/null
            echo "$cmd $word ${COMPREPLY[*]}"
        done
    ' specdec-man "$ov_comp" "$ov_prog")
}

# value_lists COMP: the problems of (d) in COMP, one a line on stdout.
value_lists() {
    { cut -d' ' -f1-2 "$tmp/choices"; cut -d' ' -f1 "$tmp/commands" | sed 's/$/ --/'; } |
        offered_values "$1" >"$tmp/offered.values" || { echo "$1: cannot be sourced for its value lists"; return; }
    awk -v choices="$tmp/choices" -v words="$tmp/choicewords" -v options="$tmp/cmdoptions" -v comp="$1" '
        BEGIN {
            while ((getline l < choices) > 0) { n = split(l, a, " "); k = a[1] " " a[2]; want[k] = l }
            while ((getline l < words) > 0) {
                n = split(l, a, " "); k = a[1] " " a[2]
                for (i = 3; i <= n; i++) named[k, a[i]] = 1
            }
            while ((getline l < options) > 0) has[l] = 1
        }
        {
            k = $1 " " $2
            if ($2 == "--") {
                for (i = 3; i <= NF; i++)
                    if (!(($1 " " $i) in has))
                        bad[++nb] = comp ": '\''specdec " $1 " --<TAB>'\'' offers " $i ", which " $1 " does not have"
                next
            }
            delete got
            for (i = 3; i <= NF; i++) {
                got[$i] = 1
                if (!((k, $i) in named))
                    bad[++nb] = comp ": '\''specdec " k " <TAB>'\'' offers " $i ", which its --help line does not name"
            }
            n = split(want[k], a, " ")
            miss = ""
            for (i = 3; i <= n; i++) if (!(a[i] in got)) miss = miss " " a[i]
            if (miss != "") bad[++nb] = comp ": '\''specdec " k " <TAB>'\'' does not offer" miss " (--help lists them)"
        }
        END { for (i = 1; i <= nb; i++) print bad[i] }
    ' "$tmp/offered.values"
}

# value_control: plants drift in a copy of COMPLETION (every value list loses its first name
# and gains no-such-name) and prints nothing when value_lists catches both, else why not.
value_control() {
    cp "$comp" "$tmp/planted.bash" || return
    cat >>"$tmp/planted.bash" <<'PLANT'
# planted by tests/man.sh: every value list drifts
eval "_specdec_reply_unplanted() $(declare -f _specdec_reply | tail -n +2)"
_specdec_reply() {
    if [[ $prev == --?* ]]; then
        local -a w=($1)
        _specdec_reply_unplanted "${w[*]:1} no-such-name"
    else
        _specdec_reply_unplanted "$1"
    fi
}
PLANT
    value_lists "$tmp/planted.bash" >"$tmp/planted.out"
    grep -q "offers no-such-name, which its --help line does not name" "$tmp/planted.out" ||
        echo "control: a completion offering no-such-name for an option was not caught"
    grep -q "does not offer .*(--help lists them)" "$tmp/planted.out" ||
        echo "control: a completion missing a name --help lists was not caught"
}

if [ "$control_only" -eq 1 ]; then
    "$bin" --help >"$tmp/help" 2>/dev/null
    commands "$tmp/help"
    choices
    value_control >"$tmp/control.out"
    if [ -s "$tmp/control.out" ] || [ ! -s "$tmp/choices" ]; then
        echo "man: control FAILED:" >&2
        sed 's/^/    /' "$tmp/control.out" >&2
        [ -s "$tmp/choices" ] || echo "    no option of the program lists the names it takes" >&2
        exit 1
    fi
    echo "man: control: the planted drift of $(wc -l <"$tmp/choices" | tr -d ' ') value lists was caught"
    exit 0
fi

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
commands "$tmp/help"
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

if command -v bash >/dev/null 2>&1 && bash -n "$comp" 2>/dev/null; then
    choices
    value_lists "$comp" >"$tmp/values.out"
    while read -r problem; do
        fail "$problem"
    done <"$tmp/values.out"
    value_control >"$tmp/control.out"
    while read -r problem; do
        fail "$problem"
    done <"$tmp/control.out"
    nlists=$(wc -l <"$tmp/choices" | tr -d ' ')
fi

# ------------------------------------------------------- (e) the page's value lists
# paragraph OPTION: of the page text on stdin, the first .TP paragraph (tag and text) whose
# tag is OPTION alone with its metavar (not a list of options, not one with another's value);
# nothing when there is none.
paragraph() {
    awk -v opt="$1" '
        /^\.(TP|SS|SH)([ \t]|$)/ { if (on) exit; tag = /^\.TP/; next }
        tag { tag = 0; t = $0; sub(/^\.B[IR]?[ \t]+/, "", t); gsub(/"/, "", t)
              first = t; sub(/[ \t].*/, "", first); rest = substr(t, length(first) + 1)
              if (first == opt && rest !~ /,|--/) on = 1 }
        on { print }
    '
}

# page_values CHOICES: for each "COMMAND OPTION NAME..." of CHOICES, the names that the
# option's .TP paragraph does not give, one problem a line: the paragraph in the command's
# subsection, or where it has none (options shared with another command, listed together),
# the page's first paragraph of that option.
page_values() {
    while read -r cmd opt names; do
        section "$cmd" | paragraph "$opt" >"$tmp/paragraph"
        [ -s "$tmp/paragraph" ] || paragraph "$opt" <"$tmp/page" >"$tmp/paragraph"
        for name in $names; do
            mentions "$name" "$tmp/paragraph" ||
                echo "$page: specdec $cmd $opt: the page does not name $name (--help lists it)"
        done
    done <"$1"
}

if [ -s "$tmp/choices" ]; then
    page_values "$tmp/choices" >"$tmp/pagevalues.out"
    while read -r problem; do
        fail "$problem"
    done <"$tmp/pagevalues.out"
    head -n 1 "$tmp/choices" | sed 's/$/ no-such-name/' >"$tmp/planted.choices"
    page_values "$tmp/planted.choices" | grep -q "does not name no-such-name" ||
        fail "control: a value list naming no-such-name was not caught against the page"
fi

if [ "$failures" -ne 0 ]; then
    echo "man: FAILED: $failures problem(s); $ncommands commands, $noptions options checked"
    exit 1
fi
echo "man: $ncommands commands, $noptions options documented, ${nlists:-0} value lists completed"
exit 0
