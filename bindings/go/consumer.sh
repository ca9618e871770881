#!/usr/bin/env bash
# Builds and runs a Go program outside the repository that depends on this
# module the ways README.md documents, offline:
#
#   1. a `replace` directive to the checkout, libdag found through
#      CGO_LDFLAGS=-L (the build tree's default, build/, may not be LIBDIR);
#   2. a go.work workspace holding the program and the checkout;
#   3. the same replace with `-tags libdag_pkgconfig` and nothing but a
#      libdag.pc on PKG_CONFIG_PATH (no CGO_LDFLAGS, no LD_LIBRARY_PATH at
#      build time);
#   4. as 3, after `go mod vendor` (which copies bindings/go, not the
#      checkout's include/), built from vendor/;
#
# each then run. Called by test.sh with the Go environment set; exits
# non-zero when a build or run fails or prints the wrong thing.
set -euo pipefail

libdir=$1
go=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

write_program() {
    mkdir -p "$1"
    cat >"$1/main.go" <<'GO'
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	dag "libdag/bindings/go"
)

var errDown = errors.New("database is down")

func main() {
	g, err := dag.New()
	if err != nil {
		panic(err)
	}
	defer g.Close()
	app, _ := g.AddVertex("app")
	db, _ := g.AddVertex("db")
	if err := g.Connect(app, db); err != nil {
		panic(err)
	}
	report, err := dag.Walk(context.Background(), g, func(ctx context.Context, v dag.Vertex) error {
		if v.ID == db {
			return errDown
		}
		return nil
	}, dag.WalkOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(report.Err(), errors.Is(report.Err(), errDown))
	os.Exit(0)
}
GO
}

expect="vertex db failed: database is down true"

check_output() {
    if [[ "$2" != "$expect" ]]; then
        echo "consumer.sh: $1 printed '$2', want '$expect'" >&2
        exit 1
    fi
    echo "   $1: ok"
}

# 1. replace
write_program "$work/replace"
cat >"$work/replace/go.mod" <<MOD
module example.com/deploy

go 1.19

require libdag/bindings/go v0.0.0

replace libdag/bindings/go => $here
MOD
(cd "$work/replace" && "$go" build -o deploy . && check_output replace "$(./deploy)")

# 2. go.work
write_program "$work/workspace/deploy"
cat >"$work/workspace/deploy/go.mod" <<MOD
module example.com/deploy

go 1.19
MOD
(cd "$work/workspace" && "$go" work init ./deploy "$here" && cd deploy &&
    GOFLAGS= "$go" build -o deploy . && check_output go.work "$(./deploy)")

# 3. pkg-config
mkdir -p "$work/pc"
cat >"$work/pc/libdag.pc" <<PC
libdir=$libdir
includedir=$root/include

Name: libdag
Description: libdag for the Go consumer check
Version: 0
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -ldag
Cflags: -I\${includedir}
PC
(cd "$work/replace" && env -u CGO_LDFLAGS -u LD_LIBRARY_PATH PKG_CONFIG_PATH="$work/pc" \
    "$go" build -tags libdag_pkgconfig -o deploy-pc . &&
    check_output pkg-config "$(env -u LD_LIBRARY_PATH ./deploy-pc)")

# 4. go mod vendor, then pkg-config
cp -r "$work/replace" "$work/vendored"
(cd "$work/vendored" && rm -f deploy deploy-pc && "$go" mod vendor &&
    env -u CGO_LDFLAGS -u LD_LIBRARY_PATH PKG_CONFIG_PATH="$work/pc" \
        GOFLAGS=-mod=vendor "$go" build -tags libdag_pkgconfig -o deploy-vendored . &&
    check_output "go mod vendor + pkg-config" "$(env -u LD_LIBRARY_PATH ./deploy-vendored)")
