"""What every object that owns a C handle does on ``with`` and when collected: close it."""


class Closeable:
    """A mixin for a class with ``close()``: ``with obj:`` closes on the way out; the finaliser
    closes too, silently."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing can be raised from a finaliser
            pass
