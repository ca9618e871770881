package dag

// The header comes from the repository (bindings/go sits two levels below
// the root), so a checkout builds without installing libdag first.
//
// Only -ldag is named here, not where libdag.so lives: the directory differs
// between a build tree, /usr/local and a distribution, and a `#cgo
// pkg-config: libdag` line would make pkg-config (and an installed
// libdag.pc) mandatory for every build. The caller says where the library is
// through the environment instead:
//
//	CGO_LDFLAGS=-L/path/to/dir/of/libdag.so
//
// and, unless the library is on the loader's default path, LD_LIBRARY_PATH
// (or -Wl,-rpath in CGO_LDFLAGS) at run time. For an installed libdag,
// CGO_CFLAGS="$(pkg-config --cflags libdag)" and
// CGO_LDFLAGS="$(pkg-config --libs libdag)" give the same result.

// #cgo CFLAGS: -I${SRCDIR}/../../include
// #cgo LDFLAGS: -ldag
import "C"
