#!/usr/bin/env bash
# Build FAST's CPU scheduler (MangoBoost/FAST, its amd/ folder) into small
# shared libraries that bench/speed_bench.cpp loads to time it beside the
# VarioPath planner on the same matrices (docs/planner.md "Measurements"):
#
#   scripts/build_fast_shim.sh FAST_SOURCE_DIR OUT_DIR [SERVERS...]
#
# FAST_SOURCE_DIR: a checkout of MangoBoost/FAST (or its amd/ folder).
# OUT_DIR: where the copies and libraries go, e.g. build-release/fast (never
# inside the source tree: FAST's licence is academic, nothing of it is
# committed). SERVERS: the server counts to build for (default 4 32 64: the
# benchmark's 32, 256 and 512 GPUs at 8 GPUs per server). FAST sizes its
# tables at compile time (MAX_SERVER_NUM, 10 in its sources; its per-step
# tables grow as servers^3: about 0.7 GB at 32 servers, 5.6 GB at 64), so
# each count gets its own copy and library: OUT_DIR/libvp_fast_N.so, with
# bench/fast_shim.cpp's C entry points.
#
# The copy is patched only as far as building it on a CPU-only machine needs:
# its <hip/hip_runtime.h> includes dropped (the scheduler uses no HIP call),
# <cstring>, <cstdint>, <cstdlib> and <sys/types.h> included for what HIP's header brought (memset, uint64_t, uint), logging off (NOLOG), and the server
# limit and the sizes derived from it set to N.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 FAST_SOURCE_DIR OUT_DIR [SERVERS...]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")/.." && pwd)"
src=$1; out=$2; shift 2
servers=("$@")
[ ${#servers[@]} -eq 0 ] && servers=(4 32 64)
[ -d "$src/amd/src" ] && src="$src/amd"
if [ ! -f "$src/src/include/fast_alltoall/alltoall_define.h" ]; then
  echo "$0: $src: not a FAST source folder (no src/include/fast_alltoall/alltoall_define.h)" >&2
  exit 2
fi
case "$(cd "$(dirname "$out")" 2>/dev/null && pwd)/" in
  "$here"/build*) ;;
  "$here"/*) echo "$0: $out: inside the source tree; give a build folder (FAST must never be committed)" >&2; exit 2 ;;
esac
mkdir -p "$out"
out="$(cd "$out" && pwd)"
CXX=${CXX:-c++}
for n in "${servers[@]}"; do
  if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ]; then
    echo "$0: $n: a server count must be an integer of at least 2" >&2
    exit 2
  fi
  copy="$out/src-$n"
  rm -rf "$copy"
  mkdir -p "$copy"
  cp -r "$src/src/." "$copy/"
  def="$copy/include/fast_alltoall/alltoall_define.h"
  sed -i -E \
    -e "s/^#define MAX_SERVER_NUM .*/#define MAX_SERVER_NUM $n/" \
    -e "s/^#define MAX_SERVER_NUM_TIMES_GPU_NUM_PER_SERVER .*/#define MAX_SERVER_NUM_TIMES_GPU_NUM_PER_SERVER ($n * 8)/" \
    -e "s/^#define MAX_SERVER_NUM_TIMES_GPU_NUM_PER_SERVER_SQUARE .*/#define MAX_SERVER_NUM_TIMES_GPU_NUM_PER_SERVER_SQUARE ($n * 64)/" \
    -e "s/^#define MAX_SERVER_NUM_DOUBLE .*/#define MAX_SERVER_NUM_DOUBLE ($n * 2)/" \
    -e "s/^#define MAX_SERVER_NUM_SQUARE .*/#define MAX_SERVER_NUM_SQUARE ($n * $n)/" \
    -e "s/^#define MAX_TRANSFER_STEP_NUM .*/#define MAX_TRANSFER_STEP_NUM ($n * $n + 1)/" \
    "$def"
  for want in "MAX_SERVER_NUM $n" "MAX_TRANSFER_STEP_NUM ($n \* $n + 1)"; do
    grep -q "^#define $want" "$def" || { echo "$0: $def: could not set $want (FAST's header changed?)" >&2; exit 1; }
  done
  grep -rl 'hip/hip_runtime.h' "$copy" | xargs -r sed -i '/#include <hip\/hip_runtime.h>/d'
  echo "building FAST for $n servers: $out/libvp_fast_$n.so" >&2
  "$CXX" -O3 -std=c++17 -fPIC -shared -w -DNOLOG -include cstring -include cstdint -include cstdlib -include sys/types.h -I "$copy/include" \
    "$copy"/fast_alltoall/*.cc "$here/bench/fast_shim.cpp" -o "$out/libvp_fast_$n.so"
done
