#!/usr/bin/env bash
# The generated man pages and shell completion (cmake/VpCliDocs.cmake) against
# the tools' own --help, which CLI11 prints independently of the generator:
#   check.sh DOCS_DIR TOOL_BINARY...
# For each tool: its three files exist; every option and flag that --help
# lists for the tool and for each of its subcommands is in the man page, the
# bash and the zsh completion, and each subcommand has its man section;
# groff (and man -l) render the page without a warning; `bash -n` (and
# `zsh -n`, when zsh is installed) accept the completion; completion through
# the bash function itself offers options, subcommands and choices; and the
# generator refuses a folder it cannot write into with exit 2.
set -uo pipefail
docs=$1
shift
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The option names of one --help text: its lines that start with an option.
help_options() {
  grep -oE '^ +-[-a-zA-Z0-9_,]+' | tr -d ' ' | tr ',' '\n' | grep -E '^-' | sort -u
}
# The subcommand names listed under "Subcommands:".
help_subcommands() {
  awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }'
}

# bash completion: the candidates for a command line whose last word is being completed.
complete_words() {  # complete_words FILE FUNCTION WORD...
  local file=$1 fn=$2
  shift 2
  bash -c 'source "$1"; fn=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$fn"; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$file" "$fn" "$@"
}

for bin in "$@"; do
  tool=$(basename "$bin")
  fn=_${tool//-/_}
  man=$docs/$tool.1 bash_file=$docs/$tool.bash zsh_file=$docs/_$tool
  for f in "$man" "$bash_file" "$zsh_file"; do
    [[ -s $f ]] || fail "$tool: $f was not generated"
  done
  [[ -s $man && -s $bash_file && -s $zsh_file ]] || continue

  help=$("$bin" --help) || fail "$tool --help failed"
  mapfile -t subs < <(help_subcommands <<<"$help")
  declare -A seen=()
  check_options() {  # check_options WHAT HELP_TEXT
    local what=$1 opt escaped
    while read -r opt; do
      [[ -n $opt ]] || continue
      seen[$opt]=1
      escaped=${opt//-/\\-}
      grep -qF -- "\\fB$escaped\\fR" "$man" || fail "$what: $opt is not in $man"
      grep -qE -- "(^|[ '\"{,(])$opt( |'|\"|=|,|\\[|\\)|\\})" "$bash_file" || fail "$what: $opt is not in $bash_file"
      grep -qE -- "(^|[ '\"{,(])$opt( |'|\"|=|,|\\[|\\)|\\})" "$zsh_file" || fail "$what: $opt is not in $zsh_file"
    done < <(help_options <<<"$2")
  }
  check_options "$tool" "$help"
  for sub in "${subs[@]}"; do
    sub_help=$("$bin" "$sub" --help) || fail "$tool $sub --help failed"
    check_options "$tool $sub" "$sub_help"
    section="$tool $sub"
    grep -qF ".SS \"${section//-/\\-}\"" "$man" || fail "$tool: no section for the subcommand $sub in $man"
    grep -qF "'$sub'" "$bash_file" || grep -qE "[' ]$sub[' :]" "$bash_file" || fail "$tool: $sub not in $bash_file"
    grep -qF "$sub)" "$zsh_file" || fail "$tool: $sub not in $zsh_file"
  done
  [[ ${#seen[@]} -ge 3 ]] || fail "$tool: only ${#seen[@]} options found in --help (the help format changed?)"
  unset seen

  # Rendering: no warning from groff, none from man -l.
  warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1) || fail "$tool: groff failed on $man"
  [[ -z $warnings ]] || fail "$tool: groff warns on $man: $warnings"
  if command -v man >/dev/null; then
    warnings=$(MANWIDTH=80 man --warnings -l "$man" 2>&1 >/dev/null) || fail "$tool: man -l failed on $man"
    [[ -z $warnings ]] || fail "$tool: man -l warns on $man: $warnings"
  fi
  rendered=$(groff -man -Tutf8 -P-cbou "$man" 2>/dev/null)
  grep -q "^NAME" <<<"$rendered" && grep -q "^OPTIONS" <<<"$rendered" || fail "$tool: the rendered page has no NAME or OPTIONS"

  # The completion files parse.
  bash -n "$bash_file" || fail "$tool: bash -n rejects $bash_file"
  if command -v zsh >/dev/null; then
    zsh -n "$zsh_file" || fail "$tool: zsh -n rejects $zsh_file"
  else
    echo "note: zsh is not installed; $zsh_file checked by grep only"
  fi
  grep -q "^#compdef $tool\$" "$zsh_file" || fail "$tool: $zsh_file does not start with #compdef $tool"

  # Completion through the function: "--vers" completes to --version ("--ver" is also --verbose in vp-analyze and vp-catalog inspect).
  got=$(complete_words "$bash_file" "$fn" "$tool" --vers)
  [[ $got == "--version" ]] || fail "$tool: completing --vers gave '$got'"
  for sub in "${subs[@]}"; do
    got=$(complete_words "$bash_file" "$fn" "$tool" "")
    grep -qx "$sub" <<<"$got" || fail "$tool: completing a first word does not offer $sub (got: $got)"
    # A subcommand's options and, through fallthrough, the tool's input limits.
    sub_opts=$("$bin" "$sub" --help | help_options | grep -E '^--' | grep -vx -- --help)
    got=$(complete_words "$bash_file" "$fn" "$tool" "$sub" --)
    for opt in $sub_opts --max-input-bytes; do
      grep -qx -- "$opt" <<<"$got" || fail "$tool $sub: completing -- does not offer $opt"
    done
    # An option the subcommand redefines (vp-analyze topology --input) is offered once.
    twice=$(sort <<<"$got" | uniq -d | tr '\n' ' ')
    [[ -z $twice ]] || fail "$tool $sub: completing -- offers twice: $twice"
  done

  # The generator's own errors: a folder that does not exist is bad input (exit 2).
  err=$("$bin" --vp-generate-cli-docs "$docs/no/such/folder" 2>&1)
  rc=$?
  [[ $rc -eq 2 ]] || fail "$tool --vp-generate-cli-docs into a missing folder exited $rc, not 2 ($err)"
  [[ $err == "$tool: error: "* ]] || fail "$tool: the generator's error is '$err'"
  # The hidden entry is not in --help.
  ! grep -q -- "--vp-generate-cli-docs" <<<"$help" || fail "$tool --help shows the hidden --vp-generate-cli-docs"
done

# Choices of an IsMember option: vp-sim --model.
for bin in "$@"; do
  if [[ $(basename "$bin") == vp-sim ]]; then
    got=$(complete_words "$docs/vp-sim.bash" _vp_sim vp-sim --model "" | sort | tr '\n' ' ')
    [[ $got == "contention ideal " ]] || fail "vp-sim: completing --model gave '$got', not its choices"
    grep -qF -- "--model=[" "$docs/_vp-sim" && grep -qF "(ideal contention)" "$docs/_vp-sim" ||
      fail "vp-sim: the zsh completion lacks --model's choices"
  fi
done

if ((failures > 0)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "cli docs: $# tools checked"
