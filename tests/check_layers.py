#!/usr/bin/env python3
"""No arrow runs back up: each layer includes only the layers below it.

The layers, their folders, the include prefixes that name their headers and
the layers each one builds on are LAYERS below: the one place the order is
written down (docs/development.md "Layers" describes it). A layer may include
its own headers and those of every layer it builds on, directly or through
another; anything else of ours (a header of a layer above it, or beside it) is
an error naming the file, the line and both layers.

Usage: check_layers.py SOURCE_DIR    (ctest `layers`). Exit 0 when every
include is allowed, 1 when one is not, 2 on a usage error or a table that is
not a hierarchy.
"""

import os
import re
import sys

# name: (folders, include prefixes, the layers it builds on)
LAYERS = {
    # The header-only runtime: C++17 and nothing else of ours.
    "runtime": (["runtime_loader"], ["vpcat/", "vpcat.h"], []),
    # Error types, located JSON, input files.
    "base": (["base"], ["vp/base/"], ["runtime"]),
    # The machine model, capacities, routes, synthetic machines, clusters.
    "topology": (["topology"], ["vp/topology/"], ["base"]),
    # Writing, reading and verifying .vpcat catalogs (tool side).
    "catalog": (["catalog_format"], ["vp/catalog/"], ["base"]),
    # Importers and the analysis.
    "analyzer": (["analyzer"], ["vp/import/", "vp/analysis/"], ["topology", "catalog"]),
    # The simulator, bounds and baselines.
    "simulator": (["simulator"], ["vp/sim/"], ["topology", "catalog"]),
    # The pictures: machines, plans, and simulated timelines.
    "render": (["render"], ["vp/render/"], ["simulator"]),
    # The command-line tools and what they share (vp/cli/: tools/common).
    "tools": (["tools"], ["vp/cli/"], ["analyzer", "simulator", "render"]),
    # Beside the tools: the MPI executor and interposer, the Python binding,
    # the SMPI driver. On the runtime, and on base's one message writer
    # (messages.hpp, compiled into libvpcat_mpi as the object library
    # vp_messages, so the installed library needs nothing else of ours).
    "bindings": (["mpi", "python", "smpi"], [], ["base"]),
}

# Folders that may include any layer (tests, benchmarks) or hold no C++;
# build folders (build*) are skipped too.
UNCHECKED = {"tests", "bench", "fixtures", "docs", "scripts", "cmake", "schemas"}

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".h", ".hpp", ".def", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def allowed_layers():
    """Each layer with the layers it may include: itself and every layer below."""
    for name, (_, _, below) in LAYERS.items():
        for b in below:
            if b not in LAYERS:
                sys.exit(f"check_layers.py: layer {name} builds on unknown layer {b}")
    closure = {}

    def below_of(name, path):
        if name in path:
            sys.exit("check_layers.py: the layers form a cycle: " + " -> ".join(path + [name]))
        if name not in closure:
            out = {name}
            for b in LAYERS[name][2]:
                out |= below_of(b, path + [name])
            closure[name] = out
        return closure[name]

    for name in LAYERS:
        below_of(name, [])
    return closure


def layer_of_header(header):
    """The layer whose prefix names `header`, or None for a header not ours."""
    for name, (_, prefixes, _) in LAYERS.items():
        if any(header.startswith(p) if p.endswith("/") else header == p for p in prefixes):
            return name
    if header.startswith("vp/"):
        return "unknown"
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    if not os.path.isdir(root):
        print(f"check_layers.py: {root}: not a folder", file=sys.stderr)
        return 2
    allowed = allowed_layers()
    folder_layer = {f: name for name, (folders, _, _) in LAYERS.items() for f in folders}
    errors = []
    checked = 0
    for top in sorted(os.listdir(root)):
        path = os.path.join(root, top)
        if not os.path.isdir(path) or top.startswith(".") or top in UNCHECKED or top.startswith("build"):
            continue
        layer = folder_layer.get(top)
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            rel_dir = os.path.relpath(dirpath, root)
            # A library's own tests and benchmarks may use what a test needs.
            if any(part in ("tests", "tests_torch", "bench") for part in rel_dir.split(os.sep)[1:]):
                continue
            for f in sorted(filenames):
                if not f.endswith(SOURCE_SUFFIXES):
                    continue
                rel = os.path.join(rel_dir, f)
                if layer is None:
                    errors.append(f"{rel}: folder {top}/ holds sources but is in no layer "
                                  "(add it to LAYERS or UNCHECKED in tests/check_layers.py)")
                    break
                checked += 1
                with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as src:
                    for lineno, line in enumerate(src, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = layer_of_header(m.group(1))
                        if target is None or target in allowed[layer]:
                            continue
                        if target == "unknown":
                            why = "a vp/ header of no layer (add its prefix to LAYERS in tests/check_layers.py)"
                        else:
                            why = (f"a header of layer {target}, which layer {layer} does not build on "
                                   f"({layer} may include: {', '.join(sorted(allowed[layer]))})")
                        errors.append(f"{rel}:{lineno}: #include {m.group(1)}: {why}")
    for e in errors:
        print("check_layers.py: " + e, file=sys.stderr)
    if errors:
        print(f"check_layers.py: {len(errors)} problem(s) with the layer order", file=sys.stderr)
        return 1
    print(f"check_layers.py: {checked} files of {len(LAYERS)} layers, every include goes down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
