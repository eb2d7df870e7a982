#!/bin/sh
# serving-published.sh -- specdec serving against the published measurements of speculative decoding
# under load in data/published-serving.tsv: one Markdown row per measurement, the simulated mean TPOT
# (a closed loop of the row's users, the shipped calibration, the acceptance from the stated mean length;
# --memory-fraction 0.96: vLLM's 0.9 of the H100's 80 GiB, which the preset counts as 80e9 bytes).
#
# usage: sh examples/serving-published.sh [SPECDEC] [DATA_DIR]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
specdec=${1:-$here/build/specdec}
data=${2:-$here/data}
tab=$(printf '\t')
echo "| id | setting | measured TPOT | specdec TPOT | difference |"
echo "|---|---|---:|---:|---:|"
grep -v '^#' "$data/published-serving.tsv" | tail -n +2 |
while IFS="$tab" read -r id source target draft hw tp users prompt output gamma mean_length tpot; do
    alpha=0.5
    if [ "$gamma" != 0 ]; then
        alpha=$("$specdec" metrics --mean-acceptance-length "$mean_length" --gamma "$gamma" --format tsv |
            awk -F'\t' 'NR == 2 { printf "%.4f", $1 }')
    fi
    got=$("$specdec" --data "$data" serving --target "$target" --draft "$draft" --hardware "$hw" --tp "$tp" \
        --users "$users" --prompt "$prompt" --output "$output" --gamma "$gamma" --alpha "$alpha" --memory-fraction 0.96 \
        --requests 2000 --replications 2 --format tsv | awk -F'\t' 'NR == 2 { printf "%.2f", $9 * 1000 }')
    spec="no speculation"
    [ "$gamma" = 0 ] || spec="gamma $gamma, mean length $mean_length (alpha $alpha)"
    diff=$(awk -v a="$got" -v b="$tpot" 'BEGIN { printf "%+.0f%%", 100 * (a - b) / b }')
    echo "| $id ($source) | $target + $draft, $hw x $tp, $users users, $prompt + $output tokens, $spec | $tpot ms | $got ms | $diff |"
done
