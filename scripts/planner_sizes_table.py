#!/usr/bin/env python3
"""The tables of docs/planner.md "Default plans against the baselines" from two
result folders of scripts/planner_sizes.sh (before, after):

    scripts/planner_sizes_table.py BEFORE_DIR AFTER_DIR
    scripts/planner_sizes_table.py AFTER_DIR        (one version: no before)

Per platform, workload, model and size: VarioPath's time over the best
baseline's (the least time among fan-out, NCCL, SpreadOut, FAST-like and the
DeepEP modes where vp-sim does not call them hypothetical), before -> after,
each a whole call (counts exchange + planning + transfer), and in brackets
the after plan's transfer alone over the same best baseline, and that
baseline."""
import json
import os
import sys

PLATFORMS = ["pcie-1n", "hgx-h20-2n-switch", "pcie-4n-switch", "aws-g5-4n-switch"]
SIZES = [1024, 16384, 131072, 1048576, 16777216, 67108864]
NAMES = {1024: "1 KiB", 16384: "16 KiB", 131072: "128 KiB", 1048576: "1 MiB", 16777216: "16 MiB", 67108864: "64 MiB"}


def load(folder, platform, workload, model, size):
    path = f"{folder}/{platform}.{workload}.{model}.{size}.json"
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    results = json.load(open(path))["per_size"][0]["results"]
    baselines = {k: v for k, v in results.items() if k != "variopath" and not v.get("hypothetical", False)}
    best = min(baselines, key=lambda k: baselines[k]["time_us"])
    v = results["variopath"]
    t = baselines[best]["time_us"]
    return {"total": v["time_us"] / t, "transfer": v["transfer_us"] / t, "best": best}


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: planner_sizes_table.py [BEFORE_DIR] AFTER_DIR")
    before, after = (sys.argv[1], sys.argv[2]) if len(sys.argv) == 3 else (None, sys.argv[1])
    for model in ["contention", "ideal"]:
        what = "before → **after**" if before else "**whole call**"
        print(f"\n`--model {model}`: VarioPath / best baseline, {what} (transfer only; the best baseline)\n")
        print("| platform | workload | " + " | ".join(NAMES[x] for x in SIZES) + " |")
        print("|---|---|" + "---|" * len(SIZES))
        for p in PLATFORMS:
            for w in ["uniform", "moe"]:
                cells = []
                for x in SIZES:
                    a = load(after, p, w, model, x)
                    b = load(before, p, w, model, x) if before else None
                    if a is None or (before and b is None):
                        cells.append("-")
                    else:
                        was = f"{b['total']:.2f} → " if before else ""
                        cells.append(f"{was}**{a['total']:.2f}** ({a['transfer']:.2f}, {a['best']})")
                print(f"| {p} | {'uniform' if w == 'uniform' else 'MoE Zipf 1.2'} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
