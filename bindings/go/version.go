package dag

// #include <dag/dag.h>
import "C"

// Version returns the version of the libdag library loaded at run time
// ("1.3.0"), which may differ from the header the package was built with.
func Version() string {
	return C.GoString(C.dag_version_string())
}

// VersionNumber returns the loaded library's version as major*10000 +
// minor*100 + patch (10300 for 1.3.0), for comparisons such as "at least
// 1.2".
func VersionNumber() int {
	return int(C.dag_version())
}
