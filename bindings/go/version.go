package dag

// #include <dag/dag.h>
import "C"

// Version returns the version of the libdag library loaded at run time
// ("1.2.0"), which may differ from the header the package was built with.
func Version() string {
	return C.GoString(C.dag_version_string())
}
