#!/usr/bin/env bash
# Install what VarioPath's build and tests need, from Debian's packages
# (Debian 12 bookworm; Ubuntu 22.04+ has the same names).
#
#   scripts/install-deps.sh          # as root, or as a user with sudo
#
# Idempotent: packages already installed are left alone, and when nothing is
# missing it changes nothing and needs no root. Otherwise it runs
# `apt-get update`, checks that every missing name exists in the package lists
# (apt-cache policy), then installs them without recommended extras.
set -euo pipefail

# Build: compilers, CMake + Ninja, pkg-config.
# Libraries: hwloc (importer, live probe) with libhwloc-plugins (its libxml2
# XML backend: without it hwloc falls back to a minimalistic parser that cannot
# read every valid XML file; a Recommends of libhwloc15, so it must be named
# here), Boost.Graph, nlohmann/json, CLI11, fmt, pugixml (NCCL XML), bliss +
# GMP (automorphisms), COIN-OR CLP (the simulator's flow bound, a linear
# program), Google Benchmark.
# Tests: doctest, python3 + jsonschema (the schema test), hwloc's lstopo.
# clang: the fuzz and sanitizer presets; llvm for llvm-symbolizer, without
# which sanitizer reports carry bare addresses and the leak checker's
# suppressions by function name match nothing (only recommended by clang).
packages=(
  build-essential cmake ninja-build pkg-config
  libhwloc-dev libhwloc-plugins hwloc libboost-graph-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  doctest-dev libbliss-dev libgmp-dev libpugixml-dev libbenchmark-dev coinor-libclp-dev
  python3 python3-jsonschema
  clang llvm
  # Open MPI: libvpcat_mpi, the PMPI interposer, their mpirun tests, vp-analyze gather (mpi/).
  openmpi-bin libopenmpi-dev
  # The Python binding (python/, docs/python.md): pybind11 headers and CMake config,
  pybind11-dev
  # the Python headers and libpython the module compiles against,
  python3-dev
  # NumPy (demand matrices in, plan arrays out; its C headers for FindPython3's NumPy),
  python3-numpy
  # and pytest for its tests (ctest python_binding).
  python3-pytest
  # PyTorch (CPU, with torch.distributed and gloo): vpcat.torch and its tests (python/vpcat_torch, ctest python_torch).
  python3-torch
  # SimGrid 3.32 (smpicxx, smpirun, libsimgrid, simgrid.pc): the second judge, SMPI (smpi/, docs/smpi.md, ctest smpi_alltoallv).
  libsimgrid-dev
  # Test only: PyYAML parses the exported topology.yaml, Kubernetes labels and Volcano objects (ctest catalog_export_yaml).
  python3-yaml
  # Test only: Slurm's node daemon reads the exported gres.conf (`slurmd -G`, ctest catalog_export_slurm);
  # it is installed, not started. It needs a mounted cgroup filesystem: in a chroot (CI's pristine root) the test skips.
  slurmd
  # Test only: rsvg-convert renders the pictures to PNG in ctest's render_png (tests/render_png.sh).
  librsvg2-bin
  # Packaging (cpack -G DEB: file for its dpkg-shlibdeps step) and the man page and completion test.
  file groff-base man-db zsh
)

log() { printf 'install-deps: %s\n' "$*"; }
die() { printf 'install-deps: error: %s\n' "$*" >&2; exit 1; }

command -v apt-get >/dev/null || die "apt-get not found: this script is for Debian/Ubuntu (see README.md for the package list)"

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]; }
has_candidate() {
  local c
  c=$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}')
  [[ -n "$c" && "$c" != "(none)" ]]
}
# clang's sanitizer and libFuzzer runtimes are a separate package on Debian 12
# (libclang-rt-N-dev, only recommended by clang-N): add it when it exists.
clang_runtime() {
  local major
  major=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n1)
  if [[ -n "$major" ]] && has_candidate "libclang-rt-$major-dev"; then echo "libclang-rt-$major-dev"; fi
}

missing_packages() {
  local p
  for p in "${packages[@]}" $(clang_runtime); do installed "$p" || echo "$p"; done
}

mapfile -t missing < <(missing_packages)
if ((${#missing[@]} == 0)); then
  log "every package is already installed: nothing to do"
  exit 0
fi

if ((EUID == 0)); then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  die "not root and no sudo: run as root, or install: ${missing[*]}"
fi
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)

log "apt-get update"
"${apt[@]}" update -q

# The package lists may only now name clang's runtime.
mapfile -t missing < <(missing_packages)
unknown=()
for p in "${missing[@]}"; do has_candidate "$p" || unknown+=("$p"); done
((${#unknown[@]} == 0)) || die "not in the package lists (apt-cache policy): ${unknown[*]}"

log "installing: ${missing[*]}"
"${apt[@]}" install -y -q --no-install-recommends "${missing[@]}"
log "done"
