#!/usr/bin/env python3
"""scripts/measured_figures.py on the outputs of fixtures/measured (ctest
measured_figures): the figures file it writes (ids, values, workloads,
sources, roles) validates against schemas/calibration-figures.schema.json;
bad inputs exit 2 naming the file, the line and the reason, usage errors
exit 1. Then scripts/calibrate.py's table writer (--write-table) on made-up
fit results: its table validates against schemas/contention.schema.json and
says where each value comes from. Needs python3-jsonschema, no build.

Usage: measured_figures_test.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

import jsonschema


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = os.path.abspath(sys.argv[1])
    script = os.path.join(src, "scripts", "measured_figures.py")
    fixtures = os.path.join(src, "fixtures", "measured")
    p2pmark = os.path.join(fixtures, "p2pmark-epyc9124-8g.txt")
    nccl = os.path.join(fixtures, "nccl-tests-alltoall-h100x4.txt")
    with open(os.path.join(src, "schemas", "calibration-figures.schema.json"), encoding="utf-8") as f:
        figures_schema = jsonschema.Draft202012Validator(json.load(f))
    failures = []
    tmp = tempfile.mkdtemp(prefix="vp-measured-")
    out = os.path.join(tmp, "figures.json")

    def run(*args):
        r = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, check=False)
        return r.returncode, r.stdout + r.stderr

    def figures(*args):
        if os.path.exists(out):
            os.remove(out)
        code, text = run(*args, "--out", out)
        if code != 0:
            failures.append(f"{' '.join(args)}: exit {code}: {text.strip()}")
            return {}
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
        errors = [e.message for e in figures_schema.iter_errors(doc)]
        if errors:
            failures.append(f"{' '.join(args)}: not valid figures: {errors}")
        return {fig["id"]: fig for fig in doc["figures"]}

    def expect(what, got, want):
        if got != want:
            failures.append(f"{what}: expected {want!r}, got {got!r}")

    def expect_error(what, code, want_code, text, *want):
        if code != want_code or not all(w in text for w in want):
            failures.append(f"{what}: expected exit {want_code} and {want}, got exit {code}: {text.strip()}")

    def edited(name, text, old, new):
        if old not in text:
            failures.append(f"{name}: the fixture has no {old!r} to edit")
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new, 1))
        return path

    # p2pmark (3c39f36, reads) on the direct-attach dual-EPYC platform.
    got = figures("--platform", "turin-9575f-direct-8g", "--p2pmark", p2pmark, "--name", "epyc9124")
    expect("p2pmark ids", sorted(got), ["epyc9124-p2pmark-dense8-score", "epyc9124-p2pmark-dense8-total",
                                        "epyc9124-p2pmark-ingress8"])
    want = {
        "epyc9124-p2pmark-dense8-total": ("receiver_sum_gbps", 184.58, "fit", "p2pmark:bytes=6710886400", "L18-27"),
        "epyc9124-p2pmark-dense8-score": ("p2pmark_score", 0.41, "fit", "p2pmark:bytes=6710886400", "L33-34"),
        "epyc9124-p2pmark-ingress8": ("incast_sum_gbps", 445.57, "held_out", "incast:bytes=1342177280", "L6-13, L34"),
    }
    for i, (metric, value, role, workload, lines) in want.items():
        fig = got.get(i, {})
        expect(f"{i}: metric, value, role, workload", (fig.get("metric"), fig.get("published"), fig.get("role"),
                                                       fig.get("workload")), (metric, value, role, workload))
        expect(f"{i}: source", (fig.get("source", {}).get("file"), fig.get("source", {}).get("lines")),
               ("p2pmark-epyc9124-8g.txt", lines))
        expect(f"{i}: platform, scheduler, transfers, gpus", (fig.get("platform"), fig.get("scheduler"),
               fig.get("transfers"), fig.get("gpus")), ("turin-9575f-direct-8g.json", "fanout", "read", None))
    expect("score's ingress bytes", got.get("epyc9124-p2pmark-dense8-score", {}).get("score_ingress_bytes"), 1342177280)

    with open(p2pmark, encoding="utf-8") as f:
        p2p_text = f.read()
    # The probe section as p2pmark 3c39f36 prints it (made up: the published page gives only its averages).
    probe = ("=== Topology probe: staggered reads by peer distance (GB/s) ===\n"
             "8 concurrent transfers per round, each GPU reading from one unique peer.\n\n"
             "+1  0<-1 1<-2 2<-3 3<-4 4<-5 5<-6 6<-7 7<-0   52.27 avg   418.16 total\n"
             "+4  0<-4 1<-5 2<-6 3<-7 4<-0 5<-1 6<-2 7<-3   19.32 avg   154.56 total\n\n")
    with_probe = edited("probe.txt", p2p_text, "=== Single reader", probe + "=== Single reader")
    got = figures("--platform", "turin-9575f-direct-8g", "--p2pmark", with_probe, "--name", "m")
    for k, value, line in ((1, 418.16, "L7"), (4, 154.56, "L8")):
        fig = got.get(f"m-p2pmark-shift{k}", {})
        expect(f"probe +{k}", (fig.get("workload"), fig.get("metric"), fig.get("published"), fig.get("role"),
                               fig.get("source", {}).get("lines")),
               (f"shift:k={k},bytes=1342177280", "receiver_sum_gbps", value, "held_out", line))

    # nccl-tests alltoall_perf: the largest size fits; others of >= 1 MiB are held out, smaller ones dropped.
    got = figures("--platform", "rtx4090-1s-4g", "--nccl-tests", nccl, "--name", "h")
    fig = got.get("h-alltoall-500m", {})
    expect("nccl ids", sorted(got), ["h-alltoall-500m"])
    expect("nccl figure", (fig.get("workload"), fig.get("scheduler"), fig.get("metric"), fig.get("published"),
                           fig.get("sizes"), fig.get("role"), fig.get("source", {}).get("lines")),
           ("uniform", "nccl", "busbw_gbps", 334.9, "500M:500M", "fit", "L14"))
    with open(nccl, encoding="utf-8") as f:
        nccl_text = f.read()
    row = "   524288000      32768000     float    none      -1  1174.14  446.53  334.90       0  1163.40  450.65  337.99    N/A\n"
    sweep = edited("sweep.txt", nccl_text, row,
                   "      524288        131072     float    none      -1    40.00   13.11    9.83       0    40.00   13.11    9.83    N/A\n"
                   "     1048576        262144     float    none      -1    60.00   17.48   13.11       0    60.00   17.48   13.11    N/A\n"
                   "     2097152        524288     float    none      -1   100.00   20.97   15.73       0   100.00   20.97   15.73    N/A\n")
    got = figures("--platform", "rtx4090-1s-4g", "--nccl-tests", sweep, "--name", "s")
    expect("sweep roles", {i: (f["role"], f["published"], f["sizes"]) for i, f in got.items()},
           {"s-alltoall-2m": ("fit", 15.73, "2M:2M"), "s-alltoall-1m": ("held_out", 13.11, "1M:1M")})
    # Fewer GPUs than the platform: only with --gpus naming as many.
    got = figures("--platform", "turin-9575f-direct-8g", "--nccl-tests", nccl, "--gpus", "0-3", "--name", "g")
    expect("--gpus", got.get("g-alltoall-500m", {}).get("gpus"), "0-3")
    code, text = run("--platform", "turin-9575f-direct-8g", "--nccl-tests", nccl, "--out", out)
    expect_error("fewer GPUs, no --gpus", code, 1, text, "ran 4 of the platform's 8 GPUs")
    code, text = run("--platform", "turin-9575f-direct-8g", "--nccl-tests", nccl, "--gpus", "0-2", "--out", out)
    expect_error("--gpus of another count", code, 1, text, "--gpus 0-2 names 3 GPUs")

    # Bad inputs: exit 2, the file, the line, the reason.
    def bad(what, path, *want, platform="turin-9575f-direct-8g", kind="--p2pmark"):
        code, text = run("--platform", platform, kind, path, "--out", out)
        expect_error(what, code, 2, text, *want)

    bad("no such file", os.path.join(tmp, "missing.txt"), "missing.txt: cannot read it")
    bad("another tool's output", nccl, "nccl-tests-alltoall-h100x4.txt: no 'Total system bandwidth: X GB/s' line")
    bad("p2pmark's output as nccl-tests'", p2pmark, "p2pmark-epyc9124-8g.txt: no nccl-tests result table",
        kind="--nccl-tests")
    bad("a number that does not parse", edited("nan.txt", p2p_text, "GPU 3: 22.65", "GPU 3: 22.6x"),
        "nan.txt:21: dense per-GPU rate: '22.6x' is not a number")
    bad("a total that is not its lines", edited("sum.txt", p2p_text, "Total system bandwidth: 184.58", "Total system bandwidth: 190.00"),
        "sum.txt:27: the total 190.0 is not the sum of its 8 GPU lines")
    bad("a truncated dense run", edited("cut.txt", p2p_text, "GPU 7: 23.34 GB/s\n", ""),
        "cut.txt:26: the dense run lists GPUs [0, 1, 2, 3, 4, 5, 6], not 0-7")
    bad("p2pmark's writing version", edited("writes.txt", p2p_text, "=== All GPUs read all peers simultaneously",
                                            "=== All-to-all fabric stress test"),
        "writes.txt:15: p2pmark's writing version")
    bad("more GPUs than the platform", p2pmark, "p2pmark-epyc9124-8g.txt: it ran 8 GPUs; the platform rtx4090-1s-4g.json has 4",
        platform="rtx4090-1s-4g")
    bad("an allreduce", os.path.join(fixtures, "nccl-tests-allreduce-rtx4090x8.txt"),
        "nccl-tests-allreduce-rtx4090x8.txt:16: redop sum: a reduction, not alltoall_perf", kind="--nccl-tests")
    bad("no rank lines (old format, blank redop)", os.path.join(fixtures, "nccl-tests-alltoall-v100-8n.txt"),
        "nccl-tests-alltoall-v100-8n.txt: no '#  Rank N Group G Pid P on HOST device D' lines", kind="--nccl-tests")
    bad("wrong values", edited("wrong.txt", nccl_text, "334.90       0", "334.90       3"),
        "wrong.txt:14: out-of-place #wrong is 3: a failed run", kind="--nccl-tests")
    bad("a busbw that does not parse", edited("busbw.txt", nccl_text, "334.90", "33a.90"),
        "busbw.txt:14: out-of-place busbw: '33a.90' is not a number", kind="--nccl-tests")
    bad("another collective", edited("coll.txt", nccl_text, "starting: alltoall_perf", "starting: all_gather_perf"),
        "coll.txt:2: the output of all_gather_perf, not alltoall_perf", kind="--nccl-tests")
    bad("no table", edited("notable.txt", nccl_text, row, ""), "notable.txt: the nccl-tests table has no rows",
        kind="--nccl-tests")

    # Usage: exit 1.
    code, text = run("--platform", "turin-9575f-direct-8g", "--out", out)
    expect_error("no output given", code, 1, text, "give at least one --p2pmark or --nccl-tests output")
    code, text = run("--platform", "no-such-machine", "--p2pmark", p2pmark, "--out", out)
    expect_error("an unknown platform", code, 1, text, "--platform no-such-machine: no such file")

    # calibrate.py's table writer on made-up fit results.
    sys.path.insert(0, os.path.join(src, "scripts"))
    import calibrate  # noqa: E402
    figs = figures("--platform", "turin-9575f-direct-8g", "--p2pmark", p2pmark, "--name", "epyc9124")
    table_path = os.path.join(src, "simulator", "contention.json")
    with open(table_path, encoding="utf-8") as f:
        table = json.load(f)
    params = dict(calibrate.table_parameters(table))
    for p in ("endpoint.slope", "endpoint.floor", "forwarder.families.0.slope"):
        params[p]["fitted_on"] = sorted(i for i, f in figs.items() if f["role"] == "fit")
        params[p]["tested_on"] = ["epyc9124-p2pmark-ingress8"]
    made_up = [("forwarder.families.0.slope", 0.036, 0.05, [0, 0.3]), ("endpoint.slope", 0.316, None, [0, 3]),
               ("endpoint.floor", 0.417, 0.43219, [0.1, 1.0])]
    written = os.path.join(tmp, "table.json")
    ids = sorted(params["endpoint.floor"]["fitted_on"])
    with open(os.devnull, "w") as quiet:
        stdout, sys.stdout = sys.stdout, quiet
        try:
            code = calibrate.write_table(written, table_path, table, made_up, 0.01234, ids, list(figs.values()), out,
                                         "2 parameters fitted on 1 distinct run")
        finally:
            sys.stdout = stdout
    expect("write_table's exit", code, 0)
    with open(written, encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(src, "schemas", "contention.schema.json"), encoding="utf-8") as f:
        errors = [e.message for e in jsonschema.Draft202012Validator(json.load(f)).iter_errors(doc)]
    expect("the written table against contention.schema.json", errors, [])
    out_params = dict(calibrate.table_parameters(doc))
    floor = out_params["endpoint.floor"]
    expect("a fitted value", floor["value"], 0.4322)
    for words in ("fitted (scripts/calibrate.py --fit --write-table) on figures.json",
                  "epyc9124-p2pmark-dense8-total 184.58 (p2pmark-epyc9124-8g.txt L18-27)",
                  "2 parameters fitted on 1 distinct run", "replaces 0.417"):
        if words not in floor["source"]:
            failures.append(f"endpoint.floor's source lacks {words!r}: {floor['source']}")
    expect("a fitted value keeps fitted_on", floor.get("fitted_on"), ids)
    kept = out_params["endpoint.slope"]
    expect("a parameter the figures do not move: value, fitted_on", (kept["value"], "fitted_on" in kept,
                                                                      "fit_range" in kept), (0.316, False, False))
    if "none of its figures moves it" not in kept["source"]:
        failures.append(f"endpoint.slope's source does not say it was kept: {kept['source']}")
    expect("an unfitted parameter untouched", out_params["nic.slope"], dict(calibrate.table_parameters(
        json.load(open(table_path, encoding="utf-8"))))["nic.slope"])

    for f in failures:
        print("FAIL:", f)
    print(f"measured_figures_test: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
