#!/bin/bash
# No library throws a bare std:: exception (std::runtime_error,
# std::invalid_argument, std::logic_error, ...): run_main() could only call
# it an internal error (exit 4). Libraries throw the typed errors of
# base/include/vp/base/errors.hpp (vp::InputError, vp::UsageError,
# vp::InternalError, ...), each with its exit code.
#
#   no_bare_std_throws.sh SOURCE_DIR     scan the libraries and tools; every hit is listed as FILE:LINE
#   no_bare_std_throws.sh --self-test    the scan must fail on a deliberate bare throw (and pass without it)
#
# Scanned: the C++ sources of every library and tool folder. Not scanned:
# tests/, bench/ (programs of their own) and python/ (pybind11 turns
# std::invalid_argument into Python's ValueError on purpose).
set -u

pattern='throw[[:space:]]+std::(runtime_error|invalid_argument|logic_error|out_of_range|overflow_error|underflow_error|range_error|domain_error|length_error)\b'

scan() {
  local root=$1 hits
  local dirs=()
  for d in base topology analyzer catalog_format simulator render tools mpi runtime_loader smpi; do
    [[ -d $root/$d ]] && dirs+=("$root/$d")
  done
  if [[ ${#dirs[@]} == 0 ]]; then
    echo "no_bare_std_throws: $root: no library folder to scan" >&2
    return 2
  fi
  hits=$(grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cc' "$pattern" "${dirs[@]}" |
         sed "s|^$root/||")
  if [[ -n $hits ]]; then
    echo "bare std:: exceptions thrown by library code (throw a type of vp/base/errors.hpp instead):" >&2
    echo "$hits" >&2
    return 1
  fi
  return 0
}

if [[ ${1:-} == --self-test ]]; then
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' EXIT
  mkdir -p "$tree/simulator/src"
  printf '#include "vp/base/errors.hpp"\nvoid f(int x) {\n  if (x < 0) throw vp::UsageError("x < 0");\n}\n' \
    >"$tree/simulator/src/clean.cpp"
  scan "$tree" 2>/dev/null || { echo "self-test: a clean tree was refused" >&2; exit 1; }
  printf 'void g(int x) {\n  if (x < 0)\n    throw std::invalid_argument("x < 0");\n}\n' >"$tree/simulator/src/bad.cpp"
  out=$(scan "$tree" 2>&1)
  [[ $? == 1 ]] || { echo "self-test: the deliberate bare throw was not caught" >&2; exit 1; }
  [[ $out == *"simulator/src/bad.cpp:3:"* ]] || { echo "self-test: the hit is not named by file and line: $out" >&2; exit 1; }
  echo "self-test: the deliberate throw was caught at simulator/src/bad.cpp:3"
  exit 0
fi

[[ $# == 1 ]] || { echo "usage: no_bare_std_throws.sh SOURCE_DIR | --self-test" >&2; exit 2; }
scan "$1"
