"""libdag: dependency graphs with Terraform's semantics, for Python.

A thin, complete layer over libdag's C API (``dag.h``) through ctypes, with
no dependency beyond the standard library::

    import libdag

    with libdag.Graph() as g:
        web = g.add_vertex("aws_instance.web")
        db = g.add_vertex("aws_db_instance.main")
        g.connect(web, db)                      # web depends on db
        g.validate().raise_for_status()
        report = g.walk(lambda v: print("apply", g.name(v)))
        assert report.ok

Set ``LIBDAG_PATH`` to the full path of ``libdag.so.1`` to choose the
library; otherwise the system's search finds it.
"""

from . import _native
from . import errors
from .errors import *  # noqa: F401,F403 (every error class, listed in errors.__all__)
from .build import Action, Builder, BuildStep
from .formats import Format
from .graph import Graph
from .traversal import Search, Visit
from .validation import Validation
from .walk import PENDING, SubwalkVertex, VertexResult, VertexStatus, WalkEvent, Walker, WalkReport
from .pull import PullWalker
from .schedule import Schedule
from .update import WalkUpdate
from . import aio, executor, types

__version__ = "1.3.0"

#: The loaded library's version string ("1.3.0").
library_version = _native.lib.dag_version_string().decode()

#: The loaded library's version as MAJOR*10000 + MINOR*100 + PATCH.
library_version_number = _native.lib.dag_version()

#: The path or name the library was loaded from.
library_path = _native.path

__all__ = [
    "Graph",
    "Builder",
    "Action",
    "BuildStep",
    "Validation",
    "Format",
    "Search",
    "Visit",
    "Walker",
    "PullWalker",
    "WalkUpdate",
    "Schedule",
    "SubwalkVertex",
    "WalkReport",
    "VertexResult",
    "VertexStatus",
    "WalkEvent",
    "PENDING",
    "library_version",
    "library_version_number",
    "library_path",
] + errors.__all__
