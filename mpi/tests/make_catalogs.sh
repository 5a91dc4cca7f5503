#!/usr/bin/env bash
# Catalogs for the mpirun tests, from the fixture topologies, into OUT:
#   c1x8.vpcat   one 8-GPU node (pcie-gen4-2s4sw8g), node name "vp-mpi-test"
#   c2x8.vpcat   two of them on one switch (vp-mpi[1-2])
#   host8.vpcat  one 8-GPU node named after this machine's host name (mapping by host)
#   named8.vpcat one 8-GPU node named by vp-analyze --hostname vp-named-host (VPCAT_HOSTNAME fakes it)
#   grown3x8.vpcat c2x8 grown onto a third node by vp-catalog resize (vp-mpi[1-3]; no analysis)
#   usage: make_catalogs.sh VP_ANALYZE VP_CATALOG FIXTURES_DIR OUT
set -euo pipefail
analyze=$1 catalog_tool=$2 fixtures=$3 out=$4
mkdir -p "$out"
topo=$fixtures/platforms/pcie-gen4-2s4sw8g.json
cluster() {  # NAMES FABRIC FILE
  cat > "$3" <<JSON
{"format": "vp-cluster", "version": 1,
 "node_types": [{"name": "pcie-gen4-2s4sw8g"}],
 "nodes": [{"type": "pcie-gen4-2s4sw8g", "names": "$1"}],
 "fabric": {"kind": "$2"}}
JSON
}
cluster "vp-mpi-test" none "$out/c1x8.cluster.json"
cluster "vp-mpi[1-2]" single_switch "$out/c2x8.cluster.json"
cluster "$(hostname)" none "$out/host8.cluster.json"
for c in c1x8 c2x8 host8; do
  "$analyze" --input "$topo" --cluster "$out/$c.cluster.json" --out "$out/$c.vpcat" > "$out/$c.log"
done
"$analyze" --input "$topo" --hostname vp-named-host --out "$out/named8.vpcat" > "$out/named8.log"
"$catalog_tool" resize "$out/c2x8.vpcat" --nodes 'vp-mpi[1-3]' --out "$out/grown3x8.vpcat" > "$out/grown3x8.log"
echo "catalogs in $out: c1x8.vpcat c2x8.vpcat host8.vpcat named8.vpcat grown3x8.vpcat"
