#!/usr/bin/env bash
# Builds everything (library, CLI, examples, benchmarks) and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDAG_BUILD_BENCH=ON
cmake --build build
ctest --test-dir build --output-on-failure
