#!/usr/bin/env python3
"""ctest smpi_report: scripts/smpi_report.py, the section "Two judges" of
docs/evaluation.md written from scripts/smpi_compare.py --json's rows.

Two hand-made rows (one where both engines name the same fastest scheduler,
one where the counts exchange decides it): the figures the closing note
computes, the section inserted before the sweeps and then replaced in place
with the rest of the report byte for byte unchanged, and a file that is not
smpi_compare's refused.

    check_smpi_report.py SCRIPTS_DIR
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, sys.argv[1])
import smpi_report  # noqa: E402

failures = 0


def check(ok, what):
    global failures
    if not ok:
        print(f"FAILED: {what}")
        failures += 1


def row(platform, size, vp, vp_eager, smpi, vp_ex, smpi_ex, plan):
    return {"platform": platform, "workload": "uniform", "size": size, "model": "calibrated", "n": 8, "plan": plan,
            "vpsim": {"VarioPath": vp, "fan-out": 100.0, "SpreadOut/pair": 60.0},
            "vpsim_eager": {"VarioPath": vp_eager, "fan-out": 100.0, "SpreadOut/pair": 58.0},
            "smpi": {"VarioPath": smpi, "fan-out": 100.5, "SpreadOut/pair": 66.0},
            "vpsim_exchange": vp_ex, "smpi_exchange": smpi_ex}


# Row 1: VarioPath fastest in both (40 against 30 + ...). Row 2: vp-sim
# names SpreadOut (60 < 65), SMPI VarioPath (55 < 66); charged SMPI's counts
# exchange (5 instead of 15) vp-sim's VarioPath is 55: VarioPath as SMPI.
# Row 3: vp-sim names SpreadOut (60 < 63), SMPI VarioPath (60 < 66), both
# engines charging the same counts exchange: SMPI's pair (66) decides it.
facts = {"command": "scripts/smpi_compare.py --platforms p --workloads uniform --sizes 64K,1M", "seconds": 12,
         "load": [1.0, 2.0], "latency_us": 5.0, "eager_bytes": 65536,
         "rows": [row("p", 65536, 40.0, 39.0, 30.0, 15.0, 5.0, 20.0),
                  row("p", 1048576, 65.0, 64.0, 55.0, 15.0, 5.0, 50.0),
                  row("q", 1048576, 63.0, 63.0, 60.0, 5.0, 5.0, 50.0)]}
lines = []
smpi_report.section(lines.append, facts)
text = "\n".join(lines)
check(lines[0] == smpi_report.TITLE, "the section starts with its title")
check("**Same fastest scheduler in 1 of 3 cases (33 %)** with the default judge, 1 of 3 with `--eager detached`."
      in text, "the agreement count")
check("p uniform 1 MiB calibrated: `vp-sim` names SpreadOut/pair, SMPI VarioPath (the counts exchange decides it"
      in text, "the disagreement and its cause")
check("q uniform 1 MiB calibrated: `vp-sim` names SpreadOut/pair, SMPI VarioPath (the two step-wise schedules decide "
      "it: SMPI's pair takes 66.0 µs where `vp-sim`'s SpreadOut takes 60.0)" in text, "a disagreement of schedules")
# Largest |SMPI / vp-sim - 1|: VarioPath 64 KiB, 30 / 40 - 1 = -25 %; its
# -10 us are -10 of counts exchange, -1 of eager sends and +1 of the rest.
check("**The largest difference:** VarioPath on p uniform 64 KiB calibrated: `vp-sim` 40.0 µs, SMPI 30.0 µs "
      "(-25.0 %)." in text, "the largest difference")
check("Of its -10.0 µs, the counts exchange is -10.0 µs" in text and "the eager sends -1.0 µs" in text
      and "the rest +1.0 µs" in text, "the largest difference's parts")
check("| p | uniform | 64 KiB | calibrated | 20.0 | 40.0 | 39.0 | 30.0 | 100.0 | 100.5 | 60.0 | 58.0 | 66.0 | "
      "VarioPath | VarioPath |" in text, "a row of the table")
check("| p | uniform | 1 MiB | calibrated | 50.0 | 65.0 | 64.0 | 55.0 | 100.0 | 100.5 | 60.0 | 58.0 | 66.0 | "
      "SpreadOut/pair | VarioPath ≠ |" in text, "a row where the engines differ")
# Executor transfer / plan: (30 - 5) / 20 = 1.25 and (55 - 5) / 50 = 1.0.
check("from 1.000 (p uniform 1 MiB calibrated) to 1.250 (p uniform 64 KiB calibrated)" in text,
      "the executor against its plan")

with tempfile.TemporaryDirectory() as d:
    report = os.path.join(d, "evaluation.md")
    before = "# Evaluation\n\n## Message sizes\n\nsizes\n\n" + smpi_report.NEXT_TITLE + "\n\nsweeps\n"
    with open(report, "w", encoding="utf-8") as f:
        f.write(before)
    smpi_report.update(report, facts)
    once = open(report, encoding="utf-8").read()
    check(once.startswith("# Evaluation\n\n## Message sizes\n\nsizes\n\n" + smpi_report.TITLE + "\n"),
          "inserted after the sizes' section")
    check(once.endswith("\n" + smpi_report.NEXT_TITLE + "\n\nsweeps\n"), "the sweeps' section after it, unchanged")
    smpi_report.update(report, facts)
    check(open(report, encoding="utf-8").read() == once, "regenerated from the same rows: the same file")
    facts2 = json.loads(json.dumps(facts))
    facts2["rows"] = facts2["rows"][:1]
    smpi_report.update(report, facts2)
    twice = open(report, encoding="utf-8").read()
    check("1 of 1 cases (100 %)" in twice and "1 of 2" not in twice, "replaced in place")
    check(twice.startswith("# Evaluation\n\n## Message sizes\n\nsizes\n\n" + smpi_report.TITLE + "\n")
          and twice.endswith("\n" + smpi_report.NEXT_TITLE + "\n\nsweeps\n"), "the rest unchanged")
    bad = os.path.join(d, "bad.json")
    with open(bad, "w", encoding="utf-8") as f:
        json.dump({"rows": []}, f)
    try:
        smpi_report.load(bad)
        check(False, "a file without smpi_compare's facts refused")
    except SystemExit as e:
        check(f"{bad}: no \"command\" (not a scripts/smpi_compare.py --json file)" in str(e), "the refusal's message")
    with open(report, "w", encoding="utf-8") as f:
        f.write("# Evaluation\n\n## Other\n")
    try:
        smpi_report.update(report, facts)
        check(False, "a report without either heading refused")
    except SystemExit as e:
        check("regenerate the whole report" in str(e), "the refusal names what to do")

print("smpi_report: " + ("OK" if failures == 0 else f"{failures} FAILED"))
sys.exit(1 if failures else 0)
