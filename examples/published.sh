#!/bin/sh
# published.sh -- specdec's roofline against the published measurements in
# data/published-measurements.tsv: one Markdown row per measurement with
# specdec's prediction at the defaults (eta_F 0.5, eta_BW 0.8, t0 20 us).
#
# usage: sh examples/published.sh [SPECDEC] [DATA_DIR]
#   (defaults: build/specdec and data/ of this checkout)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
specdec=${1:-$here/build/specdec}
data=${2:-$here/data}
echo "| id | setting | measured | specdec | difference |"
echo "|---|---|---:|---:|---:|"
grep -v '^#' "$data/published-measurements.tsv" | tail -n +2 |
while IFS="$(printf '\t')" read -r id source kind target draft hw tp batch context gamma alpha window measured; do
    setting="$target, $hw x $tp, batch $batch, context $context"
    if [ "$kind" = step_ms ]; then
        got=$("$specdec" --data "$data" roofline --eta-flops 0.5 --target "$target" --draft "$target" --hardware "$hw" --tp "$tp" \
            --batch "$batch" --context "$context" --breakdown --format tsv |
            awk -F'\t' '$1 == "target" && $6 == "total" { printf "%.2f", $10 * 1000 }')
        unit=" ms"
    else
        setting="$setting, $draft draft (window $window), gamma $gamma, alpha $alpha"
        got=$("$specdec" --data "$data" roofline --eta-flops 0.5 --target "$target" --draft "$draft" --draft-kv-window "$window" \
            --hardware "$hw" --tp "$tp" --batch "$batch" --context "$context" --gamma "$gamma" --alpha "$alpha" \
            --format tsv | awk -F'\t' 'NR == 2 { printf "%.2f", $8 }')
        unit="x"
    fi
    diff=$(awk -v a="$got" -v b="$measured" 'BEGIN { printf "%+.0f%%", 100 * (a - b) / b }')
    echo "| $id ($source) | $setting | $measured$unit | $got$unit | $diff |"
done
