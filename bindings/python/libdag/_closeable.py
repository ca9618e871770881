"""What every object that owns a C handle does on ``with`` and when collected: close it."""

from typing import TypeVar

_Self = TypeVar("_Self", bound="Closeable")


class Closeable:
    """A mixin for a class with ``close()``: ``with obj:`` closes on the way out; the finaliser
    closes too, silently; copying and pickling raise TypeError (a Graph copies by cloning)."""

    __slots__ = ()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    # A copy would share the C object and free it a second time.
    def __copy__(self):
        raise TypeError(f"a {type(self).__name__} owns a C object and cannot be copied")

    def __deepcopy__(self, memo):
        raise TypeError(f"a {type(self).__name__} owns a C object and cannot be copied")

    def __reduce__(self):
        raise TypeError(f"a {type(self).__name__} owns a C object and cannot be pickled")

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing can be raised from a finaliser
            pass
