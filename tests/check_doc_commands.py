#!/usr/bin/env python3
"""Every shell command of README.md and docs/*.md, run (ctest doc_commands).

    check_doc_commands.py --source DIR --build DIR --tool NAME=PATH... [--update] [PAGE...]

A page's shell commands are its ```sh blocks. Each block is run, line by line
(a line ending in a backslash continues on the next), in one scratch folder
per page, so a page's later blocks see the files its earlier ones wrote. The
folder holds links to the source tree's fixtures/, python/, scripts/,
schemas/, simulator/, docs/ and catalog_format/, and build-test/ and
build-release/ both name the build folder under test; the four tools, and
as python3 the interpreter the Python module is built for, are first on
PATH; cluster.vpcat is the main job's catalog, as ./scripts/setup.sh leaves
it (its golden copy). Blocks that use the Python module are skipped, and
say so, when the build has none (VP_BUILD_PYTHON=OFF). A command exits 0, or N when it ends in "# exit N".

A ```sh block is not run when the line above its fence is a comment
<!-- not run: REASON --> with the reason. A command anywhere else (an
indented code block, a fence of another language, a "$ " prompt) fails the
test: it must be in a ```sh block, run or marked.

A ```output block right after a ```sh block is what that block prints
(standard output and error, in order; the source tree's path left out):
compared line by line, where a line
"..." stands for any number of lines; times (a number with us, µs, ms or s),
the size in bytes of a written file, percentages and the width of blank runs
(columns) are left out of the comparison. --update writes the actual output into the
page instead (keeping the "..." elisions), so figures are regenerated, never
hand-copied.

A figure too slow to measure here (a benchmark, an evaluation run) is
labelled where it stands by a comment <!-- measured: COMMAND --> above it:
COMMAND is what produced it, and it must name a program of this tree (one of
the four tools, a file of the source tree such as scripts/evaluate.sh, or
build-*/.../NAME where NAME is an executable the CMake files define); the
date the figures were measured (YYYY-MM-DD) is in the marker or in the
6 lines after it, with the machine. A marker that names no such program, or
has no date, fails the test.

docs/operators.md is run by its own test (ctest operators) and skipped here.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

COMMAND_WORDS = (
    "vp-analyze", "vp-catalog", "vp-plan", "vp-sim", "./scripts/", "scripts/", "cmake", "ctest", "cpack",
    "python3", "mpirun", "srun", "smpirun", "sudo", "apt-get", "dpkg", "bash", "lstopo", "nvidia-smi",
    "rsvg-convert", "build-test/", "build-release/", "build-asan/", "build-fuzz/", "export ", "PYTHONPATH=",
    "LD_PRELOAD=", "VP_", "VPCAT_", "CI=", "man ", "cd ", "git ", "sed ", "echo ", "cat ", "ls ", "ssh ", "lspci",
    "c++ ", "cc ", "gcc ", "clang", "make ", "$ ",
)
MAIN_JOB_CATALOG = "fixtures/catalogs/golden/pcie-gen4-2s4sw8g-4n-switch.vpcat"
SKIPPED_PAGES = {"docs/operators.md": "run by ctest operators"}
SOURCE_LINKS = ("fixtures", "python", "scripts", "schemas", "simulator", "docs", "catalog_format", "tests")
# Left out of output comparisons: what changes from run to run.
VOLATILE = [
    (re.compile(r"\d+(\.\d+)?\s?(us|µs|ms|s)\b"), "<time>"),
    (re.compile(r"\(\d+ bytes\) in "), "(<size>) in "),
    (re.compile(r"\d+(\.\d+)? ?%"), "<percent>"),
]


MEASURED = re.compile(r"<!--\s*measured:(.*?)-->")
DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
TOOLS = ("vp-analyze", "vp-catalog", "vp-plan", "vp-sim")
WRAPPERS = ("python3", "python", "bash", "sh", "env", "time", "taskset", "nice")


def executables(source):
    """The executables the CMake files define (add_executable(NAME ...))."""
    names = set()
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        if "CMakeLists.txt" in filenames:
            text = open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8", errors="replace").read()
            names.update(re.findall(r"add_executable\(\s*([A-Za-z0-9_.-]+)", text))
    return names


def measured_problems(lines, source, programs):
    """(line, reason) of each <!-- measured: COMMAND --> marker that names no
    program of the tree or has no date near it."""
    problems = []
    for i, line in enumerate(lines):
        for m in MEASURED.finditer(line):
            command = m.group(1).strip()
            words = [w for w in command.split() if not re.match(r"^[A-Z_][A-Z0-9_]*=", w)]
            while words and words[0] in WRAPPERS:
                words = words[1:]
                while words and words[0].startswith("-"):
                    words = words[1:]
            if not words:
                problems.append((i + 1, "<!-- measured: --> names no command"))
                continue
            program = words[0].rstrip(",;:")
            if program.startswith("./"):
                program = program[2:]
            known = (program in TOOLS or os.path.exists(os.path.join(source, program))
                     or (program.startswith("build") and "/" in program and program.rsplit("/", 1)[1] in programs))
            if not known:
                problems.append((i + 1, f"<!-- measured: {command} --> names {program}, which is no tool, file of "
                                        "the source tree or executable of the build"))
            if not DATE.search(command) and not any(DATE.search(l) for l in lines[i + 1 : i + 7]):
                problems.append((i + 1, f"<!-- measured: {command} --> without the date (YYYY-MM-DD) of the "
                                        "measurement in it or in the 6 lines after it"))
    return problems


def looks_like_command(line):
    text = line.strip()
    if re.match(r"^vp-[a-z]+: ", text):  # a tool's message, not a command
        return False
    return any(text.startswith(w) for w in COMMAND_WORDS)


class Block:
    def __init__(self, kind, lang, start, end, lines, marker=None):
        self.kind, self.lang, self.start, self.end, self.lines, self.marker = kind, lang, start, end, lines, marker


def parse(path):
    """The page's code blocks: fenced (kind "fence", with language) and indented."""
    lines = open(path, encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    previous_blank = True
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^( {0,3})```(\S*)\s*$", line)
        if m:
            indent, lang = len(m.group(1)), m.group(2)
            j = i + 1
            while j < len(lines) and not re.match(r"^ {0,3}```\s*$", lines[j]):
                j += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            marker = re.match(r"^\s*<!-- not run: (.+?) -->\s*$", before)
            body = [l[indent:] if l[:indent].strip() == "" else l for l in lines[i + 1 : j]]
            blocks.append(Block("fence", lang, i + 1, j + 1, body, marker.group(1) if marker else None))
            i = j + 1
            previous_blank = False
            continue
        if previous_blank and line.startswith("    ") and line.strip():
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            blocks.append(Block("indented", "", i + 1, j, [l[4:] for l in lines[i:j]]))
            i = j
            previous_blank = False
            continue
        previous_blank = not line.strip()
        i += 1
    return lines, blocks


def commands_of(block):
    """(line number, command, expected exit code) of a ```sh block."""
    out, pending, first = [], "", None
    for k, line in enumerate(block.lines):
        if first is None:
            first = block.start + 1 + k
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        command = pending + line
        pending = ""
        if command.strip() and not command.lstrip().startswith("#"):
            m = re.search(r"#\s*exit\s+(\d+)\s*$", command)
            out.append((first, command, int(m.group(1)) if m else 0))
        first = None
    return out


def mask(text):
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())  # columns widen and narrow with the figures


def align(expected, actual):
    """Match expected lines ("..." = any lines) against actual ones: for each
    expected line, the actual line(s) it stands for, or None when no match."""
    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = [] if j == len(actual) else None
        elif expected[i].strip() == "...":
            result = None
            for k in range(j, len(actual) + 1):
                rest = go(i + 1, k)
                if rest is not None:
                    result = [actual[j:k]] + rest
                    break
        elif j < len(actual) and mask(expected[i]) == mask(actual[j]):
            rest = go(i + 1, j + 1)
            result = None if rest is None else [[actual[j]]] + rest
        else:
            result = None
        memo[(i, j)] = result
        return result

    sys.setrecursionlimit(10000 + 4 * (len(expected) + len(actual)))
    return go(0, 0)


def regenerate(expected, actual):
    """The expected block with its lines replaced by the actual ones and its
    "..." elisions kept, where they still match (times aside); else the whole
    actual output, to be elided again by hand."""
    matched = align(expected, actual)
    if matched is None:
        return actual
    return [e if e.strip() == "..." else got[0] for e, got in zip(expected, matched)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--tool", action="append", default=[], help="NAME=PATH")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the blocks and whether they run; run nothing")
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args()
    source = os.path.abspath(args.source)
    build = os.path.abspath(args.build)
    pages = args.pages or ["README.md"] + sorted(
        "docs/" + f for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))

    cache = os.path.join(build, "CMakeCache.txt")
    python = None
    if os.path.exists(cache):
        m = re.search(r"^Python3_EXECUTABLE:[A-Z]*=(.+)$", open(cache, encoding="utf-8").read(), re.M)
        python = m.group(1).strip() if m and os.path.exists(m.group(1).strip()) else None
    python_dir = os.path.join(build, "python")
    has_module = os.path.isdir(python_dir) and any(f.startswith("vpcat") and f.endswith(".so")
                                                   for f in os.listdir(python_dir))
    failures, ran, marked = [], 0, 0
    programs = executables(source)
    for page in pages:
        if page in SKIPPED_PAGES:
            print(f"{page}: skipped ({SKIPPED_PAGES[page]})")
            continue
        path = os.path.join(source, page)
        lines, blocks = parse(path)
        for line_no, reason in measured_problems(lines, source, programs):
            failures.append(f"{page}:{line_no}: {reason}")
        # Commands outside ```sh blocks.
        for b in blocks:
            if b.kind == "fence" and b.lang in ("sh", "output"):
                continue
            if b.kind == "fence" and b.lang not in ("", "text", "console", "bash", "shell"):
                continue  # code of another language (cpp, c, python, json, cmake)
            for k, line in enumerate(b.lines):
                if looks_like_command(line):
                    failures.append(f"{page}:{b.start + 1 + k if b.kind == 'fence' else b.start + k}: a command "
                                    f"outside a ```sh block (run it in one, or mark the block "
                                    f"<!-- not run: REASON -->): {line.strip()}")
                    break
        runnable = [b for b in blocks if b.kind == "fence" and b.lang == "sh"]
        for b in runnable:
            if b.marker is not None:
                marked += 1
                if not b.marker.strip():
                    failures.append(f"{page}:{b.start}: <!-- not run: --> without a reason")
        if args.list:
            for b in runnable:
                print(f"{page}:{b.start}: {'not run: ' + b.marker if b.marker else 'run'}")
            continue
        if not any(b.marker is None for b in runnable):
            continue
        scratch = tempfile.mkdtemp(prefix="vp-doc-")
        try:
            os.mkdir(os.path.join(scratch, "bin"))
            for t in args.tool:
                name, tool = t.split("=", 1)
                os.symlink(tool, os.path.join(scratch, "bin", name))
            for d in SOURCE_LINKS:
                os.symlink(os.path.join(source, d), os.path.join(scratch, d))
            for d in ("build-test", "build-release"):
                os.symlink(build, os.path.join(scratch, d))
            # What ./scripts/setup.sh leaves in a clone: the main job's catalog.
            shutil.copy(os.path.join(source, MAIN_JOB_CATALOG), os.path.join(scratch, "cluster.vpcat"))
            if python:  # python3: the interpreter the module is built for (docs/python.md "Which interpreter")
                os.symlink(python, os.path.join(scratch, "bin", "python3"))
            env = dict(os.environ, PATH=os.path.join(scratch, "bin") + os.pathsep + os.environ.get("PATH", ""),
                       COLUMNS="100", TERM="dumb")
            updates = []
            for n, b in enumerate(blocks):
                if b.kind != "fence" or b.lang != "sh" or b.marker is not None:
                    continue
                if "PYTHONPATH=build-test/python" in "\n".join(b.lines) and not has_module:
                    print(f"{page}:{b.start}: skipped: the build folder has no Python module (VP_BUILD_PYTHON=OFF)")
                    continue
                output = []
                for line_no, command, want in commands_of(b):
                    ran += 1
                    p = subprocess.run(["bash", "-c", command], cwd=scratch, env=env, stdout=subprocess.PIPE,
                                       stderr=subprocess.STDOUT, timeout=600)
                    # Paths into the source tree (vp-sim's contention table) as from its root.
                    text = p.stdout.decode("utf-8", "replace").replace(source + "/", "")
                    output += text.rstrip("\n").split("\n") if text.strip() else []
                    if p.returncode != want:
                        failures.append(f"{page}:{line_no}: exit {p.returncode}, want {want}: {command}\n"
                                        + "\n".join("  | " + l for l in text.rstrip("\n").split("\n")[-30:]))
                follow = blocks[n + 1] if n + 1 < len(blocks) else None
                if follow is None or follow.kind != "fence" or follow.lang != "output":
                    continue
                # An ```output block belongs to the ```sh block just before it.
                between = lines[b.end : follow.start - 1]
                if any(l.strip() for l in between):
                    continue
                if args.update:
                    new = regenerate(follow.lines, output)
                    if new != follow.lines:
                        updates.append((follow.start, follow.end - 1, new))
                elif align(follow.lines, output) is None:
                    failures.append(f"{page}:{follow.start}: the output differs from the page's; "
                                    f"check_doc_commands.py --update regenerates it. It printed:\n"
                                    + "\n".join("  | " + l for l in output))
            for start, end, new in sorted(updates, reverse=True):  # from the bottom: line numbers hold
                lines[start:end] = new
                print(f"{page}:{start}: output regenerated")
            if updates:
                open(path, "w", encoding="utf-8").write("\n".join(lines))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        print(f"{page}: {sum(1 for b in runnable if b.marker is None)} blocks run, "
              f"{sum(1 for b in runnable if b.marker is not None)} marked not run")

    for f in failures:
        print("FAIL: " + f)
    print(f"{ran} commands run, {marked} blocks marked not run, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
