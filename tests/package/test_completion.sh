#!/usr/bin/env bash
# The bash completion completions/replex.bash, driven as bash drives it
# (COMP_WORDS, COMP_CWORD, then the function `complete` registered):
# commands, options from `replex CMD --help`, experiment files, option
# arguments, --set key paths, `replex keys` sections.
#
# usage: test_completion.sh COMPLETION_FILE REPLEX_EXE
set -u
export LC_ALL=C
file=$(realpath "$1") exe=$(realpath "$2")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# shellcheck source=/dev/null
. "$file" || { echo "FAILED: cannot source $file"; exit 1; }
fn=$(complete -p replex 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
[ -n "$fn" ] || { echo "FAILED: $file registers no completion for replex"; exit 1; }
mkdir -p "$tmp/sub" "$tmp/sp/my runs" &&
  touch "$tmp/a.yaml" "$tmp/b.yml" "$tmp/c.txt" "$tmp/sub/d.yaml" "$tmp/sp/my exp.yaml"
cd "$tmp" || exit 1

fails=0 n=0
# complete WORDS...: the last word is the one under the cursor
complete_line() {
  COMP_WORDS=("$exe" "$@"); COMP_CWORD=$#; COMPREPLY=()
  "$fn" replex "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {  # WANT WORDS...: the sorted completions are exactly WANT
  local want=$1; shift
  local got; got=$(complete_line "$@")
  n=$((n + 1))
  if [ "$got" = "$want" ]; then echo "ok: replex $*| -> $got"
  else echo "FAILED: replex $*|: want '$want', got '$got'"; fails=$((fails + 1)); fi
}
has() {  # WORD WORDS...: the completions include WORD
  local w=$1; shift
  local got; got=$(complete_line "$@")
  n=$((n + 1))
  case " $got " in
    *" $w "*) echo "ok: replex $*| includes $w" ;;
    *) echo "FAILED: replex $*|: no '$w' in '$got'"; fails=$((fails + 1)) ;;
  esac
}

expect "bench help info keys run summary validate" ""
expect "validate" va
expect "--help --version -h" -
expect "--threads" run --th
expect "--no-plots" bench --no
# every option `replex CMD --help` lists, and no other
for c in run validate summary keys info bench; do
  want=$("$exe" "$c" --help | grep -oE '^  -[a-z-]+(, --[a-z-]+)?' |
         grep -oE -- '-[a-z-]+' | sort | tr '\n' ' ' | sed 's/ $//')
  [ -n "$want" ] || { echo "FAILED: no options in replex $c --help"; fails=$((fails + 1)); }
  expect "$want" "$c" -
done
expect "a.yaml b.yml sp sub" run ""
expect "a.yaml b.yml sp sub" validate ""
# names with a space stay one completion each
complete_line run sp/ > /dev/null
n=$((n + 1))
if [ ${#COMPREPLY[@]} = 2 ] && [ "${COMPREPLY[0]}" = "sp/my exp.yaml" ] &&
   [ "${COMPREPLY[1]}" = "sp/my runs" ]; then
  echo "ok: replex run sp/| -> 'sp/my exp.yaml' 'sp/my runs'"
else
  echo "FAILED: replex run sp/|: got ${#COMPREPLY[@]}: ${COMPREPLY[*]}"; fails=$((fails + 1))
fi
expect "sub/d.yaml" run sub/
expect "sp sub" run a.yaml -o ""
expect "sp sub" run --resume ""
expect "sp sub" summary ""
expect "" run a.yaml --threads ""
expect "tempering.n_chains=" run a.yaml --set tempering.n_ch
expect "tempering.n_chains=" validate a.yaml --set tempering.n_ch
has tempering keys ""
has ladder keys ""
expect "" keys seed    # a top-level key, not a section
expect "validate" help va
echo "$((n - fails)) passed, $fails failed"
[ $fails = 0 ]
