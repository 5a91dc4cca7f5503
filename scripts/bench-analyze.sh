#!/usr/bin/env bash
# Analysis benchmark: time and peak memory of `vp-analyze --out` on
# the four evaluation platforms and on clusters of 512 and 4096 GPUs of the
# same node type. Prints one line per case. Usage: scripts/bench-analyze.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$here/build-release}"
if [ ! -x "$build/tools/vp-analyze/vp-analyze" ]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target vp-analyze >/dev/null
fi
bin="$build/tools/vp-analyze/vp-analyze"
node="$here/fixtures/platforms/pcie-gen4-2s4sw8g.json"
plat="$here/fixtures/platforms"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
printf '%-34s %6s %10s %12s %10s\n' case gpus "time ms" "peak MiB" "bytes"
run() {
  local name="$1"; shift
  local stats
  stats=$( { /usr/bin/time -f '%e %M' "$bin" "$@" --out "$out/c.vpcat" --summary json >"$out/s.json"; } 2>&1 | tail -1)
  local gpus bytes ms
  gpus=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gpus"])' "$out/s.json")
  bytes=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["catalog_bytes"])' "$out/s.json")
  ms=$(python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["elapsed_ms"])' "$out/s.json")
  printf '%-34s %6s %10s %12.1f %10s\n' "$name" "$gpus" "$ms" "$(echo "$stats" | awk '{print $2/1024}')" "$bytes"
}
run "8-GPU node" --input "$node"
run "4 nodes, one switch" --input "$node" --cluster "$plat/pcie-gen4-2s4sw8g-4n-switch.cluster.json"
run "16 nodes, rail" --input "$node" --cluster "$plat/pcie-gen4-2s4sw8g-16n-rail.cluster.json"
run "32 nodes, leaf/spine 2:1" --input "$node" --cluster "$plat/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json"
run "64 nodes, rail (512 GPUs)" --input "$node" --nodes 64 --fabric rail
run "512 nodes, leaf/spine 2:1 (4096)" --input "$node" --nodes 512 --fabric leaf_spine --leaf-size 16 --oversubscription 2
