#!/bin/sh
# published.sh -- specdec against the published measurements, as Markdown tables:
#   the decode-step times of data/published-steps.tsv (the rows the shipped calibration,
#   data/cost-defaults.tsv, is fitted to): measured, the uncalibrated roofline (eta_F 0.5,
#   eta_BW 0.8, t0 20 us, no launch cost), the shipped fit, and each row's leave-one-out
#   prediction (the fit redone without it: `roofline --calibrate --calibrate-by family`);
#   the speed-ups of data/published-speedups.tsv (never fitted: out of sample): measured,
#   uncalibrated and with the shipped calibration (and its 90% band), at the stated acceptance,
#   for the chain of gamma drafts (`tree --tree chain:G`: the improvement even where it is below 1).
#
# usage: sh examples/published.sh [SPECDEC] [DATA_DIR]
#   (defaults: build/specdec and data/ of this checkout)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
specdec=${1:-$here/build/specdec}
data=${2:-$here/data}
tab=$(printf '\t')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.0f%%", 100 * (a - b) / b }'; }

# one pass's seconds from --breakdown (the target's total row)
step_ms() {
    "$specdec" --data "$data" roofline "$@" --breakdown --format tsv |
        awk -F'\t' '$1 == "target" && $6 == "total" { printf "%.2f", $10 * 1000 }'
}

echo "| id | setting | measured | uncalibrated | shipped fit | leave-one-out |"
echo "|---|---|---:|---:|---:|---:|"
"$specdec" --data "$data" roofline --calibrate "$data/published-steps.tsv" --calibrate-by family --format tsv |
    tail -n +2 | cut -f9,11 >"$tmp/fit"
grep -v '^#' "$data/published-steps.tsv" | tail -n +2 | paste - "$tmp/fit" |
while IFS="$tab" read -r id source model hw tp batch context tokens graphs seconds fitted loo; do
    setting="$model, $hw x $tp, batch $batch, context $context ($source)"
    measured=$(awk -v s="$seconds" 'BEGIN { printf "%.2f", s * 1000 }')
    today=$(step_ms --eta-flops 0.5 --target "$model" --draft "$model" --hardware "$hw" --tp "$tp" --graphs "$graphs" \
        --batch "$batch" --context "$context")
    fit=$(awk -v s="$fitted" 'BEGIN { printf "%.2f", s * 1000 }')
    out=$(awk -v s="$loo" 'BEGIN { printf "%.2f", s * 1000 }')
    echo "| $id | $setting | $measured ms | $today ms ($(pct "$today" "$measured")) | $fit ms ($(pct "$fit" "$measured")) | $out ms ($(pct "$out" "$measured")) |"
done

echo
echo "| id | setting | stated acceptance | measured | uncalibrated | shipped calibration | with the engine's loop |"
echo "|---|---|---|---:|---:|---:|---:|"
grep -v '^#' "$data/published-speedups.tsv" | tail -n +2 |
while IFS="$tab" read -r id source target draft hw tp batch context gamma stated stated_as window measured engine; do
    alpha=$stated
    if [ "$stated_as" = mean_length ]; then
        alpha=$("$specdec" metrics --mean-acceptance-length "$stated" --gamma "$gamma" --format tsv |
            awk -F'\t' 'NR == 2 { printf "%.4f", $1 }')
    fi
    setting="$target + $draft draft, $hw x $tp, batch $batch, context $context, gamma $gamma ($source)"
    win=""
    [ "$window" = - ] || { win="--draft-kv-window $window"; setting="$setting, draft window $window"; }
    speedup() { # the chain of gamma drafts at alpha: improvement, then its band (tree --tree chain:G)
        # shellcheck disable=SC2086 # $win is empty or two words
        "$specdec" --data "$data" tree --tree "chain:$gamma" --alpha "$alpha" "$@" --target "$target" --draft "$draft" \
            $win --hardware "$hw" --tp "$tp" --batch "$batch" --context "$context" --format tsv |
            awk -F'\t' 'NR == 2 { printf "%.2f %s %s", $7, $8, $9 }'
    }
    today=$(speedup --eta-flops 0.5 | cut -d' ' -f1)
    set -- $(speedup)
    band=$(awk -v l="$2" -v h="$3" 'BEGIN { printf "%.2f-%.2f", l, h }')
    shipped=$1 loop=-
    [ "$engine" = - ] || loop=$(speedup --engine "$engine" | cut -d' ' -f1)
    looped="-"
    [ "$loop" = - ] || looped="${loop}x ($(pct "$loop" "$measured"), $engine)"
    echo "| $id | $setting | $stated_as $stated (alpha $alpha) | ${measured}x | ${today}x ($(pct "$today" "$measured")) | ${shipped}x ($(pct "$shipped" "$measured"); band $band) | $looped |"
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$source $draft batch $batch" "$gamma" "$measured" "$shipped" \
        "$([ "$loop" = - ] && echo "$shipped" || echo "$loop")" "$engine" >>"$tmp/sweeps"
done

# each gamma sweep (a source's rows at one batch over several gamma): the gamma the engine measured
# best, and the one specdec picks among the same gammas (with the engine's loop where it has one)
echo
echo "| gamma sweep | gammas | measured best | specdec picks (shipped) | specdec picks (with the engine's loop) |"
echo "|---|---|---:|---:|---:|"
awk -F'\t' '
    { n[$1]++; g[$1] = g[$1] (n[$1] > 1 ? "," : "") $2
      if (!($1 in bm) || $3 > bm[$1]) { bm[$1] = $3; gm[$1] = $2 }
      if (!($1 in bs) || $4 > bs[$1]) { bs[$1] = $4; gs[$1] = $2 }
      if (!($1 in bl) || $5 > bl[$1]) { bl[$1] = $5; gl[$1] = $2 }
      e[$1] = $6; order[$1] = order[$1] ? order[$1] : ++k; key[k] = $1 }
    END { for (i = 1; i <= k; i++) { s = key[i]; if (n[s] < 3) continue
          printf "| %s | %s | %s | %s | %s |\n", s, g[s], gm[s], gs[s], e[s] == "-" ? "-" : gl[s] } }
' "$tmp/sweeps"
