#!/bin/sh
# submit.sh -- the sweep as a Slurm array of SHARDS tasks, then the merge as a
# job that starts only when every task has succeeded.
#   SHARDS=32 sh submit.sh
set -eu
cd "$(dirname "$0")"
shards=${SHARDS:-16}
job=$(sbatch --parsable --array="1-$shards" shards.sbatch)
sbatch --dependency="afterok:${job%%;*}" merge.sbatch
