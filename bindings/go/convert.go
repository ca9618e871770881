package dag

// #include <stdlib.h>
// #include <dag/dag.h>
import "C"

import (
	"strings"
	"unsafe"
)

// takeIDs copies an owned dag_ids into a Go slice and frees it. The result
// is never nil, so that an empty answer marshals as [] rather than null.
func takeIDs(ids *C.dag_ids) []uint64 {
	defer C.dag_ids_free(ids)
	return copyIDs(C.dag_ids_data(ids), C.dag_ids_count(ids))
}

// copyIDs copies n ids from C memory; data may be NULL when n is 0.
func copyIDs(data *C.uint64_t, n C.size_t) []uint64 {
	out := make([]uint64, int(n))
	if n > 0 {
		copy(out, unsafe.Slice((*uint64)(unsafe.Pointer(data)), int(n)))
	}
	return out
}

// takeIDLists copies an owned dag_id_lists and frees it.
func takeIDLists(lists *C.dag_id_lists) [][]uint64 {
	defer C.dag_id_lists_free(lists)
	n := int(C.dag_id_lists_count(lists))
	out := make([][]uint64, n)
	for i := range out {
		var count C.size_t
		data := C.dag_id_lists_get(lists, C.size_t(i), &count)
		out[i] = copyIDs(data, count)
	}
	return out
}

// idsArg returns what libdag's (const uint64_t *ids, size_t count)
// parameters want. The pointer is into Go memory, which cgo allows because
// the array holds no Go pointers and libdag does not keep it past the call.
func idsArg(ids []uint64) (*C.uint64_t, C.size_t) {
	if len(ids) == 0 {
		return nil, 0
	}
	return (*C.uint64_t)(unsafe.Pointer(&ids[0])), C.size_t(len(ids))
}

// cString copies s into C memory for a `const char *` parameter; free the
// result with C.free. libdag reads strings up to their NUL, so a Go string
// holding a NUL byte would silently lose its tail: it is refused instead.
func cString(op, what, s string) (*C.char, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, newError(StatusInvalidArgument, op, what+" holds a NUL byte")
	}
	return C.CString(s), nil
}

func freeString(s *C.char) {
	C.free(unsafe.Pointer(s))
}

// cStrings copies names into a single C allocation for a
// `const char *const *` parameter: the pointer array (which cgo's rules
// want in C memory, since it holds pointers) followed by every string's
// bytes and NUL. An empty string becomes a NULL entry when emptyIsNull,
// and "" otherwise. The result is NULL for an empty names; free it with
// freeStrings. A string holding a NUL byte is refused as cString refuses
// one, the message naming it by at(its index).
func cStrings(op string, names []string, emptyIsNull bool, at func(int) string) (**C.char, error) {
	if len(names) == 0 {
		return nil, nil
	}
	textSize := 0
	for i, s := range names {
		if strings.IndexByte(s, 0) >= 0 {
			return nil, newError(StatusInvalidArgument, op, at(i)+" holds a NUL byte")
		}
		if s != "" || !emptyIsNull {
			textSize += len(s) + 1
		}
	}
	arraySize := uintptr(len(names)) * unsafe.Sizeof((*C.char)(nil))
	block := C.malloc(C.size_t(arraySize + uintptr(textSize))) // cgo's malloc never returns NULL
	// Written as integers: a pointer store is a write barrier while the GC
	// marks, which reads the slot's old value, here malloc's leftovers, and
	// aborts the program when they look like a Go heap address.
	pointers := unsafe.Slice((*uintptr)(block), len(names))
	var text []byte
	if textSize > 0 {
		text = unsafe.Slice((*byte)(unsafe.Add(block, arraySize)), textSize)
	}
	offset := 0
	for i, s := range names {
		if s == "" && emptyIsNull {
			pointers[i] = 0
			continue
		}
		pointers[i] = uintptr(unsafe.Pointer(&text[offset]))
		offset += copy(text[offset:], s)
		text[offset] = 0
		offset++
	}
	return (**C.char)(block), nil
}

// freeStrings frees what cStrings returned; NULL is ignored.
func freeStrings(names **C.char) {
	C.free(unsafe.Pointer(names))
}
