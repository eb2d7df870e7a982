#!/bin/sh
# serving-published.sh -- specdec serving against the published measurements of speculative decoding
# under load in data/published-serving.tsv: one Markdown row per measurement, the simulated mean TPOT,
# end-to-end latency or speed-up in output tokens a second at the row's load (a closed loop of users or Poisson arrivals), with the shipped
# calibration and the acceptance from the stated mean length (--memory-fraction 0.96: vLLM's 0.9 of a
# GPU's memory in GiB, which the presets count in GB).
#
# What a source does not state is marked "fit" in the file: the first row of the source and draft that has it is
# solved for it by bisection on specdec's analytical twin (the output length, the acceptance rate alpha
# per gamma, or eta_flops), so that the twin matches that row; the row is then a calibration, marked
# "fitted", and the later rows of that source and draft are predictions made with the value.
#
# usage: sh examples/serving-published.sh [SPECDEC] [DATA_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
specdec=${1:-$here/build/specdec}
data=${2:-$here/data}
tab=$(printf '\t')
errs=$(mktemp)
trap 'rm -f "$errs"' EXIT

# one METHOD GAMMA: the mean TPOT, end-to-end latency (ms) or output tokens a second under the current
# settings, from the simulation or the twin
one() {
    if [ "$users" != - ]; then load="--users $users"; else load="--rate $rate"; fi
    spec="--gamma $2 --alpha ${alpha:-0.5}"
    [ "$2" = 0 ] && spec="--gamma 0 --alpha 0.5"
    eta=""
    [ "$eta_v" = - ] || eta="--eta-flops $eta_v"
    col=9 scale=1000
    [ "$metric" = e2e ] && col=13
    [ "$metric" = speedup ] && col=15 scale=1
    # shellcheck disable=SC2086
    "$specdec" --data "$data" serving --target "$target" --draft "$draft" --hardware "$hw" --tp "$tp" $load \
        --prompt "$prompt" --output "$output_v" $spec $eta --max-num-seqs "$seqs" --max-num-batched-tokens "$tokens" \
        --memory-fraction 0.96 --method "$1" --requests 2000 --replications 2 --format tsv 2> "$errs" |
        awk -F'\t' -v c="$col" -v s="$scale" 'NR == 2 { printf "%.6g", $c * s }'
}

# run METHOD: the row's metric; a speedup is the throughput with speculation over that without
run() {
    if [ "$metric" = speedup ]; then
        with=$(one "$1" "$gamma")
        without=$(one "$1" 0)
        awk -v a="$with" -v b="$without" 'BEGIN { if (a != "" && b != "") printf "%.3f", a / b }'
    else
        one "$1" "$gamma" | awk '{ printf "%.2f", $1 }'
    fi
}

# solve NAME LO HI INTEGER: bisection of the setting NAME (alpha, output_v or eta_v) in [LO, HI] until the
# twin (the simulation, for a closed loop of users) gives the measured value; a latency falls as alpha and
# eta_flops grow and rises with the output, a speedup rises with alpha
solve() {
    lo=$2 hi=$3 how=analytic
    [ "$users" = - ] || how=simulate
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24; do
        mid=$(awk -v a="$lo" -v b="$hi" -v i="$4" 'BEGIN { m = (a + b) / 2; if (i) printf "%d", m; else printf "%.5f", m }')
        eval "$1=\$mid"
        got=$(run "$how")
        # no value: past saturation, as slow as can be
        up=$(awk -v g="$got" -v m="$measured" -v n="$1" -v k="$metric" 'BEGIN { if (g == "") g = (k == "speedup") ? 0 : 1e300
            rises = (n == "output_v") != (k == "speedup"); print (rises == (g + 0 > m + 0)) ? 1 : 0 }')
        if [ "$up" = 1 ]; then hi=$mid; else lo=$mid; fi
    done
}

echo "| id | setting | measured | specdec | difference |"
echo "|---|---|---:|---:|---:|"
grep -v '^#' "$data/published-serving.tsv" | tail -n +2 |
while IFS="$tab" read -r id source target draft hw tp users rate prompt output gamma mean_length eta_flops seqs tokens \
    metric measured; do
    key=$(printf '%s_%s' "$source" "$draft" | tr -c 'a-zA-Z0-9' '_') # fits hold per source and draft
    fitted=""
    alpha="" output_v=$output eta_v=$eta_flops
    # values this source fitted before, else solve them here (the output first: it sets the load)
    if [ "$output" = fit ]; then
        eval "output_v=\${fit_output_$key:-}"
        if [ -z "$output_v" ]; then
            [ "$eta_v" = fit ] && eval "eta_v=\${fit_eta_$key:--}"
            solve output_v 2 16384 1
            eval "fit_output_$key=\$output_v"
            fitted="output"
        fi
    fi
    if [ "$eta_flops" = fit ]; then
        eval "eta_v=\${fit_eta_$key:-}"
        if [ -z "$eta_v" ]; then
            solve eta_v 0.01 1 0
            eval "fit_eta_$key=\$eta_v"
            fitted="${fitted:+$fitted, }eta_flops"
        fi
    fi
    if [ "$gamma" != 0 ] && [ "$mean_length" = fit ]; then
        eval "alpha=\${fit_alpha_${key}_$gamma:-}"
        if [ -z "$alpha" ]; then
            solve alpha 0.01 0.99 0
            eval "fit_alpha_${key}_$gamma=\$alpha"
            fitted="${fitted:+$fitted, }alpha"
        fi
        mean_length=$(awk -v a="$alpha" -v g="$gamma" 'BEGIN { printf "%.2f", (1 - a ^ (g + 1)) / (1 - a) }')
    elif [ "$gamma" != 0 ]; then
        alpha=$("$specdec" metrics --mean-acceptance-length "$mean_length" --gamma "$gamma" --format tsv |
            awk -F'\t' 'NR == 2 { printf "%.4f", $1 }')
    fi
    got=$(run simulate)
    if [ -z "$got" ]; then
        cat "$errs" >&2
        exit 2
    fi
    if [ "$users" != - ]; then at="$users users"; else at="$rate req/s"; fi
    spec="no speculation"
    [ "$gamma" = 0 ] || spec="gamma $gamma, mean length $mean_length (alpha $alpha)"
    extra=""
    [ "$output" = fit ] && extra="${extra}, output fit"
    [ "$eta_flops" = fit ] && extra="${extra}, eta_flops $eta_v"
    diff=$(awk -v a="$got" -v b="$measured" 'BEGIN { printf "%+.0f%%", 100 * (a - b) / b }')
    [ -z "$fitted" ] || diff="$diff (fitted: $fitted)"
    unit=" ms"
    [ "$metric" = speedup ] && unit="x"
    echo "| $id ($source) | $target + $draft, $hw x $tp, $at, $prompt + $output_v tokens$extra, $spec | $metric $measured$unit | $got$unit | $diff |"
done
