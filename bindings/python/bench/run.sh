#!/usr/bin/env bash
# The Python binding's cost table: the C walk and the Python walks of the same
# shapes in one run. Usage: bash run.sh LIBDIR [N] [REPEAT]
#   LIBDIR holds libdag.so.1; the C program is built against it and include/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
libdir="$(cd "$1" && pwd)"
n="${2:-100000}"
repeat="${3:-3}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cc -O2 -std=c99 -Wall -I"$root/include" "$here/walk_cost.c" -L"$libdir" -l:libdag.so.1 \
    -Wl,-rpath,"$libdir" -o "$scratch/walk_cost"
"$scratch/walk_cost" "$n" "$repeat" | sed 's/^/C /'
LIBDAG_PATH="$libdir/libdag.so.1" PYTHONPATH="$here/.." PYTHONDONTWRITEBYTECODE=1 \
    "${PYTHON:-python3}" "$here/walk_cost.py" "$n" "$repeat"
