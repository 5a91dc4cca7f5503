#!/usr/bin/env bash
# The interposer's voice and settings (docs/mpi.md "Settings"), with
# plain_alltoall under mpirun (4 ranks, oversubscribed):
#   VPCAT_DEBUG=INFO lines; a planner option from the environment; a bad value
#   named; VPCAT_DEBUG=NONE silent; a catalog of other hosts refused (and
#   served once the rank map is given); VPCAT_STRICT=1 fails instead of
#   falling back; VPCAT_INIT=lazy; a host named by vp-analyze --hostname.
#   pmpi_settings_test.sh MPIEXEC PMPI_SO PROGRAM CATALOGS_DIR
set -uo pipefail
mpiexec=$1 so=$2 prog=$3 cats=$4
fails=0
run() {  # NAME EXPECT_STATUS(0|fail) ENV... -- output in $out
  local name=$1 expect=$2; shift 2
  local envs=()
  for e in "$@"; do envs+=(-x "$e"); done
  out=$("$mpiexec" --oversubscribe -n 4 -x LD_PRELOAD="$so" -x VPCAT_MPI_STATS=1 "${envs[@]}" "$prog" 2 2>&1)
  local status=$?
  printf '=== %s (exit %d)\n%s\n' "$name" "$status" "$out"
  if [[ $expect == 0 && $status -ne 0 ]] || [[ $expect == fail && $status -eq 0 ]]; then
    echo "pmpi_settings_test: $name: exit $status, expected ${expect/0/success}"; fails=$((fails + 1))
  fi
}
has() {  # NAME EXTENDED_REGEX: the output holds a line matching it
  grep -Eq -- "$2" <<<"$out" || { echo "pmpi_settings_test: $1: no line matches: $2"; fails=$((fails + 1)); }
}
hasnt() {
  ! grep -Eq -- "$2" <<<"$out" || { echo "pmpi_settings_test: $1: a line matches: $2"; fails=$((fails + 1)); }
}
prefix='^[^ :]+:[0-9]+:[0-9]+ \[0\] VPCAT'

run info 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_RANK_MAP=4-7 VPCAT_DEBUG=INFO VPCAT_LATENCY_US=2 VPCAT_MPI_PLAN=root
has info "$prefix INFO settings: strict 0, init eager \(at MPI_Init\), plan mode root \(rank 0 plans, broadcasts\); plan options max_steps=[0-9]+ latency_us=2 min_step_latencies=4 .* \(from VPCAT_LATENCY_US=2\)$"
has info "$prefix INFO catalog .*/c1x8\.vpcat: format 1\.[0-9]+, written by vpcat [0-9.]+, 8 GPUs on 1 nodes \(vp-mpi-test\), opened and verified in"
has info "$prefix INFO communicator of 4 ranks: ranks -> GPUs 4-7 \(VPCAT_RANK_MAP\), ready in"
has info "$prefix INFO ready at MPI_Init in"
has info ': [1-9][0-9]* calls served by VarioPath, 0 fell back'
hasnt info '\[[1-3]\] VPCAT'

run all_ranks 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_RANK_MAP=0-3 VPCAT_DEBUG=INFO VPCAT_DEBUG_RANKS=all
has all_ranks '^[^ ]+ \[2\] VPCAT INFO rank 2 -> GPU 2: node vp-mpi-test, local GPU 2'

run bad_value 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_RANK_MAP=0-3 VPCAT_LATENCY_US=fast
has bad_value "$prefix WARN every MPI_Alltoall\(v\) on this communicator falls back to MPI: VPCAT_LATENCY_US=\"fast\": not a number >= 0"
has bad_value ': 0 calls served by VarioPath, [1-9][0-9]* fell back to MPI \(VPCAT_LATENCY_US='

# c1x8's node is vp-mpi-test, which is not this host: none of the job's hosts.
run other_hosts 0 VPCAT_CATALOG="$cats/c1x8.vpcat"
has other_hosts "$prefix WARN every MPI_Alltoall\(v\) on this communicator falls back to MPI: vpcat_mpi_init: mapping ranks by host: the catalog's node names match none of the job's hosts: its 1 nodes are vp-mpi-test"
[[ $(grep -c 'VPCAT WARN' <<<"$out") == 1 ]] || { echo "pmpi_settings_test: other_hosts: said more than once"; fails=$((fails + 1)); }

run silent 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_DEBUG=NONE
hasnt silent ' VPCAT (INFO|WARN) '
has silent ': 0 calls served by VarioPath, [1-9][0-9]* fell back'

run strict fail VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_STRICT=1
has strict "$prefix WARN MPI_Alltoall\(v\) fails \(VPCAT_STRICT=1, no fallback to MPI\): vpcat_mpi_init: mapping ranks by host: the catalog's node names match none of the job's hosts"
hasnt strict 'plain_alltoall: 4 ranks'

run strict_served 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_STRICT=1 VPCAT_RANK_MAP=0-3
has strict_served ': [1-9][0-9]* calls served by VarioPath, 0 fell back'

run lazy 0 VPCAT_CATALOG="$cats/c1x8.vpcat" VPCAT_RANK_MAP=0-3 VPCAT_INIT=lazy VPCAT_DEBUG=INFO
hasnt lazy 'ready at MPI_Init'
has lazy "$prefix INFO communicator of 4 ranks: ranks -> GPUs 0-3"
has lazy ': [1-9][0-9]* calls served by VarioPath, 0 fell back'

run hostname 0 VPCAT_CATALOG="$cats/named8.vpcat" VPCAT_HOSTNAME=vp-named-host VPCAT_DEBUG=INFO
has hostname "$prefix INFO communicator of 4 ranks: ranks -> GPUs 0-3 \(by host name\)"
has hostname ': [1-9][0-9]* calls served by VarioPath, 0 fell back'

((fails == 0)) || { echo "pmpi_settings_test: $fails check(s) failed"; exit 1; }
echo "pmpi_settings_test: OK"
