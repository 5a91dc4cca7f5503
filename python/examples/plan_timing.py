#!/usr/bin/env python3
"""Time Planner.plan() through the binding: a uniform and a Zipf-skewed
demand, read in place (uint64, float64) or converted (uint32), and the cost
of taking four plan arrays (zero-copy views, and the one computed `steps`).

    python3 plan_timing.py CATALOG.vpcat [--calls 200]

Prints figures only; compare with docs/planner.md "Measurements" (the C++
benchmark, which reuses one Plan: the binding makes a new Plan per call).
"""
import argparse
import time

import numpy as np

import vpcat


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("catalog")
    ap.add_argument("--calls", type=int, default=200)
    args = ap.parse_args()
    cat = vpcat.Catalog.open(args.catalog)
    planner = vpcat.Planner(cat)
    n = cat.gpu_count
    rng = np.random.default_rng(1)
    zipf = np.outer(rng.integers(1, 4, n), 1.0 / np.arange(1, n + 1) ** 1.2) * (1 << 20)
    demands = {"uniform 1 MiB": np.full((n, n), 1 << 20, dtype=np.uint64), "zipf-skewed": zipf.astype(np.uint64)}
    print(f"{cat.gpu_count} GPUs on {cat.node_count} nodes, {args.calls} calls each")
    for name, demand in demands.items():
        for dtype in (np.uint64, np.float64, np.uint32):
            d = demand.astype(dtype)
            plan = planner.plan(d)  # the first call of a size grows the plan
            t = time.perf_counter()
            for _ in range(args.calls):
                plan = planner.plan(d)
            plan_us = (time.perf_counter() - t) / args.calls * 1e6
            arrays = 0.0
            for _ in range(args.calls):
                p = planner.plan(d)
                t = time.perf_counter()
                _ = (p.src, p.dst, p.bytes, p.steps)
                arrays += time.perf_counter() - t
            arrays_us = arrays / args.calls * 1e6
            print(f"  {name:14s} {np.dtype(dtype).name:8s} plan() {plan_us:9.1f} us/call "
                  f"({plan.step_count} steps, {plan.transfer_count} transfers, copied={plan.demand_copied}); "
                  f"src, dst, bytes, steps: {arrays_us:6.1f} us")


if __name__ == "__main__":
    main()
