#!/bin/bash
# docs/operators.md, run: every line of its ```sh blocks, in order, in a
# scratch folder with a link to fixtures/ and the build's tools first on PATH.
# A line ending in "# exit N" must exit N, any other 0. Lines ending in a
# backslash continue on the next.
#
#   check_operators.sh VP_ANALYZE VP_CATALOG SOURCE_DIR
set -u
analyze=$1 catalog=$2 source=$3
page=$source/docs/operators.md
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/bin"
ln -s "$analyze" "$scratch/bin/vp-analyze"
ln -s "$catalog" "$scratch/bin/vp-catalog"
ln -s "$source/fixtures" "$scratch/fixtures"
export PATH="$scratch/bin:$PATH"
cd "$scratch" || exit 1

commands=0 failures=0 in_block=0 pending=""
while IFS= read -r line; do
  if [[ $in_block == 0 ]]; then
    [[ $line == '```sh' ]] && in_block=1
    continue
  fi
  if [[ $line == '```' ]]; then
    in_block=0
    continue
  fi
  if [[ $line == *\\ ]]; then
    pending+="${line%\\} "
    continue
  fi
  command="$pending$line"
  pending=""
  [[ -z ${command// /} ]] && continue
  want=0
  if [[ $command =~ \#\ exit\ ([0-9]+)[[:space:]]*$ ]]; then want=${BASH_REMATCH[1]}; fi
  commands=$((commands + 1))
  output=$(bash -c "$command" 2>&1)
  got=$?
  if [[ $got != "$want" ]]; then
    echo "FAIL: $command"
    echo "  exit $got, want $want; its output:"
    printf '%s\n' "$output" | sed 's/^/  | /'
    failures=$((failures + 1))
  fi
done < "$page"

if [[ $commands -lt 10 ]]; then
  echo "FAIL: only $commands commands found in $page"
  exit 1
fi
echo "$commands commands of $page run, $failures failed"
[[ $failures == 0 ]]
