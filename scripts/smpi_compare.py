#!/usr/bin/env python3
"""Two judges side by side (docs/smpi.md): vp-sim and SimGrid's SMPI on the same
platform, demand and message size.

    scripts/smpi_compare.py [--build DIR] [--platforms A,B] [--workloads ...] [--sizes 64K,1M,8M] [--out DIR]
                            [--json FILE]

For every platform (a catalog built with vp-analyze from fixtures/platforms),
workload, message size and model (ideal; calibrated = the committed contention
table), it writes one demand file and runs

* vp-sim --demand FILE --schedulers variopath,fanout,spreadout --planning-us 0
  --machine-model simulator/contention.json (VarioPath planned as the
  executor plans it; --model contention for the calibrated rows), as the
  default judge runs
  (every send a rendezvous) and with --eager detached (a message below
  64 KiB does not hold its sender: SMPI's detached sends, smpirun.sh), and
* under smpirun, on the platform of vp-sim --simgrid-platform (calibrated:
  through vp_simgrid_platform.so), the driver vp_smpi_alltoallv: VarioPath's
  MPI executor (libvpcat_mpi, unmodified), and MPI_Alltoallv with SMPI's
  ompi_basic_linear (fan-out: Open MPI's basic linear, every transfer at once)
  and pair (pairwise exchange: step i sends rank ^ i, SMPI's ring does the
  same at a power-of-two rank count), every received byte checked.

It prints one row per case: the VarioPath plan's own expected time (vp-plan's
expected_us: its steps' sum, no counts exchange), both engines' times (us) for
VarioPath, fan-out and the step-wise baseline (vp-sim's SpreadOut, the shift i -> i + k, beside
SMPI's pair), the fastest per engine, and at the end the fraction of cases
where both name the same fastest, the largest difference between the engines
for one scheduler, and how far the executor is from its plan's expected time.
--json FILE saves every row and the run's facts (command, wall time, load)
for scripts/evaluate_report.py, which renders them as the section "Two
judges" of docs/evaluation.md.

Workloads (each rank's message of SIZE bytes split as nccl-tests does, its own
share SIZE / n staying local): uniform; hotspot (GPU 0 receives 10 x what
every other GPU does, as vp-sim's hotspot); zipf (destination popularity
1 / rank^1.2 over a seeded random order of the GPUs, a MoE-like skew).
Exit codes: 0 ok, 1 usage or a missing tool, 2 a run failed or a byte arrived
wrong (its log is named).
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORMS = {
    # name: vp-analyze arguments (as scripts/evaluate.sh)
    "pcie-1n": ["--input", "pcie-gen4-2s4sw8g.json"],
    "pcie-4n-switch": ["--input", "pcie-gen4-2s4sw8g.json", "--cluster", "pcie-gen4-2s4sw8g-4n-switch.cluster.json"],
    "pcie-16n-rail": ["--input", "pcie-gen4-2s4sw8g.json", "--cluster", "pcie-gen4-2s4sw8g-16n-rail.cluster.json"],
    "pcie-32n-leafspine2to1": ["--input", "pcie-gen4-2s4sw8g.json", "--cluster",
                               "pcie-gen4-2s4sw8g-32n-leafspine2to1.cluster.json"],
    "hgx-h20-2n-switch": ["--input", "hgx-h20-8cx7.json", "--cluster", "hgx-h20-8cx7-2n-switch.cluster.json"],
    "aws-g6-4n-switch": ["--input", "aws-g6-48xl.json", "--cluster", "aws-g6-48xl-4n-switch.cluster.json"],
}
# The machine model VarioPath's planner expects in the executor (libvpcat_mpi's
# default PlanOptions::machine: the committed table's values) and in vp-plan:
# vp-sim plans with it too, so that both engines judge the plan the executor
# runs (vp-sim's default under --model ideal is the ideal model: another plan).
MACHINE_MODEL = os.path.join(ROOT, "simulator", "contention.json")
# SMPI's smpi/send-is-detached-thresh (smpirun.sh): vp-sim --eager detached below it.
EAGER_BYTES = 65536
# (label, vp-sim scheduler, SMPI method, SMPI algorithm)
SCHEDULERS = [
    ("VarioPath", "variopath", "vpcat", None),
    ("fan-out", "fanout", "mpi", "ompi_basic_linear"),
    ("SpreadOut/pair", "spreadout", "mpi", "pair"),
]


def die(code, msg):
    print(f"smpi_compare: {msg}", file=sys.stderr)
    sys.exit(code)


def parse_size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper()
    mult = units.get(t[-1:], 1)
    num = t[:-1] if t[-1:] in units else t
    if not num.isdigit() or int(num) == 0:
        die(1, f"--sizes: {text!r} is not a size (bytes, K/M/G = 2^10/2^20/2^30)")
    return int(num) * mult


def demand(workload, n, size):
    """The n x n byte matrix: each rank sends size * (n - 1) / n bytes to the others."""
    off = size * (n - 1) // n
    if workload == "uniform":
        weights = [[0 if s == d else 1.0 for d in range(n)] for s in range(n)]
    elif workload == "hotspot":
        weights = [[0 if s == d else (10.0 if d == 0 else 1.0) for d in range(n)] for s in range(n)]
    elif workload == "zipf":
        order = list(range(n))
        random.Random(1).shuffle(order)
        pop = {g: 1.0 / (k + 1) ** 1.2 for k, g in enumerate(order)}
        weights = [[0 if s == d else pop[d] for d in range(n)] for s in range(n)]
    else:
        die(1, f"--workloads: unknown workload {workload!r} (uniform, hotspot, zipf)")
    rows = []
    for s in range(n):
        total = sum(weights[s])
        row = [int(off * w / total) for w in weights[s]]
        rows.append(row)
    return rows


def step(cmd):
    """A build or preparation command; its failure ends the script (exit 2) naming it."""
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    if p.returncode != 0:
        die(2, f"{' '.join(cmd)} failed (exit {p.returncode})")


def run(cmd, log, env=None):
    with open(log, "w") as f:
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    text = open(log).read()
    if p.returncode != 0:
        die(2, f"{' '.join(cmd[:6])} ... failed (exit {p.returncode}); log: {log}")
    return text


def executor_exchange(text, log):
    """The executor's counts exchange (us) of its last call: the driver's vpcat statistics line."""
    for line in text.splitlines():
        if line.startswith("vpcat calls "):
            f = line.split()
            return float(f[f.index("exchange_us") + 1])
    die(2, f"no executor statistics in {log}")


def smpi_time(text, log):
    for line in text.splitlines():
        if line.startswith("call 0 "):
            f = line.split()
            if f[-1] != "ok":
                die(2, f"bytes received wrong; log: {log}")
            return float(f[f.index("time_us") + 1])
    die(2, f"no time in {log}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build-smpi"),
                    help="build folder (configured Release with SMPI if new; default build-smpi)")
    ap.add_argument("--platforms", default="pcie-1n,pcie-4n-switch", help="comma list of " + ", ".join(PLATFORMS))
    ap.add_argument("--workloads", default="uniform,hotspot,zipf")
    ap.add_argument("--sizes", default="64K,1M,8M", help="message sizes per rank (nccl-tests' size)")
    ap.add_argument("--latency-us", type=float, default=5.0, help="start-up latency per message, both engines")
    ap.add_argument("--out", default=None, help="intermediate files (default BUILD/smpi-compare)")
    ap.add_argument("--json", default=None, help="save the rows and the run's facts to FILE (evaluate_report.py --smpi)")
    a = ap.parse_args()
    platforms = a.platforms.split(",")
    for p in platforms:
        if p not in PLATFORMS:
            die(1, f"--platforms: unknown platform {p!r} ({', '.join(PLATFORMS)})")
    workloads = a.workloads.split(",")
    sizes = [parse_size(s) for s in a.sizes.split(",")]
    if not shutil.which("smpirun"):
        die(1, "smpirun not found: install libsimgrid-dev (scripts/install-deps.sh)")

    build = a.build
    started = time.time()
    load_start = os.getloadavg()[0]
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        step(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DVP_BUILD_TESTS=OFF",
              "-DVP_BUILD_SMPI=ON"])
    step(["cmake", "--build", build, "--parallel", os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"),
          "--target", "vp-analyze", "vp-sim", "vp-plan", "vp_smpi", "vp_simgrid_platform"])
    analyze = os.path.join(build, "tools", "vp-analyze", "vp-analyze")
    sim = os.path.join(build, "tools", "vp-sim", "vp-sim")
    plan = os.path.join(build, "tools", "vp-plan", "vp-plan")
    driver = os.path.join(build, "smpi", "vp_smpi_alltoallv")
    lib = os.path.join(build, "smpi", "vp_simgrid_platform.so")
    smpirun_sh = os.path.join(ROOT, "smpi", "smpirun.sh")
    out = a.out or os.path.join(build, "smpi-compare")
    os.makedirs(out, exist_ok=True)

    rows = []
    for plat in platforms:
        args = [x if x.startswith("--") else os.path.join(ROOT, "fixtures", "platforms", x) for x in PLATFORMS[plat]]
        cat = os.path.join(out, plat + ".vpcat")
        step([analyze, "-q", *args, "--out", cat])
        xml = {}
        for model in ("ideal", "calibrated"):
            xml[model] = os.path.join(out, f"{plat}-{model}.xml")
            extra = ["--model", "contention"] if model == "calibrated" else []
            step([sim, "--catalog", cat, "--latency-us", str(a.latency_us), *extra, "--simgrid-platform", xml[model]])
        with open(xml["ideal"]) as f:
            n = sum(1 for line in f if line.lstrip().startswith("<host id="))
        for w in workloads:
            for size in sizes:
                m = demand(w, n, size)
                base = os.path.join(out, f"{plat}-{w}-{size}")
                with open(base + ".json", "w") as f:
                    json.dump({"gpus": n, "bytes": m}, f)
                with open(base + ".txt", "w") as f:
                    f.write(f"{n}\n" + "\n".join(" ".join(map(str, r)) for r in m) + "\n")
                expected = json.loads(run([plan, "--catalog", cat, "--demand", base + ".json", "--latency-us",
                                           str(a.latency_us), "--json"], base + "-plan.log"))["expected_us"]
                for model in ("ideal", "calibrated"):
                    extra = ["--model", "contention"] if model == "calibrated" else []
                    def judge(eager, tag):
                        return json.loads(run([sim, "--catalog", cat, "--demand", base + ".json", "--schedulers",
                                               "variopath,fanout,spreadout", "--planning-us", "0", "--latency-us",
                                               str(a.latency_us), "--machine-model", MACHINE_MODEL, *extra, *eager,
                                               "--json"],
                                              f"{base}-{model}-vpsim{tag}.log"))["results"]
                    vs = judge([], "")
                    ve = judge(["--eager", "detached", "--eager-bytes", str(EAGER_BYTES)], "-eager")
                    row = {"platform": plat, "workload": w, "size": size, "model": model, "n": n,
                           "plan": expected, "vpsim": {}, "vpsim_eager": {}, "smpi": {},
                           "vpsim_exchange": vs["variopath"]["exchange_us"]}
                    for label, sched, method, alg in SCHEDULERS:
                        row["vpsim"][label] = vs[sched]["time_us"]
                        row["vpsim_eager"][label] = ve[sched]["time_us"]
                        cmd = [smpirun_sh, "--platform", xml[model], "--np", str(n)]
                        if model == "calibrated":
                            cmd += ["--library", lib]
                        if alg:
                            cmd += ["--alltoallv", alg]
                        cmd += ["--", driver, "--method", method, "--demand", base + ".txt"]
                        if method == "vpcat":
                            cmd += ["--catalog", cat]
                        env = dict(os.environ, VPCAT_RANK_MAP=f"0-{n - 1}")
                        log = f"{base}-{model}-{method}{'-' + alg if alg else ''}.log"
                        text = run(cmd, log, env)
                        row["smpi"][label] = smpi_time(text, log)
                        if method == "vpcat":
                            row["smpi_exchange"] = executor_exchange(text, log)
                    rows.append(row)
                    print_row(row, header=len(rows) == 1)
                    sys.stdout.flush()
    seconds = time.time() - started
    summary(rows, seconds)
    if a.json:
        # The command as far as it decides the results (not where files go).
        command = f"scripts/smpi_compare.py --platforms {a.platforms} --workloads {a.workloads} --sizes {a.sizes}"
        if a.latency_us != 5.0:
            command += f" --latency-us {a.latency_us:g}"
        facts = {"command": command, "seconds": round(seconds),
                 "load": [round(load_start, 1), round(os.getloadavg()[0], 1)], "latency_us": a.latency_us,
                 "eager_bytes": EAGER_BYTES, "rows": rows}
        with open(a.json, "w") as f:
            json.dump(facts, f, indent=1)


def fastest(times):
    return min(times, key=times.get)


def print_row(r, header):
    labels = [s[0] for s in SCHEDULERS]
    if header:
        print("# times in us: vp-sim | vp-sim --eager detached | SMPI; "
              "SpreadOut/pair = vp-sim's SpreadOut (shift) | SMPI's pair (XOR exchange)")
        print(f"{'platform':<17} {'workload':<8} {'size':>9} {'model':<10} {'plan':>8} " +
              " ".join(f"{l:>31}" for l in labels) + f"  {'fastest vp-sim | SMPI':<30}")
    cells = " ".join(f"{r['vpsim'][l]:>9.1f} |{r['vpsim_eager'][l]:>9.1f} |{r['smpi'][l]:>9.1f}" for l in labels)
    fv, fs = fastest(r["vpsim"]), fastest(r["smpi"])
    print(f"{r['platform']:<17} {r['workload']:<8} {r['size']:>9} {r['model']:<10} {r['plan']:>8.1f} {cells}  "
          f"{fv} | {fs}{'' if fv == fs else '  (differ)'}")


def summary(rows, seconds):
    same = sum(1 for r in rows if fastest(r["vpsim"]) == fastest(r["smpi"]))
    print(f"\ncases: {len(rows)}; both engines name the same fastest: {same} of {len(rows)} "
          f"({100.0 * same / len(rows):.0f} %)")
    worst = max(((abs(r["smpi"][l] / r["vpsim"][l] - 1), l, r) for r in rows for l in r["vpsim"]),
                key=lambda t: t[0])
    d, l, r = worst
    print(f"largest difference: {l} on {r['platform']} {r['workload']} {r['size']} {r['model']}: "
          f"vp-sim {r['vpsim'][l]:.1f} us, SMPI {r['smpi'][l]:.1f} us ({100 * (r['smpi'][l] / r['vpsim'][l] - 1):+.1f} %)")
    for label in [s[0] for s in SCHEDULERS]:
        ratios = [r["smpi"][label] / r["vpsim"][label] for r in rows]
        eager = [r["smpi"][label] / r["vpsim_eager"][label] for r in rows]
        print(f"{label}: SMPI / vp-sim from {min(ratios):.3f} to {max(ratios):.3f}; "
              f"SMPI / vp-sim --eager detached from {min(eager):.3f} to {max(eager):.3f}")
    ratios = [r["smpi"]["VarioPath"] / r["plan"] for r in rows]
    print(f"VarioPath's executor under SMPI / its plan's expected time: from {min(ratios):.3f} to {max(ratios):.3f}")
    print(f"done in {seconds:.0f} s")


if __name__ == "__main__":
    main()
