#!/usr/bin/env bash
# Installs the built library into a scratch prefix and checks what a consumer
# sees there: headers, soname links, pkg-config, find_package, and exports.
set -euo pipefail
build_dir=$1
source_dir=$2
cc=${3:-cc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build_dir" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libdag.so.1' | head -n 1)")
[ -n "$libdir" ] || { echo "libdag.so.1 not installed"; exit 1; }
[ -L "$libdir/libdag.so" ] || { echo "libdag.so link missing"; exit 1; }
[ -f "$prefix/include/dag/dag.h" ] || { echo "dag/dag.h not installed"; exit 1; }
[ -f "$prefix/share/doc/libdag/LICENSE" ] || { echo "the license is not installed"; exit 1; }

soname=$(readelf -d "$libdir/libdag.so.1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libdag.so.1" ] || { echo "soname is '$soname'"; exit 1; }

foreign=$(nm -D --defined-only "$libdir/libdag.so.1" | awk '$2 != "A" {print $3}' | grep -v '^dag_' || true)
[ -z "$foreign" ] || { echo "symbols exported beyond dag_*:"; echo "$foreign"; exit 1; }

export PKG_CONFIG_PATH=$libdir/pkgconfig
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -pedantic -Werror "$source_dir/examples/hello.c" \
    $(pkg-config --cflags --libs libdag) -o "$work/hello_pc"
LD_LIBRARY_PATH=$libdir "$work/hello_pc" | tee "$work/out_pc"
grep -q '^aws_instance.web$' "$work/out_pc"

cmake -S "$source_dir/examples/find_package" -B "$work/consumer" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$cc" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH=$libdir "$work/consumer/hello" > "$work/out_cmake"
cmp "$work/out_pc" "$work/out_cmake"
# Absolute install directories (GNUInstallDirs allows them; Nix passes them):
# the .pc and the dag program's RPATH must not put the prefix in front again.
cmake -S "$source_dir" -B "$work/absolute" -DDAG_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/opt/libdag \
    -DCMAKE_INSTALL_LIBDIR=/opt/libdag/lib64 -DCMAKE_INSTALL_INCLUDEDIR=/opt/libdag/include \
    -DCMAKE_INSTALL_BINDIR=/opt/libdag/bin >/dev/null
grep -qx 'libdir=${prefix}/lib64' "$work/absolute/libdag.pc" &&
    grep -qx 'includedir=${prefix}/include' "$work/absolute/libdag.pc" ||
    { echo "libdag.pc with absolute install directories:"; cat "$work/absolute/libdag.pc"; exit 1; }
grep -qF 'ORIGIN/../lib64"' "$work/absolute/tools/dag/cmake_install.cmake" ||
    { echo "the dag program's RPATH with absolute install directories:"
      grep -i rpath "$work/absolute/tools/dag/cmake_install.cmake"; exit 1; }
# Meson's .pc is found relative to where it lies, as CMake's is: a prefix
# moved after installing (a relocated package, a bundle) still works.
meson setup "$work/meson" "$source_dir" -Dtests=false --prefix /opt/libdag >/dev/null
head -n 1 "$work/meson/meson-private/libdag.pc" | grep -q '^prefix=${pcfiledir}/' ||
    { echo "Meson's libdag.pc is not relocatable:"; cat "$work/meson/meson-private/libdag.pc"; exit 1; }
echo "install check passed: pkg-config and find_package consumers built and ran"
