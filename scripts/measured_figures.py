#!/usr/bin/env python3
"""Turn an operator's p2pmark and nccl-tests outputs into a calibration figures file.

    scripts/measured_figures.py --platform NAME|FILE [--p2pmark FILE]... [--nccl-tests FILE]...
                                [--gpus SPEC] [--name PREFIX] --out FIGURES

Reads the text p2pmark (github.com/lukealonso/p2pmark, the reading version,
3c39f36 and before) and nccl-tests' alltoall_perf (github.com/NVIDIA/nccl-tests)
print, and writes the figures they measured in the format of
simulator/calibration/figures.json (schemas/calibration-figures.schema.json),
for `scripts/calibrate.py --figures FIGURES --model contention --fit
--write-table TABLE`. Each figure's `source` names the input file (its base
name) and the lines its number came from.

p2pmark (its default mode; bytes per stream as the tool moves them):
  "Total system bandwidth"     receiver_sum_gbps, p2pmark:bytes=6710886400   fit
  "DENSE INTERCONNECT SCORE"   p2pmark_score (score_ingress_bytes 1342177280) fit
  sum of "GPU g reads from all peers" (the score's "ideal")
                               incast_sum_gbps, incast:bytes=1342177280      held_out
  probe "+k ... total"         receiver_sum_gbps, shift:k=K,bytes=1342177280 held_out
  The dense run's per-GPU lines have no calibrate.py metric and are only
  checked against the total. All p2pmark figures are reads (`transfers`
  read). p2pmark 78d9dfd and later write instead ("All-to-all fabric stress
  test", a sum over writers): no calibrate.py metric measures that, and the
  file is refused.
nccl-tests alltoall_perf (out-of-place busbw, one node):
  the largest size                busbw_gbps, uniform, sizes S:S, nccl        fit
  every other size of >= 1 MiB    the same                                   held_out
  Smaller sizes are latency, which the contention table has no parameter for.

--platform: the node description the outputs were measured on: a name in
fixtures/platforms, or a file there or in the folder of --out (calibrate.py
looks for a figure's platform beside the figures file, then in
fixtures/platforms). --gpus SPEC (vp-sim --gpus): the platform's GPUs an
output ran on when it ran on fewer than the platform has (CUDA_VISIBLE_DEVICES
renumbers them, so only the operator knows). --name: the figure ids' prefix
(default: the platform's name).

Exit codes: 0 written, 1 usage, 2 bad input (an unreadable file, no
recognisable table, a number that does not parse), each message naming the
file, the line and the reason.
"""

import argparse
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLATFORMS = os.path.join(ROOT, "fixtures", "platforms")
PROG = "measured_figures.py"

# p2pmark 3c39f36: TRANSFER_SIZE 64 MiB; ITERS 20 (probe, single reader), FC_ITERS 100 (dense).
P2PMARK_DENSE_BYTES = 64 * 1024 * 1024 * 100
P2PMARK_ROUND_BYTES = 64 * 1024 * 1024 * 20
NCCL_MIN_HELD_OUT = 1 << 20
REDUCTIONS = ("sum", "prod", "max", "min", "avg", "mulsum")


class InputError(Exception):
    def __init__(self, path, line, reason):
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {reason}")


class UsageError(Exception):
    pass


def read_lines(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise InputError(path, None, f"cannot read it ({e})")


def number(path, line, text, what):
    try:
        v = float(text)
    except ValueError:
        raise InputError(path, line, f"{what}: {text!r} is not a number")
    if not math.isfinite(v):
        raise InputError(path, line, f"{what}: {text!r} is not a finite number")
    return v


def positive(path, line, text, what):
    v = number(path, line, text, what)
    if v <= 0:
        raise InputError(path, line, f"{what}: {text} is not above 0 (a failed run?)")
    return v


def span(lines):
    return f"L{lines[0]}" if lines[0] == lines[-1] else f"L{lines[0]}-{lines[-1]}"


# ---- p2pmark ----------------------------------------------------------------

P2P_SECTIONS = (
    ("probe", "=== Topology probe: staggered reads"),
    ("reader", "=== Single reader, all"),
    ("dense", "=== All GPUs read all peers simultaneously"),
    ("seq", "=== Sequential P2P bandwidth"),
    ("writes", "=== Topology probe: staggered writes"),
    ("writes", "=== All-to-all fabric stress test"),
    ("other", "=== "),
)


def parse_p2pmark(path):
    """{'gpus': n, 'total': (v, line), 'total_lines': [first, last], 'score': v, 'score_lines': [...],
    'ideal': (v, line), 'dense'/'readers': {g: (v, line)}, 'probe': {k: (v, line)}}"""
    lines = read_lines(path)
    out = {"gpus": None, "dense": {}, "readers": {}, "probe": {}}
    section = None
    score_lines = []
    for i, raw in enumerate(lines, 1):
        s = raw.strip()
        for name, head in P2P_SECTIONS:
            if s.startswith(head):
                section = name
                break
        if section == "writes":
            raise InputError(path, i, "p2pmark's writing version (78d9dfd and later): its totals are sums over "
                                      "writers, which no calibrate.py metric measures; run p2pmark 3c39f36")
        m = re.match(r"Found (\S+) GPUs$", s)
        if m:
            out["gpus"] = int(number(path, i, m.group(1), "GPU count"))
        if s.startswith("Clamping to 8 GPUs"):
            out["gpus"] = 8
        if section == "probe" and s.startswith("+"):
            m = re.match(r"\+(\d+)\s+((?:\d+<-\d+\s+)+)(\S+) avg\s+(\S+) total$", s)
            if not m:
                raise InputError(path, i, "not a probe line of p2pmark ('+k  i<-j ...  X avg  Y total')")
            number(path, i, m.group(3), "probe average")
            out["probe"][int(m.group(1))] = (positive(path, i, m.group(4), "probe total"), i)
        elif section == "reader" and s.startswith("GPU "):
            m = re.match(r"GPU (\d+) reads from all peers: (\S+) GB/s$", s)
            if not m:
                raise InputError(path, i, "not p2pmark's 'GPU g reads from all peers: X GB/s' line")
            out["readers"][int(m.group(1))] = (positive(path, i, m.group(2), "single-reader rate"), i)
        elif section == "dense" and s.startswith("GPU "):
            m = re.match(r"GPU (\d+): (\S+) GB/s$", s)
            if not m:
                raise InputError(path, i, "not p2pmark's 'GPU g: X GB/s' line")
            out["dense"][int(m.group(1))] = (positive(path, i, m.group(2), "dense per-GPU rate"), i)
        elif s.startswith("Total system bandwidth:"):
            m = re.match(r"Total system bandwidth: (\S+) GB/s$", s)
            if not m:
                raise InputError(path, i, "not p2pmark's 'Total system bandwidth: X GB/s' line")
            out["total"] = (positive(path, i, m.group(1), "total system bandwidth"), i)
        elif s.startswith("DENSE INTERCONNECT SCORE:"):
            m = re.match(r"DENSE INTERCONNECT SCORE:\s+(\S+)$", s)
            if not m:
                raise InputError(path, i, "not p2pmark's 'DENSE INTERCONNECT SCORE: X' line")
            out["score"] = positive(path, i, m.group(1), "dense interconnect score")
            score_lines = [i]
        elif score_lines and len(score_lines) == 1 and s.startswith("("):
            m = re.match(r"\((\S+) GB/s measured\s+/\s+(\S+) GB/s ideal\)$", s)
            if not m:
                raise InputError(path, i, "not p2pmark's '(X GB/s measured / Y GB/s ideal)' line")
            number(path, i, m.group(1), "measured")
            out["ideal"] = (positive(path, i, m.group(2), "ideal"), i)
            score_lines.append(i)
    if "total" not in out:
        raise InputError(path, None, "no 'Total system bandwidth: X GB/s' line: not the output of p2pmark's "
                                     "bandwidth mode (3c39f36 or before)")
    n = out["gpus"] if out["gpus"] is not None else len(out["dense"])
    total, total_line = out["total"]
    if sorted(out["dense"]) != list(range(n)):
        raise InputError(path, total_line, f"the dense run lists GPUs {sorted(out['dense'])}, not 0-{n - 1} "
                                           "(a truncated or edited output?)")
    dense_sum = sum(v for v, _ in out["dense"].values())
    if abs(dense_sum - total) > 0.005 * n + 0.01:
        raise InputError(path, total_line, f"the total {total} is not the sum of its {n} GPU lines ({dense_sum:.2f})")
    out["gpus"] = n
    out["total_lines"] = [min(l for _, l in out["dense"].values()), total_line]
    out["score_lines"] = score_lines
    if out["readers"] and sorted(out["readers"]) != list(range(n)):
        raise InputError(path, min(l for _, l in out["readers"].values()),
                         f"the single-reader runs list GPUs {sorted(out['readers'])}, not 0-{n - 1}")
    return out


def p2pmark_figures(path, name, common):
    p = parse_p2pmark(path)
    n, base = p["gpus"], os.path.basename(path)

    def src(lines, what):
        return {"file": base, "lines": span(lines), "comment": f"p2pmark output: {what}"}

    figs = [dict(common, id=f"{name}-p2pmark-dense{n}-total", workload=f"p2pmark:bytes={P2PMARK_DENSE_BYTES}",
                 scheduler="fanout", transfers="read", metric="receiver_sum_gbps", published=p["total"][0],
                 source=src(p["total_lines"], "All GPUs read all peers simultaneously, Total system bandwidth"),
                 role="fit", why="the operator's dense all-read: every GPU serves n-1 readers at once (the GPU "
                 "end) and the cross-socket reads cross the forwarders; fitted by calibrate.py --fit")]
    if "score" in p:
        figs.append(dict(common, id=f"{name}-p2pmark-dense{n}-score", workload=f"p2pmark:bytes={P2PMARK_DENSE_BYTES}",
                         scheduler="fanout", transfers="read", metric="p2pmark_score", published=p["score"],
                         score_ingress_bytes=P2PMARK_ROUND_BYTES,
                         source=src(p["score_lines"], "DENSE INTERCONNECT SCORE"),
                         role="fit", why="the same dense run over the single-reader runs: fitted with the total"))
    if p["readers"]:
        rows = sorted(l for _, l in p["readers"].values())
        value, lines, what = round(sum(v for v, _ in p["readers"].values()), 2), span([rows[0], rows[-1]]), "the sum"
        if "ideal" in p:  # the tool's own sum, unrounded before printing
            if abs(p["ideal"][0] - value) > 0.005 * n + 0.01:
                raise InputError(path, p["ideal"][1], f"the score's ideal {p['ideal'][0]} is not the sum of the "
                                                      f"single-reader lines ({value})")
            value, lines, what = p["ideal"][0], f"{lines}, L{p['ideal'][1]}", "the score's 'ideal', the sum"
        figs.append(dict(common, id=f"{name}-p2pmark-ingress{n}", workload=f"incast:bytes={P2PMARK_ROUND_BYTES}",
                         scheduler="fanout", transfers="read", metric="incast_sum_gbps", published=value,
                         source={"file": base, "lines": lines,
                                 "comment": f"p2pmark output: Single reader, all peers concurrent, {what} of its lines"},
                         role="held_out", why="one reader at a time (each GPU serves one reader): tests the "
                         "platform's links, which no loss mechanism should touch"))
    for k in sorted(p["probe"]):
        value, line = p["probe"][k]
        figs.append(dict(common, id=f"{name}-p2pmark-shift{k}", workload=f"shift:k={k},bytes={P2PMARK_ROUND_BYTES}",
                         scheduler="fanout", transfers="read", metric="receiver_sum_gbps", published=value,
                         source=src([line], f"Topology probe +{k}, total"),
                         role="held_out", why=f"probe +{k}: one reader per GPU, {n} flows at once: a cross-check "
                         "of the fit (calibrate.py --check), not fitted"))
    return n, figs


# ---- nccl-tests ---------------------------------------------------------------

MPI_PREFIX = re.compile(r"^\s*\[\d+,\d+\]<stdout>:")
RANK_LINE = re.compile(r"#\s*Rank\s+(\d+)\s+Group\s+\d+\s+Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$")


def parse_nccl_tests(path):
    """(ranks [(rank, host, device, gpu name)], rows {size: (busbw, line)})"""
    lines = read_lines(path)
    ranks, rows, header = [], {}, None
    for i, raw in enumerate(lines, 1):
        s = MPI_PREFIX.sub("", raw).strip()
        if not s:
            continue
        m = re.match(r"#\s*Collective test (?:starting|concluded):\s*(\S+)", s)
        if m and m.group(1) != "alltoall_perf":
            raise InputError(path, i, f"the output of {m.group(1)}, not alltoall_perf")
        m = RANK_LINE.match(s)
        if m:
            ranks.append((int(m.group(1)), m.group(2), int(m.group(3)), m.group(4).strip()))
            continue
        if s.startswith("#"):
            words = s[1:].split()
            if "size" in words and "busbw" in words:
                header = words
            m = re.match(r"#\s*Out of bounds values\s*:\s*(\S+)\s*(\S*)", s)
            if m and m.group(2) == "FAILED":
                raise InputError(path, i, f"{m.group(1)} out-of-bounds values: nccl-tests says the run FAILED")
            continue
        if header is None or not re.match(r"\d+\s", s):
            continue
        fields = s.split()
        redop = header.index("redop") if "redop" in header else None
        if redop is not None and len(fields) > redop and fields[redop] in REDUCTIONS:
            raise InputError(path, i, f"redop {fields[redop]}: a reduction, not alltoall_perf")
        if len(fields) == len(header) - 1 and redop is not None:
            fields.insert(redop, "")  # older nccl-tests leave alltoall's redop blank
        if len(fields) < len(header):
            raise InputError(path, i, f"{len(fields)} fields, the table's header has {len(header)}")
        col = {w: fields[header.index(w)] for w in ("size", "busbw")}
        wrong = next((w for w in ("#wrong", "error") if w in header), None)
        if wrong and fields[header.index(wrong)] != "N/A":
            bad = number(path, i, fields[header.index(wrong)], "out-of-place #wrong")
            if bad != 0:
                raise InputError(path, i, f"out-of-place {wrong} is {fields[header.index(wrong)]}: a failed run")
        if not col["size"].isdigit():
            raise InputError(path, i, f"size {col['size']!r} is not a byte count")
        size = int(col["size"])
        if size in rows:
            raise InputError(path, i, f"size {size} again (first at line {rows[size][1]}): give one run per size")
        rows[size] = (number(path, i, col["busbw"], "out-of-place busbw"), i)
    if header is None:
        raise InputError(path, None, "no nccl-tests result table (a '#  size ... busbw' header line)")
    if not rows:
        raise InputError(path, None, "the nccl-tests table has no rows")
    if not ranks:
        raise InputError(path, None, "no '#  Rank N Group G Pid P on HOST device D' lines: cannot tell which GPUs ran")
    hosts = sorted({h for _, h, _, _ in ranks})
    if len(hosts) > 1:
        raise InputError(path, None, f"ranks on {len(hosts)} hosts ({', '.join(hosts)}): one node's run only "
                                     "(a node description is one node)")
    return ranks, rows


def size_text(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def nccl_figures(path, name, common):
    ranks, rows = parse_nccl_tests(path)
    base, largest = os.path.basename(path), max(rows)
    if rows[largest][0] <= 0:
        raise InputError(path, rows[largest][1], f"busbw {rows[largest][0]} at the largest size: a failed run")
    models = sorted({g for _, _, _, g in ranks if g})
    extra = f"; {len(ranks)} ranks on {ranks[0][1]}" + (f" ({', '.join(models)})" if models else "")
    figs = []
    for size in sorted(rows, reverse=True):
        busbw, line = rows[size]
        if size != largest and (size < NCCL_MIN_HELD_OUT or busbw <= 0):
            continue
        fit = size == largest
        figs.append(dict(common, id=f"{name}-alltoall-{size_text(size).lower()}", workload="uniform",
                         scheduler="nccl", metric="busbw_gbps", published=busbw,
                         sizes=f"{size_text(size)}:{size_text(size)}",
                         source={"file": base, "lines": f"L{line}",
                                 "comment": f"nccl-tests alltoall_perf output, out-of-place busbw at {size} bytes"},
                         machine=common["machine"] + extra, role="fit" if fit else "held_out",
                         why="the largest size's busbw, the bandwidth-bound end of the sweep: fitted by calibrate.py --fit"
                         if fit else "a smaller size of the same sweep: a cross-check of the fit (calibrate.py --check)"))
    return len(ranks), figs


# ---- the platform, GPUs, output ------------------------------------------------

def resolve_platform(arg, out):
    """(the name a figure gives, the file) for --platform."""
    candidates = [arg] if os.sep in arg or os.path.exists(arg) else []
    for folder in (PLATFORMS, os.path.dirname(os.path.abspath(out))):
        candidates += [os.path.join(folder, arg), os.path.join(folder, arg + ".json")]
    for c in candidates:
        if os.path.isfile(c):
            folder = os.path.dirname(os.path.abspath(c))
            if folder not in (PLATFORMS, os.path.dirname(os.path.abspath(out))):
                raise UsageError(f"--platform {arg}: put the node description in fixtures/platforms or beside "
                                 f"{out} (calibrate.py looks for a figure's platform there)")
            return os.path.basename(c), c
    raise UsageError(f"--platform {arg}: no such file, nor {arg}(.json) in fixtures/platforms")


def platform_facts(name, path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        components = doc["components"]
        gpus = [c for c in components if c.get("kind") == "gpu"]
        cpus = [c.get("model", "?") for c in components if c.get("kind") == "cpu"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise InputError(path, None, f"not a node description (vp-topology, fixtures/platforms): {e}")
    if doc.get("format") != "vp-topology" or not gpus:
        raise InputError(path, None, "not a node description with GPUs (format vp-topology)")
    cpu_text = ", ".join(f"{cpus.count(m)}x {m}" for m in sorted(set(cpus))) or "no CPU listed"
    return len(gpus), f"platform {name}: {len(gpus)} GPUs, {cpu_text} (scripts/measured_figures.py)"


def count_gpus(spec):
    total = 0
    for part in spec.split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part.strip())
        if not m or (m.group(2) and int(m.group(2)) < int(m.group(1))):
            raise UsageError(f"--gpus {spec}: give catalog GPU indexes and ranges, e.g. 0-3 or 0,2,4,6")
        total += int(m.group(2)) - int(m.group(1)) + 1 if m.group(2) else 1
    return total


def main(argv):
    class Parser(argparse.ArgumentParser):
        def error(self, message):
            self.print_usage(sys.stderr)
            self.exit(1, f"{PROG}: error: {message}\n")

    p = Parser(description=__doc__.split("\n\n")[0])
    p.add_argument("--platform", required=True)
    p.add_argument("--p2pmark", action="append", default=[], metavar="FILE")
    p.add_argument("--nccl-tests", action="append", default=[], metavar="FILE")
    p.add_argument("--gpus", help="vp-sim --gpus: the platform's GPUs the outputs ran on, when fewer than all")
    p.add_argument("--name", help="the figure ids' prefix (default: the platform's name)")
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    if not args.p2pmark and not args.nccl_tests:
        p.error("give at least one --p2pmark or --nccl-tests output")
    try:
        platform, path = resolve_platform(args.platform, args.out)
        name = (args.name or os.path.splitext(platform)[0]).lower()
        if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", name):
            raise UsageError(f"--name {name}: lower-case letters, digits and '-' (a figure id)")
        platform_gpus, machine = platform_facts(platform, path)
        common = {"platform": platform, "machine": machine}
        figures = []
        for kind, files in (("p2pmark", args.p2pmark), ("nccl", args.nccl_tests)):
            for f in files:
                n, figs = (p2pmark_figures if kind == "p2pmark" else nccl_figures)(f, name, common)
                if n > platform_gpus:
                    raise InputError(f, None, f"it ran {n} GPUs; the platform {platform} has {platform_gpus}")
                if n < platform_gpus:
                    if not args.gpus:
                        raise UsageError(f"{f} ran {n} of the platform's {platform_gpus} GPUs: say which with --gpus")
                    if count_gpus(args.gpus) != n:
                        raise UsageError(f"--gpus {args.gpus} names {count_gpus(args.gpus)} GPUs; {f} ran {n}")
                    for fig in figs:
                        fig["gpus"] = args.gpus
                figures += figs
        seen = {}
        for fig in figures:
            if fig["id"] in seen:
                raise UsageError(f"two outputs give figure {fig['id']} ({seen[fig['id']]} and {fig['source']['file']}): "
                                 "run the script once per machine, or give the outputs distinct GPU counts")
            seen[fig["id"]] = fig["source"]["file"]
    except UsageError as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return 1
    except InputError as e:
        sys.stderr.write(f"{PROG}: {e}\n")
        return 2
    order = ("id", "platform", "gpus", "workload", "scheduler", "transfers", "metric", "published",
             "score_ingress_bytes", "sizes", "source", "machine", "role", "why")
    doc = {"format": "vp-calibration-figures", "version": 1,
           "description": f"Figures measured on the operator's machine ({platform}), written by "
                          "scripts/measured_figures.py from the tools' outputs; scripts/calibrate.py --fit "
                          "--write-table fits a contention table to the role-fit ones.",
           "figures": [{k: fig[k] for k in order if k in fig} for fig in figures]}
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    except OSError as e:
        sys.stderr.write(f"{PROG}: {args.out}: cannot write it ({e})\n")
        return 2
    fit = sum(1 for f in figures if f["role"] == "fit")
    print(f"{args.out}: {len(figures)} figures ({fit} fit, {len(figures) - fit} held out) on {platform}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
