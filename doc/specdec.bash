# bash completion for specdec(1)                              -*- shell-script -*-
#
# Install as PREFIX/share/bash-completion/completions/specdec, or source it:
#     . doc/specdec.bash
# Completes the global options and the commands, each command's options (as
# 'specdec COMMAND --help' prints them), the values of the options that take
# one of a list of names (--format, --verify, --input-format, ...), the figure
# names of 'plot', the presets of 'roofline', and file and folder names.
# tests/man.sh checks that every command and option of the program appears
# here, and that each list of names is the one 'specdec COMMAND --help' gives.

_specdec_commands="speedup optimal expect tree overlap metrics markov fit simulate policies sample validate merge roofline serving plot"

_specdec_global_options="--data --help --version"

# Options of simulate and policies that describe the model.
_specdec_model_options="--family --vocab --alpha --noise --regime --concentration --alpha-easy --alpha-hard --stay --zipf-s --kappa --temperature --contexts --history --p-file --q-file --verify --seed --max-memory"

_specdec_figures="improvement-vs-gamma improvement-vs-gamma-alpha expected-tokens optimal-gamma-map best-improvement-map flop-factor n-distribution monte-carlo adaptive-policies roofline-batch roofline-map verify-cost fit alpha-temperature tree-budget tree-speedup tree-drawn serving"

# Sampling settings of overlap and simulate (issue 13).
_specdec_sampling_options="--temperature --top-k --top-p --min-p --draft-temperature --draft-top-k --draft-top-p --draft-min-p"

# The cost options of every command the roofline presets cost (tree, fit, roofline, serving).
_specdec_cost_options="--granularity --tp --draft-kv-window --graphs --eta-flops --eta-bw --overhead --launch --calibration --engine --engine-profiles"

# Options that take no value; every other option takes one.
_specdec_flags="--help --quick --schedule --breakdown --list-models --list-hardware --per-row"

_specdec_options()
{
    case $1 in
    speedup)  echo "--alpha --cost --gamma --mu --from --acceptance --format --help" ;;
    optimal)  echo "--alpha --cost --from --acceptance --format --help" ;;
    expect)   echo "--alpha --gamma --format --help" ;;
    tree)     echo "--tree --optimal --budget --depth --sglang-grid --steps --topk --num-draft-tokens --alpha --acceptance-rank --acceptance-file --cost --target --draft --hardware --batch --context $_specdec_cost_options --format --help" ;;
    overlap)  echo "--drafts --p-npy --q-npy --input --per-row --ranks --children --export-acceptance $_specdec_sampling_options --format --help" ;;
    metrics)  echo "--alpha --mean-acceptance-length --acceptance-rate --gamma --export --acceptance --format --help" ;;
    markov)   echo "--alpha-easy --alpha-hard --stay --gamma --cost --format --help" ;;
    simulate) echo "--gamma --policy --threshold --gamma-max --drafts --tree --children --tokens --threads --export-prometheus --corpus --order --draft-order --export-npy --p-npy --q-npy --input ${_specdec_sampling_options#--temperature } $_specdec_model_options --shard --sweep --format --help" ;;
    fit)      echo "--input-format --select --since --gamma --gamma-max --cost --target --draft --hardware --batch --context --report --level --replicates --seed --export-profile $_specdec_cost_options --format --help" ;;
    policies) echo "--cost --gamma-max --thresholds --tokens --threads $_specdec_model_options --shard --sweep --format --help" ;;
    sample)   echo "--draws --drafts --verify --seed --shard --sweep --format --help" ;;
    validate) echo "--quick --only --seed --threads --shard --sweep --format --help" ;;
    roofline) echo "--target --draft --hardware --alpha --acceptance --alpha-by-context --batch --context --gamma --verify-tokens --proposal-rate --speculative-config --mean-length-by-gamma --breakdown --prefill --prefill-cached --schedule --export --counts --counts-gamma --calibrate --calibrate-by --save-calibration --list-models --list-hardware --models-file --hardware-file $_specdec_cost_options --format --help" ;;
    serving)  echo "--target --draft --hardware --rate --users --trace --prompt --output --gamma --gamma-max --alpha --acceptance --counts --counts-gamma --max-num-seqs --max-num-batched-tokens --memory-fraction --slo-ttft --slo-tpot --method --requests --warmup --replications --seed $_specdec_cost_options --shard --sweep --format --help" ;;
    merge)    echo "--format --help" ;;
    plot)     echo "--out --format --alpha --cost --gamma --mu --tokens --input --seed --threads --p-npy --q-npy --npy-input --help" ;;
    esac
}

# _specdec_reply WORDS: offer the words that begin with the current word.
_specdec_reply()
{
    mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")
}

# _specdec_help_names COMMAND OPTION: the names OPTION's line of 'specdec COMMAND --help' lists
# ("a, b, c (default ...)"), from the program being completed.
_specdec_help_names()
{
    "${COMP_WORDS[0]}" "$1" --help 2>/dev/null |
        sed -n "s/^  $2 [A-Z_=]* *//p" | sed 's/ (default.*//; s/,/ /g'
}

# _specdec_compgen_files [-d]: complete file (or, with -d, folder) names.
_specdec_compgen_files()
{
    compopt -o filenames 2>/dev/null
    if [[ ${1-} == -d ]]; then
        mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    else
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}

# The first column of a roofline preset table (--list-models, --list-hardware),
# from the program itself so that --data, --models-file and --hardware-file count.
_specdec_presets()
{
    local list=$1 i args=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        [[ $i -gt $cmd_index ]] || continue
        case ${COMP_WORDS[i]} in
        --models-file=* | --hardware-file=*)
            args+=("${COMP_WORDS[i]}") ;;
        --models-file | --hardware-file)
            if [[ ${COMP_WORDS[i + 1]} == = ]]; then
                args+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 2]}")
            else
                args+=("${COMP_WORDS[i]}" "${COMP_WORDS[i + 1]}")
            fi ;;
        esac
    done
    "$prog" "${global[@]}" roofline "$list" "${args[@]}" --format tsv 2>/dev/null | tail -n +2 | cut -f1
}

_specdec()
{
    local cur prev prog cmd="" cmd_index=0 i word
    local -a global=()
    COMPREPLY=()
    prog=${COMP_WORDS[0]}
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=""
    [[ $COMP_CWORD -gt 0 ]] && prev=${COMP_WORDS[COMP_CWORD - 1]}

    # --option=value: bash may split the word at '=' (COMP_WORDBREAKS).
    if [[ $cur == = && $COMP_CWORD -gt 1 ]]; then
        cur=""
    elif [[ $prev == = && $COMP_CWORD -gt 1 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        cur=${cur#*=}
    fi

    # The command: the first word that is not a global option or its value.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
        --data)
            global+=(--data "${COMP_WORDS[i + 1]}")
            ((i++)) ;;
        --data=*)
            global+=("$word") ;;
        --help | -h | help | --version)
            return 0 ;;
        -*) ;;
        *)
            cmd=$word
            cmd_index=$i
            break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        case $prev in
        --data)
            _specdec_compgen_files -d
            return 0 ;;
        esac
        if [[ $cur == -* ]]; then
            _specdec_reply "$_specdec_global_options"
        else
            _specdec_reply "$_specdec_commands"
        fi
        return 0
    fi

    # The value of an option.
    case $prev in
    --format)
        if [[ $cmd == plot ]]; then
            _specdec_reply "png svg"
        elif [[ " $(_specdec_options "$cmd") " == *" --shard "* ]]; then
            _specdec_reply "text tsv csv json markdown partial"
        else
            _specdec_reply "text tsv csv json markdown"
        fi
        return 0 ;;
    --verify)
        if [[ $cmd == sample ]]; then
            _specdec_reply "adjusted target deterministic-draft exact-match"
        else
            _specdec_reply "adjusted target greedy block deterministic-draft exact-match"
        fi
        return 0 ;;
    --family)
        if [[ $cmd == simulate ]]; then
            _specdec_reply "zipf dirichlet logits ngram"
        else
            _specdec_reply "zipf dirichlet logits"
        fi
        return 0 ;;
    --regime)
        _specdec_reply "constant beta markov"
        return 0 ;;
    --policy)
        _specdec_reply "fixed oracle threshold heuristic"
        return 0 ;;
    --report)
        _specdec_reply "predictions positions summary"
        return 0 ;;
    --npy-input)
        _specdec_reply "logits probs"
        return 0 ;;
    --input)
        if [[ $cmd == overlap || $cmd == simulate ]]; then
            _specdec_reply "logits probs"
        else
            _specdec_compgen_files
        fi
        return 0 ;;
    --input-format) # the readers the program has, from its own help: a new reader needs no edit here
        _specdec_reply "$(_specdec_help_names fit --input-format)"
        return 0 ;;
    --children)
        _specdec_reply "top-k sampled"
        return 0 ;;
    --method)
        _specdec_reply "analytic simulate both"
        return 0 ;;
    --export)
        if [[ $cmd == metrics ]]; then
            _specdec_reply "vllm-synthetic"
        else
            _specdec_reply "vllm sglang trtllm"
        fi
        return 0 ;;
    --calibrate-by)
        _specdec_reply "model-hardware family"
        return 0 ;;
    --graphs)
        _specdec_reply "on off"
        return 0 ;;
    --target)
        _specdec_reply "$(_specdec_presets --list-models)"
        return 0 ;;
    --draft)
        _specdec_reply "same ngram eagle eagle3 mtp $(_specdec_presets --list-models)"
        return 0 ;;
    --granularity)
        _specdec_reply "operator pass"
        return 0 ;;
    --hardware)
        _specdec_reply "$(_specdec_presets --list-hardware)"
        return 0 ;;
    --from | --p-file | --q-file | --models-file | --hardware-file | --since | --export-prometheus | --export-profile | --input | \
        --alpha-by-context | --calibrate | --save-calibration | --calibration | --engine-profiles | --mean-length-by-gamma | --sweep | --p-npy | --q-npy | --corpus)
        _specdec_compgen_files
        return 0 ;;
    --out | --data)
        _specdec_compgen_files -d
        return 0 ;;
    --*)
        if [[ " $_specdec_flags " != *" $prev "* && " $(_specdec_options "$cmd") " == *" $prev "* ]]; then
            return 0 # a number or a list: nothing to offer
        fi ;;
    esac

    # Options not given yet (each option may be given once), and positionals.
    local used=" " npos=0
    for ((i = cmd_index + 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
        --*=*)
            used+="${word%%=*} " ;;
        --*)
            used+="$word "
            if [[ " $_specdec_flags " != *" $word "* ]]; then
                ((i++))
                [[ ${COMP_WORDS[i]} == = ]] && ((i++))
            fi ;;
        *)
            ((npos++)) ;;
        esac
    done

    if [[ $cur == -* ]]; then
        local opts="" o
        for o in $(_specdec_options "$cmd"); do
            [[ $used != *" $o "* ]] && opts+="$o "
        done
        _specdec_reply "$opts"
        return 0
    fi

    case $cmd in
    plot)
        [[ $npos -eq 0 ]] && _specdec_reply "all $_specdec_figures" ;;
    overlap | sample)
        [[ $npos -lt 2 ]] && _specdec_compgen_files ;;
    merge)
        _specdec_compgen_files ;;
    fit)
        [[ $npos -lt 1 ]] && _specdec_compgen_files ;;
    esac
    return 0
}

complete -F _specdec specdec
