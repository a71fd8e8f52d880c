# bash completion of replex (installed as
# share/bash-completion/completions/replex; or `source` this file).
# Completes the commands and each command's options as the replex being
# completed lists them in its --help, experiment files (*.yaml, *.yml)
# for run, validate and bench, directories for -o/--out/--resume and
# for summary, the key paths of `replex keys` after --set, and the key
# sections after `replex keys`. tests/package/test_completion.sh checks it.

# The commands of `replex --help` (the lines of its commands: block).
_replex_commands()
{
    "$1" --help 2>/dev/null |
        sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

# The options of `replex CMD --help`: lines "  -o, --out DIR", "  --force".
_replex_options()
{
    "$1" "$2" --help 2>/dev/null |
        sed -n 's/^  \(-[a-z-]*\)\(, \(--[a-z-]*\)\)\{0,1\}.*/\1 \3/p'
}

# The key paths of `replex keys` (its first column).
_replex_keys()
{
    "$1" keys 2>/dev/null | sed -n 's/^\([a-z][a-z0-9_.]*\) .*/\1/p'
}

_replex()
{
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=${COMP_WORDS[COMP_CWORD - 1]}
    local exe=${COMP_WORDS[0]} cmd='' i
    COMPREPLY=()

    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help -h --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_replex_commands "$exe")" -- "$cur")
        fi
        return 0
    fi

    # the argument of the option before the cursor
    case $prev in
        -o | --out | --resume)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
            return 0 ;;
        --set)
            compopt -o nospace 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -W "$(_replex_keys "$exe")" -S = -- "$cur")
            return 0 ;;
        --threads | --progress-every | --progress-interval | --reps | \
        --iterations | --chains)
            return 0 ;;
    esac

    if [[ $cmd == help ]]; then
        [[ $prev == help ]] &&
            mapfile -t COMPREPLY < <(compgen -W "$(_replex_commands "$exe")" -- "$cur")
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_replex_options "$exe" "$cmd")" -- "$cur")
        return 0
    fi
    case $cmd in
        run | validate | bench)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -X '!*.yaml' -- "$cur"
                compgen -f -X '!*.yml' -- "$cur"; compgen -d -- "$cur") ;;
        summary)
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
        keys)
            # the sections: the first part of every dotted key path
            mapfile -t COMPREPLY < <(compgen -W "$(_replex_keys "$exe" |
                sed -n 's/^\([^.]*\)\..*/\1/p' | sort -u)" -- "$cur") ;;
    esac
    return 0
}
complete -F _replex replex
