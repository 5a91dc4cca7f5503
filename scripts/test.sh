#!/usr/bin/env bash
# Every test, in four phases; what .ci/run runs. Extra arguments go to the
# first phase's ctest (e.g. `scripts/test.sh -R cli`).
#
#   1. unit      the `test` preset (RelWithDebInfo, build-test/; the analysis
#                tests are too heavy for a Debug build): build, then every test
#                with `ctest --output-on-failure`.
#   2. package   scripts/package.sh on the unit phase's build folder (nothing
#                rebuilt): `cpack -G DEB`, the .debs checked with dpkg-deb,
#                installed (dpkg -i as root with CI=true, i.e. in the clean
#                room; otherwise extracted into a temporary prefix, said so),
#                the installed vp-analyze --version, man page, completion and
#                tests/consumer against the installed runtime.
#   3. sanitize  the `asan-ubsan` preset (build-asan/): only what the
#                runtime-facing tests need, then the tests labelled `runtime`
#                (catalog reader/verifier/corrupt files/round trips, the
#                planner's property tests on fewer seeds and demand tests, the
#                fuzz corpus replays of every target)
#                under AddressSanitizer + UndefinedBehaviorSanitizer; any report
#                fails the test.
#   4. fuzz      scripts/fuzz.sh: the `fuzz` preset (clang, build-fuzz/), each
#                libFuzzer target for VP_FUZZ_SECONDS seconds (default 60 for
#                verify and plan, 30 for each of the eight reader targets),
#                seeded from tests/fuzz/corpus/TARGET/; a crash fails the script and
#                its reproducer is kept in build-fuzz/fuzz-artifacts/.
#
# VP_TEST_PHASES picks phases (default "unit package sanitize fuzz"), e.g. a quick
# run: VP_TEST_PHASES=unit scripts/test.sh -R catalog. VP_TEST_BUILD_DIR,
# VP_ASAN_BUILD_DIR and VP_FUZZ_BUILD_DIR move the build folders;
# VP_TEST_JOBS sets ctest's --parallel (default: nproc) and CMake's
# CMAKE_BUILD_PARALLEL_LEVEL the build's.
set -euo pipefail
cd "$(dirname "$0")/.."

phases="${VP_TEST_PHASES:-unit package sanitize fuzz}"
for p in $phases; do
  case "$p" in unit | package | sanitize | fuzz) ;; *) echo "test.sh: VP_TEST_PHASES: unknown phase $p (unit, package, sanitize, fuzz)" >&2; exit 1 ;; esac
done
has_phase() { [[ " $phases " == *" $1 "* ]]; }
jobs="${VP_TEST_JOBS:-$(nproc)}"
phase_start=0
begin() {
  phase_start=$(date +%s)
  printf '\n=== test.sh: phase %s ===\n' "$1"
}
end() { printf '=== test.sh: phase %s passed in %d s ===\n' "$1" $(($(date +%s) - phase_start)); }

if has_phase unit; then
  begin unit
  dir="${VP_TEST_BUILD_DIR:-build-test}"
  cmake --preset test -B "$dir"
  cmake --build "$dir"
  ctest --test-dir "$dir" --output-on-failure --no-tests=error --parallel "$jobs" "$@"
  end unit
fi

if has_phase package; then
  begin package
  scripts/package.sh "${VP_TEST_BUILD_DIR:-build-test}"
  end package
fi

if has_phase sanitize; then
  begin sanitize
  dir="${VP_ASAN_BUILD_DIR:-build-asan}"
  cmake --preset asan-ubsan -B "$dir"
  # The targets of the `runtime` tests (and the tools they run), not the rest.
  cmake --build "$dir" --target vp_catalog_tests vp-catalog vp_planner_tests vp-plan vp-analyze \
    vp_verify_fuzz_replay vp_plan_fuzz_replay vp_hwloc_fuzz_replay vp_nccl_fuzz_replay vp_nvsmi_fuzz_replay \
    vp_json_topology_fuzz_replay vp_cluster_fuzz_replay vp_defaults_fuzz_replay vp_demand_fuzz_replay vp_measured_fuzz_replay \
    vpcat_c17_check vpcat_planner_c17_check vp_runtime_names_tests vp_c_api_tests vp_exit_code_sweep_tests vp-sim
  # VP_PROPERTY_RUN=small: the planner's property tests with fewer seeds and
  # without the 256-GPU platform (the unit phase ran them all), so that the
  # instrumented run keeps a wide margin on a loaded 2-core machine.
  VP_PROPERTY_RUN=small ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$dir" -L '^runtime$' --output-on-failure --no-tests=error --parallel "$jobs"
  end sanitize
fi

if has_phase fuzz; then
  begin fuzz
  VP_FUZZ_BUILD_DIR="${VP_FUZZ_BUILD_DIR:-build-fuzz}" scripts/fuzz.sh
  end fuzz
fi
