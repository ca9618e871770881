#!/usr/bin/env bash
# Runs the Rust binding's tests (both crates, doc examples included) against
# a built libdag.
#
#   bash bindings/rust/test.sh LIBDIR BUILDDIR
#
# LIBDIR holds libdag.so and libdag.so.1 (e.g. build/); BUILDDIR is a scratch
# directory this script may write to (cargo's target directory goes there,
# so nothing is written into the source tree). Works from any current
# directory and offline: the crates depend on nothing but the standard
# library. CARGO may name another cargo (e.g. Debian's /usr/bin/cargo, to
# check the minimum supported Rust, 1.63). Exits non-zero when any test fails.
# The crates must sit at bindings/rust of libdag's tree: tests/coverage.rs
# reads include/dag/dag.h relative to the crate's own path.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: bash $0 LIBDIR BUILDDIR" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
libdir="$(cd "$1" && pwd)"
mkdir -p "$2"
builddir="$(cd "$2" && pwd)"

for lib in libdag.so libdag.so.1; do
    if [ ! -e "$libdir/$lib" ]; then
        echo "test.sh: $libdir/$lib not found (build the 'dag' target first)" >&2
        exit 2
    fi
done

cargo="${CARGO:-cargo}"

# Link time (libdag-sys's build script) and run time (the test programs).
export LIBDAG_LIB_DIR="$libdir"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="$builddir/target"
# --locked: Cargo.lock is committed and must not be rewritten by a test run.
exec "$cargo" test --offline --locked --manifest-path "$here/Cargo.toml" --workspace
