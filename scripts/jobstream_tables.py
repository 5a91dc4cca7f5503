#!/usr/bin/env python3
"""The tables of docs/jobstream.md from scripts/jobstream.py's JSON output.

    scripts/jobstream_tables.py [--page FILE] RUN.json [RUN.json ...]

Runs of the same stream (seed, load, jobs, workload, comm fraction, catalog)
make one table: the first run given gives a row per policy, each further run
a row "place, `--slack X`" from its place policy. Prints the tables as
Markdown; with --page, replaces the page's text between the lines
`<!-- jobstream tables: begin -->` and `<!-- jobstream tables: end -->`
with them instead.

Exit codes: 0 ok, 1 usage, 2 bad input (a file that is not jobstream.py's
JSON, a page without the markers).
"""

import argparse
import json
import sys

BEGIN, END = "<!-- jobstream tables: begin -->", "<!-- jobstream tables: end -->"
STREAM_KEYS = ("catalog", "jobs", "seed", "workload", "load", "comm_fraction")


def fail(msg):
    print(f"jobstream_tables.py: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_run(path):
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    if not isinstance(j, dict) or j.get("format") != "vp-jobstream" or j.get("version") != 1:
        fail(f"{path}: not scripts/jobstream.py --json output (format vp-jobstream, version 1)")
    return j


def row(label, p):
    return (f"| {label} | {p['gpu_utilisation']:.3f} | {p['partial_node_fraction']:.3f} | "
            f"{p['mean_alltoallv_us']:,.1f} µs | {p['mean_ratio_to_bound']:.3f} | {p['mean_wait']:.3f} | "
            f"{p['makespan']:.2f} |")


def tables(runs):
    groups = {}
    for path, j in runs:
        groups.setdefault(tuple(j[k] for k in STREAM_KEYS), []).append(j)
    out = []
    for key, group in groups.items():
        first = group[0]
        caption = f"Seed {first['seed']}, offered load {first['load']:g}"
        if first["load"] > 1:
            caption += " (more work than the cluster can do: a queue throughout)"
        caption += f", {first['jobs']} jobs, workload {first['workload']}, place `--slack {first['slack']:g}`:"
        lines = [caption, "", "| policy | GPU utilisation | partial nodes | mean AlltoAllv | / bound | mean wait | makespan |",
                 "|---|---:|---:|---:|---:|---:|---:|"]
        lines += [row(p["policy"], p) for p in first["policies"]]
        for j in group[1:]:
            place = next(p for p in j["policies"] if p["policy"] == "place")
            lines.append(row(f"place, `--slack {j['slack']:g}`", place))
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--page")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()
    text = tables([(p, read_run(p)) for p in a.runs])
    if not a.page:
        sys.stdout.write(text)
        return 0
    try:
        with open(a.page) as f:
            page = f.read()
    except OSError as e:
        fail(f"{a.page}: {e}")
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        fail(f"{a.page}: no '{BEGIN}' ... '{END}' block (one of each, in that order)")
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    with open(a.page, "w") as f:
        f.write(f"{head}{BEGIN}\n{text}{END}{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
