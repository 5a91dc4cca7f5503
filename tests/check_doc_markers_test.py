#!/usr/bin/env python3
"""The <!-- measured: COMMAND --> check of check_doc_commands.py on made-up
pages (ctest doc_markers): a marker that names a tool, a file of the tree or
an executable of the build, with a date, passes; one that names nothing of
the tree, or has no date near it, fails with its line.

Usage: check_doc_markers_test.py SOURCE_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_doc_commands as docs  # noqa: E402


def problems(source, programs, *lines):
    return docs.measured_problems(list(lines), source, programs)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    source = sys.argv[1]
    programs = docs.executables(source)
    failures = []

    def expect(what, got, want_lines):
        if [line for line, _ in got] != want_lines:
            failures.append(f"{what}: expected problems at lines {want_lines}, got {got}")

    expect("a tool, dated", problems(source, programs, "<!-- measured: vp-sim --workload uniform (2026-12-01) -->"), [])
    expect("a script, dated below", problems(source, programs, "text", "<!-- measured: scripts/jobstream.py --jobs 300 -->",
                                             "| a | b |", "measured on 2026-12-06"), [])
    expect("a wrapper and an environment", problems(
        source, programs, "<!-- measured: VP_X=1 python3 -u scripts/jobstream.py (2026-12-06) -->"), [])
    expect("a benchmark of the build", problems(
        source, programs, "<!-- measured: build-bench/bench/plan_bench --benchmark_filter=Subset (2026-12-02) -->"), [])
    expect("a script that does not exist", problems(source, programs, "", "<!-- measured: scripts/no-such.sh (2026-12-01) -->"),
           [2])
    expect("an executable no CMake file defines", problems(
        source, programs, "<!-- measured: build-bench/bench/no_such_bench (2026-12-01) -->"), [1])
    expect("no date", problems(source, programs, "<!-- measured: vp-sim --workload uniform -->", "a", "b"), [1])
    expect("a date too far below", problems(source, programs, "<!-- measured: vp-sim -->", *["x"] * 6, "2026-12-01"), [1])
    expect("no command", problems(source, programs, "<!-- measured:  -->"), [1])
    for f in failures:
        print("FAIL: " + f)
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
