#!/usr/bin/env bash
# Compares the ABI of the libdag.so in BUILD_DIR with every released ABI in
# abi/libdag-*.abi and fails on any change but added functions and fields
# appended to size-prefixed structs (scripts/abi_normalize.py says why
# symbol versions are left out of the comparison).
#
#   scripts/abi-check.sh BUILD_DIR
#   scripts/abi-check.sh --baseline BUILD_DIR [SOURCE_DIR]
#
# The second form writes abi/libdag-VERSION.abi, the baseline of a release,
# from a build of SOURCE_DIR (default: this checkout) at that release; VERSION
# is its dag.h's DAG_VERSION_STRING. The build needs debug info
# (RelWithDebInfo or Debug); only the types of include/dag count.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 2; }

# The ABI of one library as abidw sees it: the exported functions and the
# public types they reach, without build paths.
describe() { # LIBRARY HEADERS_DIR OUT
  if ! readelf -S --wide "$1" | grep -q '\.debug_info'; then
    echo "$1 has no debug info: build with -DCMAKE_BUILD_TYPE=RelWithDebInfo" >&2
    exit 1
  fi
  abidw --headers-dir "$2" --drop-private-types --exported-interfaces-only \
    --no-corpus-path --no-comp-dir-path --short-locs --out-file "$3" "$1"
}

mode=check
if [ "${1:-}" = --baseline ]; then
  mode=baseline
  shift
fi
[ $# -ge 1 ] || usage
[ -e "$1/libdag.so.1" ] || { echo "no libdag.so.1 in $1" >&2; exit 1; }
library=$(readlink -f "$1/libdag.so.1")

if [ "$mode" = baseline ]; then
  source_dir=$(cd "${2:-$root}" && pwd)
  version=$(sed -n 's/^#define DAG_VERSION_STRING "\(.*\)"$/\1/p' "$source_dir/include/dag/dag.h")
  [ -n "$version" ] || { echo "no DAG_VERSION_STRING in $source_dir/include/dag/dag.h" >&2; exit 1; }
  describe "$library" "$source_dir/include/dag" "$root/abi/libdag-$version.abi"
  echo "wrote abi/libdag-$version.abi"
  exit 0
fi

# The dag_*@LIBDAG_1 aliases that programs linked against 1.0 and 1.1 load:
# the comparison below drops every symbol version, so it would not see them
# gone (as gold or lld leave them out: CMakeLists.txt links with -fuse-ld=bfd).
aliases=$(grep -c '^"dag_[a-z0-9_]*@LIBDAG_1" = ' "$root/capi/libdag1_compat.ld")
exported=$(objdump -T "$library" | awk '$NF ~ /^dag_[a-z0-9_]*$/ && $(NF-1) == "(LIBDAG_1)"' | wc -l)
if [ "$exported" -ne "$aliases" ]; then
  echo "$library exports $exported dag_*@LIBDAG_1 aliases, capi/libdag1_compat.ld makes $aliases" \
    "(was it linked by GNU ld?)"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
describe "$library" "$root/include/dag" "$work/current.abi"
status=0
checked=0
for baseline in "$root"/abi/libdag-*.abi; do
  [ -e "$baseline" ] || { echo "no baseline in abi/" >&2; exit 1; }
  release=$(basename "$baseline" .abi)
  python3 "$root/scripts/abi_normalize.py" "$baseline" "$work/current.abi" \
    "$work/$release.old" "$work/$release.new"
  # Exit status bits: 1 error, 2 usage, 4 ABI change, 8 incompatible change.
  # Added functions are left out (--no-added-syms); any other change, even
  # one abidiff leaves to a human (4 without 8), fails.
  set +e
  abidiff --no-added-syms "$work/$release.old" "$work/$release.new" > "$work/$release.diff"
  bits=$?
  set -e
  checked=$((checked + 1))
  if [ "$bits" -ne 0 ]; then
    echo "ABI of $library differs from $release (abidiff exit $bits):"
    cat "$work/$release.diff"
    status=1
  fi
done
[ "$status" -ne 0 ] || echo "ABI check passed: $library against $checked release(s)"
exit "$status"
