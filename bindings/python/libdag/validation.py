"""The result of validating a graph (``dag_validate``)."""

import ctypes
from ctypes import byref

from . import _native
from .errors import call, error_for, in_python_terms, status_name, take_error
from ._owned import copy_ids
from ._native import lib

__all__ = ["Validation"]

# The statuses for which dag_validate() writes its result: the graph was
# checked, and these say what is wrong with it.
_CHECKED = (
    _native.OK,
    _native.E_CYCLE,
    _native.E_NO_ROOT,
    _native.E_MULTIPLE_ROOTS,
    _native.E_INVALID_GRAPH,
)


class Validation:
    """Every problem validation found, as Terraform words them and as data.

    Attributes:
        status: ``0`` for a valid graph; otherwise ``DAG_E_CYCLE`` (a cycle or
            a self reference, whatever else is wrong), ``DAG_E_NO_ROOT`` or
            ``DAG_E_MULTIPLE_ROOTS`` (only the root rule).
        status_name: the library's name for `status`.
        messages: one message per problem, in Terraform 1.16's wording and
            order: the root problem, each cycle (``"Cycle:\\n  a\\n  b"``), each
            self reference (``"Self reference: a"``).
        text: the messages joined with newlines ("" for a valid graph).
        cycles: each cycle as a list of vertex ids, in its message's order.
        self_references: the ids of vertices with an edge to themselves.
        error_message: the error's message (``"Graph.validate: Cycle:..."``),
            "" for a valid graph.
    """

    __slots__ = ("status", "status_name", "messages", "text", "cycles", "self_references", "error_message")

    def __init__(self, status, messages, text, cycles, self_references, error_message):
        self.status = status
        self.status_name = status_name(status)
        self.messages = messages
        self.text = text
        self.cycles = cycles
        self.self_references = self_references
        self.error_message = error_message

    @property
    def ok(self):
        """True when the graph has no problem."""
        return self.status == _native.OK

    def __bool__(self):
        return self.ok

    def raise_for_status(self):
        """Raises the error dag_validate() returned (CycleError, NoRootError, ...); nothing for a valid graph."""
        if not self.ok:
            raise error_for(self.status, self.error_message)

    def __repr__(self):
        if self.ok:
            return "<Validation ok>"
        return f"<Validation {self.status_name}: {self.text!r}>"


def validate(ptr, single_root):
    """Runs dag_validate() on a graph pointer the caller holds for reading."""
    opts = _native.ValidateOptions()
    call(lib.dag_validate_options_init, byref(opts), ctypes.sizeof(opts), who="Graph.validate")
    opts.single_root = 1 if single_root else 0
    out = _native.validation_p()
    err = _native.error_p()
    try:
        try:
            status = lib.dag_validate(ptr, byref(opts), byref(out), byref(err))
        finally:
            message = in_python_terms(take_error(err), "dag_validate", "Graph.validate")
        if status not in _CHECKED or not out:
            raise error_for(status, message or f"Graph.validate: {status_name(status)}")
        return _read(out, message)
    finally:
        lib.dag_validation_free(out)


def _text(data):
    return data.decode("utf-8", "replace") if data is not None else ""


def _read(v, message):
    messages = [_text(lib.dag_validation_message(v, i)) for i in range(lib.dag_validation_message_count(v))]
    count = ctypes.c_size_t()
    cycles = []
    for index in range(lib.dag_validation_cycle_count(v)):
        data = lib.dag_validation_cycle(v, index, byref(count))
        cycles.append(copy_ids(data, count.value))
    data = lib.dag_validation_self_references(v, byref(count))
    self_references = copy_ids(data, count.value)
    return Validation(
        status=lib.dag_validation_status(v),
        messages=messages,
        text=_text(lib.dag_validation_text(v)),
        cycles=cycles,
        self_references=self_references,
        error_message=message,
    )
