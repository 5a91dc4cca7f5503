#!/usr/bin/env python3
"""A seeded stream of jobs on a cluster, placed by first fit, best fit and
`vp-catalog place` (docs/jobstream.md).

    scripts/jobstream.py [--bin DIR] [--catalog FILE] [--jobs N] [--seed S]
                         [--workload W] [--load L] [--comm-fraction F]
                         [--slack X] [--json]

The stream: N jobs (default 200) whose sizes are 2^U GPUs rounded, U uniform
in [0, 6] (1 to 64 GPUs, as many 1-2 GPU jobs as 32-64 GPU ones), compute
times exponential with mean 1 (time unit), arrivals Poisson at the rate that
offers --load (default 0.9) of the cluster's GPUs. Jobs start in arrival
order (first come, first served, no backfilling) as soon as enough GPUs are
free; each policy replays the same stream.

A job's AlltoAllv time on its placement is `planned_us` as vp-catalog score
and place give it (the judge's simulation of VarioPath's plan, --workload,
default uniform). It feeds back into the job's duration: a job spends
--comm-fraction (default 0.5) of its time in AlltoAllv on a reference
placement (its size packed on the first nodes of the empty cluster, GPUs in
order), so its duration is compute * ((1 - F) + F * planned / reference).

Policies:
  first fit  nodes in order, each node's free GPUs in order, until the job fits
  best fit   the node with the fewest free GPUs that holds the job; if none,
             the freest nodes whole until one holds the rest, that one by
             best fit (fewest nodes, then least waste)
  place      vp-catalog place --free (the free GPUs) --gpus N --workload W
             --slack X, its choice (the runtime's, vpcat::place(): ranked by
             the planner's expected time; the time recorded is the judge's
             planned_us of it, as for the other policies)

Reported per policy, over the whole run (first arrival to last end): GPU
utilisation (busy GPU time / (GPUs x makespan)), the time-averaged fraction of
partial nodes (some GPUs busy, some free: the scheduler-induced fragmentation),
the mean AlltoAllv time of the placed jobs of 2 GPUs or more and its mean
ratio to the bound (planned / bound_us), the mean wait, and the makespan.

--bin DIR: a build tree (tools/vp-catalog/vp-catalog) or a bin/ folder with
vp-catalog. Default: build-test. --catalog: default the 32-node leaf/spine
golden catalog (fixtures/catalogs/golden/pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat).

Exit codes: 0 ok, 1 usage, 2 bad input (a catalog whose node names the
script cannot read), 4 a tool failed.
"""

import argparse
import heapq
import json
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_CATALOG = os.path.join(ROOT, "fixtures/catalogs/golden/pcie-gen4-2s4sw8g-32n-leafspine2to1.vpcat")


class ToolFailure(Exception):
    pass


def find_tool(bin_dir):
    for rel in ("tools/vp-catalog/vp-catalog", "vp-catalog"):
        path = os.path.join(bin_dir, rel)
        if os.access(path, os.X_OK):
            return path
    raise SystemExit(f"jobstream.py: no vp-catalog under {bin_dir} (give --bin DIR)")


def tool(args):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise ToolFailure(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def expand_names(expr, where):
    """Host names of a node group: 'a,b,c' or 'prefix[lo-hi]' items."""
    out = []
    for item in re.findall(r"[^,\[]+(?:\[[^\]]*\])?", expr):
        m = re.fullmatch(r"([^\[\]]*)\[(\d+)-(\d+)\]", item)
        if m:
            width = len(m.group(2))
            out += [f"{m.group(1)}{i:0{width}d}" for i in range(int(m.group(2)), int(m.group(3)) + 1)]
        elif re.fullmatch(r"[^\[\]]+", item):
            out.append(item)
        else:
            print(f"jobstream.py: error: {where}: node names '{expr}': not a list of names or prefix[lo-hi]",
                  file=sys.stderr)
            sys.exit(2)
    return out


def read_cluster(vp_catalog, catalog):
    """(node names, GPUs per node) from the catalog's JSON mirror."""
    with tempfile.TemporaryDirectory() as tmp:
        mirror = os.path.join(tmp, "c.json")
        tool([vp_catalog, "convert", catalog, "--to", "json", "--out", mirror])
        with open(mirror) as f:
            j = json.load(f)
    names, gpus = [], []
    for g in j["node_groups"]:
        t = j["node_types"][g["node_type"]]
        count = sum(1 for c in t["components"] if c["kind"] == "gpu")
        group = expand_names(g["names"], catalog)[: g["count"]]
        names += group
        gpus += [count] * len(group)
    return names, gpus


def make_stream(rng, jobs, total_gpus, load):
    sizes = [min(64, max(1, round(2 ** rng.uniform(0, 6)))) for _ in range(jobs)]
    compute = [rng.expovariate(1.0) for _ in range(jobs)]
    rate = load * total_gpus / (sum(sizes) / jobs)  # jobs per time unit, compute mean 1
    t, arrivals = 0.0, []
    for _ in range(jobs):
        t += rng.expovariate(rate)
        arrivals.append(t)
    return list(zip(arrivals, sizes, compute))


def placement_list(names, gpus):
    """[(node, local)] as a --gpus LIST."""
    return ",".join(f"{names[n]}:{g}" for n, g in gpus)


def first_fit(free, size):
    out = []
    for n in range(len(free)):
        for g in sorted(free[n]):
            if len(out) < size:
                out.append((n, g))
    return out


def best_fit(free, size):
    out, nodes, rem = [], [n for n in range(len(free)) if free[n]], size
    while rem > 0:
        fits = [n for n in nodes if len(free[n]) >= rem]
        if fits:
            n = min(fits, key=lambda x: (len(free[x]), x))
            out += [(n, g) for g in sorted(free[n])[:rem]]
            return out
        n = max(nodes, key=lambda x: (len(free[x]), -x))
        out += [(n, g) for g in sorted(free[n])]
        rem -= len(free[n])
        nodes.remove(n)
    return out


class Scorer:
    def __init__(self, vp_catalog, catalog, names, workload, slack, tmp):
        self.vp_catalog, self.catalog, self.names = vp_catalog, catalog, names
        self.workload, self.slack, self.tmp = workload, slack, tmp
        self.reference_us = {}

    def score(self, gpus):
        out = tool([self.vp_catalog, "score", self.catalog, "--gpus", placement_list(self.names, gpus),
                    "--workload", self.workload, "--json"])
        p = json.loads(out)["placements"][0]
        return p["planned_us"], p["bound_us"]

    def reference(self, size, gpus_per_node):
        if size not in self.reference_us:
            packed = []
            for n, count in enumerate(gpus_per_node):
                packed += [(n, g) for g in range(count)]
            self.reference_us[size] = self.score(packed[:size])[0]
        return self.reference_us[size]

    def place(self, free, size):
        path = os.path.join(self.tmp, "free.txt")
        with open(path, "w") as f:
            for n, gs in enumerate(free):
                if gs:
                    f.write(f"{self.names[n]}:{','.join(str(g) for g in sorted(gs))}\n")
        j = json.loads(tool([self.vp_catalog, "place", self.catalog, "--free", path, "--gpus", str(size),
                             "--workload", self.workload, "--slack", str(self.slack), "--json"]))
        c = j["candidates"][j["choice"] - 1]
        index = {name: n for n, name in enumerate(self.names)}
        gpus = []
        for item in c["placement"].split(","):
            host, local = item.split(":")
            n = index[host]
            gpus += [(n, g) for g in sorted(free[n])] if local == "*" else \
                [(n, g) for g in range(int(local.split("-")[0]), int(local.split("-")[-1]) + 1)]
        return gpus, c["planned_us"], c["bound_us"]


def simulate(policy, stream, gpus_per_node, scorer, comm_fraction):
    free = [set(range(c)) for c in gpus_per_node]
    total = sum(gpus_per_node)
    busy, partial_time, busy_time, last_t = 0, 0.0, 0.0, 0.0
    partial = 0
    queue, running = [], []
    waits, times, ratios = [], [], []

    def count_partial():
        return sum(1 for n, c in enumerate(gpus_per_node) if 0 < len(free[n]) < c)

    def advance(t):
        nonlocal last_t, partial_time, busy_time
        partial_time += partial * (t - last_t)
        busy_time += busy * (t - last_t)
        last_t = t

    def start(t):
        nonlocal busy, partial
        while queue and queue[0][1] <= total - busy:
            arrival, size, compute, job = queue.pop(0)
            if policy == "place":
                gpus, planned, bound = scorer.place(free, size)
            else:
                gpus = first_fit(free, size) if policy == "first fit" else best_fit(free, size)
                planned, bound = scorer.score(gpus)
            assert len(gpus) == size and all(g in free[n] for n, g in gpus), (policy, gpus)
            for n, g in gpus:
                free[n].discard(g)
            busy += size
            partial = count_partial()
            duration = compute
            if size > 1:  # a 1-GPU job has no AlltoAllv
                ref = scorer.reference(size, gpus_per_node)
                duration = compute * ((1 - comm_fraction) + comm_fraction * planned / ref)
                times.append(planned)
                ratios.append(planned / bound)
            heapq.heappush(running, (t + duration, job, gpus))
            waits.append(t - arrival)

    def release_until(t):
        nonlocal busy, partial
        while running and running[0][0] <= t:
            end, job, gpus = heapq.heappop(running)
            advance(end)
            for n, g in gpus:
                free[n].add(g)
            busy -= len(gpus)
            partial = count_partial()
            start(end)

    for job, (arrival, size, compute) in enumerate(stream):
        release_until(arrival)
        advance(arrival)
        queue.append((arrival, size, compute, job))
        start(arrival)
    release_until(float("inf"))
    makespan = last_t
    return {
        "policy": policy,
        "jobs": len(waits),
        "gpu_utilisation": busy_time / (total * makespan),
        "partial_node_fraction": partial_time / (len(gpus_per_node) * makespan),
        "mean_alltoallv_us": sum(times) / len(times),
        "mean_ratio_to_bound": sum(ratios) / len(ratios),
        "mean_wait": sum(waits) / len(waits),
        "makespan": makespan,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "build-test"))
    ap.add_argument("--catalog", default=DEFAULT_CATALOG)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workload", default="uniform")
    ap.add_argument("--load", type=float, default=0.9)
    ap.add_argument("--comm-fraction", type=float, default=0.5)
    ap.add_argument("--slack", type=float, default=0.05)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.jobs < 1 or not 0 < a.load <= 10 or not 0 <= a.comm_fraction < 1 or a.slack < 0:
        ap.error("--jobs >= 1, 0 < --load <= 10, 0 <= --comm-fraction < 1, --slack >= 0")
    vp_catalog = find_tool(a.bin)
    try:
        names, gpus_per_node = read_cluster(vp_catalog, a.catalog)
        stream = make_stream(random.Random(a.seed), a.jobs, sum(gpus_per_node), a.load)
        if max(size for _, size, _ in stream) > sum(gpus_per_node):
            ap.error(f"the cluster has {sum(gpus_per_node)} GPUs, the stream asks for up to 64")
        with tempfile.TemporaryDirectory() as tmp:
            scorer = Scorer(vp_catalog, a.catalog, names, a.workload, a.slack, tmp)
            results = [simulate(p, stream, gpus_per_node, scorer, a.comm_fraction)
                       for p in ("first fit", "best fit", "place")]
    except ToolFailure as e:
        print(f"jobstream.py: error: {e}", file=sys.stderr)
        return 4
    setup = {"catalog": os.path.basename(a.catalog), "nodes": len(names), "gpus": sum(gpus_per_node),
             "jobs": a.jobs, "seed": a.seed, "workload": a.workload, "load": a.load,
             "comm_fraction": a.comm_fraction, "slack": a.slack}
    if a.json:
        print(json.dumps({"format": "vp-jobstream", "version": 1, **setup, "policies": results}, indent=2))
        return 0
    print(f"{setup['catalog']}: {setup['nodes']} nodes, {setup['gpus']} GPUs; {a.jobs} jobs of 1-64 GPUs, seed {a.seed}, "
          f"offered load {a.load}, workload {a.workload}, AlltoAllv {a.comm_fraction:.0%} of a job on its reference "
          f"placement, place --slack {a.slack}")
    print(f"{'policy':<10}  {'GPU util':>8}  {'partial nodes':>13}  {'mean AlltoAllv us':>17}  {'/ bound':>7}  "
          f"{'mean wait':>9}  {'makespan':>8}")
    for r in results:
        print(f"{r['policy']:<10}  {r['gpu_utilisation']:>8.3f}  {r['partial_node_fraction']:>13.3f}  "
              f"{r['mean_alltoallv_us']:>17.1f}  {r['mean_ratio_to_bound']:>7.3f}  {r['mean_wait']:>9.3f}  "
              f"{r['makespan']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
