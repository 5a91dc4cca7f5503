#!/usr/bin/env bash
# Bounded libFuzzer run of every fuzz target of tests/fuzz/ (clang, with
# AddressSanitizer and UndefinedBehaviorSanitizer), seeded from the committed
# corpus. The last phase of scripts/test.sh; also the way to fuzz longer.
#
#   scripts/fuzz.sh [--seconds N] [--build-dir DIR] [--max-len BYTES] [TARGET...]
#
#   TARGET       one of (default: all, one after the other):
#                  verify         vp_verify_fuzz: the verifier and every accessor of the view
#                  plan           vp_plan_fuzz: the planner on every catalog the verifier accepts
#                  hwloc          vp_hwloc_fuzz: the hwloc XML importer (vp-analyze --format hwloc)
#                  nccl           vp_nccl_fuzz: the NCCL topology XML importer
#                  nvsmi          vp_nvsmi_fuzz: the `nvidia-smi topo -m` importer
#                  json_topology  vp_json_topology_fuzz: the vp JSON topology importer
#                  cluster        vp_cluster_fuzz: the cluster-description reader (--cluster)
#                  defaults       vp_defaults_fuzz: the capacity table reader (--defaults)
#                  demand         vp_demand_fuzz: the demand-file reader of vp-plan and vp-sim
#                  measured       vp_measured_fuzz: the measured-capacity reader (--measured)
#                the reader targets take what the reader accepts on to the next
#                stages (tests/fuzz/reader_fuzz.hpp, tests/fuzz/README.md)
#   --seconds N  libFuzzer's -max_total_time per target (default $VP_FUZZ_SECONDS, else
#                60 for verify and plan and 30 for each reader target: about 6 minutes
#                for all ten, the build aside)
#   --build-dir  the `fuzz` preset's build folder (default $VP_FUZZ_BUILD_DIR or build-fuzz);
#                configured with the preset and only the fuzz targets built
#   --max-len    largest input libFuzzer makes (default 65536 for hwloc, whose seeds
#                reach 41 KB, 16384 for the others, whose seeds are below 11 KB)
#   VP_FUZZ_FLAGS  more libFuzzer flags, after ours (e.g. "-fork=4")
#
# Each reader target gets its dictionary, tests/fuzz/dict/TARGET.dict, and
# its seeds, tests/fuzz/corpus/TARGET/ (verify and plan: corpus/verify/, plan
# also fixtures/catalogs/format-1.0). An input that runs longer than
# $VP_FUZZ_TIMEOUT seconds (default 30) is a finding.
#
# Inputs that add coverage go to DIR/fuzz-corpus/TARGET/, never into the
# committed corpus (tests/fuzz/corpus/, read-only here; tests/fuzz/README.md
# says how to merge them). A crash, a sanitizer report, a leak, a timeout or
# an out-of-memory fails the script: the reproducer is kept in
# DIR/fuzz-artifacts/TARGET/ (or $VP_FUZZ_ARTIFACTS/TARGET/) and the command
# that replays it is printed. Longer sessions, e.g. an hour per target on 4 cores:
#
#   scripts/fuzz.sh --seconds 3600 verify      # or: VP_FUZZ_SECONDS=3600 scripts/fuzz.sh
#   build-fuzz/tests/vp_verify_fuzz -fork=4 -max_total_time=3600 build-fuzz/fuzz-corpus/verify tests/fuzz/corpus/verify
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

all_targets=(verify plan hwloc nccl nvsmi json_topology cluster defaults demand measured)
seconds="${VP_FUZZ_SECONDS:-}"
timeout="${VP_FUZZ_TIMEOUT:-30}"
build="${VP_FUZZ_BUILD_DIR:-build-fuzz}"
max_len=
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift ;;
    --build-dir) build="$2"; shift ;;
    --max-len) max_len="$2"; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    verify|plan|hwloc|nccl|nvsmi|json_topology|cluster|defaults|demand|measured) targets+=("$1") ;;
    *) echo "fuzz: unknown argument $1 (see --help)" >&2; exit 1 ;;
  esac
  shift
done
((${#targets[@]})) || targets=("${all_targets[@]}")
[[ -z "$seconds" || "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: --seconds $seconds: expected a positive integer" >&2; exit 1; }
[[ -z "$max_len" || "$max_len" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: --max-len $max_len: expected a positive integer" >&2; exit 1; }
[[ "$timeout" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: VP_FUZZ_TIMEOUT=$timeout: expected a positive integer" >&2; exit 1; }
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/install-deps.sh installs clang)" >&2; exit 1; }
artifacts="${VP_FUZZ_ARTIFACTS:-$root/$build/fuzz-artifacts}"
[[ "$artifacts" = /* ]] || artifacts="$root/$artifacts"

log() { printf 'fuzz: %s\n' "$*"; }

log "configure and build the fuzz targets (preset fuzz, $build/)"
cmake --preset fuzz -B "$build" >"$root/$build.configure.log" 2>&1 || {
  cat "$root/$build.configure.log" >&2
  exit 1
}
rm -f "$root/$build.configure.log"
binaries=()
for t in "${targets[@]}"; do binaries+=("vp_${t}_fuzz"); done
cmake --build "$build" --target "${binaries[@]}"

failed=0
for t in "${targets[@]}"; do
  bin="$build/tests/vp_${t}_fuzz"
  corpus="$build/fuzz-corpus/$t"
  crashes="$artifacts/$t"
  mkdir -p "$corpus" "$crashes"
  flags=()
  case "$t" in
    verify) seeds=(tests/fuzz/corpus/verify) ;;
    plan) seeds=(tests/fuzz/corpus/verify fixtures/catalogs/format-1.0) ;;
    *) seeds=("tests/fuzz/corpus/$t"); flags+=("-dict=tests/fuzz/dict/$t.dict") ;;
  esac
  case "$t" in verify|plan) t_seconds="${seconds:-60}" ;; *) t_seconds="${seconds:-30}" ;; esac
  case "$t" in hwloc) t_max_len="${max_len:-65536}" ;; *) t_max_len="${max_len:-16384}" ;; esac
  before=$(find "$corpus" -type f | wc -l)
  log "$t: ${t_seconds} s of $bin on $corpus + ${seeds[*]} (reproducers: $crashes/)"
  start=$(date +%s)
  touch "$build/fuzz-$t.start"
  set +e
  "$bin" -max_total_time="$t_seconds" -max_len="$t_max_len" -timeout="$timeout" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$crashes/" "${flags[@]}" ${VP_FUZZ_FLAGS:-} "$corpus" "${seeds[@]}" >"$build/fuzz-$t.log" 2>&1
  rc=$?
  set -e
  elapsed=$(($(date +%s) - start))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz-$t.log" | tail -n1)
  cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$build/fuzz-$t.log" | tail -n1 || true)
  after=$(find "$corpus" -type f | wc -l)
  if ((rc != 0)); then
    failed=1
    echo "fuzz: $t: FAILED after ${elapsed} s (libFuzzer exit $rc); the end of $build/fuzz-$t.log:" >&2
    tail -n 60 "$build/fuzz-$t.log" >&2
    find "$crashes" -type f -newer "$build/fuzz-$t.start" | while read -r f; do
      echo "fuzz: $t: reproducer $f ($(stat -c %s "$f") bytes); replay: $bin $f" >&2
    done
    echo "fuzz: $t: once fixed, add the reproducer to tests/fuzz/corpus/$t/ so the ctest replay keeps testing it" >&2
  else
    log "$t: clean: ${elapsed} s, ${runs:-?} inputs run, ${cov:-cov ?}, $((after - before)) new corpus inputs ($after in $corpus)"
  fi
done
exit "$failed"
