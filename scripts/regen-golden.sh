#!/usr/bin/env bash
# Golden catalogs: regenerate fixtures/catalogs/golden/ from its list
# fixtures/catalogs/golden/catalogs.txt, or check that it is up to date.
#
#   scripts/regen-golden.sh [--check] [--analyze VP_ANALYZE] [--catalog VP_CATALOG] [NAME...]
#
# Each line of catalogs.txt is `NAME ARGS...`: `vp-analyze ARGS --out NAME.vpcat
# --json-out NAME.json` (paths relative to the repository root) writes the golden
# catalog NAME.vpcat. Its JSON mirror NAME.json is kept beside it when it is at
# most VP_GOLDEN_JSON_MAX bytes (default 131072): small enough to read in a
# review, where a changed catalog shows up as a readable diff.
#
#   (default)   rewrite the golden files (all, or the NAMEs given); then review
#               `git diff --stat fixtures/catalogs/golden` and commit them.
#   --check     regenerate into a temporary folder and compare byte for byte;
#               exit 1 naming every file that differs, is missing or is not
#               in the list, with the command that regenerates it. What ctest's
#               `catalog_golden` test runs.
#
# vp-analyze: --analyze, else $VP_ANALYZE, else build-test/ then build-release/.
# vp-catalog (--catalog, else $VP_CATALOG, else beside vp-analyze's build):
# only used to explain a mismatch in catalog terms (`vp-catalog diff`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
golden=fixtures/catalogs/golden
list="$golden/catalogs.txt"
json_max="${VP_GOLDEN_JSON_MAX:-131072}"

check=0
analyze="${VP_ANALYZE:-}"
catalog="${VP_CATALOG:-}"
only=()
while (($#)); do
  case "$1" in
    --check) check=1 ;;
    --analyze) analyze="$2"; shift ;;
    --catalog) catalog="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "regen-golden: unknown option $1 (see --help)" >&2; exit 1 ;;
    *) only+=("$1") ;;
  esac
  shift
done
if [[ -z "$analyze" ]]; then
  for b in build-test build-release; do
    if [[ -x "$b/tools/vp-analyze/vp-analyze" ]]; then analyze="$b/tools/vp-analyze/vp-analyze"; break; fi
  done
fi
[[ -n "$analyze" && -x "$analyze" ]] || {
  echo "regen-golden: no vp-analyze: build it (cmake --build --preset test) or pass --analyze PATH" >&2
  exit 1
}
if [[ -z "$catalog" ]]; then
  c="$(dirname "$(dirname "$analyze")")/tools/vp-catalog/vp-catalog"
  [[ -x "$c" ]] && catalog="$c"
fi
[[ -f "$list" ]] || { echo "regen-golden: $list: missing" >&2; exit 1; }

# The list: NAME -> ARGS, in file order.
names=()
declare -A args_of=()
lineno=0
while IFS= read -r line || [[ -n "$line" ]]; do
  lineno=$((lineno + 1))
  line="${line%%#*}"
  read -r -a words <<<"$line" || true
  ((${#words[@]})) || continue
  name="${words[0]}"
  if [[ ! "$name" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] || ((${#words[@]} < 3)); then
    echo "regen-golden: $list:$lineno: expected NAME --input FILE [vp-analyze options...]" >&2
    exit 1
  fi
  [[ -z "${args_of[$name]+x}" ]] || { echo "regen-golden: $list:$lineno: $name is listed twice" >&2; exit 1; }
  names+=("$name")
  args_of[$name]="${words[*]:1}"
done <"$list"
for n in "${only[@]}"; do
  [[ -n "${args_of[$n]+x}" ]] || { echo "regen-golden: $n is not in $list" >&2; exit 1; }
done
((${#only[@]})) && selected=("${only[@]}") || selected=("${names[@]}")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

regen_cmd="scripts/regen-golden.sh --analyze $analyze"
failures=0
fail() {
  echo "regen-golden: $*" >&2
  failures=$((failures + 1))
}

for name in "${selected[@]}"; do
  read -r -a a <<<"${args_of[$name]}"
  start=$(date +%s%N)
  if ! "$analyze" "${a[@]}" --out "$work/$name.vpcat" --json-out "$work/$name.json" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log" >&2
    fail "$name: \`vp-analyze ${a[*]}\` failed (see above)"
    continue
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  keep_json=0
  (($(stat -c %s "$work/$name.json") <= json_max)) && keep_json=1
  if ((check == 0)); then
    cp "$work/$name.vpcat" "$golden/$name.vpcat"
    if ((keep_json)); then cp "$work/$name.json" "$golden/$name.json"; else rm -f "$golden/$name.json"; fi
    printf 'regen-golden: %-44s %8d bytes%s  (%d ms)\n' "$golden/$name.vpcat" "$(stat -c %s "$golden/$name.vpcat")" \
      "$( ((keep_json)) && echo " + .json" || echo "")" "$ms"
    continue
  fi
  g="$golden/$name.vpcat"
  if [[ ! -f "$g" ]]; then
    fail "$g: missing (listed in $list as \`vp-analyze ${a[*]}\`); create it with: $regen_cmd $name"
  elif ! cmp -s "$g" "$work/$name.vpcat"; then
    fail "$g: differs from what \`vp-analyze ${a[*]} --out $name.vpcat\` writes now (first difference at byte $(cmp "$g" "$work/$name.vpcat" 2>&1 | head -n1 | grep -Eo 'byte [0-9]+' | grep -Eo '[0-9]+' || echo "?"); $(stat -c %s "$g") bytes, now $(stat -c %s "$work/$name.vpcat"))"
    if [[ -n "$catalog" ]]; then
      echo "  vp-catalog diff GOLDEN FRESH says:" >&2
      "$catalog" diff --max 5 "$g" "$work/$name.vpcat" 2>&1 | sed 's/^/    /' | head -n 40 >&2 || true
    fi
    echo "  if the change is deliberate, regenerate it with: $regen_cmd $name" >&2
  fi
  gj="$golden/$name.json"
  if ((keep_json)); then
    if [[ ! -f "$gj" ]]; then
      fail "$gj: missing (the mirror is $(stat -c %s "$work/$name.json") bytes, at most $json_max: kept); create it with: $regen_cmd $name"
    elif ! cmp -s "$gj" "$work/$name.json"; then
      fail "$gj: differs from what \`vp-analyze ${a[*]} --json-out $name.json\` writes now; regenerate with: $regen_cmd $name"
    fi
  elif [[ -f "$gj" ]]; then
    fail "$gj: should not be committed (the mirror is $(stat -c %s "$work/$name.json") bytes, above $json_max); remove it with: $regen_cmd $name"
  fi
done

# Every file of the folder belongs to a listed catalog.
if ((${#only[@]} == 0)); then
  for f in "$golden"/*; do
    base="$(basename "$f")"
    case "$base" in
      catalogs.txt | README.md) continue ;;
      *.vpcat | *.json) n="${base%.*}" ;;
      *) n="" ;;
    esac
    if [[ -z "$n" || -z "${args_of[$n]+x}" ]]; then
      if ((check)); then
        fail "$f: not a catalog of $list (list it there, or delete the file)"
      else
        echo "regen-golden: warning: $f is not a catalog of $list: left alone" >&2
      fi
    fi
  done
fi

if ((failures)); then
  echo "regen-golden: $failures problem(s) in $golden (compared with $analyze)" >&2
  echo "regen-golden: if the changes are deliberate: $regen_cmd && git diff --stat $golden" >&2
  exit 1
fi
if ((check)); then
  echo "regen-golden: ${#selected[@]} golden catalog(s) of $golden are byte-identical to a fresh analysis"
fi
