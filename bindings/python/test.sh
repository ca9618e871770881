#!/usr/bin/env bash
# Runs the Python binding's tests against a built libdag.
#
#   bash bindings/python/test.sh LIBDIR BUILDDIR
#
# LIBDIR holds libdag.so.1 (e.g. build/); BUILDDIR is a scratch directory
# this script may write to (the tests' temporary files go there). Exits
# non-zero when any test fails. Works from any current directory.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: bash $0 LIBDIR BUILDDIR" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -d "$1" ]; then
    echo "test.sh: LIBDIR $1 is not a directory" >&2
    exit 2
fi
libdir="$(cd "$1" && pwd)"
mkdir -p "$2"
builddir="$(cd "$2" && pwd)"

if [ ! -e "$libdir/libdag.so.1" ]; then
    echo "test.sh: $libdir/libdag.so.1 not found (build the 'dag' target first)" >&2
    exit 2
fi

python="${PYTHON:-python3}"

export LIBDAG_PATH="$libdir/libdag.so.1"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
# Nothing may be written into the source tree.
export PYTHONDONTWRITEBYTECODE=1
export TMPDIR="$builddir/tmp"
mkdir -p "$TMPDIR"

cd "$here"
"$python" -m unittest discover -s "$here/tests" -v
# Debian's python3-distributed is for Debian's python3: where another python3
# comes first on PATH without it, the Dask tests run on Debian's as well.
if ! "$python" -c "import distributed" 2>/dev/null && /usr/bin/python3 -c "import distributed" 2>/dev/null; then
    # Discovered, as above, so that the tests import their support module.
    /usr/bin/python3 -m unittest discover -s "$here/tests" -p 'test_dask*.py' -v
fi
