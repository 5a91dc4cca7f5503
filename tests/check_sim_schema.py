#!/usr/bin/env python3
"""Validate `vp-sim --json` output against schemas/sim.schema.json.

    check_sim_schema.py VP_SIM VP_ANALYZE FIXTURES_DIR SCHEMA

Builds a 2-node catalog with vp-analyze, runs vp-sim on a generated
workload (under both models, the contention table given and the default
one), a drift sequence, a sweep of message sizes, a sparse demand file and
an empty one, and validates each output (JSON Schema 2020-12) and that its
route bound is at or above its graph bound, call by call; validates the
committed contention table (simulator/contention.json) against
schemas/contention.schema.json. Exit 0 when all validate, 1
otherwise. A missing jsonschema module is a failure: install
python3-jsonschema.
"""

import json
import os
import subprocess
import sys
import tempfile

try:
    from jsonschema import Draft202012Validator
except ImportError as e:  # pragma: no cover
    sys.stderr.write(f"check_sim_schema.py: error: cannot import jsonschema ({e}); install python3-jsonschema\n")
    sys.exit(1)


def main():
    vp_sim, vp_analyze, fixtures, schema_path = sys.argv[1:5]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    platform = os.path.join(fixtures, "platforms", "pcie-gen4-2s4sw8g.json")
    failures = 0
    # The committed contention table against its schema.
    table = os.path.join(os.path.dirname(os.path.abspath(fixtures)), "simulator", "contention.json")
    with open(os.path.join(os.path.dirname(schema_path), "contention.schema.json"), encoding="utf-8") as f:
        table_schema = json.load(f)
    Draft202012Validator.check_schema(table_schema)
    with open(table, encoding="utf-8") as f:
        for e in Draft202012Validator(table_schema).iter_errors(json.load(f)):
            print(f"simulator/contention.json: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            failures += 1
    with tempfile.TemporaryDirectory() as tmp:
        catalog = os.path.join(tmp, "c.vpcat")
        subprocess.run([vp_analyze, "-q", "--input", platform, "--nodes", "2", "--fabric", "single_switch",
                        "--out", catalog], check=True, stdout=subprocess.DEVNULL)
        n = 16
        files = {
            "sparse": {"gpus": n, "entries": [[0, 15, 1 << 20], [15, 0, 12345], [5, 6, 1]]},
            "empty": {"gpus": n, "entries": []},
        }
        runs = {
            "uniform": ["--workload", "uniform:bytes=65536"],
            "drift": ["--workload", "drift:calls=2,tokens=64", "--schedulers", "variopath,fast"],
            "contention": ["--workload", "uniform:bytes=65536", "--model", "contention", "--contention", table],
            "default_contention": ["--workload", "uniform:bytes=65536", "--model", "contention"],
            "eager": ["--workload", "uniform:bytes=65536", "--schedulers", "variopath,spreadout", "--eager", "detached"],
            # A sweep of message sizes (nccl-tests' -b 1K -e 16K -f 4), and
            # one of a skewed workload under the contention model.
            "sizes": ["--workload", "uniform", "--schedulers", "variopath,fanout", "--sizes", "1K:16K:4"],
            "sizes_moe": ["--workload", "moe:tokens=64", "--schedulers", "nccl", "--sizes", "256:1K",
                          "--model", "contention"],
            # A job on 3 + 5 GPUs of the two nodes (FAST-like and DeepEP
            # NVLink-style skipped), with its gpu_map.
            "subset": ["--workload", "uniform:bytes=65536", "--gpus", "0-2,8-12"],
            "slice": ["--workload", "drift:calls=3,tokens=64", "--schedulers", "variopath,fanout", "--calls", "1:3"],
            # The flow bound's fields, for one call and for a sequence.
            "flow": ["--workload", "uniform:bytes=65536", "--schedulers", "fanout", "--flow-bound"],
            "flow_drift": ["--workload", "drift:calls=2,tokens=64", "--schedulers", "fanout", "--flow-bound"],
            # A plan that ends with (or is) the shared step: its bytes (with
            # --channels-only --allow-shared, the shape of earlier versions).
            "shared": ["--workload", "uniform:bytes=65536", "--schedulers", "variopath", "--channels-only",
                       "--allow-shared", "--machine-model", "ideal"],
            # Channel steps only: no shared bytes.
            "channels": ["--workload", "uniform:bytes=65536", "--schedulers", "variopath", "--channels-only"],
        }
        for name, demand in files.items():
            path = os.path.join(tmp, name + ".json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(demand, f)
            runs[name] = ["--demand", path]
        for name, args in runs.items():
            out = subprocess.run([vp_sim, "--catalog", catalog, *args, "--json"], capture_output=True, text=True)
            if out.returncode != 0:
                print(f"{name}: vp-sim failed: {out.stderr.strip()}")
                failures += 1
                continue
            doc = json.loads(out.stdout)
            errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errors:
                print(f"{name}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
            failures += len(errors)
            # What the schema cannot say: the route bound is never below the
            # graph bound, call by call.
            for k, case in enumerate(doc.get("per_call", doc.get("per_size", [doc]))):
                if case["route_bound_us"] < case["lower_bound_us"] * (1 - 1e-12):
                    print(f"{name}: call {k}: route_bound_us {case['route_bound_us']} is below lower_bound_us "
                          f"{case['lower_bound_us']}")
                    failures += 1
                # Nor the flow bound below the cut bound.
                if case.get("flow_bound_us") is not None and case["flow_bound_us"] < case["lower_bound_us"] * (1 - 1e-7):
                    print(f"{name}: call {k}: flow_bound_us {case['flow_bound_us']} is below lower_bound_us "
                          f"{case['lower_bound_us']}")
                    failures += 1
            if name.startswith("flow") and "flow_bound_us" not in doc:
                print(f"{name}: --flow-bound printed no flow_bound_us")
                failures += 1
            if name.startswith("sizes") and len(doc.get("per_size", [])) != {"sizes": 3, "sizes_moe": 3}[name]:
                print(f"{name}: {len(doc.get('per_size', []))} sizes")
                failures += 1
            results = doc.get("results", doc.get("per_size", [{}])[0].get("results", {}))
            shared = results.get("variopath", {}).get("shared_bytes")
            if name == "shared" and not (shared and shared <= doc["total_bytes"]):
                print(f"{name}: shared_bytes {shared} is not in (0, total_bytes {doc['total_bytes']}]")
                failures += 1
            if name == "channels" and shared is not None:
                print(f"{name}: shared_bytes {shared} with --channels-only")
                failures += 1
            if shared is not None and not 0 < shared <= doc.get("total_bytes", shared):
                print(f"{name}: shared_bytes {shared} is not in (0, total_bytes]")
                failures += 1
            print(f"{name}: {len(results)} schedulers, {'ok' if not errors else 'INVALID'}")
        # The schema must reject what vp-sim must never print.
        bad = json.loads(subprocess.run([vp_sim, "--catalog", catalog, *runs["uniform"], "--json"],
                                        capture_output=True, text=True, check=True).stdout)
        bad["results"]["fanout"]["ratio_to_bound"] = 0.5
        if validator.is_valid(bad):
            print("a ratio below the bound validates")
            failures += 1
        bad = json.loads(subprocess.run([vp_sim, "--catalog", catalog, *runs["uniform"], "--json"],
                                        capture_output=True, text=True, check=True).stdout)
        bad["results"]["nccl"]["ratio_to_route_bound"] = 0.5
        if validator.is_valid(bad):
            print("a ratio below the route bound validates")
            failures += 1
        del bad["route_bound_us"]
        bad["results"]["nccl"]["ratio_to_route_bound"] = 1.5
        if validator.is_valid(bad):
            print("a document without route_bound_us validates")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
