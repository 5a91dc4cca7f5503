#!/usr/bin/env bash
# ctest smpi_alltoallv (docs/smpi.md): VarioPath's MPI executor and
# MPI_Alltoallv's algorithms under SimGrid's SMPI, on the platforms that
# vp-sim --simgrid-platform writes for one 8-GPU node and for two of them on a
# switch (16 ranks), ideal and calibrated, every received byte checked; and
# the driver's --shared-malloc (a sample checked, the same time).
#
#   smpi/test.sh VP_ANALYZE VP_SIM FIXTURES_DIR OUT SMPIRUN DRIVER PLATFORM_LIB
#
# SMPIRUN, DRIVER and PLATFORM_LIB are "none" when CMake found no SimGrid: the
# test is then skipped (exit 77) with a message, except under CI (CI set),
# where scripts/install-deps.sh installs libsimgrid-dev and a skip would hide a
# gap (exit 1).
set -euo pipefail
analyze=$1 sim=$2 fixtures=$3 out=$4 smpirun=$5 driver=$6 lib=$7
here=$(cd "$(dirname "$0")" && pwd)
if [[ "$smpirun" == none ]]; then
  msg="the build has no SMPI driver: SimGrid was not found when it was configured (smpicxx, smpirun, simgrid.pc: Debian's libsimgrid-dev, scripts/install-deps.sh), or VP_BUILD_SMPI is OFF; install it and reconfigure"
  if [[ -n "${CI:-}" ]]; then echo "smpi_alltoallv: FAILED under CI: $msg" >&2; exit 1; fi
  echo "smpi_alltoallv: skipped: $msg"
  exit 77
fi
rm -rf "$out"; mkdir -p "$out"
fail() { echo "smpi_alltoallv: FAILED: $*" >&2; exit 1; }

# Catalogs: one node, two nodes on a switch (as mpi/tests/make_catalogs.sh).
cluster() {  # NAMES FABRIC FILE
  printf '{"format": "vp-cluster", "version": 1, "node_types": [{"name": "pcie-gen4-2s4sw8g"}],\n "nodes": [{"type": "pcie-gen4-2s4sw8g", "names": "%s"}], "fabric": {"kind": "%s"}}\n' "$1" "$2" > "$3"
}
cluster "smpi1" none "$out/c1.cluster.json"
cluster "smpi[1-2]" single_switch "$out/c2.cluster.json"
for c in c1 c2; do
  "$analyze" -q --input "$fixtures/platforms/pcie-gen4-2s4sw8g.json" --cluster "$out/$c.cluster.json" --out "$out/$c.vpcat" > /dev/null
  "$sim" --catalog "$out/$c.vpcat" --simgrid-platform "$out/$c-ideal.xml"
  "$sim" --catalog "$out/$c.vpcat" --model contention --simgrid-platform "$out/$c-calibrated.xml"
done
grep -q 'vp_slope' "$out/c2-calibrated.xml" || fail "the calibrated platform has no lossy link"
! grep -q 'vp_slope' "$out/c2-ideal.xml" || fail "the ideal platform has a lossy link"

# Demands: skewed (every pair its own size, one hot receiver, a few empty
# pairs), N ranks.
demand() {  # N FILE
  awk -v n="$1" 'BEGIN { print n; for (s = 0; s < n; ++s) { row = "";
      for (d = 0; d < n; ++d) { b = (s == d || (s + 2 * d) % 7 == 3) ? 0 : 1000 + ((s * 37 + d * 11) % 17) * 3001;
        if (d == 1) b *= 4; row = row (d ? " " : "") b } print row } }' > "$2"
}
demand 8 "$out/d8.txt"
demand 16 "$out/d16.txt"

declare -A time
run() {  # KEY NP CATALOG MODEL METHOD [ALGORITHM]
  local key=$1 np=$2 cat=$3 model=$4 method=$5 alg=${6:-} args=()
  [[ "$model" == calibrated ]] && args+=(--library "$lib")
  [[ -n "$alg" ]] && args+=(--alltoallv "$alg")
  local log="$out/$key.log"
  if ! VPCAT_RANK_MAP="0-$((np - 1))" "$here/smpirun.sh" --smpirun "$smpirun" --platform "$out/$cat-$model.xml" "${args[@]}" \
      --np "$np" -- "$driver" --method "$method" --catalog "$out/$cat.vpcat" --demand "$out/d$np.txt" --calls 2 > "$log" 2>&1; then
    cat "$log" >&2; fail "$key: the run failed"
  fi
  [[ $(grep -c ' check ok$' "$log") == 2 ]] || { cat "$log" >&2; fail "$key: not every byte arrived right"; }
  if [[ "$method" == vpcat ]]; then
    grep -q '^vpcat calls 2 served 2 fallbacks 0' "$log" || { cat "$log" >&2; fail "$key: the executor did not serve both calls"; }
  fi
  time[$key]=$(awk '/^call 0 /{ for (i = 1; i < NF; ++i) if ($i == "time_us") print $(i + 1) }' "$log")
  printf '%-34s %12s us\n' "$key" "${time[$key]}"
}
for model in ideal calibrated; do
  for np in 8 16; do
    cat=c$((np / 8))
    run "$model-$np-vpcat" "$np" "$cat" "$model" vpcat
    run "$model-$np-ompi_basic_linear" "$np" "$cat" "$model" mpi ompi_basic_linear
    run "$model-$np-ring" "$np" "$cat" "$model" mpi ring
  done
done
# --shared-malloc: the sampled bytes checked, the time the full check's.
log="$out/ideal-16-vpcat-shared.log"
if ! VPCAT_RANK_MAP=0-15 "$here/smpirun.sh" --smpirun "$smpirun" --platform "$out/c2-ideal.xml" --np 16 -- "$driver" \
    --method vpcat --catalog "$out/c2.vpcat" --demand "$out/d16.txt" --calls 2 --shared-malloc > "$log" 2>&1; then
  cat "$log" >&2; fail "ideal-16-vpcat-shared: the run failed"
fi
[[ $(grep -c ' check sampled$' "$log") == 2 ]] || { cat "$log" >&2; fail "ideal-16-vpcat-shared: the sampled bytes did not arrive right"; }
shared_time=$(awk '/^call 0 /{ for (i = 1; i < NF; ++i) if ($i == "time_us") print $(i + 1) }' "$log")
[[ "$shared_time" == "${time[ideal-16-vpcat]}" ]] ||
  fail "ideal-16-vpcat-shared: $shared_time us with --shared-malloc, ${time[ideal-16-vpcat]} us without"
printf '%-34s %12s us\n' ideal-16-vpcat-shared "$shared_time"

# The calibrated platform loses where fan-out crowds the root complexes
# (the judge's forwarder curve): slower than the ideal one.
awk -v c="${time[calibrated-16-ompi_basic_linear]}" -v i="${time[ideal-16-ompi_basic_linear]}" 'BEGIN { exit !(c > i) }' ||
  fail "fan-out on the calibrated platform (${time[calibrated-16-ompi_basic_linear]} us) is not slower than on the ideal one (${time[ideal-16-ompi_basic_linear]} us)"

# The platform library refuses a missing platform with exit 2 and names it.
set +e
printf 'a\nb\n' > "$out/nolib.hosts"
env -u VP_SIMGRID_PLATFORM "$smpirun" -np 2 -platform "$lib" -hostfile "$out/nolib.hosts" "$driver" --method mpi --demand "$out/d8.txt" > "$out/nolib.log" 2>&1
rc=$?
set -e
[[ $rc != 0 ]] && grep -q 'VP_SIMGRID_PLATFORM: not set' "$out/nolib.log" || { cat "$out/nolib.log" >&2; fail "no message for a missing VP_SIMGRID_PLATFORM (exit $rc)"; }
echo "smpi_alltoallv: OK"
