#!/usr/bin/env bash
# Configure, build and run every test (the `test` preset: RelWithDebInfo, in
# build-test/; the analysis tests are too heavy for a Debug build).
# This is the command .ci/run runs. Extra arguments go to ctest
# (e.g. `scripts/test.sh -R cli`).
set -euo pipefail
cd "$(dirname "$0")/.."

cmake --preset test
cmake --build --preset test
ctest --preset test --output-on-failure --parallel "$(nproc)" "$@"
