#!/usr/bin/env python3
"""Write docs/evaluation.md and docs/evaluation/*.svg from vp-sim results.

    evaluate_report.py --results DIR --platforms FILE --docs DOCS_DIR
                       --command CMD --build-type T --seconds S --jobs J
                       --epsilon E --partial yes|no [--smpi SMPI.json]
    evaluate_report.py --smpi-only SMPI.json --docs DOCS_DIR

Called by scripts/evaluate.sh, which produces DIR (one `vp-sim --json` file
per platform and workload) and FILE (the platforms, in order). Python 3
standard library only; the charts are hand-written SVG. --smpi: the saved
rows of scripts/smpi_compare.py --json, written as the section "Two judges"
(scripts/smpi_report.py); --smpi-only writes that section alone into the
existing DOCS_DIR/evaluation.md, the rest unchanged.
"""

import argparse
import datetime
import glob
import json
import math
import os
import platform as pyplatform
import subprocess
import sys

from calibrate import table_parameters  # scripts/calibrate.py: one walk of a contention table
import smpi_report  # scripts/smpi_report.py: the section "Two judges" (SimGrid SMPI)

SCHEDULERS = ["variopath", "fanout", "nccl", "spreadout", "fast", "deepep_nvlink_style", "deepep_pcie"]
BASELINES = SCHEDULERS[1:]
LABEL = {"variopath": "VarioPath", "fanout": "fan-out", "nccl": "NCCL", "spreadout": "SpreadOut",
         "fast": "FAST-like", "deepep_nvlink_style": "DeepEP NVLink-style", "deepep_pcie": "DeepEP PCIe"}
COLOR = {"variopath": "#1b7837", "fanout": "#7f7f7f", "nccl": "#bf812d", "spreadout": "#4393c3", "fast": "#d6604d",
         "deepep_nvlink_style": "#9970ab", "deepep_pcie": "#35978f"}
# Swept parameters of the contention table (scripts/evaluate.sh writes one table per point).
SWEEPS = [("forwarder.slope", "forwarder efficiency slope, CPU families without a curve of their own"),
          ("forwarder.floor", "forwarder efficiency floor, CPU families without a curve of their own"),
          ("forwarder.families.0.floor", "forwarder efficiency floor, AMD EPYC"),
          ("nic.slope", "NIC concurrency slope"), ("nic.floor", "NIC concurrency floor"),
          ("chunk.overhead_us", "per-chunk cost, µs"),
          ("port_arbitration", "port arbitration (0 off, 1 on)"),
          ("latency_us", "per-step cost: the start-up of each transfer, µs")]
PLATFORM_TEXT = {
    "pcie-1n": "PCIe Gen4, 1 node (8 GPUs)",
    "pcie-4n-switch": "PCIe Gen4, 4 nodes, one switch (32 GPUs)",
    "pcie-16n-rail": "PCIe Gen4, 16 nodes, rails (128 GPUs)",
    "pcie-32n-leafspine2to1": "PCIe Gen4, 32 nodes, leaf/spine 2:1 (256 GPUs)",
    "mi300x-4n-switch": "MI300X server, 4 nodes, one switch (32 GPUs)",
    "aws-g6-4n-switch": "AWS g6.48xlarge, 4 nodes, one switch (32 GPUs)",
    "aws-g5-4n-switch": "AWS g5.48xlarge, 4 nodes, one switch (32 GPUs)",
    "hgx-h20-2n-switch": "H20 with NVLink disabled, one ConnectX-7 per GPU (DeepEP's PCIe-mode machine), 2 nodes, "
                         "one switch (16 GPUs)",
}
PCIE_PLATFORMS = ["pcie-1n", "pcie-4n-switch", "pcie-16n-rail", "pcie-32n-leafspine2to1"]


def workload_key(w):
    """Display order and label of a canonical workload spec."""
    name, _, rest = w.partition(":")
    params = dict(kv.split("=") for kv in rest.split(",")) if rest else {}
    if name == "uniform":
        return (0, 0, 0), "uniform"
    if name == "moe":
        z, h = float(params["zipf"]), int(params["hidden"])
        return (1, h, z), f"MoE Zipf {z:g}, h{h}"
    if name == "hotspot":
        return (2, 0, 0), "hot spot (10x)"
    if name == "seqpar":
        return (3, 0, 0), "seq.-parallel"
    if name == "drift":
        return (4, 0, 0), f"drift ({params['calls']} calls)"
    return (9, 0, 0), w


def platform_of(doc):
    """The platform a run's JSON is of: its catalog's name, less the "@model" that evaluate.sh gives the copy
    told the model it is judged under (vp-catalog set-model: pcie-1n@ideal.vpcat is pcie-1n)."""
    return os.path.splitext(os.path.basename(doc["catalog"]))[0].split("@")[0]


def load(results_dir, platforms):
    cases = {}
    if not os.path.isdir(results_dir):
        return cases, []
    for path in glob.glob(os.path.join(results_dir, "*.json")):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        plat = platform_of(doc)
        cases[(plat, doc["workload"])] = doc
    workloads = sorted({w for (_, w) in cases}, key=lambda w: workload_key(w)[0])
    return cases, workloads


def case_ratio(doc, s):
    """time / bound for one scheduler: a sequence counts by its mean per-call ratio."""
    r = doc["results"][s]
    return r.get("mean_ratio_to_bound", r["ratio_to_bound"])


def worst_ratio(doc, s):
    r = doc["results"][s]
    return r.get("worst_ratio_to_bound", r["ratio_to_bound"])


def hypothetical(doc, s):
    """Why scheduler s would not run on this case's machine as its authors run it (vp-sim's "hypothetical"),
    or None. A hypothetical result is shown, marked *, and left out of every headline mean."""
    return doc["results"].get(s, {}).get("hypothetical")


def real(src, rows, s):
    """The rows on which scheduler s runs as its authors run it."""
    return [r for r in rows if not hypothetical(src[r], s)]


def star(doc, s, text):
    return text + "*" if hypothetical(doc, s) else text


def best_baseline(doc):
    """The fastest baseline of a case that is not hypothetical there (a sequence: by total time)."""
    usable = [b for b in BASELINES if not hypothetical(doc, b)] or BASELINES
    return min(usable, key=lambda b: doc["results"][b]["time_us"])


def by_platform(rows):
    """(platform, its rows), platforms in the order of their first row."""
    for p in dict.fromkeys(r[0] for r in rows):
        yield p, [r for r in rows if r[0] == p]


def speedup(doc, s):
    """Baseline time / VarioPath time (a sequence: total over its calls)."""
    return doc["results"][s]["time_us"] / doc["results"]["variopath"]["time_us"]


def calibration_section(w, path):
    """The calibration table of scripts/calibrate.py --check, as evaluate.sh ran it."""
    w("## Calibration: the published figures against the calibrated model")
    w("")
    if not path or not os.path.isfile(path):
        w("Not run.")
        w("")
        return
    w("`scripts/calibrate.py --model contention --check` on this run's tools "
      "([calibration-sources.md](calibration-sources.md) §7 gives the fit): per published figure its role "
      "(*fit*: a figure the table's values were fitted on; *held_out*: a test of the fit; *excluded*, with the "
      "reason in `simulator/calibration/figures.json`), the published value, the model's and their ratio. "
      "A held-out figure more than 10 % off is a stated known miss with its reason in the same file.")
    w("")
    w("```")
    with open(path, encoding="utf-8") as f:
        for line in f.read().rstrip("\n").split("\n"):
            w(line)
    w("```")
    w("")


def sizes_section(w, results, platforms):
    """Per platform, workload and message size, the fastest scheduler under the calibrated model."""
    w("## Message sizes under the calibrated model")
    w("")
    root = os.path.join(results, "sizes")
    docs = []
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        with open(path, encoding="utf-8") as f:
            docs.append(json.load(f))
    if not docs:
        w("No message-size runs.")
        w("")
        return
    w("Each platform's traffic scaled to nccl-tests' sizes (`vp-sim --sizes`, bytes per rank: the workload's "
      "shape kept), contention model. *algbw* and *busbw* as nccl-tests defines them for alltoall (bytes "
      "per rank / time; busbw = algbw × (n−1)/n). *best* is the fastest scheduler that runs on the machine; "
      "*VarioPath / best* its time over the best one's (1.00: VarioPath is the best).")
    w("")
    w("| platform | workload | size per rank | best | best busbw GB/s | VarioPath busbw GB/s | VarioPath / best |")
    w("|---|---|---|---|---|---|---|")
    order = {p: i for i, p in enumerate(platforms)}
    docs.sort(key=lambda d: (order.get(platform_of(d), 99),
                             workload_key(d["workload"])[0]))
    for d in docs:
        plat = platform_of(d)
        for entry in d["per_size"]:
            res = {k: v for k, v in entry["results"].items() if "time_us" in v and not v.get("hypothetical")}
            if "variopath" not in res:
                continue
            best = min(res, key=lambda k: res[k]["time_us"])
            vp = res["variopath"]
            w(f"| {plat} | {workload_key(d['workload'])[1]} | {human_bytes(entry['size'])} | {LABEL.get(best, best)} | "
              f"{res[best]['busbw_gbps']:.2f} | {vp['busbw_gbps']:.2f} | {vp['time_us'] / res[best]['time_us']:.2f} |")
    w("")


def human_bytes(n):
    for unit, size in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}iB"
    return f"{n} B"


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def fmt_x(x, digits=2, suffix="×"):
    return "–" if isinstance(x, float) and math.isnan(x) else f"{x:.{digits}f}{suffix}"


def fmt_ratio(x):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            kb = int(f.readline().split()[1])
            mem = f", {kb / 1048576:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{pyplatform.node()}: {os.cpu_count()} cores ({cpu}){mem}, {pyplatform.system()} {pyplatform.release()}"


def revision(root):
    try:
        head = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        # The report's own outputs do not count: they are being rewritten.
        dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".",
                                ":!docs/evaluation.md", ":!docs/evaluation"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + (" with uncommitted changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# ---- SVG ---------------------------------------------------------------------------------

def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def bar_chart(path, title, groups, series, value, y_label, log=False, reference=None):
    """Grouped bars: groups = [(label, key)], series = scheduler names, value(key, s) -> number or None."""
    width_group = 14 * len(series) + 16
    left, right, top, bottom = 64, 20, 48, 118
    legend = sum(14 + 7 * len(LABEL.get(s, s)) + 16 for s in series)  # as drawn below
    width = max(left + right + width_group * len(groups), left + legend + right, 640)
    width_group = (width - left - right) / len(groups) if groups else width_group
    height = 420
    plot_h = height - top - bottom
    vals = [value(k, s) for _, k in groups for s in series]
    vals = [v for v in vals if v is not None and v > 0 and math.isfinite(v)]
    vmax = max(vals + ([reference] if reference else [])) if vals else 1.0
    if log:
        lo = min(vals + ([reference] if reference else [])) if vals else 1.0
        lo = 10 ** math.floor(math.log10(min(lo, 1.0)))
        hi = 10 ** math.ceil(math.log10(vmax))
        if hi <= lo:  # every value a power of ten, the same one (a small subset): one decade up
            hi = lo * 10
        y = lambda v: top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))
        ticks = []
        t = lo
        while t <= hi * 1.0001:
            for m in (1, 2, 5):
                if t * m <= hi * 1.0001:
                    ticks.append(t * m)
            t *= 10
    else:
        step = 0.5 if vmax <= 4 else (1 if vmax <= 8 else 2 if vmax <= 16 else 5 if vmax <= 40 else 10)
        hi = step * math.ceil(vmax / step)
        lo = 0.0
        y = lambda v: top + plot_h * (1 - v / hi)
        ticks = [i * step for i in range(int(round(hi / step)) + 1)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="18" font-size="14" font-weight="bold">{esc(title)}</text>']
    for t in ticks:
        yy = y(t)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#e0e0e0"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{t:g}</text>')
    if reference:
        yy = y(reference)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="black" '
                   f'stroke-dasharray="4,3"/>')
    out.append(f'<text x="14" y="{top + plot_h / 2:.0f}" transform="rotate(-90 14 {top + plot_h / 2:.0f})" '
               f'text-anchor="middle">{esc(y_label)}</text>')
    for gi, (label, key) in enumerate(groups):
        x0 = left + gi * width_group + (width_group - 14 * len(series)) / 2
        for si, s in enumerate(series):
            v = value(key, s)
            if v is None or not math.isfinite(v) or v <= 0:
                continue
            top_v = min(v, hi)
            yy = y(top_v)
            base = y(lo) if log else y(0)
            out.append(f'<rect x="{x0 + si * 14:.1f}" y="{yy:.1f}" width="12" height="{max(base - yy, 0.5):.1f}" '
                       f'fill="{COLOR.get(s, "#999")}"><title>{esc(label)}, {esc(LABEL.get(s, s))}: {v:.3f}'
                       f'</title></rect>')
            if v > hi:
                out.append(f'<text x="{x0 + si * 14 + 6:.1f}" y="{yy - 2:.1f}" text-anchor="middle" font-size="9">'
                           f'{v:.0f}</text>')
        cx = x0 + 7 * len(series)
        out.append(f'<text x="{cx:.1f}" y="{top + plot_h + 12}" text-anchor="end" '
                   f'transform="rotate(-40 {cx:.1f} {top + plot_h + 12})">{esc(label)}</text>')
    out.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="black"/>')
    lx = left
    for s in series:
        out.append(f'<rect x="{lx}" y="28" width="10" height="10" fill="{COLOR.get(s, "#999")}"/>')
        out.append(f'<text x="{lx + 14}" y="37">{esc(LABEL.get(s, s))}</text>')
        lx += 14 + 7 * len(LABEL.get(s, s)) + 16
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


# ---- the price of strict contention-freedom ----------------------------------------------------

def open_section(w, title, rows, sources, flag):
    """Write a section's heading; its rows are those every source has (none: a line that says so)."""
    kept = [r for r in rows if all(r in src for src in sources)]
    w(f"## {title}")
    w("")
    if not kept:
        w(f"No `{flag}` results.")
        w("")
    return kept


def price_section(w, rows, cases, ccases, chcases, cchcases):
    """VarioPath's default plans (the candidate expected fastest, shared steps included) against its plans
    with --channels-only, and the best baseline, under both models; the planner's quality targets."""
    srows = open_section(w, "The price of strict contention-freedom", rows, (chcases, ccases, cchcases),
                         "--channels-only")
    if not srows:
        return

    def vp(src, r):
        return src[r]["results"]["variopath"]

    def best(src, r):
        return src[r]["results"][best_baseline(src[r])]["time_us"]

    def shared_text(r, src):
        shared = vp(src, r).get("shared_bytes")
        if not shared:
            return "none"
        pct = 100 * shared / src[r]["total_bytes"]
        return f"{pct:.0f}%" if pct >= 1 else f"{pct:.1f}%"

    w("VarioPath's default plans are the candidate the planner expects fastest under its machine model "
      "(docs/planner.md \"Plan shapes\"): channel steps, shifted steps and a shared step, each step "
      "that shares a resource flagged. With `--channels-only` (`vp-plan`, `vp-sim`, "
      "`PlanOptions::channels_only`, `VPCAT_CHANNELS_ONLY`) every step is a channel: every transfer at its "
      "route's solo rate, nothing for the hardware to arbitrate. *shared* is the share of the default plan's "
      "bytes that steps which share carry (*none*: channels only). Time / bound per case, under each model; "
      "*best baseline* is the fastest baseline's; *price* is the channels-only plan's time over the default "
      "plan's (what strict contention-freedom costs where sharing is cheap, and gains where it is not), "
      "*vs best* the default plan's time over the best baseline's. For the drift sequence the ratios to the "
      "bound are means over its calls, *price* and *vs best* ratios of total times, and the best baseline "
      "the one with the least total time.")
    w("")
    w("| platform | workload | ideal: default (shared) | channels only | best baseline | price | vs best | "
      "contention: default (shared) | channels only | best baseline | price | vs best |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in srows:
        cells = []
        for base, channels in ((cases, chcases), (ccases, cchcases)):
            b = best_baseline(base[r])
            de, ch, bb = vp(base, r)["time_us"], vp(channels, r)["time_us"], base[r]["results"][b]["time_us"]
            cells += [f"{fmt_ratio(case_ratio(base[r], 'variopath'))} ({shared_text(r, base)})",
                      fmt_ratio(case_ratio(channels[r], "variopath")),
                      f"{fmt_ratio(case_ratio(base[r], b))} ({LABEL[b]})",
                      f"{ch / de:.2f}", f"{de / bb:.2f}"]
        w(f"| {r[0]} | {workload_key(r[1])[1]} | " + " | ".join(cells) + " |")
    w("")
    w("The planner's quality target (issue \"Planner 3\", docs/planner.md): default plans at most 1.02× the "
      "time of the best baseline in every case, under the calibrated model and under the ideal one (the "
      "planner is told the machine it is judged on through its catalog, as an embedder's planner is: "
      "`vp-catalog set-model --ideal` for the ideal runs, `--table` with the run's table otherwise, and "
      "`vp-sim --machine-model catalog`):")
    w("")
    w("| target | obtained | |")
    w("|---|---|---|")
    for label, src in (("contention (calibrated) model", ccases), ("ideal model", cases)):
        over = [r for r in srows if vp(src, r)["time_us"] > 1.02 * best(src, r)]
        worst = max(srows, key=lambda r: vp(src, r)["time_us"] / best(src, r))
        w(f"| {label}, default plans ≤ 1.02× the best baseline | within in {len(srows) - len(over)} of "
          f"{len(srows)} cases; worst {vp(src, worst)['time_us'] / best(src, worst):.3f}× ({worst[0]}, "
          f"{workload_key(worst[1])[1]}) | "
          f"{'met' if not over else '**missed**'} |")
    w("")
    w("Mean price of strict contention-freedom per platform (channels-only time / default time), ideal and "
      "contention:")
    w("")
    w("| platform | ideal | contention |")
    w("|---|---|---|")
    for p, prow in by_platform(srows):
        w(f"| {p} | {mean([vp(chcases, r)['time_us'] / vp(cases, r)['time_us'] for r in prow]):.2f} | "
          f"{mean([vp(cchcases, r)['time_us'] / vp(ccases, r)['time_us'] for r in prow]):.2f} |")
    w("")


# ---- NIC loopback ------------------------------------------------------------------------------

def loopback_section(w, rows, cases, ccases, lcases, clcases):
    """VarioPath's default plans against its plans with --nic-loopback, and the best baseline, under both
    models."""
    lrows = open_section(w, "NIC loopback", rows, (lcases, ccases, clcases), "--nic-loopback")
    if not lrows:
        return

    def t(src, r):
        return src[r]["results"]["variopath"]["time_us"]

    w("With `--nic-loopback` (`vp-plan`, `vp-sim`, `PlanOptions::nic_loopback`; docs/planner.md \"NIC "
      "loopback\") an intra-node payload may leave through one NIC of its node and come back through another, "
      "across the switch, on lanes the step leaves idle, where that is as fast and spares the host bridges or "
      "its PCIe route has no room in the step; a shared step then sends an intra-node payload through the "
      "NICs where that is expected shorter, as DeepEP's PCIe mode sends every byte. It is off by default: an "
      "executor must force that route, which an MPI library does not let it do. Time / bound per case, on "
      "the platforms of more than one node; *gain* is the default plan's time over the loopback plan's, "
      "*vs best* the loopback plan's time over the best baseline's.")
    w("")
    w("| platform | workload | ideal: default | loopback | best baseline | gain | vs best | "
      "contention: default | loopback | best baseline | gain | vs best |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in lrows:
        cells = []
        for base, lb in ((cases, lcases), (ccases, clcases)):
            b = best_baseline(base[r])
            bb = base[r]["results"][b]["time_us"]
            cells += [fmt_ratio(case_ratio(base[r], "variopath")), fmt_ratio(case_ratio(lb[r], "variopath")),
                      f"{fmt_ratio(case_ratio(base[r], b))} ({LABEL[b]})", f"{t(base, r) / t(lb, r):.2f}",
                      f"{t(lb, r) / bb:.2f}"]
        w(f"| {r[0]} | {workload_key(r[1])[1]} | " + " | ".join(cells) + " |")
    w("")
    for label, base, lb in (("ideal", cases, lcases), ("contention", ccases, clcases)):
        over2 = [r for r in lrows if t(lb, r) > 1.02 * min(base[r]["results"][b]["time_us"] for b in BASELINES)]
        w(f"Under the {label} model, loopback plans are more than 2 % slower than the best baseline in "
          f"{len(over2)} of {len(lrows)} cases"
          + (f" (worst {max(t(lb, r) / min(base[r]['results'][b]['time_us'] for b in BASELINES) for r in over2):.2f}×)"
             if over2 else "") + ".")
        w("")
    w("Mean gain per platform (default time / loopback time), ideal and contention:")
    w("")
    w("| platform | ideal | contention |")
    w("|---|---|---|")
    for p, prow in by_platform(lrows):
        w(f"| {p} | {mean([t(cases, r) / t(lcases, r) for r in prow]):.2f} | "
          f"{mean([t(ccases, r) / t(clcases, r) for r in prow]):.2f} |")
    w("")


# ---- the report -----------------------------------------------------------------------------

def smpi_only(argv):
    """--smpi-only FILE --docs DIR: the section "Two judges" alone, into the existing report."""
    ap = argparse.ArgumentParser(prog="evaluate_report.py --smpi-only")
    ap.add_argument("--smpi-only", required=True, metavar="SMPI.json")
    ap.add_argument("--docs", required=True)
    a = ap.parse_args(argv)
    smpi_report.update(os.path.join(a.docs, "evaluation.md"), smpi_report.load(a.smpi_only))


def main():
    if any(x == "--smpi-only" or x.startswith("--smpi-only=") for x in sys.argv[1:]):
        return smpi_only(sys.argv[1:])
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", required=True)
    ap.add_argument("--platforms", required=True)
    ap.add_argument("--docs", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--build-type", default="")
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--jobs", default="")
    ap.add_argument("--load", default="", help="the 1-minute load averages sampled during the run (planning "
                    "times are measured on this machine: a loaded machine makes them longer)")
    ap.add_argument("--epsilon", default="")
    ap.add_argument("--partial", default="no")
    ap.add_argument("--contention", required=True, help="the contention table the contention runs used")
    ap.add_argument("--calibration", default="", help="the output of scripts/calibrate.py --model contention --check")
    ap.add_argument("--smpi", default="", help="scripts/smpi_compare.py --json's file (none: the section says not run)")
    a = ap.parse_args()
    with open(a.platforms, encoding="utf-8") as f:
        platforms = [line.strip() for line in f if line.strip()]
    cases, workloads = load(os.path.join(a.results, "ideal"), platforms)
    ccases, _ = load(os.path.join(a.results, "contention"), platforms)
    with open(a.contention, encoding="utf-8") as f:
        table = json.load(f)
    # Display: the PCIe platforms by size, then the real servers.
    order = [p for p in PCIE_PLATFORMS if p in platforms] + [p for p in platforms if p not in PCIE_PLATFORMS]
    platforms = order
    rows = [(p, w) for p in platforms for w in workloads if (p, w) in cases]
    chart_dir = os.path.join(a.docs, "evaluation")
    os.makedirs(chart_dir, exist_ok=True)
    for old in glob.glob(os.path.join(chart_dir, "*.svg")):
        os.remove(old)

    L = []
    w = L.append
    root = os.path.dirname(os.path.abspath(a.docs))
    w("# Evaluation: VarioPath against fan-out, NCCL, SpreadOut, FAST-like and DeepEP, under two models")
    w("")
    w("*Generated by `" + a.command + "`; do not edit by hand.*")
    if a.partial == "yes":
        w("")
        w("**Partial run** (VP_EVAL_PLATFORMS / VP_EVAL_WORKLOADS set): not the whole suite.")
    w("")
    w("## Method")
    w("")
    w("Every number below comes from the flow-level simulator of [docs/simulator.md](simulator.md) "
      "([design.md](design.md) §7): transfers share every directed link and every forwarding component (root complexes, "
      "sockets) max-min fairly; every transfer pays a 5 µs start-up latency (swept below); each rank runs a "
      "schedule's steps as the MPI executor does, with no barrier between them: a transfer of step s starts when its "
      "sender and its receiver have both finished step s−1 (`vp-sim --sync rank`). VarioPath's and FAST-like's times "
      "add the counts exchange (a Bruck allgather of the n×n counts, simulated) and their measured planning time to "
      "the transfer (docs/simulator.md \"Costs beside the transfer\"). "
      "The simulated machine is rebuilt from each platform's catalog (`vp-sim --catalog`, "
      "`simulator/include/vp/sim/catalog_topology.hpp`), with the same link ids as the planner's routes. "
      "Each schedule is checked before it is timed: every byte delivered exactly once, sent only by a GPU that "
      "holds it (`check_schedule`).")
    w("")
    w("* **VarioPath**: the runtime planner (`vpcat::Planner`, docs/planner.md) on the platform's catalog, "
      "its steps run as planned, on its own routes (NIC choices included), with default options: the "
      "candidate plan it expects fastest under its catalog's machine model, set to the model of the run "
      "(`vp-catalog set-model`: ideal, or the run's table) (channel steps, each one-port and "
      "contention-free with every transfer at its route's solo rate; shifted steps; a shared step, every "
      "payload at once on default routes; steps that share flagged), the balanced "
      "part of a demand replayed from the catalog's stored patterns and the rest searched (docs/planner.md "
      "\"Replay\").")
    w("* **fan-out**: every transfer at once on default routes (each side's nearest NIC with GPUDirect RDMA), "
      "as Open MPI's basic linear AlltoAllv posts it.")
    w("* **NCCL**: grouped send/recv as NCCL schedules it: its p2p round order (node deltas, then local deltas, "
      "each in NCCL's quadratic order), 8 rounds in flight at a time (one work batch), each wave a step; "
      "CUDA P2P where NCCL's default P2P level allows it (PIX/PXB pairs), else its SHM transport through the "
      "host memory of the receiver's socket (`simulator/src/nccl.cpp`, docs/simulator.md).")
    w("* **SpreadOut**: n−1 shifted permutations, step k sends i → (i+k) mod n.")
    w("* **FAST-like**: server-level Birkhoff–von Neumann decomposition with intra-server balancing (skipped "
      "where FAST's own alpha-beta test says it does not pay) and forwarding over the real PCIe links, "
      "every intra-server transfer set as g−1 shifted permutations and pipelined with the scale-out as the "
      "public FAST simulator runs them (`spread_out`, `pipeline2`).")
    w("* **DeepEP NVLink-style**: DeepEP's normal mode transposed to PCIe: inter-node to the same-index GPU of "
      "the target node, then PCIe forwarding, in 8 pipelined chunks. DeepEP does not run this without NVLink: "
      "hypothetical everywhere.")
    w("* **DeepEP PCIe**: DeepEP's PCIe mode (docs/README_PCIe.md): every byte, intra-node included, through "
      "the sender's and the receiver's RDMA NICs, all at once; hypothetical beyond 32 ranks, on NICs without "
      "IBGDA (AWS EFA) and where GPUs share a NIC (DeepEP states and measures it with one NIC per GPU).")
    w("")
    w("Two models. **Ideal**: perfect max-min sharing, no loss. **Contention** "
      "(`vp-sim --model contention --contention simulator/contention.json`, "
      "`simulator/include/vp/sim/contention.hpp`): the ideal model plus losses charged only on a resource "
      "whose transfers' solo rates add up to more than its capacity (forwarder efficiency η(k) per CPU family, "
      "NIC concurrency, a GPU serving several readers, a per-chunk cost); a step contention-free at solo rates runs at exactly its ideal time. "
      "Port arbitration (an egress of a PCIe switch, host bridge or socket shared among its ingress ports "
      "first, then among each port's transfers; `simulator/src/arbitration.cpp`) is modelled but "
      + ("on" if table.get("port_arbitration", {}).get("on") else
         "off in the committed table: its fixed point is recomputed from scratch at every event, which the "
         "largest platforms cannot afford in this report's time; its sweep below shows it on and off") +
      ". The table's parameters and their sources:")
    w("")
    w("| parameter | value | source |")
    w("|---|---|---|")
    for path, val in table_parameters(table):
        how = ""
        if "fitted_on" in val:
            how = f" (fitted on {', '.join(val['fitted_on'])}; tested on {', '.join(val.get('tested_on', [])) or 'none'})"
        if "sweep_max" in val:
            how += f" (swept {val.get('sweep_min', 0):g} → {val['sweep_max']:g})"
        w(f"| {path} | {val['value']:g}{how} | {val['source']} |")
    if "port_arbitration" in table:
        pa = table["port_arbitration"]
        w(f"| port_arbitration | {'on' if pa['on'] else 'off'} (swept off, on) | {pa['source']} |")
    w("")
    w("What the ideal model can and cannot show: it shares every link perfectly, so launching every transfer "
      "at once costs nothing beyond the bandwidth it takes; fan-out then runs within a few percent of the "
      "bound on balanced traffic, and a contention-free plan cannot be told from a crowded one. It does show "
      "where a schedule moves more bytes than needed (relays, padding, detours through NICs) or idles links "
      "behind a barrier. The contention model charges crowding; each of its values is either fitted to "
      "published figures and tested on others (the calibration below) or swept, and the sweeps below show "
      "where the ranking of the schedulers depends on a swept value.")
    w("")
    w("What the judge cannot show, and which way each gap leans:")
    w("")
    w("* **NCCL's host-memory pairs pay peer-to-peer forwarding.** The topology has no memory resource, so "
      "an SHM pair is routed through the receiver's socket and charged the forwarding capacity of every root "
      "complex and socket it passes, which the host-memory path does not use. On a machine bound by a "
      "socket's peer-to-peer forwarding (the AWS platforms) NCCL's times are pessimistic: against NCCL, for "
      "VarioPath.")
    w("* **Transaction type.** Only the GPU endpoint loss knows reads from writes: it is fitted on p2pmark's "
      "reads and charged to reads only; every executor here writes, and one published write figure with 7 "
      "peers at once (nccl-tests issue 332, server C) shows no such loss. If writes lost as reads do, "
      "fan-out, NCCL and FAST-like would be slower than shown.")
    w("* **Intel root complexes and inter-socket links** have no figure with a known topology; they take the "
      "AMD EPYC fit, and the forwarder sweeps below cover them.")
    w("* **Start-up costs** are one per-message cost per transfer (`--latency-us`, swept below); the counts "
      "exchange is simulated with the same cost, and docs/mpi.md measured it 5-8 times higher at 8 ranks "
      "oversubscribed on 2 cores. Planning time is measured on the machine that ran this report (shared, 2 "
      "cores), not on a server's CPU.")
    w("* **What runs on the GPU** is not modelled: kernel launches, the staging copies of relayed payloads "
      "(only their PCIe transfers are charged), and compute that overlaps the exchange.")
    w("")
    w("The **lower bound** is the cut bound of [design.md](design.md) §7 (`simulator/include/vp/sim/lower_bound.hpp`): for "
      "every GPU link, PCIe switch, host-bridge and socket subtree, node NIC set (NICs with GPUDirect RDMA, "
      "each at the smaller of its PCIe and network links), fabric leaf, rail (a rail switch with the PCIe "
      "subtrees of its NICs, out through the spine uplink) and forwarding component (a root complex or socket "
      "counts wherever removing it separates GPUs from each other or from every NIC), the bytes that must "
      "cross it over its capacity; the largest, plus one latency. No schedule can beat it under either model. "
      "*time / bound* is the simulated completion time over that bound (1.00 = optimal); *speedup* is a "
      "baseline's time over VarioPath's.")
    w("")
    w("Workloads (fixed seeds, `vp-sim --workload`, docs/simulator.md \"Workloads\"): uniform (1 MiB per "
      "pair); MoE dispatch, 128 experts, top-8, 4096 tokens per GPU, bf16, hidden 2048 or 4096, Zipf expert "
      "popularity 0.5 / 0.8 / 1.0 / 1.2, a token sent once per destination GPU; hot spot (GPU 0 receives 10× "
      "what the others do, 1 MiB base); sequence-parallel attention (Ulysses all-to-all, 32768 tokens × 4096 "
      "hidden per GPU); the drifting MoE sequence of 50 calls (hidden 2048; Zipf 0.5 → 1.2 → 0.5), counted by "
      "its mean per-call time / bound, with its worst call beside it, and by total time for speedups.")
    w("")
    w("Platforms (fixtures/platforms/README.md):")
    w("")
    for p in platforms:
        w(f"* `{p}`: {PLATFORM_TEXT.get(p, p)}")
    w("")
    w("## Run")
    w("")
    w(f"* Command: `{a.command}`")
    w(f"* Date: {datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')}")
    w(f"* Machine: {machine()}")
    w(f"* Build type: {a.build_type or 'unknown'}; revision {revision(root)}")
    built = "analysis and simulation; the binaries were already built (VP_EVAL_SKIP_BUILD)" \
        if os.environ.get("VP_EVAL_SKIP_BUILD") else "build, analysis and simulation"
    w(f"* Simulator completion epsilon: {a.epsilon}; {a.jobs} runs in parallel; "
      f"wall time of the command ({built}): {a.seconds // 60} min {a.seconds % 60} s")
    if a.load:
        w(f"* Machine load (1-minute load average sampled every minute of the simulation, {os.cpu_count()} "
          f"cores): {a.load}. VarioPath's and FAST-like's times include their planning time measured here as "
          f"thread CPU time, which a loaded machine lengthens only through shared caches and memory.")
    w("")

    # ---- summary and targets
    # Headline figures: geometric means over the cases on which a scheduler runs as its authors run it
    # (hypothetical results are shown in the tables, marked *, but left out).
    pcie_rows = [r for r in rows if r[0] in PCIE_PLATFORMS]
    all_ratio = {s: [case_ratio(cases[r], s) for r in real(cases, rows, s)] for s in SCHEDULERS}
    worst_case = {s: max([worst_ratio(cases[r], s) for r in real(cases, rows, s)], default=float("nan"))
                  for s in SCHEDULERS}
    sp_all = {b: [speedup(cases[r], b) for r in real(cases, rows, b)] for b in BASELINES}
    sp_pcie = {b: [speedup(cases[r], b) for r in real(cases, pcie_rows, b)] for b in BASELINES}
    w("## Summary")
    w("")
    w(f"{len(rows)} cases ({len(platforms)} platforms × {len(workloads)} workloads). Means are **geometric "
      "means over the cases** on which a scheduler runs as its authors run it (so no platform dominates by the "
      "size of its ratios); *n* counts those cases. A baseline marked * is **hypothetical** on a platform: "
      "its authors' code would not run there (vp-sim's `hypothetical` reason, listed below); it is computed and "
      "shown in the tables but left out of every mean of this section.")
    w("")
    w("| scheduler | geo-mean time / bound | worst time / bound | VarioPath speedup, geo-mean, all (n) | "
      "same, PCIe Gen4 platforms (n) |")
    w("|---|---|---|---|---|")
    for s in SCHEDULERS:
        if s == "variopath":
            w(f"| {LABEL[s]} | {fmt_x(gmean(all_ratio[s]), 3, '')} | {fmt_x(worst_case[s], 2, '')} | – | – |")
        else:
            w(f"| {LABEL[s]} | {fmt_x(gmean(all_ratio[s]), 3, '')} | {fmt_x(worst_case[s], 2, '')} | "
              f"{fmt_x(gmean(sp_all[s]))} ({len(sp_all[s])}) | {fmt_x(gmean(sp_pcie[s]))} ({len(sp_pcie[s])}) |")
    w("")
    why = {}
    for r in rows:
        for b in BASELINES:
            if hypothetical(cases[r], b):
                why.setdefault((b, hypothetical(cases[r], b)), []).append(r[0])
    if why:
        w("Hypothetical baselines (computed, shown with *, not in the means):")
        w("")
        for (b, reason), plats in why.items():
            w(f"* {LABEL[b]} on {', '.join(dict.fromkeys(plats))}: {reason}")
        w("")
    w("### Per platform")
    w("")
    w("Geometric mean over the platform's workloads of time / bound (ideal model); * hypothetical there.")
    w("")
    w("| platform | cases | " + " | ".join(LABEL[s] for s in SCHEDULERS) + " |")
    w("|---|---|" + "---|" * len(SCHEDULERS))
    for p, prow in by_platform(rows):
        w(f"| {p} | {len(prow)} | " + " | ".join(
            (fmt_x(gmean([case_ratio(cases[r], s) for r in prow]), 2, "")
             + ("*" if any(hypothetical(cases[r], s) for r in prow) else "")) for s in SCHEDULERS) + " |")
    w("")
    w("### Targets")
    w("")
    w("Means are geometric over the cases, hypothetical baselines left out; \"PCIe platforms\" are the four "
      "PCIe Gen4 evaluation platforms; the drift sequence counts once (mean ratio; its worst call for \"every "
      "case\"; total time for speedups). A target whose baseline is hypothetical on every case is not judged.")
    w("")
    best_base = {r: cases[r]["results"][best_baseline(cases[r])]["time_us"] for r in rows}
    slower = [(r, cases[r]["results"]["variopath"]["time_us"] / best_base[r]) for r in rows]
    over5 = [(r, x) for r, x in slower if x > 1.05]
    over15 = [(r, worst_ratio(cases[r], "variopath")) for r in rows if worst_ratio(cases[r], "variopath") > 1.5]
    def judged(xs, ok):
        return None if not xs else ok(gmean(xs))

    targets = [
        ("VarioPath time / bound ≤ 1.15 on average", f"{gmean(all_ratio['variopath']):.3f}",
         gmean(all_ratio["variopath"]) <= 1.15),
        ("VarioPath time / bound ≤ 1.5 in every case", f"worst {worst_case['variopath']:.2f}; "
         f"{len(over15)} of {len(rows)} cases above", not over15),
        ("mean speedup ≥ 2× over FAST-like (PCIe platforms)", fmt_x(gmean(sp_pcie["fast"])),
         judged(sp_pcie["fast"], lambda x: x >= 2)),
        ("mean speedup ≥ 1.5× over DeepEP-like (PCIe platforms; DeepEP NVLink-style)",
         fmt_x(gmean(sp_pcie["deepep_nvlink_style"])) if sp_pcie["deepep_nvlink_style"] else "hypothetical on every case",
         judged(sp_pcie["deepep_nvlink_style"], lambda x: x >= 1.5)),
        ("mean speedup ≥ 1.5× over DeepEP PCIe (PCIe platforms where it runs)",
         fmt_x(gmean(sp_pcie["deepep_pcie"])) if sp_pcie["deepep_pcie"] else "hypothetical on every case",
         judged(sp_pcie["deepep_pcie"], lambda x: x >= 1.5)),
        ("mean speedup ≥ 3× over fan-out (PCIe platforms)", fmt_x(gmean(sp_pcie["fanout"])),
         judged(sp_pcie["fanout"], lambda x: x >= 3)),
        ("never more than 5% slower than the best baseline", f"{len(over5)} of {len(rows)} cases slower by more; " +
         (f"worst {max(x for _, x in slower):.2f}× the best baseline's time" if slower else "none slower"), not over5),
    ]
    # What a perfect planner (VarioPath at the bound in every case) would obtain.
    def ceiling(b):
        return fmt_x(gmean([cases[r]["results"][b]["time_us"] / cases[r]["lower_bound_us"]
                            for r in real(cases, pcie_rows, b)]))
    ceilings = ["1.00", "1.00", ceiling("fast"), ceiling("deepep_nvlink_style"), ceiling("deepep_pcie"),
                ceiling("fanout"), "–"]
    w("| target | obtained | | ceiling: VarioPath at the bound everywhere |")
    w("|---|---|---|---|")
    for (name, got, ok), top in zip(targets, ceilings):
        w(f"| {name} | {got} | {'not judged' if ok is None else 'met' if ok else '**missed**'} | {top} |")
    w("")
    w("The ceiling column is the geometric mean of baseline time / bound over the same cases: no schedule can beat the "
      "bound, so no planner can obtain a larger mean speedup over that baseline here.")
    w("")

    # ---- both models
    crows = [r for r in rows if r in ccases]
    w("## Both models side by side")
    w("")
    if not crows:
        w("No contention-model results.")
    else:
        w(f"{len(crows)} cases under both models. Geometric mean time / bound, and VarioPath's geometric mean "
          "speedup over each baseline (baseline time / VarioPath time), ideal and contention, over the cases where "
          "the scheduler is not hypothetical (a baseline hypothetical on every case: –):")
        w("")
        w("| scheduler | time / bound, ideal | time / bound, contention | speedup, ideal | speedup, contention |")
        w("|---|---|---|---|---|")
        for s_ in SCHEDULERS:
            mine = real(cases, crows, s_)
            ri = fmt_x(gmean([case_ratio(cases[r], s_) for r in mine]), 3, "")
            rc = fmt_x(gmean([case_ratio(ccases[r], s_) for r in mine]), 3, "")
            if s_ == "variopath":
                w(f"| {LABEL[s_]} | {ri} | {rc} | – | – |")
            else:
                si = fmt_x(gmean([speedup(cases[r], s_) for r in mine]))
                sc = fmt_x(gmean([speedup(ccases[r], s_) for r in mine]))
                w(f"| {LABEL[s_]} | {ri} | {rc} | {si} | {sc} |")
        w("")
        bar_chart(os.path.join(chart_dir, "models.svg"),
                  "geo-mean time / lower bound, ideal and contention models (hypothetical cases left out)",
                  [("ideal", cases), ("contention", ccases)], SCHEDULERS,
                  lambda src, s_: gmean([case_ratio(src[r], s_) for r in real(src, crows, s_)]),
                  "time / lower bound", log=True, reference=1.0)
        csp = {b: gmean([speedup(ccases[r], b) for r in real(ccases, crows, b)]) for b in BASELINES}
        w(f"Against the paper: VarioPath measured 5.88× over FAST and 1.72× over DeepEP on real PCIe clusters; "
          f"under the contention model here, the geometric mean speedup is {fmt_x(csp['fast'])} over FAST-like "
          f"and {fmt_x(csp['deepep_pcie'])} over DeepEP PCIe where it runs as its authors run it (DeepEP "
          "NVLink-style is hypothetical everywhere; the ideal model cannot show what crowding costs, so its "
          "speedups are not comparable).")
        w("")
        w("![both models](evaluation/models.svg)")
        w("")
        w("The contention figures rest on the committed table, three of whose parameters have no published "
          "figure (the forwarder slope, the NIC floor, the per-chunk cost) and one of which is fitted to the "
          "figures that check it (the NIC slope); the sweeps below show where the best scheduler changes within "
          "the swept ranges. Read them as what crowding would cost if the table held, not as measurements.")
        w("")
        w("VarioPath's geometric mean speedup per platform under the contention model (baseline time / VarioPath "
          "time; * hypothetical there):")
        w("")
        w("| platform | " + " | ".join(LABEL[b] for b in BASELINES) + " |")
        w("|---|" + "---|" * len(BASELINES))
        for p, prow in by_platform(crows):
            w(f"| {p} | " + " | ".join(star(ccases[prow[0]], b, fmt_x(gmean([speedup(ccases[r], b) for r in prow])))
                                       for b in BASELINES) + " |")
        w("")
        w("Per platform and workload under the contention model, time / bound (the same cut bound; bold: the "
          "best scheduler of the row):")
        w("")
        w("| platform | workload | " + " | ".join(LABEL[s_] for s_ in SCHEDULERS) + " |")
        w("|---|---|" + "---|" * len(SCHEDULERS))
        for r in crows:
            doc = ccases[r]
            best = min(SCHEDULERS, key=lambda s_: doc["results"][s_]["time_us"])
            cells = [star(doc, s_, f"**{fmt_ratio(case_ratio(doc, s_))}**" if s_ == best
                          else fmt_ratio(case_ratio(doc, s_))) for s_ in SCHEDULERS]
            w(f"| {r[0]} | {workload_key(r[1])[1]} | " + " | ".join(cells) + " |")
        w("")

    # ---- default plans against channels only
    price_section(w, rows, cases, ccases, load(os.path.join(a.results, "ideal-channels"), platforms)[0],
                  load(os.path.join(a.results, "contention-channels"), platforms)[0])

    # ---- NIC loopback
    loopback_section(w, rows, cases, ccases, *(load(os.path.join(a.results, k), platforms)[0] for k in (
        "ideal-loopback", "contention-loopback")))

    calibration_section(w, a.calibration)
    sizes_section(w, a.results, platforms)
    if a.smpi:
        smpi_report.section(w, smpi_report.load(a.smpi))
    else:
        w(smpi_report.TITLE)
        w("")
        w("Not run (SimGrid's `smpirun` absent, VP_EVAL_SMPI=0, or `scripts/smpi_compare.py` failed): "
          "[smpi.md](smpi.md).")
        w("")

    # ---- sweeps
    w("## Sweeps of the unsourced contention parameters and of the per-step cost")
    w("")
    sweep_root = os.path.join(a.results, "sweep")
    points = sorted(os.listdir(sweep_root)) if os.path.isdir(sweep_root) else []
    if not points:
        w("No sweep results.")
    else:
        w("Each parameter without a published figure (and the forwarder floor, whose only figure is a "
          "consumer-GPU measurement), from its lower to its documented upper value, and port arbitration off "
          "and on, the other "
          "parameters at their table values, on the cases named in each row, per platform. Mean time / bound per "
          "scheduler; "
          "*best* is the scheduler with the lowest mean at that point: where it changes along a sweep, the "
          "ranking depends on an unmeasured parameter.")
        w("")
        for key, text in SWEEPS:
            mine = [pt for pt in points if pt.startswith(key + "=")]
            if not mine:
                continue
            w(f"### {text} (`{key}`)")
            w("")
            w("| value | platform | cases | " + " | ".join(LABEL[s_] for s_ in SCHEDULERS) + " | best |")
            w("|---|---|---|" + "---|" * len(SCHEDULERS) + "---|")
            series = []
            runs = {pt: load(os.path.join(sweep_root, pt), platforms)[0] for pt in mine}
            swept = [p for p in platforms if any(k[0] == p for sc in runs.values() for k in sc)]
            for plat in swept:
                for pt in sorted(mine, key=lambda x: float(x.split("=")[1])):
                    keys = sorted(k for k in runs[pt] if k[0] == plat)
                    if not keys:
                        continue
                    ratios = {s_: mean([case_ratio(runs[pt][k], s_) for k in keys]) for s_ in SCHEDULERS}
                    best = min(SCHEDULERS, key=lambda s_: ratios[s_])
                    value = pt.split("=")[1]
                    series.append((f"{value}, {plat}" if len(swept) > 1 else value, ratios))
                    w(f"| {value} | {plat} | {', '.join(workload_key(k[1])[1] for k in keys)} | "
                      + " | ".join(f"{ratios[s_]:.3f}" for s_ in SCHEDULERS) + f" | {LABEL[best]} |")
            w("")
            if series:
                name = "sweep-" + key.replace(".", "-") + ".svg"
                bar_chart(os.path.join(chart_dir, name), f"mean time / bound against {text}",
                          [(v, r) for v, r in series], SCHEDULERS, lambda r, s_: r[s_], "time / lower bound",
                          log=True, reference=1.0)
                w(f"![sweep of {key}](evaluation/{name})")
                w("")

    # ---- time / bound
    w("## Time / lower bound (ideal model)")

    w("")
    w("Per platform and workload; the bound in µs and the cut that attains it (for the drift sequence: the "
      "sum of the 50 bounds, the largest call's cut, and each scheduler's mean ratio with its worst call in "
      "brackets). Bold: the best scheduler of the row. *Route bound*: the bound of the schedules that send "
      "every byte once on its default route (fan-out, NCCL, SpreadOut; [simulator.md](simulator.md) \"Route "
      "bound\"), never below the cut bound, and fan-out's time over it (for the drift sequence: over the sum).")
    w("")
    for p in platforms:
        prow = [r for r in rows if r[0] == p]
        if not prow:
            continue
        w(f"### {PLATFORM_TEXT.get(p, p)}")
        w("")
        w(f"![time / bound on {p}](evaluation/ratio-{p}.svg)")
        w("")
        w("| workload | bound µs | cut | route bound µs | fan-out / route bound | "
          + " | ".join(LABEL[s] for s in SCHEDULERS) + " |")
        w("|---|---|---|---|---|" + "---|" * len(SCHEDULERS))
        for r in prow:
            doc = cases[r]
            best = min(SCHEDULERS, key=lambda s: doc["results"][s]["time_us"])
            cells = []
            for s in SCHEDULERS:
                c = fmt_ratio(case_ratio(doc, s))
                if doc.get("calls", 1) > 1:
                    c += f" ({fmt_ratio(worst_ratio(doc, s))})"
                cells.append(star(doc, s, f"**{c}**" if s == best else c))
            w(f"| {workload_key(r[1])[1]} | {doc['lower_bound_us']:.0f} | {doc['bound_cut']['name']} | "
              f"{doc['route_bound_us']:.0f} | {fmt_ratio(doc['results']['fanout'].get('ratio_to_route_bound'))} | "
              + " | ".join(cells) + " |")
        w("| **geo-mean** | | | | | " + " | ".join(
            star(cases[prow[0]], s, fmt_x(gmean([case_ratio(cases[r], s) for r in prow]), 2, "")) for s in SCHEDULERS)
          + " |")
        w("")
        bar_chart(os.path.join(chart_dir, f"ratio-{p}.svg"), f"time / lower bound: {PLATFORM_TEXT.get(p, p)}",
                  [(workload_key(r[1])[1], r) for r in prow], SCHEDULERS,
                  lambda k, s: case_ratio(cases[k], s), "time / lower bound", log=True, reference=1.0)

    # ---- flow bound
    frows = [r for r in rows if cases[r].get("flow_bound_us") is not None]
    w("## How tight is the cut bound")
    w("")
    if not frows:
        w("No flow-bound results (the LP runs only on platforms of at most 64 GPUs).")
    else:
        w("The cut bound takes the most loaded single cut; the **flow bound** (`vp-sim --flow-bound`, "
          "[simulator.md](simulator.md) \"Flow bound\") is the optimum of a linear program, a max-concurrent "
          "multicommodity flow over every link and forwarder of the graph, with the same capacities and "
          "latency, solved with COIN-OR CLP. It is never below the cut bound and no schedule beats it either; "
          "where the two are equal, the cut bound is as tight as any bound built on this model's capacities "
          "can be. Computed on the platforms of at most 64 GPUs (for the drift sequence: sums over its calls; "
          "*binding*: the resources whose capacity rows carry the LP's dual weight, largest first, for the "
          "drift sequence those of its largest call).")
        w("")
        w("| platform | workload | cut bound µs | flow bound µs | cut / flow | binding (LP dual share) |")
        w("|---|---|---|---|---|---|")
        for r in frows:
            doc = cases[r]
            fb = doc.get("flow_bound")
            if fb is None and doc.get("per_call"):
                fb = max(doc["per_call"], key=lambda c: c.get("flow_bound_us") or 0).get("flow_bound")
            binding = ", ".join(f"{b['resource']} {100 * b['share']:.0f}%" for b in (fb or {}).get("binding", [])[:3])
            w(f"| {r[0]} | {workload_key(r[1])[1]} | {doc['lower_bound_us']:.1f} | {doc['flow_bound_us']:.1f} | "
              f"{doc['lower_bound_us'] / doc['flow_bound_us']:.3f} | {binding} |")
        tight = [r for r in frows if cases[r]["lower_bound_us"] >= cases[r]["flow_bound_us"] * (1 - 1e-6)]
        w("")
        w(f"The cut bound equals the flow bound (to 1 ppm) in {len(tight)} of {len(frows)} cases; the lowest "
          f"cut / flow is {min(cases[r]['lower_bound_us'] / cases[r]['flow_bound_us'] for r in frows):.3f}.")
    w("")

    # ---- speedups
    w("## Speedup of VarioPath over each baseline")
    w("")
    w("Baseline time / VarioPath time (above 1: VarioPath is faster); * hypothetical there. Per platform and "
      "over all cases: geometric means, the *all* row over the cases where the baseline is not hypothetical.")
    w("")
    w("![geo-mean speedup per platform](evaluation/speedup.svg)")
    w("")
    w("| platform | workload | " + " | ".join(LABEL[b] for b in BASELINES) + " |")
    w("|---|---|" + "---|" * len(BASELINES))
    for r in rows:
        w(f"| {r[0]} | {workload_key(r[1])[1]} | " + " | ".join(star(cases[r], b, f"{speedup(cases[r], b):.2f}")
                                                              for b in BASELINES) + " |")
    for p in platforms:
        prow = [r for r in rows if r[0] == p]
        if prow:
            w(f"| **{p}** | **geo-mean** | " + " | ".join(
                star(cases[prow[0]], b, fmt_x(gmean([speedup(cases[r], b) for r in prow]), 2, "")) for b in BASELINES)
              + " |")
    w(f"| **all** | **geo-mean** | " + " | ".join(fmt_x(gmean(sp_all[b]), 2, "") for b in BASELINES) + " |")
    w("")
    bar_chart(os.path.join(chart_dir, "speedup.svg"),
              "VarioPath speedup over each baseline (geo-mean per platform, hypothetical ones included)",
              [(p, p) for p in platforms if any(r[0] == p for r in rows)], BASELINES,
              lambda p, b: gmean([speedup(cases[r], b) for r in rows if r[0] == p]), "speedup (×)", log=True,
              reference=1.0)

    # ---- losses
    w("## Where VarioPath loses")
    w("")
    w("Cases where VarioPath is more than 5% slower than the best baseline, or above 1.5× the bound:")
    w("")
    losers = [r for r in rows if cases[r]["results"]["variopath"]["time_us"] > 1.05 * best_base[r]
              or worst_ratio(cases[r], "variopath") > 1.5]
    if not losers:
        w("None.")
    else:
        w("| platform | workload | VarioPath / bound | best baseline | its / bound | VarioPath / best | "
          "VarioPath steps | bound cut |")
        w("|---|---|---|---|---|---|---|---|")
        for r in losers:
            doc = cases[r]
            b = best_baseline(doc)
            w(f"| {r[0]} | {workload_key(r[1])[1]} | {fmt_ratio(case_ratio(doc, 'variopath'))} | {LABEL[b]} | "
              f"{fmt_ratio(case_ratio(doc, b))} | {doc['results']['variopath']['time_us'] / best_base[r]:.2f} | "
              f"{doc['results']['variopath']['steps']} | {doc['bound_cut']['name']} |")
    w("")

    # ---- planning time
    w("## Planning time")
    w("")
    w("VarioPath's `Planner::plan`, median wall clock of 5 calls after a warm-up, µs (drift: mean over the "
      "calls), against the simulated transfer time it plans. Every time in this report is a total (vp-sim: "
      "counts exchange + planning + transfer, docs/simulator.md \"Costs beside the transfer\"), so this "
      "planning time is already in VarioPath's and FAST-like's times above. The other baselines' schedule "
      "construction in the simulator is a reconstruction's cost and is not shown.")
    w("")
    w("| platform | " + " | ".join(workload_key(x)[1] for x in workloads) + " |")
    w("|---|" + "---|" * len(workloads))
    for p in platforms:
        cells = []
        for x in workloads:
            doc = cases.get((p, x))
            if not doc:
                cells.append("–")
                continue
            v = doc["results"]["variopath"]
            per_call_time = v.get("transfer_us", v["time_us"]) / doc.get("calls", 1)
            planned = v.get("planning_measured_us", v["planning_us"])
            cells.append(f"{planned:.0f} ({100 * planned / per_call_time:.1f}%)")
        w(f"| {p} | " + " | ".join(cells) + " |")
    w("")
    w("(In brackets: planning time as a share of VarioPath's simulated transfer time for the same call.)")
    w("")
    with open(os.path.join(a.docs, "evaluation.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(L))


if __name__ == "__main__":
    main()
