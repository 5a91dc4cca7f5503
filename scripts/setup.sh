#!/usr/bin/env bash
# From a fresh clone to a first result, the README's first command:
#
#   1. install the dependencies (scripts/install-deps.sh: apt-get, needs root or
#      sudo unless they are all present; VP_SKIP_DEPS=1 skips it);
#   2. configure the Release preset (build-release/) and build the four tools
#      alone (vp-analyze, vp-catalog, vp-plan, vp-sim), not the tests;
#   3. show how vp-analyze understands a bundled machine (an 8-GPU PCIe Gen4
#      server, fixtures/platforms/README.md), then run the main job: analyse 4
#      such nodes on one switch into cluster.vpcat;
#   4. put the tools where the shell finds them: symbolic links in
#      VP_BIN_DIR (default ~/.local/bin; VP_BIN_DIR=none makes none). When that
#      folder is not on PATH, it prints the one line that puts it there.
#
# The links point into build-release/, so a rebuild updates the tools; vp-sim
# finds its contention table in this source tree. The Debian packages come
# from the same build folder: scripts/package.sh build-release.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-release
tools=(vp-analyze vp-catalog vp-plan vp-sim)

if [[ "${VP_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install-deps.sh
fi
cmake --preset release
cmake --build --preset release --target "${tools[@]}"

# Where each tool was built: the list CMake writes at configure time (the
# root CMakeLists.txt, tools.txt: one "NAME PATH" line per tool).
declare -A bin
while read -r name path; do bin[$name]=$path; done <"$build/tools.txt"
for t in "${tools[@]}"; do
  [[ -x ${bin[$t]:-} ]] || { echo "setup.sh: $t was not built (${bin[$t]:-not in $build/tools.txt})" >&2; exit 1; }
done

"${bin[vp-analyze]}" topology --input fixtures/platforms/pcie-gen4-2s4sw8g.json
"${bin[vp-analyze]}" --input fixtures/platforms/pcie-gen4-2s4sw8g.json \
  --cluster fixtures/platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json --out cluster.vpcat

dest=${VP_BIN_DIR:-$HOME/.local/bin}
if [[ $dest == none ]]; then
  echo
  echo "setup.sh: the tools are in $build/ (VP_BIN_DIR=none: no links made):"
  for t in "${tools[@]}"; do echo "  ${bin[$t]}"; done
  exit 0
fi
mkdir -p "$dest"
for t in "${tools[@]}"; do ln -sfn "${bin[$t]}" "$dest/$t"; done
dest=$(cd "$dest" && pwd)
echo
echo "setup.sh: ${tools[*]} linked in $dest (into $PWD/$build/)"
if [[ ":$PATH:" == *":$dest:"* ]]; then
  echo "setup.sh: $dest is on PATH: try 'vp-catalog validate cluster.vpcat'"
else
  echo "setup.sh: $dest is not on PATH; this line puts it there (add it to ~/.bashrc to keep it):"
  echo "  export PATH=\"$dest:\$PATH\""
fi
