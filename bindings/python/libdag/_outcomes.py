"""A walk report's vertex outcomes, read from C in one copy and turned into objects on demand.

A report of 10^5 vertices would otherwise cost several microseconds a
vertex in object creation and garbage collection before the caller looks
at any of them; most callers read the totals and a few failed vertices.
"""

import array
import bisect
import ctypes
import operator
import struct
from collections.abc import Mapping

# dag_vertex_outcome as struct lays it out: vertex, status, ran, start_ns,
# end_ns, message address (native sizes and alignment, as ctypes has them).
OUTCOME = struct.Struct("@QiiqqP")
# Where pointers are 8 bytes, the struct is 5 words (id word 0, message word
# 4), read with array slicing at C speed; elsewhere field by field.
_WORDS = 5 if OUTCOME.size == 40 and struct.calcsize("P") == 8 else 0


class Outcomes(Mapping):
    """Read-only mapping of vertex id to VertexResult, ascending ids, built as each is asked for."""

    __slots__ = ("_data", "_ids", "_texts", "_exceptions", "_make", "_made")

    def __init__(self, buffer, count, exceptions, make):
        """`buffer`: `count` dag_vertex_outcome structs, ascending ids, whose messages are still valid.

        `make(vertex, status, message, start_ns, end_ns, ran, exception)` builds one result.
        """
        self._data = ctypes.string_at(buffer, count * OUTCOME.size)
        if _WORDS:
            words = memoryview(self._data).cast("Q")
            self._ids = array.array("Q", words[0::_WORDS])
            addresses = set(words[4::_WORDS])
        else:
            self._ids = array.array("Q", (outcome[0] for outcome in OUTCOME.iter_unpack(self._data)))
            addresses = {outcome[5] for outcome in OUTCOME.iter_unpack(self._data)}
        # The report owns the messages and is freed after this: copy each distinct one now.
        self._texts = {address: _text(address) for address in addresses}
        self._exceptions = exceptions
        self._make = make
        self._made = {}

    def _index(self, vertex):
        if type(vertex) is not int:
            if isinstance(vertex, bool) or not hasattr(vertex, "__index__") or hasattr(vertex, "walk"):
                # True is a flag, a SubwalkVertex an id in a sub-graph: neither is
                # a vertex of the walk (they read as vertex 1, or the graph's own).
                raise KeyError(vertex)
            # An integer of another type (numpy's), as the graph's calls take it.
            vertex = operator.index(vertex)
        index = bisect.bisect_left(self._ids, vertex)
        if index == len(self._ids) or self._ids[index] != vertex:
            raise KeyError(vertex)
        return index

    def _result(self, index):
        result = self._made.get(index)
        if result is None:
            vertex, status, ran, start_ns, end_ns, address = OUTCOME.unpack_from(self._data, index * OUTCOME.size)
            result = self._made[index] = self._make(vertex, status, self._texts[address], start_ns, end_ns,
                                                    ran != 0, self._exceptions.get(vertex))
        return result

    def __getitem__(self, vertex):
        return self._result(self._index(vertex))

    def __contains__(self, vertex):
        try:
            self._index(vertex)
        except KeyError:
            return False
        return True

    def __iter__(self):
        return iter(self._ids)

    def __len__(self):
        return len(self._ids)

    def values(self):
        return [self._result(index) for index in range(len(self._ids))]

    def items(self):
        return list(zip(self._ids, self.values()))

    def statuses(self):
        """(vertex id, status number) pairs, ascending ids, without building results."""
        for vertex, status, *_ in OUTCOME.iter_unpack(self._data):
            yield vertex, status


def _text(address):
    return ctypes.string_at(address).decode("utf-8", "replace") if address else ""
