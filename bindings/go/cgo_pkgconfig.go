//go:build libdag_pkgconfig

package dag

// With the build tag libdag_pkgconfig, the header and the library come
// from an installed libdag, through its libdag.pc: `go build -tags
// libdag_pkgconfig`. The checkout's include/ is not used, so this also
// works where only bindings/go was copied (go mod vendor).

// #cgo pkg-config: libdag
import "C"
