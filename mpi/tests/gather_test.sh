#!/usr/bin/env bash
# vp-analyze --input-dir and `vp-analyze gather` under mpirun -np 4: three
# identical 8-GPU nodes (pcie-gen4-2s4sw8g) and one whose gpu7 link runs at
# x8. Both must group the hosts into 2 node types, report the degraded host
# with the link that differs, and write the same catalog.
#   gather_test.sh VP_ANALYZE MPIEXEC FIXTURES_DIR WORK_DIR
set -uo pipefail
analyze=$1 mpiexec=$2 fixtures=$3 work=$4
fail() { echo "gather_test: FAILED: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/hosts"
topo=$fixtures/platforms/pcie-gen4-2s4sw8g.json
for h in n1 n2 n3; do cp "$topo" "$work/hosts/$h.json"; done
python3 - "$topo" "$work/hosts/n4.json" <<'PY' || fail "cannot write the degraded host"
import json, sys
d = json.load(open(sys.argv[1]))
gpu7 = [c["id"] for c in d["components"] if c.get("pci_bus_id") == "0000:c4:00.0"][0]
for l in d["links"]:
    if l["src"] == gpu7 or l["dst"] == gpu7: l["pcie_width"] = 8
json.dump(d, open(sys.argv[2], "w"))
PY
expect_note='host n4 \(type2\) differs from 3 of the 4 hosts of its group \(type1\): link pcie_switch3 \(0000:c1:00.0\) - gpu7 \(0000:c4:00.0\): Gen4 x8, the others Gen4 x16'

out=$("$analyze" --input-dir "$work/hosts" --out "$work/dir.vpcat" 2>&1) || fail "--input-dir exited $?: $out"
printf '%s\n' "$out"
grep -Eq "$expect_note" <<<"$out" || fail "--input-dir did not report n4's link"
grep -q "GPUs 32, nodes 4, node types 2" <<<"$out" || fail "--input-dir: not 4 nodes of 2 node types"

args=()
for h in n1 n2 n3 n4; do
  ((${#args[@]})) && args+=(:)
  args+=(-np 1 -x "VP_PROBE_INPUT=$work/hosts/$h.json" "$analyze" gather --out "$work/gather.vpcat")
done
out=$("$mpiexec" --oversubscribe "${args[@]}" 2>&1) || fail "gather exited $?: $out"
printf '%s\n' "$out"
grep -Eq "$expect_note" <<<"$out" || fail "gather did not report n4's link"
grep -q "4 nodes of 2 node types, 32 GPUs" <<<"$out" || fail "gather: not 4 nodes of 2 node types"
cmp "$work/dir.vpcat" "$work/gather.vpcat" || fail "gather and --input-dir wrote different catalogs"

# Two ranks probing one host: a usage error, not a catalog.
out=$("$mpiexec" --oversubscribe -np 2 -x "VP_PROBE_INPUT=$work/hosts/n1.json" "$analyze" gather --out "$work/x.vpcat" 2>&1)
status=$?
[[ $status -eq 1 ]] || fail "two ranks on one host: exit $status, expected 1: $out"
grep -q "ranks 0 and 1 both probed host n1" <<<"$out" || fail "two ranks on one host: $out"
echo "gather_test: OK"
