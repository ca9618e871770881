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
# check the minimum supported Rust, 1.63); the directory it is in then comes
# first on PATH, so that cargo runs the rustc and rustdoc beside it rather than
# a rustup proxy found earlier on PATH.
#
# After the tests, when the cargo in use has them (`cargo fmt --version` and
# `cargo clippy --version` succeed: rustup's has both, Debian's only with the
# rustfmt and rust-clippy packages), it checks the formatting
# (`cargo fmt --check`) and the lints (`cargo clippy --all-targets -- -D
# warnings`); without them it prints one line saying which were not run, and
# that alone does not fail it. Exits non-zero when any test or check fails.
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
if [ -n "${CARGO:-}" ]; then
    if ! cargo_path="$(command -v "$cargo")"; then
        echo "test.sh: CARGO=$cargo not found" >&2
        exit 2
    fi
    # cargo finds rustc and rustdoc on PATH: use the ones of CARGO's toolchain.
    PATH="$(cd "$(dirname "$cargo_path")" && pwd)${PATH:+:$PATH}"
    export PATH
fi
manifest="$here/Cargo.toml"

# Link time (libdag-sys's build script) and run time (the test programs).
export LIBDAG_LIB_DIR="$libdir"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CARGO_TARGET_DIR="$builddir/target"
# --locked: Cargo.lock is committed and must not be rewritten by a test run.
"$cargo" test --offline --locked --manifest-path "$manifest" --workspace

# Formatting and lints: each runs when this cargo has it, and a failure of
# either fails the script once both have run.
failed=()
skipped=()
if "$cargo" fmt --version >/dev/null 2>&1; then
    echo "test.sh: cargo fmt --check ($("$cargo" fmt --version))"
    "$cargo" fmt --check --all --manifest-path "$manifest" || failed+=("cargo fmt --check")
else
    skipped+=("cargo fmt --check")
fi
if "$cargo" clippy --version >/dev/null 2>&1; then
    echo "test.sh: cargo clippy --all-targets -- -D warnings ($("$cargo" clippy --version))"
    "$cargo" clippy --offline --locked --manifest-path "$manifest" --workspace --all-targets \
        -- -D warnings || failed+=("cargo clippy")
else
    skipped+=("cargo clippy")
fi
if [ "${#skipped[@]}" -gt 0 ]; then
    # One line, and not a failure: Debian's cargo has neither without the
    # rustfmt and rust-clippy packages.
    echo "test.sh: not run: $(IFS=,; echo "${skipped[*]}" | sed 's/,/, /g') ($cargo has no such subcommand; install rustfmt / rust-clippy, or use rustup's cargo)"
fi
if [ "${#failed[@]}" -gt 0 ]; then
    echo "test.sh: failed: $(IFS=,; echo "${failed[*]}" | sed 's/,/, /g')" >&2
    exit 1
fi
