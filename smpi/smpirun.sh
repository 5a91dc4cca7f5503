#!/usr/bin/env bash
# Run an MPI program under SimGrid's SMPI on a platform of vp-sim
# --simgrid-platform, with the settings that make SMPI the fluid model vp-sim
# is (docs/smpi.md "Settings"): one rank per GPU host, in GPU order.
#
#   smpi/smpirun.sh [--smpirun PATH] --platform XML [--library vp_simgrid_platform.so] --np N \
#                   [--alltoallv ALGORITHM] [--optim full|lazy] -- PROGRAM [ARGS...]
#
# --library: load the platform through vp_simgrid_platform.so (the calibrated
# platform: non-linear sharing on the XML's vp_* links) instead of the XML
# itself. --alltoallv: SMPI's MPI_Alltoallv algorithm (ompi_basic_linear,
# ring, pair, ompi, bruck, ...). --optim: SimGrid's network/optim, full
# (default: every rate recomputed at every event, exact max-min) or lazy
# (SimGrid's default: only the rates an event touches; up to 1.5 % off
# max-min on skewed fan-out; docs/smpi.md "256 ranks" for what neither
# does at 65,280 flows at once).
# Exit code: the program's (smpirun's), 1 on a usage error.
set -euo pipefail
smpirun=smpirun platform="" library="" np="" alg="" optim=Full
usage() { echo "usage: smpi/smpirun.sh [--smpirun PATH] --platform XML [--library LIB.so] --np N [--alltoallv ALG] [--optim full|lazy] -- PROGRAM [ARGS...]" >&2; exit 1; }
while (($#)); do
  case "$1" in
    --smpirun) smpirun=${2:?}; shift 2 ;;
    --platform) platform=${2:?}; shift 2 ;;
    --library) library=${2:?}; shift 2 ;;
    --np) np=${2:?}; shift 2 ;;
    --alltoallv) alg=${2:?}; shift 2 ;;
    --optim)
      case "${2:-}" in full) optim=Full ;; lazy) optim=Lazy ;; *) echo "smpi/smpirun.sh: --optim ${2:-}: full or lazy expected" >&2; exit 1 ;; esac
      shift 2 ;;
    --) shift; break ;;
    *) usage ;;
  esac
done
[[ -n "$platform" && -n "$np" && $# -ge 1 ]] || usage
[[ "$np" =~ ^[1-9][0-9]*$ ]] || { echo "smpi/smpirun.sh: --np $np: a positive whole number expected" >&2; exit 1; }
[[ -r "$platform" ]] || { echo "smpi/smpirun.sh: $platform: cannot be read" >&2; exit 1; }
hostfile=$(mktemp "${TMPDIR:-/tmp}/vp-smpi-hosts.XXXXXX")
trap 'rm -f "$hostfile"' EXIT
# The hosts in GPU order (vp-sim writes them so), the first N.
sed -n 's/^ *<host id="\([^"]*\)".*/\1/p' "$platform" | head -n "$np" > "$hostfile"
hosts=$(wc -l < "$hostfile")
((hosts == np)) || { echo "smpi/smpirun.sh: $platform has $hosts GPU hosts, $np ranks asked" >&2; exit 1; }
cfg=(
  # CM02: max-min sharing without SimGrid's TCP corrections (LV08's latency
  # and bandwidth factors), SMPI's message-size factors off, no reverse
  # (ACK) traffic, no TCP window bound: a message moves at its max-min share
  # after the route's latency, as a transfer of vp-sim does.
  --cfg=network/model:CM02 --cfg=smpi/bw-factor:1 --cfg=smpi/lat-factor:1
  --cfg=network/crosstraffic:0 --cfg=network/TCP-gamma:0
  # Every rate recomputed at every event: SimGrid's default lazy update
  # departs from max-min (hgx-h20-2n hotspot fan-out: 335.3 us lazy, 330.6
  # full, 330.5 exact; docs/smpi.md). --optim lazy for the largest runs.
  --cfg=network/optim:$optim
  # Computation between MPI calls (the planner, packing) is not simulated:
  # vp-sim is run with --planning-us 0 beside it.
  --cfg=smpi/simulate-computation:no
  # SMPI's default, stated: a send below 64 KiB is detached (its request
  # completes once handed over; the transfer still starts when the receive
  # is posted). vp-sim --eager detached --eager-bytes 65536 models the same.
  --cfg=smpi/send-is-detached-thresh:65536
  --log=root.thres:warning
)
[[ -n "$alg" ]] && cfg+=("--cfg=smpi/alltoallv:$alg")
if [[ -n "$library" ]]; then
  [[ -r "$library" ]] || { echo "smpi/smpirun.sh: $library: cannot be read" >&2; exit 1; }
  export VP_SIMGRID_PLATFORM=$platform
  load=$library
else
  load=$platform
fi
"$smpirun" -np "$np" -platform "$load" -hostfile "$hostfile" "${cfg[@]}" "$@"
