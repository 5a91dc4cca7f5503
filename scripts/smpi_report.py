"""The section "Two judges: vp-sim and SimGrid SMPI" of docs/evaluation.md,
from the JSON that scripts/smpi_compare.py --json saves (docs/smpi.md).

evaluate_report.py writes it into the whole report (--smpi FILE), or alone
into the existing docs/evaluation.md (evaluate_report.py --smpi-only FILE
--docs DIR): the section is replaced where it stands, or inserted before
the sweeps' section, where the whole report puts it; nothing else changes.
"""
import json

TITLE = "## Two judges: vp-sim and SimGrid SMPI"
# The whole report's section that follows this one (evaluate_report.py).
NEXT_TITLE = "## Sweeps of the unsourced contention parameters and of the per-step cost"
LABELS = ["VarioPath", "fan-out", "SpreadOut/pair"]
SAME_SCHEDULE = ["VarioPath", "fan-out"]  # both engines run the same schedule


def fastest(times):
    return min(times, key=times.get)


def case(r):
    return f"{r['platform']} {r['workload']} {human(r['size'])} {r['model']}"


def human(size):
    for unit, b in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size % b == 0:
            return f"{size // b} {unit}"
    return f"{size} B"


def pct(x):
    return f"{100 * x:+.1f} %"


def us(x):
    """Signed microseconds, without a "-0.0"."""
    return f"{0.0 if abs(x) < 0.05 else x:+.1f}"


def analyse(rows):
    """The closing note's figures: agreement on the fastest, the largest
    differences and their parts, the executor against its plan."""
    a = {"cases": len(rows)}
    a["same"] = [r for r in rows if fastest(r["vpsim"]) == fastest(r["smpi"])]
    a["same_eager"] = [r for r in rows if fastest(r["vpsim_eager"]) == fastest(r["smpi"])]
    a["differ"] = [r for r in rows if fastest(r["vpsim"]) != fastest(r["smpi"])]

    def largest(labels, judge):
        return max(((r["smpi"][l] / r[judge][l] - 1, l, r) for r in rows for l in labels), key=lambda t: abs(t[0]))

    a["largest"] = largest(LABELS, "vpsim")
    a["largest_same"] = largest(SAME_SCHEDULE, "vpsim")
    for judge in ("vpsim", "vpsim_eager"):
        t = [((r["smpi"]["VarioPath"] - r["smpi_exchange"]) / (r[judge]["VarioPath"] - r["vpsim_exchange"]), r)
             for r in rows]
        a["transfer_ratio_" + judge] = (min(t, key=lambda x: x[0]), max(t, key=lambda x: x[0]))
    a["ratios"] = {l: (min(r["smpi"][l] / r["vpsim"][l] for r in rows), max(r["smpi"][l] / r["vpsim"][l] for r in rows))
                   for l in LABELS}
    a["ratios_eager"] = {l: (min(r["smpi"][l] / r["vpsim_eager"][l] for r in rows),
                             max(r["smpi"][l] / r["vpsim_eager"][l] for r in rows)) for l in LABELS}
    # The executor's transfer (its time less its counts exchange, which the
    # plan's expected time leaves out) against the plan, per platform model.
    for model in ("calibrated", "ideal"):
        t = [((r["smpi"]["VarioPath"] - r["smpi_exchange"]) / r["plan"], r) for r in rows if r["model"] == model]
        a["transfer_" + model] = (min(t, key=lambda x: x[0]), max(t, key=lambda x: x[0])) if t else None
    ex = [(r["smpi_exchange"] / r["plan"], r) for r in rows]
    a["exchange"] = (min(r["smpi_exchange"] for r in rows), max(r["smpi_exchange"] for r in rows),
                     max(ex, key=lambda x: x[0]))
    return a


def parts(r):
    """VarioPath's difference SMPI - vp-sim (us) in parts: the counts
    exchange (SMPI's MPI_Allgather against vp-sim's Bruck charge), the eager
    sends (vp-sim --eager detached against the default judge), the rest."""
    total = r["smpi"]["VarioPath"] - r["vpsim"]["VarioPath"]
    exchange = r["smpi_exchange"] - r["vpsim_exchange"]
    eager = r["vpsim_eager"]["VarioPath"] - r["vpsim"]["VarioPath"]
    return total, exchange, eager, total - exchange - eager


def section(w, facts):
    """Write the section (w: one line per call)."""
    rows = facts["rows"]
    w(TITLE)
    w("")
    if not rows:
        w("No case was run.")
        w("")
        return
    a = analyse(rows)
    w(f"`{facts['command']}` ([smpi.md](smpi.md)): {a['cases']} cases, in {facts['seconds']} s of wall time "
      f"(1-minute load average {facts['load'][0]} at the start, {facts['load'][1]} at the end, on the 2-core "
      "machine). On each catalog's platform (`vp-sim --simgrid-platform`, ideal, and calibrated with the "
      "committed contention table) SimGrid's SMPI runs VarioPath's MPI executor (`libvpcat_mpi`, unmodified) "
      "and `MPI_Alltoallv` with SMPI's `ompi_basic_linear` (fan-out) and `pair` (pairwise XOR exchange), every "
      "received byte checked; `vp-sim` judges the same demand file with `--planning-us 0`, as its default "
      "(every send a rendezvous: a rank waits for its sends' delivery) and with "
      f"`--eager detached --eager-bytes {facts['eager_bytes']}` (a message below 64 KiB does not hold its sender, "
      "SMPI's detached sends). Each rank's message of *size* bytes is split over the others as nccl-tests does; "
      "*plan* is `vp-plan`'s expected time (its steps one after the other, no counts exchange). Times in µs; "
      "*SpreadOut* is `vp-sim`'s shift schedule (i → i + k), *pair* SMPI's XOR exchange: two schedules.")
    w("")
    w("| platform | workload | size | model | plan | VarioPath vp-sim | vp-sim eager | SMPI | fan-out vp-sim | SMPI "
      "| SpreadOut vp-sim | vp-sim eager | pair SMPI | fastest vp-sim | fastest SMPI |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        fv, fs = fastest(r["vpsim"]), fastest(r["smpi"])
        mark = "" if fv == fs else " ≠"
        cells = [f"{r['vpsim']['VarioPath']:.1f}", f"{r['vpsim_eager']['VarioPath']:.1f}", f"{r['smpi']['VarioPath']:.1f}",
                 f"{r['vpsim']['fan-out']:.1f}", f"{r['smpi']['fan-out']:.1f}",
                 f"{r['vpsim']['SpreadOut/pair']:.1f}", f"{r['vpsim_eager']['SpreadOut/pair']:.1f}",
                 f"{r['smpi']['SpreadOut/pair']:.1f}"]
        w(f"| {r['platform']} | {r['workload']} | {human(r['size'])} | {r['model']} | {r['plan']:.1f} | "
          + " | ".join(cells) + f" | {fv} | {fs}{mark} |")
    w("")
    n = a["cases"]
    w(f"**Same fastest scheduler in {len(a['same'])} of {n} cases ({100 * len(a['same']) / n:.0f} %)** with the "
      f"default judge, {len(a['same_eager'])} of {n} with `--eager detached`.")
    if a["differ"]:
        def why(r):
            # What makes vp-sim name SMPI's pick: VarioPath charged SMPI's
            # counts exchange, the step-wise column taken from SMPI (pair
            # for SpreadOut), or both.
            def names(exchange, pair):
                t = dict(r["vpsim"])
                if exchange:
                    t["VarioPath"] += r["smpi_exchange"] - r["vpsim_exchange"]
                if pair:
                    t["SpreadOut/pair"] = r["smpi"]["SpreadOut/pair"]
                return fastest(t) == fastest(r["smpi"])
            steps = (f"SMPI's pair takes {r['smpi']['SpreadOut/pair']:.1f} µs where `vp-sim`'s SpreadOut takes "
                     f"{r['vpsim']['SpreadOut/pair']:.1f}")
            if names(True, False):
                return " (the counts exchange decides it: charged SMPI's, `vp-sim` names the same)"
            if names(False, True):
                return f" (the two step-wise schedules decide it: {steps})"
            if names(True, True):
                return f" (the two step-wise schedules and the counts exchange together: {steps})"
            return ""
        w(" The others (≠): " + "; ".join(
            f"{case(r)}: `vp-sim` names {fastest(r['vpsim'])}, SMPI {fastest(r['smpi'])}{why(r)}" for r in a["differ"])
          + ".")
    w("")
    d, l, r = a["largest"]
    w(f"**The largest difference:** {l} on {case(r)}: `vp-sim` {r['vpsim'][l]:.1f} µs, SMPI {r['smpi'][l]:.1f} µs "
      f"({pct(d)}).")
    if l == "SpreadOut/pair":
        w(" Its cause: two schedules, not two judgements of one: `vp-sim`'s SpreadOut is the shift, SMPI 3.32's "
          "`pair` the XOR exchange, whose steps are either all inside the nodes or all across them; neither engine "
          "runs the other's.")
        d, l, r = a["largest_same"]
        w(f" Among the schedules both engines run: {l} on {case(r)}: `vp-sim` {r['vpsim'][l]:.1f} µs, SMPI "
          f"{r['smpi'][l]:.1f} µs ({pct(d)}).")
    if l == "VarioPath":
        total, exchange, eager, rest = parts(r)
        w(f" Of its {us(total)} µs, the counts exchange is {us(exchange)} µs (SMPI's `MPI_Allgather` posts every "
          f"message at once, {r['smpi_exchange']:.1f} µs, where `vp-sim` charges Bruck's algorithm, "
          f"{r['vpsim_exchange']:.1f} µs), the eager sends {us(eager)} µs (`vp-sim --eager detached` against the "
          f"default judge) and the rest {us(rest)} µs (the transfer under the same protocol in both engines).")
    else:
        w(" Fan-out is the same schedule on the same platform in both engines: the difference is the engines' "
          "sharing.")
    w("")
    lines = []
    for label in LABELS:
        lo, hi = a["ratios"][label]
        elo, ehi = a["ratios_eager"][label]
        lines.append(f"{label} {lo:.3f} to {hi:.3f} ({elo:.3f} to {ehi:.3f} against `--eager detached`)")
    w("SMPI / `vp-sim` per scheduler: " + "; ".join(lines) + ".")
    for judge, how in (("vpsim", "the default judge"), ("vpsim_eager", "`--eager detached`")):
        lo, hi = a["transfer_ratio_" + judge]
        w(f" VarioPath's transfer alone (each engine's time less its own counts exchange), SMPI / {how}: "
          f"from {lo[0]:.3f} ({case(lo[1])}) to {hi[0]:.3f} ({case(hi[1])}).")
    w("")
    w("**VarioPath's executor against its plan's expected time.** The plan's time (`vp-plan`) is its steps "
      "one after the other under the calibrated machine model, without the counts exchange; the executor's "
      "transfer is its time under SMPI less its counts exchange.")
    for model, what in (("calibrated", "on the calibrated platforms (the plan's own model)"),
                        ("ideal", "on the ideal ones (which lack the losses the plan expects)")):
        if a["transfer_" + model]:
            (lo, rlo), (hi, rhi) = a["transfer_" + model]
            w(f" Transfer / plan {what}: from {lo:.3f} ({case(rlo)}) to {hi:.3f} ({case(rhi)}).")
    lo, hi, (share, rs) = a["exchange"]
    w(f" The counts exchange adds {lo:.1f} to {hi:.1f} µs, up to {100 * share:.0f} % of a plan's time "
      f"({case(rs)}). Below 1 the executor, with no barrier between its steps, overlaps them; above 1 that "
      "overlap costs: ranks done with a step start the next while a long step still runs, and their transfers "
      "share links with it.")
    w("")


def update(docs_evaluation, facts):
    """Replace (or insert) the section in docs/evaluation.md; nothing else changes."""
    with open(docs_evaluation, encoding="utf-8") as f:
        lines = f.read().split("\n")
    new = []
    section(new.append, facts)
    if TITLE in lines:
        start = lines.index(TITLE)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    elif NEXT_TITLE in lines:
        start = end = lines.index(NEXT_TITLE)
    else:
        raise SystemExit(f"evaluate_report.py: {docs_evaluation}: neither \"{TITLE}\" nor \"{NEXT_TITLE}\" found: "
                         "regenerate the whole report (scripts/evaluate.sh)")
    lines[start:end] = new
    with open(docs_evaluation, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def load(path):
    with open(path, encoding="utf-8") as f:
        facts = json.load(f)
    for key in ("command", "seconds", "load", "eager_bytes", "rows"):
        if key not in facts:
            raise SystemExit(f"evaluate_report.py: {path}: no \"{key}\" (not a scripts/smpi_compare.py --json file)")
    return facts
