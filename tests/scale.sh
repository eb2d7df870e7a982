#!/bin/sh
# scale.sh -- Monte Carlo beyond one process: shards merged equal the
# unsharded run bit for bit (1, 2, 3 and 7 shards, several thread counts,
# simulate, policies, sample, validate, serving and a sweep), merge refuses what is
# not one job, and GNU parallel runs the shards when it is installed.
#
# usage: sh tests/scale.sh PATH/TO/specdec   (from any folder)
#
# Outputs are compared as TSV (every digit printed) with the threads column
# removed: the unsharded run prints the thread count it used.
set -u
SPECDEC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
# drop_threads FILE: the TSV without its "threads" column
drop_threads() {
    awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "threads") skip = i }
                { out = ""; for (i = 1; i <= NF; i++) if (i != skip) out = out (out == "" && i == 1 ? "" : "\t") $i; print out }' "$1"
}
# same NAME WHOLE MERGED: the two outputs agree but for the threads column
same() {
    drop_threads "$2" > "$T/a" && drop_threads "$3" > "$T/b"
    if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then ok; else bad "$1: merged output differs: $(diff "$T/a" "$T/b" | head -n 3 | tr '\n' ' ')"; fi
}

SIM="simulate --vocab 300 --alpha 0.6,0.85 --gamma 2,6 --regime beta --tokens 120000"
"$SPECDEC" $SIM --threads 2 --format tsv > whole.tsv || bad "simulate: the unsharded run failed"
for n in 1 2 3 7; do
    rm -f part.*
    i=1
    while [ "$i" -le "$n" ]; do
        "$SPECDEC" $SIM --threads $(( (i % 3) + 1 )) --shard "$i/$n" > "part.$i" || bad "simulate --shard $i/$n failed"
        i=$((i + 1))
    done
    "$SPECDEC" merge part.* --format tsv > merged.tsv || bad "merge of $n simulate shards failed"
    same "simulate, $n shards" whole.tsv merged.tsv
done
# the parts in one stream, in another order, from standard input
cat part.7 part.3 part.1 part.2 part.6 part.5 part.4 | "$SPECDEC" merge - --format tsv > merged.tsv
same "simulate, 7 shards from stdin" whole.tsv merged.tsv

# policies (many engine runs per job), sample (blocks of draws), validate (its table and verdict)
"$SPECDEC" policies --cost 0.05 --vocab 100 --tokens 30000 --gamma-max 6 --format tsv > whole.tsv
for i in 1 2 3; do "$SPECDEC" policies --cost 0.05 --vocab 100 --tokens 30000 --gamma-max 6 --threads 1 --shard "$i/3" > "pol.$i"; done
"$SPECDEC" merge pol.1 pol.2 pol.3 --format tsv > merged.tsv
same "policies, 3 shards" whole.tsv merged.tsv
printf '0.1\n0.2\n0.3\n0.4\n' > p.txt
printf '0.4\n0.3\n0.2\n0.1\n' > q.txt
"$SPECDEC" sample p.txt q.txt --draws 3000000 --format tsv > whole.tsv
for i in 1 2; do "$SPECDEC" sample p.txt q.txt --draws 3000000 --shard "$i/2" > "sam.$i"; done
"$SPECDEC" merge sam.1 sam.2 --format tsv > merged.tsv
same "sample, 2 shards" whole.tsv merged.tsv
"$SPECDEC" validate --quick --only 1:7,17 --format tsv > whole.tsv
for i in 1 2 3; do "$SPECDEC" validate --quick --only 1:7,17 --threads 1 --shard "$i/3" > "val.$i"; done
"$SPECDEC" merge val.1 val.2 val.3 --format tsv > merged.tsv
got=$?
same "validate, 3 shards" whole.tsv merged.tsv
[ "$got" -eq 0 ] && ok || bad "merged validate exited $got"

# a sweep: one run per row, and the same split 4 ways
printf 'alpha\tgamma\tregime\n0.6\t3\tconstant\n0.8\t5\tbeta\n0.9\t7\tbeta\n' > sweep.tsv
"$SPECDEC" simulate --vocab 100 --tokens 60000 --sweep sweep.tsv --format tsv > whole.tsv
rows=$(tail -n +2 whole.tsv | wc -l)
[ "$rows" -eq 3 ] && ok || bad "sweep: $rows rows, not 3"
"$SPECDEC" simulate --vocab 100 --tokens 60000 --alpha 0.8 --gamma 5 --regime beta --format tsv > one.tsv
[ "$(sed -n 2p one.tsv)" = "$(sed -n 3p whole.tsv)" ] && ok || bad "sweep row 2 differs from its own run"
for i in 1 2 3 4; do "$SPECDEC" simulate --vocab 100 --tokens 60000 --sweep sweep.tsv --shard "$i/4" > "sw.$i"; done
"$SPECDEC" merge sw.* --format tsv > merged.tsv
same "sweep, 4 shards" whole.tsv merged.tsv

# serving: its replications split across shards (2 rates x 2 gammas x 3 replications = 12),
# and a sweep of serving rows
SRV="serving --target llama-3.1-8b --draft llama-3.2-1b --hardware h100-sxm --alpha 0.7 --rate 2,10 --gamma 0,3
     --requests 400 --replications 3"
"$SPECDEC" $SRV --format tsv > whole.tsv || bad "serving: the unsharded run failed"
for n in 1 2 5 13; do
    rm -f srv.*
    i=1
    while [ "$i" -le "$n" ]; do
        "$SPECDEC" $SRV --shard "$i/$n" > "srv.$i" || bad "serving --shard $i/$n failed"
        i=$((i + 1))
    done
    "$SPECDEC" merge srv.* --format tsv > merged.tsv || bad "merge of $n serving shards failed"
    same "serving, $n shards" whole.tsv merged.tsv
done
printf 'rate\tgamma\n3\t2\n6\tgoodput\n' > srv-sweep.tsv
SRVS="serving --target llama-3.1-8b --draft llama-3.2-1b --hardware h100-sxm --alpha 0.7 --requests 300
      --replications 2 --sweep srv-sweep.tsv"
"$SPECDEC" $SRVS --format tsv > whole.tsv
for i in 1 2 3; do "$SPECDEC" $SRVS --shard "$i/3" > "srvs.$i"; done
"$SPECDEC" merge srvs.1 srvs.2 srvs.3 --format tsv > merged.tsv
same "serving sweep, 3 shards" whole.tsv merged.tsv
[ "$(tail -n +2 whole.tsv | wc -l)" -eq 4 ] && ok || bad "serving sweep: not 2 rows of analytic and simulate each"

# merge refuses what is not one job: each with one line on stderr and exit 2
refuse() { # NAME PATTERN ARGS...
    name=$1 pattern=$2
    shift 2
    "$SPECDEC" "$@" > out 2> err
    got=$?
    if [ "$got" -eq 2 ] && [ ! -s out ] && [ "$(wc -l < err)" -eq 1 ] && grep -Eq -- "$pattern" err; then ok
    else bad "$name: exit $got, stderr '$(cat err)'"; fi
}
refuse "a missing shard" '^specdec: shard 2/4 is missing$' merge sw.1 sw.3 sw.4
refuse "a doubled shard" '^specdec: shard 3/4 is given twice' merge sw.1 sw.2 sw.3 sw.3 sw.4
"$SPECDEC" simulate --vocab 100 --tokens 60000 --sweep sweep.tsv --seed 8 --shard 2/4 > other.2
refuse "a part of another run" 'a part of another job than sw.1' merge sw.1 other.2 sw.3 sw.4
head -c 2000 sw.2 > cut.2
refuse "a truncated part" '^specdec: cut.2(:[0-9]+)?: ' merge sw.1 cut.2 sw.3 sw.4
refuse "not a partial" 'not a specdec partial result' merge sweep.tsv
refuse "an empty file" 'empty: no partial result' merge /dev/null
refuse "shard out of range" '^specdec: --shard: 5/4: shard 5 of 4 does not exist' simulate --vocab 50 --shard 5/4
refuse "shard and a table format" '^specdec: --shard: a shard prints a partial result' simulate --vocab 50 --shard 1/2 --format csv
refuse "partial from a closed form" '^specdec: --format: partial results come from' speedup --alpha 0.5 --cost 0.1 --format partial
printf 'shard\n1/2\n' > bad-sweep.tsv
refuse "a sweep column that cannot vary" "column 'shard' cannot vary" simulate --vocab 50 --sweep bad-sweep.tsv
printf 'alpha\n0.5\n1.5\n' > bad-alpha.tsv
refuse "a bad sweep value names its row" '^specdec: --alpha: 1.5 is outside \[0, 1\] \(sweep row at line 3\)$' simulate --vocab 50 --sweep bad-alpha.tsv

# serving: a slot two parts both claim, and a merge whose data changed since the shards ran
"$SPECDEC" $SRV --shard 1/2 > srv.1 && "$SPECDEC" $SRV --shard 2/2 > srv.2
awk '/^slot 0 / && !done { print; done = 1 }' srv.1 > slot0
awk -v s="$(cat slot0)" '/^replicas / && !done { print; print s; done = 1; next } { print }' srv.2 > srv.2dup
refuse "a replication two parts hold" '^specdec: replica set 1: slot 0 is given twice' merge srv.1 srv.2dup
mkdir -p moved && cp "$ROOT"/data/*.tsv moved/
SRVD="--data $T/moved $SRV"
"$SPECDEC" $SRVD --shard 1/2 > mv.1 && "$SPECDEC" $SRVD --shard 2/2 > mv.2
"$SPECDEC" merge mv.1 mv.2 --format tsv > merged.tsv && ok || bad "serving with --data: merge failed"
awk -F'\t' 'BEGIN { OFS = "\t" } $1 == "h100-sxm" { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.e+]+$/) { $i = $i * 2; break } } { print }' \
    "$ROOT/data/hardware.tsv" > moved/hardware.tsv
refuse "serving parts of other data" 'replication set 1 of the parts had another configuration' merge mv.1 mv.2

# examples/slurm: bash -n, then a dry run with the array variables set by hand
# (indices from 0, as --array=0-2 gives), a small sweep, and the merge job
SL=$ROOT/examples/slurm
if bash -n "$SL/shards.sbatch" && bash -n "$SL/merge.sbatch" && sh -n "$SL/submit.sh"; then ok; else bad "slurm scripts: syntax"; fi
printf 'alpha\tgamma\n0.7\t3\n0.85\t6\n' > slurm-sweep.tsv
for id in 0 1 2; do
    SLURM_ARRAY_TASK_ID=$id SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=1 \
        SPECDEC="$SPECDEC" SWEEP="$T/slurm-sweep.tsv" PARTS="$T/slurm-parts" TOKENS=100000 \
        bash "$SL/shards.sbatch" || bad "slurm dry run: task $id failed"
done
SPECDEC="$SPECDEC" PARTS="$T/slurm-parts" RESULT="$T/slurm-result.tsv" bash "$SL/merge.sbatch" > /dev/null ||
    bad "slurm dry run: the merge job failed"
"$SPECDEC" simulate --vocab 32000 --tokens 100000 --sweep slurm-sweep.tsv --format tsv > whole.tsv
same "slurm dry run, 3 tasks" whole.tsv slurm-result.tsv
if (unset SLURM_ARRAY_TASK_ID; bash "$SL/shards.sbatch" 2> err); then bad "shards.sbatch ran outside an array task"
elif grep -q 'not an array task' err; then ok; else bad "shards.sbatch outside an array task: '$(cat err)'"; fi

# GNU parallel, as the README shows (skipped, and said, when it is missing)
if command -v parallel > /dev/null 2>&1; then
    "$SPECDEC" simulate --vocab 300 --alpha 0.7 --gamma 4 --tokens 200000 --threads 2 --format tsv > whole.tsv
    parallel --will-cite "$SPECDEC" simulate --vocab 300 --alpha 0.7 --gamma 4 --tokens 200000 --threads 1 \
        --shard {}/4 ::: 1 2 3 4 | "$SPECDEC" merge - --format tsv > merged.tsv
    same "GNU parallel, 4 shards" whole.tsv merged.tsv
else
    echo "scale: GNU parallel is not installed (make deps installs it): its test is skipped"
fi

echo "scale: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
