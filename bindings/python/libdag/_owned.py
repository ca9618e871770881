"""Turning the library's owned results into Python values, freeing them always.

Each helper calls a C function that hands out an owned object, copies it
into plain Python values and frees it, also when the copy fails, so no
result object outlives the call that made it.
"""

import array
import ctypes
import operator
from ctypes import byref

from . import _native
from .errors import InvalidArgumentError, UnknownVertexError, call
from ._native import lib

_UINT64_LIMIT = 1 << 64


def copy_ids(data, count):
    """A list of `count` uint64_t values at `data` (a NULL `data` gives [])."""
    if not count or not data:
        return []
    return data[:count]


def ids_result(fn, *args, who):
    """Calls ``fn(*args, dag_ids **out, dag_error **err)``; returns the ids as a list."""
    out = _native.ids_p()
    try:
        call(fn, *args, byref(out), who=who)
        return copy_ids(lib.dag_ids_data(out), lib.dag_ids_count(out))
    finally:
        lib.dag_ids_free(out)


def id_lists_result(fn, *args, who):
    """Calls ``fn(*args, dag_id_lists **out, dag_error **err)``; returns a list of id lists."""
    out = _native.id_lists_p()
    try:
        call(fn, *args, byref(out), who=who)
        lists = []
        count = ctypes.c_size_t()
        for index in range(lib.dag_id_lists_count(out)):
            data = lib.dag_id_lists_get(out, index, byref(count))
            lists.append(copy_ids(data, count.value))
        return lists
    finally:
        lib.dag_id_lists_free(out)


def string_result(fn, *args, who):
    """Calls ``fn(*args, char **out, dag_error **err)``; returns the string, decoded from UTF-8."""
    out = ctypes.c_void_p()
    try:
        call(fn, *args, byref(out), who=who)
        return ctypes.string_at(out.value).decode("utf-8")
    finally:
        lib.dag_string_free(out)


def vertex_id(value, who):
    """Checks that `value` is an int a uint64_t can hold, so ctypes cannot wrap it around.

    Raises:
        TypeError: `value` is not an integer.
        UnknownVertexError: it is negative or 2**64 or more; no vertex has such an id.
    """
    if isinstance(value, bool):
        # An int to Python, but True is a flag passed where an id goes, not vertex 1.
        raise TypeError(f"{who}: a vertex id is an int, not bool")
    try:
        value = value.__index__()
    except AttributeError:
        raise TypeError(f"{who}: a vertex id is an int, not {type(value).__name__}") from None
    if not 0 <= value < _UINT64_LIMIT:
        raise UnknownVertexError(_native.E_UNKNOWN_VERTEX, f"{who}: {value} is not a vertex id")
    return value


def id_array(values, who):
    """Packs an int or an iterable of ints into a C uint64_t array; returns (array, count).

    Raises:
        TypeError: an element is not an integer.
        UnknownVertexError: an element is outside the uint64_t range.
    """
    if hasattr(values, "__index__"):
        values = (values,)
    elif not isinstance(values, (list, tuple)):
        values = list(values)  # read once: the error path below reads it again
    if any(isinstance(v, bool) for v in values):
        raise TypeError(f"{who}: vertex ids must be ints, not bool")
    try:
        packed = array.array("Q", values)
    except OverflowError:
        bad = next(operator.index(v) for v in values if not 0 <= operator.index(v) < _UINT64_LIMIT)
        raise UnknownVertexError(_native.E_UNKNOWN_VERTEX, f"{who}: {bad} is not a vertex id") from None
    except TypeError as exc:
        raise TypeError(f"{who}: vertex ids must be ints ({exc})") from None
    count = len(packed)
    if count == 0:
        return None, 0
    return (ctypes.c_uint64 * count).from_buffer(packed), count


def encode_name(name, who, allow_none=True):
    """The bytes to pass to C for a vertex name (str as UTF-8; bytes as given; None for NULL).

    A str holding lone surrogates is encoded with them, so that the library
    refuses it as bad UTF-8 just as it refuses such bytes.

    Raises:
        TypeError: `name` is not str, bytes (or None where allowed).
        InvalidArgumentError: it holds a NUL character, which C would cut the name at.
    """
    if name is None and allow_none:
        return None
    if isinstance(name, str):
        data = name.encode("utf-8", "surrogatepass")
    elif isinstance(name, (bytes, bytearray)):
        data = bytes(name)
    else:
        expected = "str, bytes or None" if allow_none else "str or bytes"
        raise TypeError(f"{who}: a name is {expected}, not {type(name).__name__}")
    if b"\0" in data:
        raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: a name cannot hold a NUL character")
    return data


def decode_name(data):
    """A vertex name from C (UTF-8 bytes, or None for an unnamed vertex)."""
    return None if data is None else data.decode("utf-8")
