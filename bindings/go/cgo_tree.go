//go:build !libdag_pkgconfig

package dag

// The default build takes libdag from the checkout this package sits in
// (bindings/go is two levels below the root): the header from include/,
// the library from build/, where the project's README builds it, with an
// rpath to it so that programs run without LD_LIBRARY_PATH. A library
// elsewhere is named in the environment, ahead of build/:
//
//	CGO_LDFLAGS=-L/path/to/dir/of/libdag.so
//
// An installed libdag is found through pkg-config with the build tag
// libdag_pkgconfig instead (cgo_pkgconfig.go): that makes pkg-config and
// libdag.pc mandatory, so it is not the default.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: -L${SRCDIR}/../../build -Wl,-rpath,${SRCDIR}/../../build -ldag
import "C"
