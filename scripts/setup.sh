#!/usr/bin/env bash
# From a fresh clone to a first result: install the dependencies (apt-get,
# needs root or sudo unless they are all present), build the Release
# configuration in build-release/, and show how vp-analyze understands a
# bundled machine (an 8-GPU PCIe Gen4 server, fixtures/platforms/README.md),
# then run the main job: analyse 4 such nodes on one switch into cluster.vpcat.
# VP_SKIP_DEPS=1 skips the installation.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ "${VP_SKIP_DEPS:-0}" != 1 ]]; then
  scripts/install-deps.sh
fi
cmake --preset release
cmake --build --preset release
build-release/tools/vp-analyze/vp-analyze topology --input fixtures/platforms/pcie-gen4-2s4sw8g.json
build-release/tools/vp-analyze/vp-analyze --input fixtures/platforms/pcie-gen4-2s4sw8g.json \
  --cluster fixtures/platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json --out cluster.vpcat
