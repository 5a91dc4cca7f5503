#!/usr/bin/env python3
"""scripts/jobstream.py: its first fit and best fit on hand-made free sets,
its host-list reading, and a short stream through the real vp-catalog
(every job placed by each policy, the metrics in range, no AlltoAllv below
the judge's bound, and the same seed giving the same figures), and
scripts/jobstream_tables.py on that stream's JSON (a row per policy, the
page's block replaced, bad input refused).

    check_jobstream.py BUILD_DIR SOURCE_DIR
"""

import json
import os
import subprocess
import sys
import tempfile

build, source = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(source, "scripts"))
import jobstream  # noqa: E402

failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, want {want!r}")


free = [{0, 1}, set(range(8)), {3}]
check("first fit 4", jobstream.first_fit(free, 4), [(0, 0), (0, 1), (1, 0), (1, 1)])
check("first fit 11", jobstream.first_fit(free, 11), [(0, 0), (0, 1)] + [(1, g) for g in range(8)] + [(2, 3)])
# Best fit: the node with the fewest free GPUs that holds the job.
free = [set(range(8)), {1, 2, 3, 5}, {4, 5, 6}]
check("best fit 3", jobstream.best_fit(free, 3), [(2, 4), (2, 5), (2, 6)])
check("best fit 4", jobstream.best_fit(free, 4), [(1, 1), (1, 2), (1, 3), (1, 5)])
# None holds it: the freest whole, then the rest by best fit.
free = [set(range(8)), set(range(8)), {0, 1, 2}]
check("best fit 10", jobstream.best_fit(free, 10), [(0, g) for g in range(8)] + [(2, 0), (2, 1)])
check("names", jobstream.expand_names("gpu[001-003],x", "t"), ["gpu001", "gpu002", "gpu003", "x"])

cmd = [sys.executable, os.path.join(source, "scripts", "jobstream.py"), "--bin", build, "--jobs", "8", "--seed", "3",
       "--json"]
runs = []
for _ in range(2):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: {' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")
        sys.exit(1)
    runs.append(json.loads(r.stdout))
check("same seed, same figures", runs[0], runs[1])
j = runs[0]
check("policies", [p["policy"] for p in j["policies"]], ["first fit", "best fit", "place"])
for p in j["policies"]:
    check(f"{p['policy']}: jobs", p["jobs"], 8)
    for key in ("gpu_utilisation", "partial_node_fraction"):
        if not 0 <= p[key] <= 1:
            failures.append(f"{p['policy']}: {key} {p[key]} outside [0, 1]")
    if p["mean_ratio_to_bound"] < 1:
        failures.append(f"{p['policy']}: AlltoAllv below the judge's bound (mean ratio {p['mean_ratio_to_bound']})")

# The page's tables from the run's JSON: a row per policy, a further run's
# place row under its slack, the page's block replaced and nothing else.
tables = os.path.join(source, "scripts", "jobstream_tables.py")
with tempfile.TemporaryDirectory() as tmp:
    run = os.path.join(tmp, "run.json")
    with open(run, "w") as f:
        json.dump(j, f)
    wide = os.path.join(tmp, "wide.json")
    with open(wide, "w") as f:
        json.dump({**j, "slack": 0.5}, f)
    r = subprocess.run([sys.executable, tables, run, wide], capture_output=True, text=True)
    check("tables exit", r.returncode, 0)
    rows = [line for line in r.stdout.splitlines() if line.startswith("| ") and not line.startswith("| policy")]
    check("table rows", [line.split(" | ")[0] for line in rows],
          ["| first fit", "| best fit", "| place", "| place, `--slack 0.5`"])
    fit = j["policies"][0]
    check("first fit row", rows[0].split(" | ")[1:3], [f"{fit['gpu_utilisation']:.3f}", f"{fit['partial_node_fraction']:.3f}"])
    page = os.path.join(tmp, "page.md")
    with open(page, "w") as f:
        f.write("before\n<!-- jobstream tables: begin -->\nold\n<!-- jobstream tables: end -->\nafter\n")
    r = subprocess.run([sys.executable, tables, "--page", page, run], capture_output=True, text=True)
    check("tables --page exit", r.returncode, 0)
    with open(page) as f:
        text = f.read()
    check("page kept", (text.startswith("before\n<!-- jobstream tables: begin -->\nSeed 3,"), "old" in text,
                        text.endswith("<!-- jobstream tables: end -->\nafter\n")), (True, False, True))
    r = subprocess.run([sys.executable, tables, page], capture_output=True, text=True)
    check("tables on a page, not JSON", (r.returncode, r.stderr.startswith(f"jobstream_tables.py: error: {page}: ")),
          (2, True))

for f in failures:
    print("FAIL:", f)
print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
