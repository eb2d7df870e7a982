#!/bin/sh
# cli.sh -- golden and invalid-input tests of the specdec program.
#
# usage: sh tests/cli.sh PATH/TO/specdec    (from any folder)
#        UPDATE=1 sh tests/cli.sh ...       rewrites the golden files
#
# Every case runs twice: from the repository root and from / (the program
# must find its data from anywhere), each under a timeout of CASE_TIMEOUT
# seconds (default 120), so that a hang fails instead of stalling.
# CLI_WHERE=slash runs them from / only and CLI_WHERE=root from the root only:
# make check runs the first, its sanitizer pass the second, so that each case
# runs from both places once rather than twice in each pass.
#
# Each line of tests/cli/cases is  STATUS|NAME|PATTERN|ARGUMENTS.
# A case passes when the exit status is STATUS and
#   - STATUS 0: stderr is empty, and stdout equals tests/cli/golden/NAME.out
#     when that file exists (otherwise stdout is non-empty and, when PATTERN
#     is given, has a line matching it);
#   - STATUS != 0: stdout is empty and stderr is exactly one line matching
#     the extended regular expression PATTERN.
# ARGUMENTS are word-split by the shell; $T is a scratch folder holding the
# files made below and $D the repository's data/ folder.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SPECDEC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
CASES=$ROOT/tests/cli/cases
GOLDEN=$ROOT/tests/cli/golden
D=$ROOT/data
CASE_TIMEOUT=${CASE_TIMEOUT:-120}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

printf '0.5\n0.5x\n' > "$T/garbage.txt"
printf '0.5\n-0.5\n1\n' > "$T/negative.txt"
printf '0.5\n0.6\n' > "$T/sum.txt"
printf '0.2\n0.3\n0.5\n' > "$T/three.txt"
printf '0.5\n0.5\n' > "$T/two.txt"
printf '0.5\nnan\n' > "$T/nan.txt"
printf '# nothing\n' > "$T/empty.txt"
printf 'name\talpha\tcost\tgamma\tspeed\na\t0.5\t0.1\t3\t2\n' > "$T/scen-extra.tsv"
printf 'name\talpha\tcost\na\t0.5\t0.1\n' > "$T/scen-nogamma.tsv"
printf '# a comment\nname\talpha\tcost\na\t0.5\t0.1\nb\t1.5\t0.1\n' > "$T/scen-bad.tsv"
printf 'name\talpha\tcost\na\t0.5\n' > "$T/scen-short.tsv"
HW='name\ttflops_bf16\tbandwidth_tbs\tmemory_gb\tlink_gbs\tlink_latency_us\n'
printf "${HW}x\t100\t2\t80\t450\t3\ny\t100\t0\t80\t450\t3\n" > "$T/hw-bad.tsv"
printf "${HW}x\t100\t2\t80\t450\n" > "$T/hw-short.tsv"
printf "${HW}x\t1e300\t2\t80\t450\t3\n" > "$T/hw-huge.tsv"
printf 'context\talpha\n1024\t0.8\n512\t0.7\n' > "$T/alpha-unsorted.tsv"
printf 'model\thardware\tbatch\tcontext\ttokens\tseconds\nllama-3.1-8b\th100-sxm\t1\t1024\t1\t0\n' > "$T/times-zero.tsv"
printf 'model\thardware\tbatch\tcontext\ttokens\tseconds\nllama-3.1-8b\th100-sxm\t1\t1024\t1\t0.006\n' > "$T/times-one.tsv"
printf 'model\thardware\tbatch\tcontext\ttokens\tseconds\ngpt-9\th100-sxm\t1\t1024\t1\t0.006\n' > "$T/times-unknown.tsv"
# the fixture's times made 20 times shorter: faster than any efficiency allows
awk -F'\t' 'BEGIN { OFS = "\t" } /^#/ { next } NR > 1 && $1 != "model" { $7 = $7 / 20 } { print }' \
    "$ROOT/tests/fixtures/step-times-h100.tsv" > "$T/times-fast.tsv"
# a vocabulary of 10^6 tokens (sample once searched ranks in O(V^2))
awk 'BEGIN { for (i = 0; i < 1000000; i++) print 0.000001 }' > "$T/million.txt"
# ---- issue 13: .npy pairs written from NumPy's format documentation (numpy.lib.format,
# NEP 1): "\x93NUMPY", version 1.0, the uint16 little-endian header length, the dict
# padded with spaces to a multiple of 64 bytes and ended by '\n', then IEEE half
# floats (little-endian: 0x3800 = 0.5 is \000\070, 0x3400 = 0.25, 0x3000 = 0.125).
npy_f2() { # npy_f2 FILE SHAPE FORTRAN DATA: DATA as printf escapes
    dict="{'descr': '<f2', 'fortran_order': $3, 'shape': $2, }"
    len=${#dict}
    pad=$(( (64 - (10 + len + 1) % 64) % 64 ))
    hlen=$((len + pad + 1))
    { printf '\223NUMPY\001\000'
      printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
      printf '%s' "$dict"
      printf "%${pad}s\n" ""
      printf "$4"; } > "$1"
}
# rows (0.5, 0.25, 0.125, 0.125), (0.25, 0.25, 0.25, 0.25) and (0.25, 0.5, 0.125, 0.125),
# (0.5, 0.25, 0.125, 0.125): beta 0.75 in both rows, p(argmax q) 0.25 in both
npy_f2 "$T/p.npy" '(2, 4)' False '\000\070\000\064\000\060\000\060\000\064\000\064\000\064\000\064'
npy_f2 "$T/q.npy" '(2, 4)' False '\000\064\000\070\000\060\000\060\000\070\000\064\000\060\000\060'
npy_f2 "$T/fortran.npy" '(2, 4)' True '\000\070\000\064\000\060\000\060\000\064\000\064\000\064\000\064'
npy_f2 "$T/short.npy" '(2, 4)' False '\000\070\000\064\000\060'
npy_f2 "$T/one.npy" '(4,)' False '\000\070\000\064\000\060\000\060'
F=$ROOT/tests/fixtures
# the engine's counters in vLLM's exposition format, for the fit round trip
"$SPECDEC" simulate --vocab 200 --alpha 0.7 --gamma 5 --tokens 200000 --export-prometheus "$T/engine.prom" > /dev/null
# issue 20: a llama-server request line with a mean length but no per-position rates (the
# format of tools/server/server-context.cpp, server_slot::print_timings): 50 accepted of 100
# drafted tokens in 50 / (2 - 1) = 50 drafts, every one 2 tokens long, so alpha + alpha^2 = 1
printf 'slot print_timings: id  0 | task 7 | draft acceptance = 0.50000 (   50 accepted /   100 generated), mean len =  2.00\n' > "$T/llama-mean.log"
printf 'vllm:spec_decode_num_drafts_total 10\nllamacpp:spec_decode_num_drafts_total 10\n' > "$T/mixed.prom"
# TensorRT-LLM's iteration counters alone (tensorrt_llm/metrics/collector.py): no drafts counter
printf 'trtllm_spec_decode_num_draft_tokens_total 300.0\ntrtllm_spec_decode_num_accepted_tokens_total 170.0\n' > "$T/trtllm-iter.prom"
# SGLang's two gauges of an older server: len 2, rate 0.5 fit version A with gamma 3 and B with 2
printf 'sglang:spec_accept_length 2.0\nsglang:spec_accept_rate 0.5\n' > "$T/sglang-ambiguous.prom"
# tree acceptance by depth (tree.h): 1 + 0.5 + 0.5 x 0.3 + 0.5 x 0.3 x 0.3 = 1.695 for chain:3
printf 'depth\tp_0\tp_1\n1\t0.5\t0.2\n2\t0.3\t0.1\n' > "$T/tree-acc.tsv"
printf 'depth\tp_0\n1\t0.5\n3\t0.3\n' > "$T/tree-acc-bad.tsv"
# almost nothing accepted: no gamma beats plain decoding at c = 0.5
printf 'gamma\tdrafts\taccepted_1\n1\t1000\t20\n' > "$T/counts-hopeless.tsv"
# the JSON readers' bad inputs (src/counters/vllm_request.c, llama_timings.c, sglang_request.c,
# speculation_profile.c): each contradicts its own definition on the line named
printf '{"metrics": {"speculative_decoding": {"acceptance_histogram": [2, 3, 1], "num_spec_steps": 6}}}\n{"metrics": {"speculative_decoding": {"acceptance_histogram": [1, 2, 3], "num_spec_steps": 7}}}\n' > "$T/vllm-request-bad.jsonl"
printf '[\n{"timings": {"predicted_n": 9, "draft_n": 3, "draft_n_accepted": 4}}\n]\n' > "$T/llama-timings-bad.json"
printf '{"meta_info": {"spec_verify_ct": 3, "spec_num_correct_drafts": 1, "spec_correct_drafts_histogram": [1, 1]}}\n' > "$T/sglang-request-bad.json"
printf '{"schema_version": "1.0", "measured": true, "num_speculative_tokens": 3,\n "marginal_accept_rates": [0.6, 0.3, 0.0],\n "mean_accept_length": 1.95}\n' > "$T/profile-bad.json"
# an engine profile (loop.h) of a drafter kind specdec does not know
printf 'engine\tdrafter\tsource\tdraft_step_ms\tdraft_step_seq_us\titeration_ms\titeration_token_us\thost_seq_us\tverify_premium\tcatch_up\nx\tmedusa\ts\t0\t0\t1\t0\t0\t0\toff\n' > "$T/engine-profiles-bad.tsv"
# a mean length above what 3 drafts can emit
printf 'gamma\tmean_length\n3\t5\n' > "$T/mean-length-above.tsv"
# an engine with a profile for n-gram drafting only
printf 'engine\tdrafter\tsource\tdraft_step_ms\tdraft_step_seq_us\titeration_ms\titeration_token_us\thost_seq_us\tverify_premium\tcatch_up\nx\tngram\ts\t0\t0\t1\t0\t0\t0\toff\n' > "$T/engine-profiles-ngram.tsv"
# fit --export-profile's file, read back by the speculation-profile reader
"$SPECDEC" fit "$F/counters-vllm-v1.log" --export-profile "$T/profile.json" > /dev/null

pass=0
fail=0
for w in root slash; do
[ "$w" = slash ] && [ "${CLI_WHERE:-both}" = root ] && continue
[ "$w" = root ] && [ "${CLI_WHERE:-both}" = slash ] && continue
where=$ROOT
[ "$w" = slash ] && where=/
while IFS='|' read -r status name pattern args; do
    case "$status" in '#'*|'') continue ;; esac
    eval "set -- $args"
    (cd "$where" && exec timeout "$CASE_TIMEOUT" "$SPECDEC" "$@") > "$T/out" 2> "$T/err"
    got=$?
    why=""
    if [ "$got" -eq 124 ]; then
        why="timed out after $CASE_TIMEOUT s"
    elif [ "$got" -ne "$status" ]; then
        why="exit status $got, expected $status"
    elif [ "$status" -eq 0 ]; then
        if [ -s "$T/err" ]; then
            why="unexpected stderr: $(head -n 1 "$T/err")"
        elif [ "${UPDATE:-0}" = 1 ] && [ -f "$GOLDEN/$name.out" ]; then
            cp "$T/out" "$GOLDEN/$name.out"
        elif [ -f "$GOLDEN/$name.out" ]; then
            cmp -s "$T/out" "$GOLDEN/$name.out" || why="stdout differs from $GOLDEN/$name.out: $(diff "$GOLDEN/$name.out" "$T/out" | head -n 3 | tr '\n' ' ')"
        elif [ ! -s "$T/out" ]; then
            why="empty stdout"
        elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$T/out"; then
            why="stdout '$(head -n 1 "$T/out")' does not match '$pattern'"
        fi
    else
        if [ -s "$T/out" ]; then
            why="stdout not empty on error"
        elif [ "$(wc -l < "$T/err")" -ne 1 ]; then
            why="stderr has $(wc -l < "$T/err") lines, expected 1"
        elif ! grep -Eq -- "$pattern" "$T/err"; then
            why="stderr '$(cat "$T/err")' does not match '$pattern'"
        fi
    fi
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $name (from $where): $why"
    fi
done < "$CASES"
done
# examples/published.sh: one row per published step time and speed-up, each with specdec's numbers
# (a percentage against the measurement in every prediction column).
sh "$ROOT/examples/published.sh" "$SPECDEC" "$D" > "$T/out" 2> "$T/err"
got=$?
want=$(for f in published-steps published-speedups; do grep -v '^#' "$D/$f.tsv" | tail -n +2; done | wc -l)
rows=$(grep -c '^| [DSVE][0-9]' "$T/out")
short=$(awk '/^\| [DSVE][0-9]/ && gsub(/%[);]/, "&") < 2' "$T/out" | wc -l)
# each gamma sweep (3 rows or more of one source, drafter and batch): its measured best and specdec's picks
sweeps=$(grep -Ec '^\| [a-z0-9.-]+ [a-z0-9.-]+ batch [0-9]+ \| [0-9,]+ \| [0-9]+ \| [0-9]+ \| ([0-9]+|-) \|$' "$T/out")
if [ "$got" -eq 0 ] && [ ! -s "$T/err" ] && [ "$rows" -eq "$want" ] && [ "$want" -ge 50 ] && [ "$short" -eq 0 ] &&
   [ "$sweeps" -ge 2 ] && ! grep -q '| ms\|| x\|nan\|inf' "$T/out"; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL published.sh: exit $got, $rows rows of $want, $short without predictions, $sweeps gamma sweeps, stderr '$(head -n 1 "$T/err")'"
fi

# examples/serving-published.sh: one row per published measurement under load, each with specdec's
# TPOT or latency; the rows fitted to what a source does not state (its output length, acceptance) match
# their measurement (the simulation at the twin's solution, within 5%), and there are 5 of them.
sh "$ROOT/examples/serving-published.sh" "$SPECDEC" "$D" > "$T/out" 2> "$T/err"
got=$?
want=$(grep -v '^#' "$D/published-serving.tsv" | tail -n +2 | wc -l)
rows=$(grep -Ec '^\| [LBNS][0-9]+ \(.* \| ((tpot|e2e) [0-9.]+ ms \| [0-9.]+ ms|speedup [0-9.]+x \| [0-9.]+x) \| [-+][0-9]+%( \(fitted: [a-z_, ]+\))? \|$' "$T/out")
fitted=$(grep -c '(fitted: ' "$T/out")
far=$(grep '(fitted: ' "$T/out" | awk -F'|' '{ d = $6; gsub(/[^-+0-9].*/, "", d); sub(/^ */, "", d); if (d + 0 > 5 || d + 0 < -5) n++ } END { print n + 0 }')
if [ "$got" -eq 0 ] && [ ! -s "$T/err" ] && [ "$rows" -eq "$want" ] && [ "$want" -ge 3 ] && [ "$fitted" -eq 5 ] &&
    [ "$far" -eq 0 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL serving-published.sh: exit $got, $rows rows of $want, $fitted fitted ($far off by > 5%), stderr '$(head -n 1 "$T/err")'"
fi

# The shipped calibration is the fit of the shipped data: refitting published-steps.tsv by family
# gives cost-defaults.tsv's cells (text alike, numbers within 1e-9 relative: other compilers' rounding).
"$SPECDEC" --data "$D" roofline --calibrate "$D/published-steps.tsv" --calibrate-by family \
    --save-calibration "$T/fresh.tsv" > /dev/null 2> "$T/err"
got=$?
differ=$(awk -F'\t' 'NR == FNR { for (i = 1; i <= NF; i++) a[FNR, i] = $i; n[FNR] = NF; next }
    { if (NF != n[FNR]) { bad++; next }
      for (i = 1; i <= NF; i++) { x = a[FNR, i]; y = $i
          if (x == y) continue
          if (x + 0 == x && y + 0 == y && (x - y) * (x - y) <= 1e-18 * (x * x + y * y)) continue
          bad++ } }
    END { print bad + 0 + (FNR != length(n)) }' "$T/fresh.tsv" "$D/cost-defaults.tsv")
if [ "$got" -eq 0 ] && [ "$differ" -eq 0 ] && [ "$(wc -l < "$T/fresh.tsv")" -ge 5 ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL shipped-calibration: exit $got, $differ cells differ from a fresh fit of published-steps.tsv, stderr '$(head -n 1 "$T/err")'"
fi
# ... and a control: one step time changed by 20% must move the fit
awk -F'\t' 'BEGIN { OFS = FS } $1 == "D20" { $10 *= 1.2 } { print }' "$D/published-steps.tsv" > "$T/moved.tsv"
"$SPECDEC" --data "$D" roofline --calibrate "$T/moved.tsv" --calibrate-by family --save-calibration "$T/moved-fit.tsv" > /dev/null 2>&1
if ! cmp -s "$T/moved-fit.tsv" "$D/cost-defaults.tsv" && [ -s "$T/moved-fit.tsv" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL shipped-calibration control: a changed step time left the fit as shipped"
fi

# Without gnuplot the figure's data and script are still written, one line
# says how to install gnuplot, and the exit status is 1.
env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot expected-tokens --out "$T/nognuplot" > "$T/out" 2> "$T/err"
got=$?
if [ "$got" -eq 1 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" -eq 1 ] &&
   grep -q 'apt-get install gnuplot-nox' "$T/err" &&
   [ -s "$T/nognuplot/expected-tokens.dat" ] && [ -s "$T/nognuplot/expected-tokens.gp" ]; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    echo "FAIL plot-without-gnuplot: exit $got, stderr '$(cat "$T/err")'"
fi

# Every figure's script (written without gnuplot, as png and as svg) sets the
# size, the font and its output, a title, both axes and a legend, and reads
# its own data file.  The figures are those of 'plot --help'; the Monte Carlo
# ones run with fewer tokens (the others refuse --tokens, and run without).
figure_run() { # NAME FORMAT: runs the figure into $T/scripts without gnuplot
    env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot "$1" --format "$2" \
        --out "$T/scripts" --tokens 20000 > "$T/out" 2> "$T/err"
    if grep -q -- '--tokens: the figure .* does not take it' "$T/err"; then
        env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot "$1" --format "$2" \
            --out "$T/scripts" > "$T/out" 2> "$T/err"
    fi
    if grep -q -- '--input: the figure .* give the file' "$T/err"; then # fit draws a counters file
        env PATH=/nonexistent "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot "$1" --format "$2" \
            --out "$T/scripts" --input "$F/counters-vllm-v1.log" > "$T/out" 2> "$T/err"
    fi
}
"$SPECDEC" plot --help | awk '/^figures/ { on = 1; next } on && /^  [a-z]/ { print $1 }' > "$T/figure-names"
[ -s "$T/figure-names" ] || { fail=$((fail + 1)); echo "FAIL plot-scripts: no figures in 'plot --help'"; }
while read -r fig; do
    why=""
    for fmt in png svg; do
        figure_run "$fig" "$fmt"
        gp=$T/scripts/$fig.gp
        if ! grep -q 'apt-get install gnuplot-nox' "$T/err"; then
            why="$fmt: $(cat "$T/err")"
        elif ! grep -Fq "set output \"$fig.$fmt\"" "$gp"; then
            why="$fmt: no 'set output \"$fig.$fmt\"'"
        fi
        [ -z "$why" ] || break
    done
    for want in 'size 1200,800' 'font "DejaVu Sans,16"' "\"$fig.dat\""; do
        [ -n "$why" ] || grep -Fq -- "$want" "$gp" || why="no '$want'"
    done
    for want in title xlabel ylabel; do # the preamble always writes them: they must say something
        [ -n "$why" ] || grep -Eq "^set $want \".{3,}\"|^unset $want\$" "$gp" || why="an empty $want"
    done
    [ -n "$why" ] || grep -Eq 'title "|set cblabel' "$gp" || why="no legend (title \" or set cblabel)"
    [ -n "$why" ] || [ "$(head -c 10 "$T/scripts/$fig.dat")" = "# specdec " ] || why="$fig.dat lacks its comment line"
    if [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL plot-script $fig: $why"
    fi
done < "$T/figure-names"

# With gnuplot, a figure is a 1200 x 800 PNG (the size in its IHDR chunk).
if command -v gnuplot > /dev/null 2>&1; then
    "$(command -v timeout)" "$CASE_TIMEOUT" "$SPECDEC" plot expected-tokens --out "$T/drawn" > "$T/out" 2> "$T/err"
    got=$?
    size=$(od -An -tx1 -j16 -N8 "$T/drawn/expected-tokens.png" 2>/dev/null | tr -d ' \n')
    if [ "$got" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(head -c 4 "$T/drawn/expected-tokens.png" | tail -c 3)" = PNG ] &&
       [ "$size" = 000004b000000320 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL plot-png-size: exit $got, IHDR size bytes '$size' (want 1200 x 800), stderr '$(cat "$T/err")'"
    fi
fi

# ---- statistical assertions paired with the Monte Carlo goldens (tests/cli/stats) ----

# The case's arguments with its --format replaced by tsv, run into $T/stat.tsv.
rerun_tsv() { # rerun_tsv ARGS...
    n=$#
    i=0
    skip=0
    for a in "$@"; do
        i=$((i + 1))
        if [ "$skip" = 1 ]; then skip=0; elif [ "$a" = --format ]; then skip=1; else set -- "$@" "$a"; fi
        [ "$i" -eq "$n" ] && break
    done
    shift "$n"
    timeout "$CASE_TIMEOUT" "$SPECDEC" "$@" --format tsv > "$T/stat.tsv" 2> /dev/null
}

# awk over $T/stat.tsv with the columns named by the header: col["name"].
stat_awk() { # stat_awk PROGRAM [VAR=VALUE...]
    prog=$1
    shift
    awk -F '\t' "$@" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } '"$prog" "$T/stat.tsv"
}

# eq. (4) and the ceiling, for the checks below (awk has no expm1; alpha < 1 here)
EN='function en(a, g) { return a >= 1 ? g + 1 : (1 - a ^ (g + 1)) / (1 - a) }'
SIMZ="$EN"'
{ a = $col["alpha_hat"] - shift; g = $col["gamma"]; se = $col["tokens_per_iteration_se"]
  th = $col["policy"] == "oracle" ? 1 / (1 - a) : en(a, g)
  z = ($col["tokens_per_iteration"] - th) / se; if (z < 0) z = -z
  if (z > 6) bad++
  if (shift == 0 && $col["output_pvalue"] < 1e-7) bad++ }
END { exit bad > 0 }'
SAMPLE='{ n = draws; e = $col[against]; sd = sqrt(e * (1 - e) / n); d = $col["observed"] - e; if (d < 0) d = -d
  if (d > 6 * sd + 1e-12) bad++
  if (lossless && ($col["expected"] - $col["p"] > 1e-12 || $col["p"] - $col["expected"] > 1e-12)) bad++ }
END { exit bad > 0 }'
PVALUE='{ if ($col["output_pvalue"] < 1e-7) bad++ } END { exit bad > 0 }'

stat_check() { # stat_check NAME KIND ARGS... : sets why (empty when the check and its control hold)
    name=$1 kind=$2
    shift 2
    why=""
    rerun_tsv "$@" || { why="the tsv rerun failed"; return; }
    case "$kind" in
    sample)
        draws=1000000
        prev=""
        for a in "$@"; do [ "$prev" = --draws ] && draws=$a; prev=$a; done
        lossless=1
        case " $* " in *" --verify target "*) lossless=0 ;; esac
        stat_awk "$SAMPLE" -v draws="$draws" -v against=expected -v lossless="$lossless" ||
            why="observed tokens differ from the rule's expected distribution (6 sd), or a lossless rule's is not p"
        if [ -z "$why" ] && [ "$lossless" = 0 ] && stat_awk "$SAMPLE" -v draws="$draws" -v against=p -v lossless=0; then
            why="control missed: the target rule's output passes as p"
        fi ;;
    simulate)
        stat_awk "$SIMZ" -v shift=0 || why="tokens per iteration or the output p-value is off (6 SE, 1e-7)"
        if [ -z "$why" ] && stat_awk "$SIMZ" -v shift=0.05; then why="control missed: alpha_hat - 0.05 passes"; fi ;;
    block | output)
        if [ "$kind" = block ]; then
            stat_awk "$EN"' { th = en($col["alpha_hat"], $col["gamma"])
                if ($col["tokens_per_iteration"] < th - 6 * $col["tokens_per_iteration_se"]) bad++ } END { exit bad > 0 }' ||
                why="block verification emits fewer tokens than token-wise eq. (4) (6 SE)"
        fi
        [ -z "$why" ] && { stat_awk "$PVALUE" || why="output p-value below 1e-7"; }
        if [ -z "$why" ]; then # control: the biased rule, 10x the tokens, must be caught by the same test
            set -- "$@" --verify target
            prev="" tokens=1000000
            for a in "$@"; do [ "$prev" = --tokens ] && tokens=$a; prev=$a; done
            set -- "$@" --tokens $((tokens * 10))
            rerun_tsv "$@" && stat_awk "$PVALUE" && why="control missed: --verify target passes the output test"
        fi ;;
    markov)
        g=$(stat_awk '{ print $col["gamma"] }')
        exact=$(timeout "$CASE_TIMEOUT" "$SPECDEC" markov --alpha-easy 0.95 --alpha-hard 0.3 --stay 0.9 --gamma "$g" --format tsv |
                awk -F '\t' 'NR == 2 { print $6 }')
        stat_awk '{ z = ($col["tokens_per_iteration"] - exact) / $col["tokens_per_iteration_se"]; if (z < 0) z = -z
                    if (z > 6 || $col["output_pvalue"] < 1e-7) bad++ } END { exit bad > 0 }' -v exact="$exact" ||
            why="tokens per iteration differ from the transfer-matrix E(N) $exact (6 SE)"
        if [ -z "$why" ] && stat_awk "$SIMZ" -v shift=0; then why="control missed: the i.i.d. eq. (4) passes"; fi ;;
    policies)
        POL="$EN"' NR == 2 { z = ($col["tokens_per_iteration"] - en(alpha, $col["parameter"])) / $col["tokens_per_iteration_se"]
                  if (z < 0) z = -z; exit z > 6 }'
        stat_awk "$POL" -v alpha=0.8 || why="the fixed gamma* row differs from eq. (4) at alpha 0.8 (6 SE)"
        if [ -z "$why" ] && stat_awk "$POL" -v alpha=0.75; then why="control missed: alpha 0.75 passes"; fi ;;
    *) why="unknown kind $kind" ;;
    esac
}

while IFS='|' read -r name kind; do
    case "$name" in '#'*|'') continue ;; esac
    args=$(awk -F '|' -v n="$name" '$2 == n { sub(/^[^|]*\|[^|]*\|[^|]*\|/, ""); print; exit }' "$CASES")
    if [ -z "$args" ]; then
        fail=$((fail + 1)); echo "FAIL stats $name: no such case in $CASES"; continue
    fi
    eval "set -- $args"
    stat_check "$name" "$kind" "$@"
    if [ -z "$why" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL stats $name ($kind): $why"; fi
done < "$ROOT/tests/cli/stats"

# A help text that cannot be written is an error with its reason, not a silent exit 1.
for args in "--help" "speedup --help" "--version"; do
    # shellcheck disable=SC2086
    timeout "$CASE_TIMEOUT" "$SPECDEC" $args > /dev/full 2> "$T/err"
    got=$?
    if [ "$got" -eq 1 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q '^specdec: cannot write to standard output: ' "$T/err"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL $args > /dev/full: exit $got, stderr '$(cat "$T/err")'"
    fi
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
