#!/usr/bin/env bash
# Installs the built library into a scratch prefix and checks what a consumer
# sees there: headers, soname links, pkg-config, find_package, and exports.
set -euo pipefail
build_dir=$1
source_dir=$(cd "$2" && pwd)
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
# By default the .pc names the prefix it was installed into (--prefix, given
# at install time), so pkg-config can drop system directories.
if grep -qx 'DAG_PKGCONFIG_RELOCATABLE:BOOL=ON' "$build_dir/CMakeCache.txt"; then
    expected_prefix='prefix=${pcfiledir}/*'
else
    expected_prefix="prefix=$prefix"
fi
# shellcheck disable=SC2053
[[ $(head -n 1 "$libdir/pkgconfig/libdag.pc") == $expected_prefix ]] ||
    { echo "libdag.pc does not say $expected_prefix:"; cat "$libdir/pkgconfig/libdag.pc"; exit 1; }
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
# Built inside another project (add_subdirectory; FetchContent does the
# same): the library alone, linked as libdag::dag, and none of libdag's other
# targets (its example "hello" would clash with the embedder's).
cmake -S "$source_dir/examples/add_subdirectory" -B "$work/embedded" -DLIBDAG_SOURCE_DIR="$source_dir" \
    -DCMAKE_C_COMPILER="$cc" >"$work/embedded.log" 2>&1 || { cat "$work/embedded.log"; exit 1; }
for part in tools tests examples docs; do
    [ ! -e "$work/embedded/libdag/$part" ] || { echo "libdag inside another project configured its $part"; exit 1; }
done
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
# Install directories outside the prefix (Nix's split outputs): named as
# they are, even when a relocatable .pc is asked for (it cannot find them
# from its own place).
cmake -S "$source_dir" -B "$work/outside" -DDAG_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/opt/libdag \
    -DCMAKE_INSTALL_LIBDIR=/nix/store/x-libdag/lib -DCMAKE_INSTALL_INCLUDEDIR=/nix/store/x-libdag-dev/include \
    -DDAG_PKGCONFIG_RELOCATABLE=ON >"$work/outside.log" 2>&1 || { cat "$work/outside.log"; exit 1; }
grep -qx 'libdir=/nix/store/x-libdag/lib' "$work/outside/libdag.pc" &&
    grep -qx 'includedir=/nix/store/x-libdag-dev/include' "$work/outside/libdag.pc" ||
    { echo "libdag.pc with install directories outside the prefix:"; cat "$work/outside/libdag.pc"; exit 1; }
# DAG_PKGCONFIG_RELOCATABLE=ON: the .pc finds the prefix from its own place,
# so a prefix moved after installing still works. Made for this build's
# LIBDIR, put into the installed prefix, and read from a moved copy of it.
build_libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
cmake -S "$source_dir" -B "$work/relocatable" -DDAG_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/opt/libdag \
    -DCMAKE_INSTALL_LIBDIR="$build_libdir" -DDAG_PKGCONFIG_RELOCATABLE=ON >/dev/null
head -n 1 "$work/relocatable/libdag.pc" | grep -q '^prefix=${pcfiledir}/' ||
    { echo "libdag.pc with DAG_PKGCONFIG_RELOCATABLE=ON is not relocatable:"; cat "$work/relocatable/libdag.pc"; exit 1; }
cp "$work/relocatable/libdag.pc" "$libdir/pkgconfig/libdag.pc"
mv "$prefix" "$work/moved"
moved_libdir=$work/moved/${libdir#"$prefix"/}
# shellcheck disable=SC2046
PKG_CONFIG_PATH=$moved_libdir/pkgconfig "$cc" -std=c99 -Wall -Wextra -pedantic -Werror \
    "$source_dir/examples/hello.c" $(PKG_CONFIG_PATH=$moved_libdir/pkgconfig pkg-config --cflags --libs libdag) \
    -o "$work/hello_moved"
LD_LIBRARY_PATH=$moved_libdir "$work/hello_moved" > "$work/out_moved"
cmp "$work/out_pc" "$work/out_moved"
# Meson's .pc: absolute by default, as CMake's, relative to where it lies
# with -Dpkgconfig.relocatable=true. Checked where Meson is installed.
if command -v meson >/dev/null 2>&1; then
    meson setup "$work/meson" "$source_dir" -Dtests=false --prefix /opt/libdag >/dev/null
    head -n 1 "$work/meson/meson-private/libdag.pc" | grep -qx 'prefix=/opt/libdag' ||
        { echo "Meson's default libdag.pc does not name its prefix:"; cat "$work/meson/meson-private/libdag.pc"; exit 1; }
    meson setup "$work/meson-relocatable" "$source_dir" -Dtests=false --prefix /opt/libdag \
        -Dpkgconfig.relocatable=true >/dev/null
    head -n 1 "$work/meson-relocatable/meson-private/libdag.pc" | grep -q '^prefix=${pcfiledir}/' ||
        { echo "Meson's libdag.pc is not relocatable:"; cat "$work/meson-relocatable/meson-private/libdag.pc"; exit 1; }
    # A subproject: the library alone unless its options ask for more.
    embedder=$work/meson-embedder
    mkdir -p "$embedder/subprojects"
    ln -s "$source_dir" "$embedder/subprojects/libdag"
    cp "$source_dir/examples/hello.c" "$embedder/"
    printf '%s\n' "project('embedder', 'c')" \
        "executable('hello', 'hello.c', dependencies: dependency('libdag', fallback: ['libdag', 'libdag_dep']))" \
        > "$embedder/meson.build"
    for options in "" "-Dlibdag:cli=true"; do
        rm -rf "$embedder/build"
        # shellcheck disable=SC2086
        meson setup "$embedder/build" "$embedder" --force-fallback-for=libdag $options >"$work/embedder.log" 2>&1 ||
            { cat "$work/embedder.log"; exit 1; }
        programs=$(meson introspect "$embedder/build" --targets |
            python3 -c 'import json, sys; print(" ".join(sorted(t["name"] for t in json.load(sys.stdin) if t["type"] == "executable")))')
        expected="hello"
        [ -z "$options" ] || expected="dag hello"
        [ "$programs" = "$expected" ] ||
            { echo "libdag as a Meson subproject ($options) builds the programs '$programs', not '$expected'"; exit 1; }
    done
else
    echo "meson not found: Meson's libdag.pc not checked (the CMake install was)"
fi
echo "install check passed: pkg-config and find_package consumers built and ran"
