#!/usr/bin/env bash
# Builds and tests the Go binding against a built libdag.
#
#   bash bindings/go/test.sh LIBDIR BUILDDIR
#
# LIBDIR   the directory holding libdag.so and libdag.so.1 (a CMake build
#          directory such as build/, or an installed lib/ directory).
# BUILDDIR scratch directory for Go's build cache and GOPATH; created if
#          missing. Nothing is written into the source tree.
#
# Runs gofmt (check only), go vet, go test, go test -race where the Go
# toolchain has a race detector for this platform (DAG_GO_RACE=0 skips it),
# and consumer.sh: a program outside the repository that depends on the
# module as README.md says. Exits non-zero when any step fails.
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: bash $0 LIBDIR BUILDDIR" >&2
    exit 2
fi
libdir=$(cd "$1" && pwd)
mkdir -p "$2"
builddir=$(cd "$2" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

if [[ ! -e "$libdir/libdag.so" ]]; then
    echo "test.sh: no libdag.so in $libdir" >&2
    exit 2
fi

# Debian's golang-go puts go on PATH; a bare golang-1.19-go install does not.
if command -v go >/dev/null 2>&1; then
    go=$(command -v go)
elif [[ -x /usr/lib/go-1.19/bin/go ]]; then
    go=/usr/lib/go-1.19/bin/go
else
    echo "test.sh: no go toolchain found (PATH, /usr/lib/go-1.19/bin)" >&2
    exit 2
fi

# The package links -ldag from the checkout's build/ unless told otherwise;
# LIBDIR comes first from here at link time and from LD_LIBRARY_PATH at
# run time. No module proxy is reachable and the
# module has no requirements, so the network is switched off outright.
export CGO_ENABLED=1
export CGO_LDFLAGS="-L$libdir"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GOCACHE="$builddir/gocache"
export GOPATH="$builddir/gopath"
export GOFLAGS=-mod=mod
export GOPROXY=off
export GOTOOLCHAIN=local

cd "$here"
echo "== $("$go" version), libdag from $libdir"

gofmt="$("$go" env GOROOT)/bin/gofmt"
unformatted=$("$gofmt" -l .)
if [[ -n "$unformatted" ]]; then
    echo "test.sh: not gofmt-formatted:" >&2
    echo "$unformatted" >&2
    exit 1
fi

echo "== go vet ./..."
"$go" vet ./...

echo "== go test -count=1 ./..."
"$go" test -count=1 ./...

race_runtime="$("$go" env GOROOT)/src/runtime/race/race_$("$go" env GOOS)_$("$go" env GOARCH).syso"
if [[ "${DAG_GO_RACE:-1}" != 0 && -e "$race_runtime" ]]; then
    echo "== go test -race -count=1 ./..."
    "$go" test -race -count=1 ./...
else
    echo "== go test -race skipped (DAG_GO_RACE=0 or no race detector for this platform)"
fi

if command -v pkg-config >/dev/null 2>&1; then
    echo "== consumer.sh: a program outside the repository (replace, go.work, pkg-config, go mod vendor)"
    bash "$here/consumer.sh" "$libdir" "$go"
else
    echo "test.sh: pkg-config is needed for the consumer check" >&2
    exit 2
fi
