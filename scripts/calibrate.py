#!/usr/bin/env python3
"""Run vp-sim on the published figures of simulator/calibration/figures.json.

    scripts/calibrate.py [--bin DIR] [--model ideal|contention] [--contention FILE]
                         [--figures FILE] [--check-upper-bound] [--check] [--fit [--write-table OUT]]

For every figure whose machine has a platform (a node description beside the
figures file, else in fixtures/platforms) and whose traffic is a
vp-sim workload: vp-analyze builds the platform's catalog (in a temporary
folder), vp-sim --json runs the figure's workload and scheduler, and the
figure's metric is read from its output. Prints, per figure, the published
value, the model's, their ratio, whether it is within 10 %, and the figure's
role (fit, held_out, excluded); then a summary per role. The output depends
only on the inputs (no paths, no timings), so two runs can be diffed.

--bin DIR: a folder with vp-analyze and vp-sim (an installed bin/), or a build
tree (tools/vp-analyze/vp-analyze, tools/vp-sim/vp-sim). Default: build-test.

--check-upper-bound (with --model ideal): exit 1 when the ideal model is more
than 10 % below a published figure, unless the figure says why it may be
(`upper_bound_exception`). A loss model only lowers rates, so a figure above
the no-loss rate means the platform, not the loss model, is wrong.

--check (with --model contention): exit 1 when a figure that runs, fitted
or held out, is more than 10 % off without a `known_miss` that says why, or
when a figure with a `known_miss` is within 10 % (the stated miss is stale).

--fit (with --model contention): fit the table's fitted parameters (those
with `fitted_on`, a list of figure ids, and `fit_range`, [low, high]) to
their figures: the sum over the union of those figures of log(model /
published)^2 is minimised from the best point of a joint grid (5 points
per range) by coordinate descent (a grid of 21 points over each range,
then narrowing around the best point to 1e-3 of the range), every
parameter in turn until none moves. The table's values play no part. Prints each parameter's fitted
value beside the table's, and exits 1 when a table value is further from
its fit than 1 % of its range (the committed table must be the fit). The
table is never rewritten: copy the values printed, or give --write-table OUT.

--write-table OUT (with --fit): write the table with its fitted values
replaced by the fit, each one's source saying it was fitted on the figures
file (its base name and the figures' ids and values), to OUT; exit 0 (no
check of the table's values: OUT is the fit). When the figures file holds
none of the ids the table's fitted_on names (an operator's own figures,
scripts/measured_figures.py), every parameter with fitted_on is fitted
jointly on the file's role-fit figures that run, and tested_on becomes its
held-out figures that run; a parameter those figures do not move (the
objective the same at both ends of its range, e.g. the AMD EPYC forwarder
on a machine with no AMD EPYC) keeps its value and source, without
fitted_on, and the output says so. When the fit figures are fewer distinct
runs than the parameters they move, the output notes that the fit is one
point of a valley, not determined.

Metrics (docs/calibration-sources.md section 2 for the tools' definitions):
  receiver_sum_gbps  sum over receivers of bytes / their last arrival
                     (p2pmark's "total"; vp-sim's receiver_sum_gbps)
  aggregate_gbps     total bytes / completion time
  busbw_gbps         nccl-tests' busbw at the figure's --sizes (its last size)
  incast_sum_gbps    sum over readers of one-reader-at-a-time runs
                     (incast:reader=r), p2pmark's "ideal" denominator
  p2pmark_score      receiver_sum_gbps of the dense run / incast_sum_gbps
                     (incast bytes = score_ingress_bytes)
Exit codes: 0 ok, 1 usage or a failed check, 2 bad input (the figures file),
4 a tool failed.
"""

import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROLES = ("fit", "held_out", "excluded")
METRICS = ("receiver_sum_gbps", "aggregate_gbps", "busbw_gbps", "incast_sum_gbps", "p2pmark_score", "deepep_rdma_gbps")
REQUIRED = ("id", "platform", "workload", "scheduler", "metric", "published", "role")
TOLERANCE = 0.10


class ToolError(Exception):
    pass


def find_tool(bin_dir, name, tree_path):
    for candidate in (os.path.join(bin_dir, name), os.path.join(bin_dir, tree_path)):
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit(f"calibrate.py: --bin {bin_dir}: no {name} there nor at {tree_path} (build it first)")


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        shown = " ".join(os.path.basename(c) if os.path.isabs(c) else c for c in cmd)
        raise ToolError(f"`{shown}` exited {r.returncode}: {r.stderr.strip()}")
    return r.stdout


class Runner:
    def __init__(self, args, tmp):
        self.figures_dir = os.path.dirname(os.path.abspath(args.figures))
        self.analyze = find_tool(args.bin, "vp-analyze", "tools/vp-analyze/vp-analyze")
        self.sim = find_tool(args.bin, "vp-sim", "tools/vp-sim/vp-sim")
        self.model = ["--model", args.model] + (["--contention", args.contention] if args.contention else [])
        self.table = args.contention
        self.tmp = tmp
        self.catalogs = {}
        self.cache = {}

    def use_table(self, path):
        """Run the next figures under the contention table at `path`."""
        self.model = ["--model", "contention", "--contention", path]

    def catalog(self, platform):
        if platform not in self.catalogs:
            out = os.path.join(self.tmp, platform.replace(".json", ".vpcat"))
            beside = os.path.join(self.figures_dir, platform)
            path = beside if os.path.isfile(beside) else os.path.join(ROOT, "fixtures", "platforms", platform)
            run([self.analyze, "--input", path, "--out", out])
            self.catalogs[platform] = out
        return self.catalogs[platform]

    def sim_json(self, fig, workload, sizes=None):
        cmd = [self.sim, "--catalog", self.catalog(fig["platform"]), "--workload", workload,
               "--schedulers", fig["scheduler"], "--json"] + self.model
        if fig.get("gpus"):
            cmd += ["--gpus", fig["gpus"]]
        if fig.get("transfers") and "contention" in self.model:
            cmd += ["--transfers", fig["transfers"]]
        if sizes:
            cmd += ["--sizes", sizes]
        key = tuple(cmd)
        if key not in self.cache:
            self.cache[key] = json.loads(run(cmd))
        return self.cache[key]

    def result(self, fig, workload):
        return self.sim_json(fig, workload)["results"][fig["scheduler"]]

    def incast_sum(self, fig, nbytes):
        gpus = self.sim_json(fig, fig["workload"])["gpus"]
        return sum(self.result(fig, f"incast:reader={r},bytes={nbytes}")["aggregate_gbps"] for r in range(gpus))

    def metric(self, fig):
        m, w = fig["metric"], fig["workload"]
        if m in ("receiver_sum_gbps", "aggregate_gbps"):
            return self.result(fig, w)[m]
        if m == "busbw_gbps":
            return self.sim_json(fig, w, fig["sizes"])["per_size"][-1]["results"][fig["scheduler"]]["busbw_gbps"]
        if m == "incast_sum_gbps":
            nbytes = w.split("bytes=")[1] if "bytes=" in w else "67108864"
            return self.incast_sum(fig, nbytes)
        if m == "p2pmark_score":
            return self.result(fig, w)["receiver_sum_gbps"] / self.incast_sum(fig, fig["score_ingress_bytes"])
        raise SystemExit(f"calibrate.py: figure {fig['id']}: metric {m} is not a vp-sim figure (give not_run)")


def why_not_run(fig):
    if fig.get("not_run"):
        return fig["not_run"]
    if not fig.get("platform"):
        return "no platform"
    if not fig.get("workload"):
        return "not a workload"
    return None


def load_figures(path):
    try:
        with open(path, encoding="utf-8") as f:
            figures = json.load(f)["figures"]
        if not isinstance(figures, list):
            raise ValueError("figures is not a list")
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.stderr.write(f"calibrate.py: {path}: cannot read the figures ({e})\n")
        sys.exit(2)
    for i, fig in enumerate(figures):
        problem = figure_problem(fig)
        if problem:
            name = fig.get("id", f"#{i}") if isinstance(fig, dict) else f"#{i}"
            sys.stderr.write(f"calibrate.py: {path}: figure {name}: {problem} "
                             "(schemas/calibration-figures.schema.json)\n")
            sys.exit(2)
    return figures


def figure_problem(fig):
    if not isinstance(fig, dict):
        return "not an object"
    missing = [k for k in REQUIRED if k not in fig]
    if missing:
        return f"missing {', '.join(missing)}"
    if fig["role"] not in ROLES:
        return f"role must be one of {', '.join(ROLES)}"
    if fig["metric"] not in METRICS:
        return f"unknown metric {fig['metric']!r}"
    if not isinstance(fig["published"], (int, float)) or isinstance(fig["published"], bool) or fig["published"] <= 0:
        return "published must be a number > 0"
    if fig["metric"] == "busbw_gbps" and fig["workload"] and not fig.get("sizes"):
        return "busbw_gbps needs sizes"
    if fig["metric"] == "p2pmark_score" and not fig.get("score_ingress_bytes"):
        return "p2pmark_score needs score_ingress_bytes"
    return None


def table_parameters(node, path=""):
    """(dotted path, parameter object) for every parameter of a contention table."""
    if isinstance(node, dict):
        if "value" in node and "source" in node:
            yield path, node
            return
        for k, v in node.items():
            yield from table_parameters(v, f"{path}.{k}" if path else k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from table_parameters(v, f"{path}.{i}")


def default_table():
    return os.path.join(ROOT, "simulator", "contention.json")


def fit_table(runner, figures, table_path, tmp):
    """Coordinate descent over the table's fitted parameters; returns rows
    (path, table value, fitted value, range) and the objective at the fit."""
    with open(table_path, encoding="utf-8") as f:
        table = json.load(f)
    by_id = {fig["id"]: fig for fig in figures}
    params = [(p, o) for p, o in table_parameters(table) if "fitted_on" in o]
    if not params:
        raise SystemExit(f"calibrate.py: {table_path}: no parameter has fitted_on")
    named = {i for _, o in params for i in o["fitted_on"] + o.get("tested_on", [])}
    if not named & set(by_id):  # an operator's own figures: fit on all of them, test on the rest
        fit_ids = [f["id"] for f in figures if f["role"] == "fit" and not why_not_run(f)]
        held = [f["id"] for f in figures if f["role"] == "held_out" and not why_not_run(f)]
        if not fit_ids:
            raise SystemExit("calibrate.py: the figures file has no role-fit figure that runs")
        for _, o in params:
            o["fitted_on"] = list(fit_ids)
            if held:
                o["tested_on"] = list(held)
            else:
                o.pop("tested_on", None)
    ids = []
    for p, o in params:
        if "fit_range" not in o:
            raise SystemExit(f"calibrate.py: {table_path}: {p}: fitted_on needs fit_range")
        for i in o["fitted_on"]:
            fig = by_id.get(i)
            if fig is None:
                raise SystemExit(f"calibrate.py: {table_path}: {p}: fitted_on names {i!r}, not a figure")
            if fig["role"] != "fit" or why_not_run(fig):
                raise SystemExit(f"calibrate.py: {table_path}: {p}: figure {i} is not a fit figure that runs")
            if i not in ids:
                ids.append(i)
        for i in o.get("tested_on", []):
            fig = by_id.get(i)
            if fig is None or fig["role"] != "held_out":
                raise SystemExit(f"calibrate.py: {table_path}: {p}: tested_on names {i!r}, not a held-out figure")
    original = {p: o["value"] for p, o in params}
    counter = [0]

    def objective():
        counter[0] += 1
        path = os.path.join(tmp, f"fit-{counter[0]}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(table, f)
        runner.use_table(path)
        total = 0.0
        for i in ids:
            total += math.log(runner.metric(by_id[i]) / by_id[i]["published"]) ** 2
        return total

    def search(o, lo, hi, points):
        best_v, best_e = None, None
        for k in range(points):
            o["value"] = lo + (hi - lo) * k / (points - 1)
            e = objective()
            if best_e is None or e < best_e - 1e-12:
                best_v, best_e = o["value"], e
        return best_v, best_e

    # Start from the best point of a coarse joint grid (5 points per range),
    # so that the fit does not depend on the values the table holds (the
    # objective has local minima: one charges every loss to the forwarder).
    start, start_e = None, None
    for point in itertools.product(range(5), repeat=len(params)):
        for (p, o), k in zip(params, point):
            lo, hi = o["fit_range"]
            o["value"] = lo + (hi - lo) * k / 4
        e = objective()
        if start_e is None or e < start_e - 1e-12:
            start, start_e = [o["value"] for _, o in params], e
    for (p, o), v in zip(params, start):
        o["value"] = v
    best = start_e
    for _ in range(6):
        moved = False
        for p, o in params:
            lo, hi = o["fit_range"]
            before = o["value"]
            v, e = search(o, lo, hi, 21)
            step = (hi - lo) / 20
            while step > (hi - lo) * 1e-3:
                v, e = search(o, max(lo, v - step), min(hi, v + step), 5)
                step /= 2
            o["value"] = v
            best = e
            if abs(v - before) > (hi - lo) * 1e-3:
                moved = True
        if not moved:
            break
    # A parameter the figures do not move (no figure's traffic meets it) is
    # not fitted: the search left it at the low end of its range.
    free = set()
    for p, o in params:
        v = o["value"]
        lo, hi = o["fit_range"]
        ends = []
        for x in (lo, hi):
            o["value"] = x
            ends.append(objective())
        o["value"] = v
        if abs(ends[0] - ends[1]) < 1e-12 and abs(ends[0] - best) < 1e-12:
            free.add(p)
            o["value"] = original[p]
    rows = [(p, original[p], None if p in free else o["value"], o["fit_range"]) for p, o in params]
    return rows, best, ids, table


def source_text(src):
    """A figure's source in a few words: repo, file and lines, or issue/pull."""
    parts = [src.get("repo", ""), src.get("commit", ""), src.get("file", ""), src.get("lines", "")]
    if "issue" in src:
        parts.append(f"issue {src['issue']}")
    if "pull" in src:
        parts.append(f"pull {src['pull']}")
    return " ".join(x for x in parts if x)


def write_table(out, table_path, table, fitted, objective, ids, figures, figures_path, valley=None):
    """Write the fitted table to `out`: fitted values with their new source,
    parameters the figures do not move as they were, without fitted_on."""
    by_id = {f["id"]: f for f in figures}
    name = os.path.basename(figures_path)
    on = "; ".join(f"{i} {by_id[i]['published']:g} ({source_text(by_id[i]['source'])})" for i in ids)
    params = dict(table_parameters(table))
    for path, value, fit, (lo, hi) in fitted:
        o = params[path]
        if fit is None:
            for k in ("fitted_on", "tested_on", "fit_range"):
                o.pop(k, None)
            o["source"] += (f"; not refitted by scripts/calibrate.py --fit --write-table on {name}: none of its "
                            f"figures moves it (at the others' fitted values the objective is the same at {lo:g} and {hi:g})")
            continue
        o["value"] = round(fit, 4)
        o["source"] = (f"fitted (scripts/calibrate.py --fit --write-table) on {name}, jointly with "
                       f"{', '.join(p for p, _, f, _ in fitted if f is not None and p != path) or 'nothing else'}, "
                       f"to its figures {on}; objective {objective:.5f}; "
                       + (f"{valley}; " if valley else "")
                       + f"replaces {value:g} of {os.path.basename(table_path)}")
    table["description"] = (f"Written by scripts/calibrate.py --fit --write-table: {os.path.basename(table_path)} "
                            f"with the values fitted on {name}. " + table.get("description", ""))
    try:
        with open(out, "w", encoding="utf-8") as f:
            json.dump(table, f, indent=2)
            f.write("\n")
    except OSError as e:
        sys.stderr.write(f"calibrate.py: {out}: cannot write it ({e})\n")
        return 2
    print(f"\nwrote {out}")
    return 0


def check_known_misses(rows):
    """Figures that run, fitted or held out: within 10 %, or a known_miss."""
    problems = []
    for fig, model, _ in rows:
        if model is None or fig["role"] == "excluded":
            continue
        off = abs(model / fig["published"] - 1) > TOLERANCE
        if off and not fig.get("known_miss"):
            problems.append(f"{fig['id']}: {model / fig['published']:.3f} of the published figure, and no known_miss says why")
        if not off and fig.get("known_miss"):
            problems.append(f"{fig['id']}: within 10 %, but its known_miss says it misses (stale)")
    return problems


def fmt(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


class Parser(argparse.ArgumentParser):
    def error(self, message):  # a usage error is exit 1, as the tools' (argparse says 2)
        self.print_usage(sys.stderr)
        self.exit(1, f"calibrate.py: error: {message}\n")


def main(argv):
    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bin", default=os.path.join(ROOT, "build-test"))
    p.add_argument("--model", choices=("ideal", "contention"), default="ideal")
    p.add_argument("--contention", help="the contention table (default: vp-sim's committed one)")
    p.add_argument("--figures", default=os.path.join(ROOT, "simulator", "calibration", "figures.json"))
    p.add_argument("--check-upper-bound", action="store_true")
    p.add_argument("--check", action="store_true", help="every fitted or held-out figure within 10 %% or a known_miss")
    p.add_argument("--fit", action="store_true", help="fit the table's fitted parameters to their figures")
    p.add_argument("--write-table", metavar="OUT", help="with --fit: write the table with the fitted values to OUT")
    args = p.parse_args(argv)
    if args.contention and args.model != "contention":
        p.error("--contention needs --model contention")
    if args.check_upper_bound and args.model != "ideal":
        p.error("--check-upper-bound is a check of the ideal model")
    if (args.check or args.fit) and args.model != "contention":
        p.error("--check and --fit are checks of the contention model")
    if args.write_table and not args.fit:
        p.error("--write-table writes the table --fit fits: give --fit")
    figures = load_figures(args.figures)
    if args.fit:
        with tempfile.TemporaryDirectory(prefix="vp-calibrate-") as tmp:
            table = args.contention or default_table()
            try:
                fitted, objective, ids, written = fit_table(Runner(args, tmp), figures, table, tmp)
            except ToolError as e:
                sys.stderr.write(f"calibrate.py: {e}\n")
                return 4
        print(f"# fit of {os.path.basename(table)} on {len(ids)} figures: {', '.join(ids)}")
        print(f"# objective (sum of log(model/published)^2) at the fit: {objective:.5f}")
        print(f"{'parameter':<28} {'table':>8} {'fit':>8}  range")
        stale = []
        for path, value, fit, (lo, hi) in fitted:
            if fit is None:
                print(f"{path:<28} {value:>8.4f} {'-':>8}  [{lo:g}, {hi:g}]  not moved by these figures: kept")
                continue
            print(f"{path:<28} {value:>8.4f} {fit:>8.4f}  [{lo:g}, {hi:g}]")
            if abs(value - fit) > 0.01 * (hi - lo):
                stale.append(path)
        by_id = {f["id"]: f for f in figures}
        runs = {tuple(by_id[i].get(k) for k in ("platform", "gpus", "workload", "transfers", "sizes")) for i in ids}
        moved = sum(1 for _, _, fit, _ in fitted if fit is not None)
        valley = None
        if len(runs) < moved:
            valley = (f"{moved} parameters fitted on {len(runs)} distinct run{'s' if len(runs) > 1 else ''} "
                      "(a p2pmark total and its score are one run): the fit is one point of a valley of equal "
                      "objectives, not determined")
            print(f"# note: {valley}; add runs that load the parameters apart")
        if args.write_table:
            return write_table(args.write_table, table, written, fitted, objective, ids, figures, args.figures, valley)
        if stale:
            print(f"\nFAIL: the table is not its fit for {', '.join(stale)} (copy the fitted values)")
            return 1
        return 0

    rows, violations = [], []
    with tempfile.TemporaryDirectory(prefix="vp-calibrate-") as tmp:
        runner = Runner(args, tmp)
        for fig in figures:
            reason = why_not_run(fig)
            model = None
            if reason is None:
                try:
                    model = runner.metric(fig)
                except ToolError as e:
                    sys.stderr.write(f"calibrate.py: figure {fig['id']}: {e}\n")
                    return 4
            rows.append((fig, model, reason))
            if (args.check_upper_bound and model is not None and not fig.get("upper_bound_exception")
                    and model < (1 - TOLERANCE) * fig["published"]):
                violations.append(fig["id"])

    label = args.model if not args.contention else f"contention ({os.path.basename(args.contention)})"
    print(f"# model: {label}; within: |model / published - 1| <= {TOLERANCE:.0%}")
    print(f"{'figure':<26} {'role':<9} {'metric':<18} {'published':>9} {'model':>9} {'ratio':>6}  within")
    for fig, model, reason in rows:
        pub = fig["published"]
        if model is None:
            print(f"{fig['id']:<26} {fig['role']:<9} {fig['metric']:<18} {fmt(pub):>9} {'-':>9} {'-':>6}  ({reason})")
            continue
        ratio = model / pub
        within = "yes" if abs(ratio - 1) <= TOLERANCE else ("no, known miss" if fig.get("known_miss") else "no")
        print(f"{fig['id']:<26} {fig['role']:<9} {fig['metric']:<18} {fmt(pub):>9} {fmt(model):>9} {ratio:>6.3f}  {within}")
    print()
    print(f"{'role':<9} {'figures':>7} {'run':>4} {'within':>6} {'ratio min':>9} {'median':>7} {'max':>6}")
    for role in ROLES:
        mine = [(f, m) for f, m, _ in rows if f["role"] == role]
        ratios = sorted(m / f["published"] for f, m in mine if m is not None)
        within = sum(1 for r in ratios if abs(r - 1) <= TOLERANCE)
        if ratios:
            mid = len(ratios) // 2
            median = ratios[mid] if len(ratios) % 2 else (ratios[mid - 1] + ratios[mid]) / 2
            stats = f"{ratios[0]:>9.3f} {median:>7.3f} {ratios[-1]:>6.3f}"
        else:
            stats = f"{'-':>9} {'-':>7} {'-':>6}"
        print(f"{role:<9} {len(mine):>7} {len(ratios):>4} {within:>6} {stats}")
    if args.check:
        problems = check_known_misses(rows)
        if problems:
            print("\nFAIL: " + "\n      ".join(problems))
            return 1
    if violations:
        print(f"\nFAIL: the ideal model is more than {TOLERANCE:.0%} below the published figure of "
              f"{', '.join(violations)} (a loss model cannot raise it: check the platform, or give the "
              f"figure an upper_bound_exception with the reason)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
