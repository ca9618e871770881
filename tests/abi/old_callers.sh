#!/usr/bin/env bash
# 1.0 and 1.1 callers keep working on the library just built:
#  - examples/hello.c compiled against the 1.1.0 header (abi/1.1.0/include)
#    and linked against the new library: its old struct layouts;
#  - the same program linked as 1.1.0 linked everything, against a library
#    exporting each function as dag_*@LIBDAG_1 (a stand-in with 1.1.0's exact
#    functions and map, abi/1.1.0/libdag.map): the versions an old binary
#    asks the dynamic linker for.
# Both run on the new library and must print what hello prints.
# Usage: old_callers.sh LIBRARY SOURCE_DIR [CC]
set -euo pipefail
library=$1
source_dir=$2
cc=${3:-cc}
old=$source_dir/abi/1.1.0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
newdir=$(dirname "$library")

# The stand-in 1.1.0 library: every function 1.1.0 declared, as an empty
# definition; only its symbol table matters, it never runs.
mkdir "$work/v1"
sed -n 's/^DAG_API[^(]*[ *]\(dag_[a-z0-9_]*\)(.*/void \1(void) {}/p' "$old/include/dag/dag.h" > "$work/v1/stub.c"
[ "$(wc -l < "$work/v1/stub.c")" -eq "$(grep -c '^DAG_API' "$old/include/dag/dag.h")" ] \
  || { echo "could not read every DAG_API declaration of the 1.1.0 header"; exit 1; }
"$cc" -shared -fPIC -o "$work/v1/libdag.so.1" "$work/v1/stub.c" \
  -Wl,-soname,libdag.so.1 "-Wl,--version-script=$old/libdag.map"
ln -s libdag.so.1 "$work/v1/libdag.so"

"$cc" -std=c99 -Wall -Wextra -pedantic -Werror -I "$old/include" "$source_dir/examples/hello.c" \
  -L "$work/v1" -ldag -o "$work/hello_libdag1"
"$cc" -std=c99 -Wall -Wextra -pedantic -Werror -I "$old/include" "$source_dir/examples/hello.c" \
  -L "$newdir" -ldag -o "$work/hello_1_1_header"

# What each binary asks of libdag: only LIBDAG_1 for the first, only the
# per-release nodes for the second.
versions() { objdump -T "$1" | awk '/ dag_/ {print $(NF-1)}' | sort -u | tr '\n' ' '; }
[ "$(versions "$work/hello_libdag1")" = "(LIBDAG_1) " ] \
  || { echo "the 1.1.0-style binary asks for: $(versions "$work/hello_libdag1")"; exit 1; }
case "$(versions "$work/hello_1_1_header")" in
  *"(LIBDAG_1) "*) echo "a new link asks for the legacy LIBDAG_1 version"; exit 1 ;;
esac

for program in hello_libdag1 hello_1_1_header; do
  echo "--- $program on $library"
  LD_LIBRARY_PATH=$newdir "$work/$program" | tee "$work/$program.out"
  grep -q '^walked: 4 of 4 vertices ok$' "$work/$program.out"
done
cmp "$work/hello_libdag1.out" "$work/hello_1_1_header.out"
echo "1.0 and 1.1 callers ran on the new library"
