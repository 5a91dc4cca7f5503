#!/usr/bin/env python3
"""Validate documents against the JSON Schemas in schemas/ (JSON Schema 2020-12).

    validate_schemas.py VP_ANALYZE FIXTURES_DIR [SCHEMAS_DIR]

* `vp-analyze topology --json` output for the evaluation platform, its three
  clusters and several real fixtures (hwloc XML, NCCL XML, nvidia-smi text)
  against schemas/topology.schema.json;
* the hand-authored platforms (the evaluation server, its expected normalized
  form and the calibration machines) against the same;
* every fixtures/platforms/*.cluster.json against schemas/cluster.schema.json;
* simulator/calibration/figures.json against schemas/calibration-figures.schema.json.

Exit 0 when every document validates, 1 otherwise (each failure printed with
the JSON path of the offending value). A missing jsonschema module is a
failure, not a skip: install python3-jsonschema (scripts/install-deps.sh).
"""

import json
import os
import subprocess
import sys

try:
    from jsonschema import Draft202012Validator
except ImportError as e:  # pragma: no cover - the message is the point
    sys.stderr.write(
        f"validate_schemas.py: error: {sys.executable}: cannot import jsonschema ({e}); "
        "install python3-jsonschema (scripts/install-deps.sh)\n")
    sys.exit(1)

# The machines behind published PCIe figures (fixtures/platforms/README.md).
CALIBRATION_PLATFORMS = [
    "platforms/asus-esc8000a-e13p-pex890xx.json",
    "platforms/turin-9575f-direct-8g.json",
    "platforms/rtx4090-1s-4g.json",
    "platforms/rtx5090-2x9355-8g.json",
]
# Inputs of `vp-analyze topology --json`, relative to FIXTURES_DIR: (name, arguments).
PLATFORM = "platforms/pcie-gen4-2s4sw8g.json"
TOPOLOGY_RUNS = [
    ("platform", ["--input", PLATFORM]),
    ("platform, 4 nodes on one switch",
     ["--input", PLATFORM, "--cluster", "platforms/pcie-gen4-2s4sw8g-4n-switch.cluster.json"]),
    ("platform, 16 nodes rail-optimized",
     ["--input", PLATFORM, "--cluster", "platforms/pcie-gen4-2s4sw8g-16n-rail.cluster.json"]),
    ("platform, 32 nodes leaf/spine 2:1",
     ["--input", PLATFORM, "--cluster", "platforms/pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json"]),
    ("platform, --nodes 2 --fabric leaf_spine shortcut",
     ["--input", PLATFORM, "--nodes", "2", "--fabric", "leaf_spine", "--leaf-size", "1",
      "--oversubscription", "2"]),
    ("platform with overrides", ["--input", PLATFORM, "--set", "pcie.gen4=22", "--set", "inter_socket.amd=30"]),
    ("hwloc: NVIDIA DGX-2", ["--input", "real/hwloc-xml/hwloc-nvidiaDGX2.xml"]),
    ("hwloc: MI300X server", ["--input", "real/hwloc-xml/rixl-mi300x-topo.xml"]),
    ("hwloc: AWS p5.48xlarge", ["--input", "real/hwloc-xml/nixl-p5.48xl-topo.xml"]),
    ("hwloc: POWER8 with GPUs", ["--input", "real/hwloc-xml/hwloc-power8gpudistances.xml"]),
    ("NCCL: Azure NDv4", ["--input", "real/nccl-topo/azure-ndv4-topo.xml"]),
    ("NCCL: AWS p4d.24xlarge", ["--input", "real/nccl-topo/aws-p4d-24xl-topo.xml"]),
    ("nvidia-smi: PCIe 2 sockets, 4 switches", ["--input", "nvidia-smi/pcie-2s4sw8g4n.txt"]),
    ("nvidia-smi: old driver (SOC)", ["--input", "nvidia-smi/old-driver-soc-2s4g1n.txt"]),
] + [(f"calibration platform {p}", ["--input", p]) for p in CALIBRATION_PLATFORMS]
# Documents on disk, relative to FIXTURES_DIR, validated as they are.
TOPOLOGY_FILES = [PLATFORM, "platforms/pcie-gen4-2s4sw8g.expected.json"] + CALIBRATION_PLATFORMS


def load_schema(path):
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def problems(validator, doc):
    out = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path) or "(root)"
        out.append(f"{where}: {err.message}")
    return out


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: validate_schemas.py VP_ANALYZE FIXTURES_DIR [SCHEMAS_DIR]\n")
        return 1
    analyze, fixtures = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    schemas = os.path.abspath(argv[3]) if len(argv) == 4 else os.path.join(os.path.dirname(fixtures), "schemas")
    topology = load_schema(os.path.join(schemas, "topology.schema.json"))
    cluster = load_schema(os.path.join(schemas, "cluster.schema.json"))

    failures = 0
    checked = 0

    def report(name, issues):
        nonlocal failures, checked
        checked += 1
        if issues:
            failures += 1
            print(f"FAIL {name}")
            for issue in issues[:20]:
                print(f"     {issue}")
            if len(issues) > 20:
                print(f"     ... and {len(issues) - 20} more")
        else:
            print(f"ok   {name}")

    for name, args in TOPOLOGY_RUNS:
        # Paths are relative to FIXTURES_DIR: run there.
        cmd = [analyze, "topology", "--json"] + args
        r = subprocess.run(cmd, cwd=fixtures, capture_output=True, text=True, check=False)
        if r.returncode != 0:
            report(f"topology --json: {name}", [f"`{' '.join(cmd)}` exited {r.returncode}: {r.stderr.strip()}"])
            continue
        try:
            doc = json.loads(r.stdout)
        except json.JSONDecodeError as e:
            report(f"topology --json: {name}", [f"output is not JSON ({e})"])
            continue
        report(f"topology --json: {name} ({len(doc.get('gpus', []))} GPUs)", problems(topology, doc))

    for rel in TOPOLOGY_FILES:
        with open(os.path.join(fixtures, rel), encoding="utf-8") as f:
            report(f"topology schema: {rel}", problems(topology, json.load(f)))

    platforms = os.path.join(fixtures, "platforms")
    cluster_files = sorted(n for n in os.listdir(platforms) if n.endswith(".cluster.json"))
    if not cluster_files:
        report("cluster schema", [f"no *.cluster.json in {platforms}"])
    for name in cluster_files:
        with open(os.path.join(platforms, name), encoding="utf-8") as f:
            report(f"cluster schema: platforms/{name}", problems(cluster, json.load(f)))

    figures_schema = load_schema(os.path.join(schemas, "calibration-figures.schema.json"))
    figures = os.path.join(os.path.dirname(fixtures), "simulator", "calibration", "figures.json")
    with open(figures, encoding="utf-8") as f:
        report("calibration figures: simulator/calibration/figures.json", problems(figures_schema, json.load(f)))

    print(f"{checked - failures} of {checked} documents valid")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
