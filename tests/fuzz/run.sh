#!/bin/sh
# run.sh -- run the libFuzzer harnesses built by tests/fuzz/fuzz.mk.
#
# usage: sh tests/fuzz/run.sh FUZZ_DIR SECONDS NAME...
#
# For each NAME, FUZZ_DIR/fuzz_NAME first replays the regression inputs
# tests/fuzz/crashes/NAME-* (each must pass; a per-reader harness
# counters_FORMAT also replays the detection harness's crashes/counters-*,
# whose inputs it reads the same way), then fuzzes for SECONDS
# seconds (-max_total_time) over a fresh copy of tests/fuzz/corpus/NAME in
# FUZZ_DIR/corpus/NAME, so the tree's corpus is never modified.  Prints one
# line per harness with libFuzzer's execution count ("Done N runs in S
# second(s)"); on a failure, the end of the log (FUZZ_DIR/logs/NAME.log) and
# the saved input (FUZZ_DIR/artifacts/NAME-*).  Exits 1 if any harness failed.
# Extra libFuzzer flags can be given in FUZZ_FLAGS.
set -u
dir=$1
secs=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/logs" "$dir/artifacts" "$dir/corpus"
failed=""

# The gist of a failure: the input, the property or sanitizer report, the
# frames in our code, where libFuzzer saved the input.
report() {
    grep -a -E '^Running: |==specdec-fuzz==|ERROR: |SUMMARY: |^ *#[0-9]+ 0x[0-9a-f]+ in |Test unit written' "$1" \
        | grep -a -v -E ' in (fuzzer::|__sanitizer|__asan|__ubsan|__libc_|__pthread|raise |abort |_start|main \(|fuzz_violation)' \
        | cut -c 1-240 | head -n 24 | sed 's/^/        /'
}

for name in "$@"; do
    bin=$dir/fuzz_$name
    log=$dir/logs/$name.log
    : > "$log"
    regress=$(ls "$here/crashes/$name"-* 2>/dev/null)
    case $name in
    counters_*) regress=$(ls "$here/crashes/$name"-* "$here/crashes/counters"-* 2>/dev/null) ;;
    esac
    if [ -n "$regress" ]; then
        # shellcheck disable=SC2086
        if ! "$bin" $regress >> "$log" 2>&1; then
            echo "  FUZZ  $name: FAILED: a regression input in tests/fuzz/crashes/ still fails (log: $log)"
            report "$log"
            failed="$failed $name"
            continue
        fi
    fi
    rm -rf "$dir/corpus/$name"
    mkdir -p "$dir/corpus/$name"
    cp "$here/corpus/$name"/* "$dir/corpus/$name/" 2>/dev/null
    seeds=$(ls "$dir/corpus/$name" | wc -l)
    # shellcheck disable=SC2086
    "$bin" -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$dir/artifacts/$name-" ${FUZZ_FLAGS:-} "$dir/corpus/$name" >> "$log" 2>&1
    rc=$?
    done_line=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 \2/p' "$log" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$done_line" ]; then
        echo "  FUZZ  $name: FAILED (exit $rc; log: $log)"
        report "$log"
        failed="$failed $name"
        continue
    fi
    runs=${done_line% *}
    s=${done_line#* }
    rate=$(( runs / (s > 0 ? s : 1) ))
    files=$(ls "$dir/corpus/$name" | wc -l)
    echo "  FUZZ  $name: $runs runs in $s s ($rate exec/s), corpus $seeds -> $files files"
done
if [ -n "$failed" ]; then
    echo "  FUZZ  failed:$failed" >&2
    exit 1
fi
exit 0
