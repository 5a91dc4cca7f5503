#!/usr/bin/env bash
# Run an unmodified MPI program with libvpcat_pmpi.so preloaded and check
# its exit status and the VPCAT_MPI_STATS line of rank 0.
#   run_interposed.sh MPIEXEC NP PMPI_SO CATALOG RANK_MAP EXPECT PROGRAM [ARGS...]
# RANK_MAP "none": map by host. EXPECT: "served" (every call served, none fell back) or "fallback"
# (every call fell back, with a reason).
set -uo pipefail
mpiexec=$1 np=$2 so=$3 catalog=$4 map=$5 expect=$6
[[ $map == none ]] && map=
shift 6
out=$("$mpiexec" --oversubscribe -n "$np" -x LD_PRELOAD="$so" -x VPCAT_CATALOG="$catalog" \
      ${map:+-x VPCAT_RANK_MAP="$map"} -x VPCAT_MPI_STATS=1 "$@" 2>&1)
status=$?
printf '%s\n' "$out"
[[ $status -eq 0 ]] || { echo "run_interposed: the program failed (exit $status)"; exit 1; }
line=$(grep '^vpcat_pmpi: rank 0:' <<<"$out") || { echo "run_interposed: no statistics line"; exit 1; }
case $expect in
  served) grep -Eq ': [1-9][0-9]* calls served by VarioPath, 0 fell back' <<<"$line" ||
            { echo "run_interposed: expected every call served"; exit 1; } ;;
  fallback) grep -Eq ': 0 calls served by VarioPath, [1-9][0-9]* fell back to MPI \(.+\)' <<<"$line" ||
            { echo "run_interposed: expected every call to fall back with a reason"; exit 1; } ;;
esac
echo "run_interposed: OK"
