#!/usr/bin/env python3
"""Parse every YAML output of `vp-catalog export` as YAML and check its shape.

usage: check_export_yaml.py VP_ANALYZE VP_CATALOG FIXTURES_DIR   (exit 0: all good, 77: no PyYAML)

PyYAML is Debian's python3-yaml, which scripts/install-deps.sh installs: under
CI (CI set) a missing PyYAML fails instead of skipping.

Catalogs are written by vp-analyze from the platform fixtures: one node, one
switch, rails, leaf/spine. slurm-topology must be a list of one topology whose
tree names every node exactly once under a leaf; k8s-labels a Kueue Topology
then one Node per host with string labels; volcano HyperNodes whose tier-1
members are every node exactly once.
"""
import os
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError as e:
    if os.environ.get("CI"):
        print(f"check_export_yaml.py: FAILED under CI: cannot import yaml ({e}); "
              "scripts/install-deps.sh installs python3-yaml", file=sys.stderr)
        sys.exit(1)
    print(f"check_export_yaml.py: skipped: cannot import yaml ({e}) (Debian: python3-yaml)")
    sys.exit(77)

CASES = [("--input", "platforms/pcie-gen4-2s4sw8g.json"),
         ("--cluster", "platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json"),
         ("--cluster", "platforms/pcie-gen4-2s4sw8g-16n-rail.cluster.json"),
         ("--cluster", "platforms/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json")]


def expand(hostlist):
    out = []
    for item in hostlist.split(","):
        if "[" not in item:
            out.append(item)
            continue
        prefix, rng = item[:-1].split("[")
        a, b = rng.split("-")
        out += [f"{prefix}{i:0{len(a)}d}" for i in range(int(a), int(b) + 1)]
    return out


def export(tool, catalog, fmt):
    return subprocess.run([tool, "export", catalog, "--format", fmt], check=True, capture_output=True,
                          text=True).stdout


def check(analyze, tool, fixtures, option, path, tmp):
    catalog = f"{tmp}/c.vpcat"
    subprocess.run([analyze, "-q", option, f"{fixtures}/{path}", "--out", catalog], check=True, capture_output=True)
    nodes = None
    docs = list(yaml.safe_load_all(export(tool, catalog, "k8s-labels")))
    assert docs[0]["kind"] == "Topology" and docs[0]["spec"]["levels"][-1] == {"nodeLabel": "kubernetes.io/hostname"}
    nodes = [d["metadata"]["name"] for d in docs[1:]]
    for d in docs[1:]:
        assert d["kind"] == "Node" and all(isinstance(v, str) for v in d["metadata"]["labels"].values()), d
    assert len(set(nodes)) == len(nodes)

    (topo,) = yaml.safe_load(export(tool, catalog, "slurm-topology"))
    assert list(topo)[0] == "topology" and topo["cluster_default"] is True, topo
    if len(nodes) == 1:
        assert topo["flat"] is True
    else:
        under = [n for s in topo["tree"]["switches"] if "nodes" in s for n in expand(s["nodes"])]
        assert sorted(under) == sorted(nodes), (under, nodes)

    hypernodes = [d for d in yaml.safe_load_all(export(tool, catalog, "volcano")) if d]
    members = [m["selector"]["exactMatch"]["name"] for h in hypernodes if h["spec"]["tier"] == 1
               for m in h["spec"]["members"]]
    assert all(h["apiVersion"] == "topology.volcano.sh/v1alpha1" and h["kind"] == "HyperNode" for h in hypernodes)
    assert sorted(members) == sorted(nodes), (members, nodes)
    return len(nodes)


def main():
    analyze, tool, fixtures = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        for option, path in CASES:
            print(f"{path}: {check(analyze, tool, fixtures, option, path, tmp)} nodes, 3 YAML exports parse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
