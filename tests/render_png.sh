#!/usr/bin/env bash
# The test-only rasterization step of the pictures (docs/pictures.md): make
# each picture from a bundled fixture and render it to PNG with rsvg-convert
# (librsvg, Debian librsvg2-bin); fail when a render fails or yields no PNG.
#   render_png.sh VP_ANALYZE VP_PLAN VP_SIM RSVG_CONVERT FIXTURES_DIR OUT_DIR
set -euo pipefail
analyze=$1 plan=$2 sim=$3 rsvg=$4 fixtures=$5 out=$6
mkdir -p "$out"
node=$fixtures/platforms/pcie-gen4-2s4sw8g.json
catalog=$fixtures/catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat
python3 - "$out/demand.json" <<'PY'
import json, sys
n = 32
json.dump({"gpus": n, "bytes": [[0 if i == j else (1 << 20) * (1 + (i * 7 + j) % 5) for j in range(n)] for i in range(n)]},
          open(sys.argv[1], "w"))
PY
"$analyze" topology --input "$node" --svg "$out/topology.svg" --dot "$out/topology.dot"
"$plan" --catalog "$catalog" --demand "$out/demand.json" --svg "$out/plan.svg" > /dev/null
"$sim" --catalog "$catalog" --demand "$out/demand.json" --schedulers variopath --svg "$out/timeline.svg" > /dev/null
for picture in topology plan timeline; do
  "$rsvg" --format png --output "$out/$picture.png" "$out/$picture.svg"
  # The PNG signature: 89 50 4E 47 0D 0A 1A 0A.
  if [[ "$(head -c 8 "$out/$picture.png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]]; then
    echo "render_png: $out/$picture.png is not a PNG" >&2
    exit 1
  fi
  echo "render_png: $picture.svg -> $picture.png ($(stat -c %s "$out/$picture.png") bytes)"
done
