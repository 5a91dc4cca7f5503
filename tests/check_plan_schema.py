#!/usr/bin/env python3
"""Validate `vp-plan --json` output against schemas/plan.schema.json.

    check_plan_schema.py VP_PLAN VP_ANALYZE FIXTURES_DIR SCHEMA

Builds a 3-node rail catalog with vp-analyze, plans a dense, a sparse and an
empty demand, and validates each plan (JSON Schema 2020-12). On a 3-node
switch catalog, plans with --nic-loopback must loop some intra-node transfer
through two NICs, and a default plan none. Also checks that every route's
links chain from src to dst in `vp-analyze topology --json`.
Exit 0 when all validate, 1 otherwise. A missing jsonschema module is a
failure: install python3-jsonschema.
"""

import json
import os
import subprocess
import sys
import tempfile

try:
    from jsonschema import Draft202012Validator
except ImportError as e:  # pragma: no cover
    sys.stderr.write(f"check_plan_schema.py: error: cannot import jsonschema ({e}); install python3-jsonschema\n")
    sys.exit(1)


def main():
    vp_plan, vp_analyze, fixtures, schema_path = sys.argv[1:5]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    platform = os.path.join(fixtures, "platforms", "pcie-gen4-2s4sw8g.json")
    cluster = ["--input", platform, "--nodes", "3", "--fabric", "rail"]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        def analyze(name, args):
            path = os.path.join(tmp, name + ".vpcat")
            subprocess.run([vp_analyze, "-q", *args, "--out", path], check=True, stdout=subprocess.DEVNULL)
            return path, json.loads(subprocess.run([vp_analyze, "topology", *args, "--json"], check=True,
                                                   capture_output=True, text=True).stdout)
        rail = analyze("rail", cluster)
        # NIC loopbacks need two NICs of a node on one switch.
        switch = analyze("switch", ["--input", platform, "--nodes", "3", "--fabric", "single_switch"])
        n = 24
        demands = {
            "dense": {"gpus": n, "bytes": [[0 if s == d else (s * 31 + d * 7) % 5 * 65536 for d in range(n)]
                                           for s in range(n)]},
            "sparse": {"gpus": n, "entries": [[0, 23, 1 << 20], [23, 0, 12345], [5, 6, 1], [5, 5, 99]]},
            "empty": {"gpus": n, "entries": []},
        }
        demands["uniform"] = {"gpus": n, "bytes": [[0 if s == d else 1 << 20 for d in range(n)] for s in range(n)]}
        runs = [(name, demand, []) for name, demand in demands.items()]
        runs += [(name + " --allow-shared", demand, ["--allow-shared"]) for name, demand in demands.items()]
        runs += [("uniform --nic-loopback", demands["uniform"], ["--nic-loopback"]),
                 ("dense --nic-loopback", demands["dense"], ["--nic-loopback"]),
                 ("uniform on the switch", demands["uniform"], ["--switch"])]
        # A subset (docs/subsets.md): ranks map to catalog GPUs through gpu_map.
        m = 6
        demands["subset"] = {"gpus": m, "bytes": [[0 if s == d else (s + 1) * 65536 for d in range(m)] for s in range(m)]}
        runs += [("subset", demands["subset"], ["--gpus", "17,16,3-5,9"])]
        loops = 0
        for name, demand, flags in runs:
            catalog, topo = switch if "--nic-loopback" in flags or "--switch" in flags else rail
            flags = [f for f in flags if f != "--switch"]
            path = os.path.join(tmp, name.split()[0] + ".json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(demand, f)
            out = subprocess.run([vp_plan, "--catalog", catalog, "--demand", path, "--json", *flags],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name}: vp-plan failed: {out.stderr.strip()}")
                failures += 1
                continue
            plan = json.loads(out.stdout)
            gpu_map = plan.get("gpu_map", list(range(plan["gpus"])))
            if "--gpus" in flags and gpu_map != [17, 16, 3, 4, 5, 9]:
                print(f"{name}: gpu_map is {gpu_map}")
                failures += 1
            errors = sorted(validator.iter_errors(plan), key=lambda e: list(e.absolute_path))
            for e in errors:
                print(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            failures += len(errors)
            for step in plan["steps"]:
                for t in step["transfers"]:
                    same_node = gpu_map[t["src"]] // 8 == gpu_map[t["dst"]] // 8  # 8 GPUs per node
                    if t["src_nic"] is not None and same_node:
                        loops += 1
                        if "--nic-loopback" not in flags:
                            print(f"{name}: {t['src']} -> {t['dst']} loops through NICs without --nic-loopback")
                            failures += 1
                    at = topo["gpus"][gpu_map[t["src"]]]
                    for link in t["route"]:
                        if topo["links"][link]["src"] != at:
                            print(f"{name}: route of {t['src']} -> {t['dst']} is not a path")
                            failures += 1
                            break
                        at = topo["links"][link]["dst"]
                    else:
                        if at != topo["gpus"][gpu_map[t["dst"]]]:
                            print(f"{name}: route of {t['src']} -> {t['dst']} ends elsewhere")
                            failures += 1
            print(f"{name}: {len(plan['steps'])} steps, {'ok' if not errors else 'INVALID'}")
    if loops == 0:
        print("no plan with --nic-loopback looped a transfer through its node's NICs")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
