"""The text forms a graph is written in and read from (``dag_format``)."""

import enum

from . import _native
from .errors import InvalidArgumentError
from ._native import lib

__all__ = ["Format"]


class Format(enum.IntEnum):
    """A text form of a graph; the values are the C ``dag_format`` values.

    - ``TEXT``: Terraform's ``String()`` layout (export only).
    - ``DOT``: Graphviz, in ``terraform graph``'s layout, cycles in red.
    - ``MERMAID``: a Mermaid ``flowchart TD`` (export only).
    - ``JSON``: libdag's own form, which round-trips ids, names and edges exactly.
    - ``AUTO`` (import only): JSON when the text starts with ``{``, DOT otherwise.
    """

    AUTO = 0
    TEXT = 1
    DOT = 2
    MERMAID = 3
    JSON = 4

    @property
    def label(self):
        """The library's name for the format ("dot")."""
        return lib.dag_format_name(self.value).decode()


def to_format(fmt, who):
    """A C format value from a Format, its name ("json", any case) or a raw int.

    A raw int is passed through unchecked, so that the library reports a
    value it does not know.

    Raises:
        InvalidArgumentError: an unknown format name.
        TypeError: neither a str nor an int.
    """
    if isinstance(fmt, str):
        try:
            return Format[fmt.strip().upper()].value
        except KeyError:
            names = ", ".join(repr(f.name.lower()) for f in Format)
            raise InvalidArgumentError(
                _native.E_INVALID_ARGUMENT, f"{who}: unknown format {fmt!r} (one of {names})"
            ) from None
    if hasattr(fmt, "__index__") and not isinstance(fmt, bool):
        value = fmt.__index__()
        if not -(1 << 31) <= value < (1 << 31):  # ctypes would wrap it into some other int
            raise InvalidArgumentError(_native.E_INVALID_ARGUMENT, f"{who}: format {value} is not a dag_format")
        return value
    raise TypeError(f"{who}: a format is a Format or its name, not {type(fmt).__name__}")
