"""A PEP 517 build backend for this package that needs only the standard library.

pip builds a project in an isolated environment into which it installs the
backend's requirements; setuptools would have to be downloaded there, so an
offline ``pip install ./bindings/python`` would fail. The package is pure
Python (it loads libdag.so.1 at import), so its wheel is a zip of
``libdag/`` plus the metadata files the wheel format (PEP 427) asks for,
which is all this writes. The metadata comes from pyproject.toml's
``[project]`` table.
"""

import base64
import hashlib
import io
import os
import pathlib
import re
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "libdag"


def _project():
    """The [project] table's string fields (name, version, description, requires-python)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^([\w-]+) = "([^"]*)"$', table, re.M))


def _metadata(project):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {project['name']}\n"
        f"Version: {project['version']}\n"
        f"Summary: {project['description']}\n"
        f"Requires-Python: {project['requires-python']}\n"
        "Description-Content-Type: text/markdown\n"
        f"\n{readme}"
    )


def _files():
    """(path in the archive, bytes) of the package: its modules and py.typed."""
    for path in sorted((ROOT / PACKAGE).iterdir()):
        if path.suffix == ".py" or path.name == "py.typed":
            yield f"{PACKAGE}/{path.name}", path.read_bytes()


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def _dist_info(project):
    return f"{project['name']}-{project['version']}.dist-info"


def _write_wheel(wheel_directory, editable):
    project = _project()
    dist_info = _dist_info(project)
    name = f"{project['name']}-{project['version']}-py3-none-any.whl"
    if editable:
        # A .pth file puts this directory on sys.path (PEP 660's simplest form).
        entries = [(f"__editable__.{project['name']}.pth", f"{ROOT}\n".encode())]
    else:
        entries = list(_files())
    entries += [
        (f"{dist_info}/METADATA", _metadata(project).encode()),
        (f"{dist_info}/WHEEL",
         b"Wheel-Version: 1.0\nGenerator: libdag wheel_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join(_record_line(n, d) for n, d in entries) + f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for entry, data in entries:
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data, zipfile.ZIP_DEFLATED)
    return name


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    project = _project()
    base = f"{project['name']}-{project['version']}"
    name = f"{base}.tar.gz"
    sources = list(_files()) + [
        (path, (ROOT / path).read_bytes()) for path in ("pyproject.toml", "README.md", "backend/wheel_backend.py")
    ]
    sources.append(("PKG-INFO", _metadata(project).encode()))
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as sdist:
        for path, data in sources:
            info = tarfile.TarInfo(f"{base}/{path}")
            info.size = len(data)
            info.mode = 0o644
            sdist.addfile(info, io.BytesIO(data))
    return name
