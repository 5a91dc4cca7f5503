#!/usr/bin/env bash
# Rescaling without restart (docs/mpi.md "Rescaling without restart"):
# elastic_alltoall under the interposer, 12 ranks, oversubscribed. The world
# on the 16-GPU catalog c2x8 with a world-indexed VPCAT_RANK_MAP, then
# communicators of 8, 4 and 6 of its ranks (each takes its ranks' entries of
# the map), then c2x8 grown onto a third node by vp-catalog resize, renamed
# over the file in use, then another catalog file named. Every element is
# checked by the program; here, what rank 0 of each new communicator says
# (VPCAT_DEBUG=INFO) and that no call fell back.
#   elastic_test.sh MPIEXEC PMPI_SO PROGRAM CATALOGS_DIR WORK_DIR
set -uo pipefail
mpiexec=$1 so=$2 prog=$3 cats=$4 work=$5
mkdir -p "$work"
cp "$cats/c2x8.vpcat" "$work/installed.vpcat"
cp "$cats/grown3x8.vpcat" "$work/staged.vpcat"
out=$("$mpiexec" --oversubscribe -n 12 -x LD_PRELOAD="$so" -x VPCAT_CATALOG="$work/installed.vpcat" \
      -x VPCAT_RANK_MAP=0-11 -x VPCAT_DEBUG=INFO -x VPCAT_MPI_STATS=1 \
      "$prog" "$work/installed.vpcat" "$work/staged.vpcat" 0-3,8-11,16-19 "$cats/c2x8.vpcat" 4-15 2>&1)
status=$?
printf '%s\n' "$out"
fails=0
has() {  # EXTENDED_REGEX: a line of the output matches it
  grep -Eq -- "$1" <<<"$out" || { echo "elastic_test: no line matches: $1"; fails=$((fails + 1)); }
}
p='^[^ :]+:[0-9]+:[0-9]+ \[0\] VPCAT INFO'
[[ $status -eq 0 ]] || { echo "elastic_test: the program failed (exit $status)"; fails=$((fails + 1)); }
has "$p catalog .*/installed\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 16 GPUs on 2 nodes"
has "$p communicator of 12 ranks: ranks -> GPUs 0-11 \(VPCAT_RANK_MAP\), ready in"
has "$p communicator of 8 ranks: ranks -> GPUs 0-7 \(VPCAT_RANK_MAP\), ready in"
has "$p communicator of 4 ranks: ranks -> GPUs 4-7 \(VPCAT_RANK_MAP\), ready in"
has "$p communicator of 6 ranks: ranks -> GPUs 6-11 \(VPCAT_RANK_MAP\), ready in"
has "$p new catalog .*/installed\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 24 GPUs on 3 nodes \(vp-mpi1,vp-mpi2,vp-mpi3\)"
has "$p communicator of 12 ranks: ranks -> GPUs 0-3,8-11,16-19 \(VPCAT_RANK_MAP\), ready in"
for phase in 'world: 12' 'shrunk to 8: 8' 'shrunk to 4: 4' 'grown to 6: 6' 'grown catalog: 12'; do
  has "^elastic_alltoall: $phase ranks .*, 0 wrong elements$"
done
has "$p new catalog .*/c2x8\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 16 GPUs on 2 nodes"
has "$p communicator of 12 ranks: ranks -> GPUs 4-15 \(VPCAT_RANK_MAP\), ready in"
has "^elastic_alltoall: back: 12 ranks .*, 0 wrong elements$"
has '^elastic_alltoall: 12 ranks, 0 wrong elements in all$'
has '^vpcat_pmpi: rank 0: 8 calls served by VarioPath, 0 fell back to MPI'
((fails == 0)) || { echo "elastic_test: $fails check(s) failed"; exit 1; }
echo "elastic_test: OK"
