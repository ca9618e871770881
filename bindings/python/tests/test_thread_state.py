"""Walk callbacks keep one Python thread state per pool thread."""

import threading
import unittest
import weakref

import libdag


class Token:
    """Something a threading.local can hold and a weak reference can watch."""


class ThreadStateTest(unittest.TestCase):
    def test_threading_local_survives_from_one_callback_to_the_next(self):
        g = libdag.Graph()
        g.add_vertices([None] * 300)
        local = threading.local()
        lock = threading.Lock()
        per_thread = {}  # thread ident -> callbacks it ran
        seen = {}  # thread ident -> the local's count in its last callback
        tokens = []

        def callback(vertex):
            if not hasattr(local, "count"):
                local.count = 0
                local.token = Token()
                with lock:
                    tokens.append(weakref.ref(local.token))
            local.count += 1
            me = threading.get_ident()
            with lock:
                per_thread[me] = per_thread.get(me, 0) + 1
                seen[me] = local.count

        report = g.walk(callback, parallelism=2)
        self.assertTrue(report.ok)
        self.assertEqual(sum(per_thread.values()), 300)
        self.assertEqual(seen, per_thread)
        self.assertEqual(len(tokens), len(per_thread))
        # Each pool thread's state is dropped as the pool ends, with what it held.
        self.assertEqual([ref() for ref in tokens], [None] * len(tokens))


if __name__ == "__main__":
    unittest.main()
